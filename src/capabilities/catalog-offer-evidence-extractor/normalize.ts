/**
 * Value normalization for offers: prices as exact decimal strings (never binary floats),
 * ISO 4217 currencies, schema.org enumeration IRIs, GTIN check digits and ISO 8601 dates.
 * All functions are pure, regex-light and linear in their input.
 */
import { SCHEMA_ORG_ENUMERATIONS } from './schemaorg-types.js';

export type PriceStatus = 'ok' | 'zero' | 'negative' | 'empty' | 'invalid';

export interface NormalizedPrice {
  /** Plain decimal: `-?digits(.digits)?`, scale as written; null when no number could be read. */
  normalized: string | null;
  status: PriceStatus;
  /** ISO 4217 code suggested by a symbol or code written inside the price text. */
  currencyHint: string | null;
  flags: string[];
}

function isDigitCode(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function allDigits(s: string): boolean {
  if (s.length === 0) return false;
  for (let i = 0; i < s.length; i++) if (!isDigitCode(s.charCodeAt(i))) return false;
  return true;
}

function isUnicodeSpace(c: number): boolean {
  return (
    c === 0x20 ||
    (c >= 0x09 && c <= 0x0d) ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200b) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

/** Trim any Unicode white space (no regex). */
export function trimAll(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && isUnicodeSpace(s.charCodeAt(a))) a++;
  while (b > a && isUnicodeSpace(s.charCodeAt(b - 1))) b--;
  return a === 0 && b === s.length ? s : s.slice(a, b);
}

function stripLeadingZeros(intPart: string): string {
  let k = 0;
  while (k < intPart.length - 1 && intPart.charCodeAt(k) === 0x30) k++;
  return intPart.slice(k);
}

const MAX_EXPONENT = 60;

/**
 * The exact decimal value of a JSON number token, as a plain decimal string that keeps the
 * written scale (`1.10` → "1.10", `1.5e2` → "150", `125e-2` → "1.25"). Null when the exponent
 * is outside ±60 (such a price or GTIN is nonsense and expanding it would cost memory).
 */
export function expandNumberToken(raw: string): { sign: '' | '-'; int: string; frac: string } | null {
  let i = 0;
  let sign: '' | '-' = '';
  if (raw[0] === '-' || raw[0] === '+') {
    if (raw[0] === '-') sign = '-';
    i = 1;
  }
  const eIdx = Math.max(raw.indexOf('e', i), raw.indexOf('E', i));
  const mant = eIdx === -1 ? raw.slice(i) : raw.slice(i, eIdx);
  let exp = 0;
  if (eIdx !== -1) {
    const es = raw.slice(eIdx + 1);
    const body = es[0] === '+' || es[0] === '-' ? es.slice(1) : es;
    if (!allDigits(body)) return null;
    const trimmed = body.replace(/^0+(?=\d)/, '');
    if (trimmed.length > 3) return null;
    exp = Number(trimmed) * (es[0] === '-' ? -1 : 1);
    if (Math.abs(exp) > MAX_EXPONENT) return null;
  }
  const dot = mant.indexOf('.');
  const intDigits = dot === -1 ? mant : mant.slice(0, dot);
  const fracDigits = dot === -1 ? '' : mant.slice(dot + 1);
  if ((intDigits !== '' && !allDigits(intDigits)) || (fracDigits !== '' && !allDigits(fracDigits))) return null;
  if (intDigits === '' && fracDigits === '') return null;
  const digits = intDigits + fracDigits;
  const point = intDigits.length + exp;
  let int: string;
  let frac: string;
  if (point <= 0) {
    int = '0';
    frac = '0'.repeat(-point) + digits;
  } else if (point >= digits.length) {
    int = digits + '0'.repeat(point - digits.length);
    frac = '';
  } else {
    int = digits.slice(0, point);
    frac = digits.slice(point);
  }
  return { sign, int: stripLeadingZeros(int === '' ? '0' : int), frac };
}

function finish(
  sign: '' | '-',
  int: string,
  frac: string,
  flags: string[],
  currencyHint: string | null,
): NormalizedPrice {
  const isZero = /^0*$/.test(int) && /^0*$/.test(frac);
  const normalized = (isZero ? '' : sign) + int + (frac.length ? '.' + frac : '');
  if (isZero) {
    if (sign === '-') flags.push('negative_zero');
    flags.push('zero_price');
    return { normalized, status: 'zero', currencyHint, flags };
  }
  if (sign === '-') {
    flags.push('negative_price');
    return { normalized, status: 'negative', currencyHint, flags };
  }
  return { normalized, status: 'ok', currencyHint, flags };
}

/** A price given as a JSON number: its token text is exact, so only the exponent form needs work. */
export function normalizePriceNumber(raw: string): NormalizedPrice {
  const flags: string[] = [];
  const x = raw.length > 100 ? null : expandNumberToken(raw);
  if (!x) return { normalized: null, status: 'invalid', currencyHint: null, flags: ['number_out_of_range'] };
  if (/[eE]/.test(raw)) flags.push('exponent_expanded');
  if (raw[0] === '+') flags.push('leading_plus_removed');
  return finish(x.sign, x.int, x.frac, flags, null);
}

const FREE_WORDS = new Set(['free', 'gratis', 'kostenlos', 'gratuit', 'gratuito', 'gratuita']);
/** The form schema.org asks for: digits, optionally `.` and more digits. */
const PLAIN_DECIMAL = /^[0-9]{1,30}(\.[0-9]{1,30})?$/;
const ALL_ZEROS = /^0+$/;
/** ",-" / ".-" / ".–" after the number: "no cents" (`12,-` is 12). */
const DASH_FOR_CENTS = /^[.,][-\u2013\u2014]/;

/**
 * A price given as text. schema.org wants `.` as decimal separator and no currency symbol;
 * anything else is repaired only when the reading is certain or the usual one, and flagged.
 *  - "1,299.00" → "1299.00" (thousands_separator_removed)
 *  - "1.299,00" → "1299.00" (decimal_comma_inferred, thousands_separator_removed)
 *  - "12,99" → "12.99" (decimal_comma_inferred)
 *  - "1,299" → "1299" (ambiguous_separator: a comma followed by exactly three digits is read as a
 *    thousands separator; "1.299" stays 1.299 because schema.org makes `.` the decimal separator,
 *    also flagged ambiguous_separator)
 *  - "$12.99" → "12.99", currency hint USD (currency_symbol_in_price)
 *  - "" → null (empty_price); "0" → "0" (zero_price); "-5" → "-5" (negative_price)
 * The flags are pushed in reading order (sign, affixes, grouping, separators, digits): callers
 * and the response show them in that order.
 */
export function normalizePriceText(raw: string): NormalizedPrice {
  if (raw.length > 200) {
    return { normalized: null, status: 'invalid', currencyHint: null, flags: ['price_text_too_long'] };
  }
  if (PLAIN_DECIMAL.test(raw)) return plainDecimalPrice(raw);
  const flags: string[] = [];
  const s = trimAll(raw);
  if (s !== raw) flags.push('whitespace_trimmed');
  if (s === '') return { normalized: null, status: 'empty', currencyHint: null, flags: [...flags, 'empty_price'] };
  if (FREE_WORDS.has(s.toLowerCase())) {
    flags.push('free_word_read_as_zero');
    return finish('', '0', '', flags, null);
  }
  const parts = splitPriceText(s, flags);
  let hint = addCurrencyHint(parts.prefix, null, flags);
  if (hint !== false) hint = addCurrencyHint(parts.suffix, hint, flags);
  // text around the number that is not one currency makes the whole price unreadable
  if (hint === false) return { normalized: null, status: 'invalid', currencyHint: null, flags };
  if (parts.number === '') return { normalized: null, status: 'invalid', currencyHint: hint, flags: [...flags, 'no_digits'] };
  const body = withoutGroupSpaces(parts.number, flags);
  const digits = body === null ? null : splitDecimal(body, flags);
  if (body === null || digits === null) return { normalized: null, status: 'invalid', currencyHint: hint, flags };
  return finishPriceText(parts.sign, digits, body, flags, hint);
}

/** The schema.org form ("12.99"): nothing to repair; only "1.299" could have meant 1299. */
function plainDecimalPrice(raw: string): NormalizedPrice {
  const flags: string[] = [];
  const dot = raw.indexOf('.');
  const int = dot === -1 ? raw : raw.slice(0, dot);
  const frac = dot === -1 ? '' : raw.slice(dot + 1);
  if (looksLikeThousands(int, frac)) flags.push('ambiguous_separator');
  const stripped = stripLeadingZeros(int);
  if (stripped !== int) flags.push('leading_zeros_removed');
  return finish('', stripped, frac, flags, null);
}

/** A price text cut into its sign, the text before the number, the number, and the text after it. */
interface PriceTextParts {
  sign: '' | '-';
  prefix: string;
  number: string;
  suffix: string;
}

function splitPriceText(text: string, flags: string[]): PriceTextParts {
  let s = text;
  let sign: '' | '-' = '';
  const c = s[0];
  if (c === '-' || c === '\u2212' || c === '+') {
    if (c !== '+') sign = '-';
    if (c === '+') flags.push('leading_plus_removed');
    if (c === '\u2212') flags.push('unicode_minus');
    s = trimAll(s.slice(1));
  }
  // prefix: everything before the first digit or separator
  let a = 0;
  while (a < s.length && !isDigitCode(s.charCodeAt(a)) && s[a] !== '.' && s[a] !== ',') a++;
  let prefix = trimAll(s.slice(0, a));
  s = s.slice(a);
  // a sign may also follow the symbol: "$-12.99"
  if (prefix.endsWith('-') || prefix.endsWith('\u2212')) {
    if (sign === '') sign = '-';
    prefix = trimAll(prefix.slice(0, -1));
  }
  // suffix: everything after the last digit
  let b = s.length;
  while (b > 0 && !isDigitCode(s.charCodeAt(b - 1))) b--;
  return { sign, prefix, number: s.slice(0, b), suffix: priceSuffix(trimAll(s.slice(b)), flags) };
}

/** The separator of "12,-" or a lone trailing separator ("12.") is not text to read as a currency. */
function priceSuffix(suffix: string, flags: string[]): string {
  if (DASH_FOR_CENTS.test(suffix)) {
    flags.push('dash_for_zero_cents');
    return trimAll(suffix.slice(2));
  }
  if (suffix === '.' || suffix === ',') {
    flags.push('trailing_decimal_separator');
    return '';
  }
  return suffix;
}

/**
 * The currency a prefix or suffix of the price names, added to `hint` (a hint only: priceCurrency
 * is never filled from it). False when the text is no currency or names a different one.
 */
function addCurrencyHint(part: string, hint: string | null, flags: string[]): string | null | false {
  if (part === '') return hint;
  const cur = normalizeCurrencyText(part);
  if (cur.normalized === null) {
    flags.push('unrecognized_text_in_price');
    return false;
  }
  if (hint !== null && hint !== cur.normalized) {
    flags.push('conflicting_currency_in_price');
    return false;
  }
  flags.push(cur.status === 'ok' || cur.status === 'case_normalized' ? 'currency_code_in_price' : 'currency_symbol_in_price');
  if (cur.ambiguous) flags.push('ambiguous_currency_symbol');
  return cur.normalized;
}

/** Digits and separators left once spaces and apostrophes grouping thousands ("1 299", "1'299") are dropped; null when other text is inside. */
function withoutGroupSpaces(s: string, flags: string[]): string | null {
  let body = '';
  let grouped = false;
  for (let k = 0; k < s.length; k++) {
    const c = s.charCodeAt(k);
    if (isDigitCode(c) || c === 0x2e || c === 0x2c) body += s[k];
    else if (isUnicodeSpace(c) || c === 0x27 || c === 0x2019 || c === 0x2d9) grouped = true;
    else return unparseable(flags);
  }
  if (grouped) flags.push('group_separator_removed');
  return body;
}

interface DecimalDigits {
  int: string;
  frac: string;
}

function unparseable(flags: string[]): null {
  flags.push('unparseable_price');
  return null;
}

/** Integer and fraction digits of a number written with `.` and/or `,`, by notation; null when none fits. */
function splitDecimal(body: string, flags: string[]): DecimalDigits | null {
  let dots = 0;
  let commas = 0;
  for (let k = 0; k < body.length; k++) {
    const c = body.charCodeAt(k);
    if (c === 0x2e) dots++;
    else if (c === 0x2c) commas++;
  }
  if (dots > 0 && commas > 0) return mixedSeparators(body, dots, commas, flags);
  if (commas === 1) return singleComma(body, flags);
  if (commas > 1) return thousandsGroups(body, ',', flags);
  if (dots > 1) return thousandsGroups(body, '.', flags);
  if (dots === 1) return singleDot(body, flags);
  return { int: body, frac: '' };
}

/** "1,299.00" / "1.299,00": the last separator is the decimal one; the other may only group thousands. */
function mixedSeparators(body: string, dots: number, commas: number, flags: string[]): DecimalDigits | null {
  const lastDot = body.lastIndexOf('.');
  const lastComma = body.lastIndexOf(',');
  const decSep = lastDot > lastComma ? '.' : ',';
  const grpSep = decSep === '.' ? ',' : '.';
  const decIdx = Math.max(lastDot, lastComma);
  const intPart = body.slice(0, decIdx);
  if ((decSep === '.' ? dots : commas) > 1 || !validGrouping(intPart, grpSep)) return unparseable(flags);
  flags.push('thousands_separator_removed');
  if (decSep === ',') flags.push('decimal_comma_inferred');
  return { int: intPart.split(grpSep).join(''), frac: body.slice(decIdx + 1) };
}

/** "12,99" has a decimal comma; "1,299" is read as thousands (the usual reading), flagged ambiguous. */
function singleComma(body: string, flags: string[]): DecimalDigits {
  const [ip, fp] = body.split(',') as [string, string];
  if (looksLikeThousands(ip, fp)) {
    flags.push('thousands_separator_removed', 'ambiguous_separator');
    return { int: ip + fp, frac: '' };
  }
  if (fp.length > 0) flags.push('decimal_comma_inferred');
  return { int: ip, frac: fp };
}

/** "1,234,567" / "1.234.567": several of one separator can only group thousands. */
function thousandsGroups(body: string, sep: ',' | '.', flags: string[]): DecimalDigits | null {
  if (!validGrouping(body, sep)) return unparseable(flags);
  flags.push('thousands_separator_removed');
  if (sep === '.') flags.push('dot_thousands_separator');
  return { int: body.split(sep).join(''), frac: '' };
}

/** "1.299" stays 1.299 (schema.org's decimal separator is `.`), flagged because it may mean 1299. */
function singleDot(body: string, flags: string[]): DecimalDigits {
  const [ip, fp] = body.split('.') as [string, string];
  if (looksLikeThousands(ip, fp)) flags.push('ambiguous_separator');
  return { int: ip, frac: fp };
}

/** One to three leading digits (not all zeros) and exactly three after the separator: "1,299", "12.500". */
function looksLikeThousands(intPart: string, fracPart: string): boolean {
  return fracPart.length === 3 && intPart.length >= 1 && intPart.length <= 3 && !ALL_ZEROS.test(intPart);
}

/** Groups of a thousands separator: the last has three digits, inner ones three (or two: Indian lakh grouping). */
function validGrouping(intPart: string, sep: string): boolean {
  const g = intPart.split(sep);
  if (g.length < 2) return true;
  const first = g[0] as string;
  if (first.length < 1 || first.length > 3) return false;
  for (let k = 1; k < g.length; k++) {
    const len = (g[k] as string).length;
    if (k === g.length - 1 ? len !== 3 : len !== 3 && len !== 2) return false;
  }
  return true;
}

function finishPriceText(sign: '' | '-', digits: DecimalDigits, body: string, flags: string[], hint: string | null): NormalizedPrice {
  let int = digits.int;
  if (int === '' && digits.frac === '') {
    flags.push('no_digits');
    return { normalized: null, status: 'invalid', currencyHint: hint, flags };
  }
  if (int === '') {
    int = '0';
    flags.push('missing_integer_digit');
  }
  if (body.endsWith('.') || body.endsWith(',')) {
    if (!flags.includes('trailing_decimal_separator')) flags.push('trailing_decimal_separator');
  }
  const stripped = stripLeadingZeros(int);
  if (stripped !== int) flags.push('leading_zeros_removed');
  return finish(sign, stripped, digits.frac, flags, hint);
}

/** Compare two normalized decimal strings exactly. */
export function compareDecimals(a: string, b: string): -1 | 0 | 1 {
  const parse = (v: string): { neg: boolean; int: string; frac: string } => {
    const neg = v.startsWith('-');
    const body = neg ? v.slice(1) : v;
    const [i = '0', f = ''] = body.split('.');
    let e = f.length;
    while (e > 0 && f.charCodeAt(e - 1) === 0x30) e--;
    return { neg, int: stripLeadingZeros(i), frac: f.slice(0, e) };
  };
  const x = parse(a);
  const y = parse(b);
  const xZero = /^0*$/.test(x.int) && x.frac === '';
  const yZero = /^0*$/.test(y.int) && y.frac === '';
  const xs = xZero ? 0 : x.neg ? -1 : 1;
  const ys = yZero ? 0 : y.neg ? -1 : 1;
  if (xs !== ys) return xs < ys ? -1 : 1;
  if (xs === 0) return 0;
  let mag: -1 | 0 | 1 = 0;
  if (x.int.length !== y.int.length) mag = x.int.length < y.int.length ? -1 : 1;
  else if (x.int !== y.int) mag = x.int < y.int ? -1 : 1;
  else {
    const len = Math.max(x.frac.length, y.frac.length);
    const fx = x.frac.padEnd(len, '0');
    const fy = y.frac.padEnd(len, '0');
    if (fx !== fy) mag = fx < fy ? -1 : 1;
  }
  return (xs < 0 ? -mag : mag) as -1 | 0 | 1;
}

// ---------------------------------------------------------------------------
// Currency

/** ISO 4217 codes (active list, plus a few recently withdrawn codes still seen on pages). */
const ISO_4217 = new Set(
  (
    'AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BOV BRL BSD BTN BWP ' +
    'BYN BZD CAD CDF CHE CHF CHW CLF CLP CNY COP COU CRC CUC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB ' +
    'EUR FJD FKP GBP GEL GHS GIP GMD GNF GTQ GYD HKD HNL HRK HTG HUF IDR ILS INR IQD IRR ISK JMD JOD ' +
    'JPY KES KGS KHR KMF KPW KRW KWD KYD KZT LAK LBP LKR LRD LSL LYD MAD MDL MGA MKD MMK MNT MOP MRU ' +
    'MUR MVR MWK MXN MXV MYR MZN NAD NGN NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN PYG QAR RON RSD ' +
    'RUB RWF SAR SBD SCR SDG SEK SGD SHP SLE SLL SOS SRD SSP STN SVC SYP SZL THB TJS TMT TND TOP TRY ' +
    'TTD TWD TZS UAH UGX USD USN UYI UYU UYW UZS VED VES VND VUV WST XAF XAG XAU XBA XBB XBC XBD XCD ' +
    'XCG XDR XOF XPD XPF XPT XSU XTS XUA XXX YER ZAR ZMW ZWG ZWL'
  ).split(' '),
);

/** Symbols and informal names → [ISO code, ambiguous?]. Keys are compared after trimming. */
const CURRENCY_SYMBOLS: Record<string, [string, boolean]> = {
  $: ['USD', true],
  US$: ['USD', false],
  USD$: ['USD', false],
  '€': ['EUR', false],
  '£': ['GBP', true],
  '¥': ['JPY', true],
  '￥': ['JPY', true],
  '円': ['JPY', false],
  '元': ['CNY', false],
  'CN¥': ['CNY', false],
  RMB: ['CNY', false],
  '₹': ['INR', false],
  Rs: ['INR', true],
  'Rs.': ['INR', true],
  '₩': ['KRW', false],
  '₽': ['RUB', false],
  'руб': ['RUB', false],
  'руб.': ['RUB', false],
  '₺': ['TRY', false],
  '₪': ['ILS', false],
  '₫': ['VND', false],
  '฿': ['THB', false],
  '₱': ['PHP', false],
  '₴': ['UAH', false],
  '₦': ['NGN', false],
  'zł': ['PLN', false],
  'Kč': ['CZK', false],
  Ft: ['HUF', false],
  kr: ['SEK', true],
  'kr.': ['DKK', true],
  R$: ['BRL', false],
  C$: ['CAD', true],
  CA$: ['CAD', false],
  CAD$: ['CAD', false],
  A$: ['AUD', false],
  AU$: ['AUD', false],
  AUD$: ['AUD', false],
  NZ$: ['NZD', false],
  HK$: ['HKD', false],
  S$: ['SGD', false],
  SG$: ['SGD', false],
  MX$: ['MXN', false],
  NT$: ['TWD', false],
  NTD: ['TWD', false],
  'Fr.': ['CHF', true],
  'CHF.': ['CHF', false],
  R: ['ZAR', true],
  lei: ['RON', false],
  'лв': ['BGN', false],
  'лв.': ['BGN', false],
  '₡': ['CRC', false],
  '₲': ['PYG', false],
  '₸': ['KZT', false],
  '₼': ['AZN', false],
  '₾': ['GEL', false],
  '৳': ['BDT', false],
  '₭': ['LAK', false],
  '₮': ['MNT', false],
  RM: ['MYR', false],
  Rp: ['IDR', false],
  EURO: ['EUR', false],
  Euro: ['EUR', false],
  euro: ['EUR', false],
  EUROS: ['EUR', false],
  Euros: ['EUR', false],
  euros: ['EUR', false],
};

export interface NormalizedCurrency {
  normalized: string | null;
  status: 'ok' | 'case_normalized' | 'symbol' | 'alias' | 'unknown' | 'empty';
  ambiguous: boolean;
  flags: string[];
}

export function normalizeCurrencyText(raw: string): NormalizedCurrency {
  const s = trimAll(raw);
  const flags: string[] = s !== raw ? ['whitespace_trimmed'] : [];
  if (s === '') return { normalized: null, status: 'empty', ambiguous: false, flags: [...flags, 'empty_currency'] };
  if (s.length === 3 && /^[A-Za-z]{3}$/.test(s)) {
    const up = s.toUpperCase();
    if (ISO_4217.has(up)) {
      if (up === s) return { normalized: up, status: 'ok', ambiguous: false, flags };
      return { normalized: up, status: 'case_normalized', ambiguous: false, flags: [...flags, 'currency_case_normalized'] };
    }
  }
  if (s.length <= 8 && Object.prototype.hasOwnProperty.call(CURRENCY_SYMBOLS, s)) {
    const [code, ambiguous] = CURRENCY_SYMBOLS[s] as [string, boolean];
    const isWord = /^[A-Za-z]+$/.test(s);
    const f = [...flags, isWord ? 'currency_alias' : 'currency_symbol'];
    if (ambiguous) f.push('ambiguous_currency_symbol');
    return { normalized: code, status: isWord ? 'alias' : 'symbol', ambiguous, flags: f };
  }
  return { normalized: null, status: 'unknown', ambiguous: false, flags: [...flags, 'unknown_currency'] };
}

// ---------------------------------------------------------------------------
// schema.org enumerations

export interface NormalizedEnum {
  normalized: string | null;
  flags: string[];
}

function enumTable(names: string[], aliases: Record<string, string>): Map<string, string> {
  const m = new Map<string, string>();
  for (const n of names) m.set(n.toLowerCase(), n);
  for (const [k, v] of Object.entries(aliases)) m.set(k, v);
  return m;
}

export const AVAILABILITY = enumTable(
  [
    'BackOrder',
    'Discontinued',
    'InStock',
    'InStoreOnly',
    'LimitedAvailability',
    'MadeToOrder',
    'OnlineOnly',
    'OutOfStock',
    'PreOrder',
    'PreSale',
    'Reserved',
    'SoldOut',
  ],
  { available: 'InStock', unavailable: 'OutOfStock', instoreonly: 'InStoreOnly' },
);

export const ITEM_CONDITION = enumTable(
  ['NewCondition', 'UsedCondition', 'RefurbishedCondition', 'DamagedCondition'],
  { new: 'NewCondition', used: 'UsedCondition', refurbished: 'RefurbishedCondition', damaged: 'DamagedCondition' },
);

export const PRICE_TYPE = enumTable(
  ['InvoicePrice', 'ListPrice', 'MinimumAdvertisedPrice', 'MSRP', 'SalePrice', 'SRP', 'StrikethroughPrice'],
  {},
);

/** PriceComponentTypeEnumeration (ActivationFee, DistanceFee, Installment, …), from the generated table. */
export const PRICE_COMPONENT_TYPE = enumTable([...SCHEMA_ORG_ENUMERATIONS.PriceComponentTypeEnumeration], {});

/**
 * Map an enumeration value written as `InStock`, `schema:InStock`, `http://schema.org/InStock`
 * or `https://schema.org/InStock` (those forms are unflagged) to `https://schema.org/InStock`.
 * Other casing, spaces, `_`/`-` ("in stock", "in_stock") and Merchant-Center words ("new")
 * are mapped too, flagged; anything else is null with `unknown_value`.
 */
export function normalizeEnum(raw: string, table: Map<string, string>): NormalizedEnum {
  const flags: string[] = [];
  if (raw.startsWith('https://schema.org/')) {
    const hit = table.get(raw.slice(19).toLowerCase());
    if (hit !== undefined && hit === raw.slice(19)) return { normalized: raw, flags };
  }
  let s = trimAll(raw);
  if (s.length > 200) return { normalized: null, flags: ['unknown_value'] };
  let local = s;
  const m = /^https?:\/\/(www\.)?schema\.org\/([^/?#]*)\/?$/i.exec(s);
  if (m) {
    local = m[2] as string;
    if (m[1] || !/^https?:\/\/schema\.org\//.test(s)) flags.push('non_canonical_iri');
  } else if (/^schema:/i.test(s)) {
    local = s.slice(7);
  } else if (/^[a-z][a-z0-9+.-]*:\/\//i.test(s) || s.includes('/')) {
    const cut = Math.max(s.lastIndexOf('/'), s.lastIndexOf('#'));
    local = s.slice(cut + 1);
    flags.push('non_schema_org_iri');
  }
  s = local;
  const exact = table.get(s.toLowerCase());
  if (exact !== undefined && exact === s) return { normalized: 'https://schema.org/' + exact, flags };
  if (exact !== undefined) {
    flags.push(exact.toLowerCase() === s.toLowerCase() ? 'case_normalized' : 'alias_value');
    return { normalized: 'https://schema.org/' + exact, flags };
  }
  const squashed = s.replace(/[\s_-]+/g, '').toLowerCase();
  const loose = table.get(squashed);
  if (loose !== undefined) {
    flags.push('spacing_or_case_normalized');
    return { normalized: 'https://schema.org/' + loose, flags };
  }
  flags.push('unknown_value');
  return { normalized: null, flags };
}

// ---------------------------------------------------------------------------
// GTIN

export type GtinVerdict = 'valid' | 'invalid' | 'bad_length' | 'not_numeric';

export interface GtinCheck {
  digits: string | null;
  check_digit: GtinVerdict;
  /** The GTIN left-padded to 14 digits when its check digit is valid. */
  gtin14: string | null;
  leading_zeros_possibly_lost: boolean;
  /** For a too-short value: would left zero padding to the declared length give a valid GTIN? */
  valid_if_zero_padded: boolean;
  flags: string[];
}

function mod10Valid(d: string): boolean {
  let sum = 0;
  for (let k = d.length - 2, w = 3; k >= 0; k--, w = w === 3 ? 1 : 3) sum += (d.charCodeAt(k) - 48) * w;
  return (10 - (sum % 10)) % 10 === d.charCodeAt(d.length - 1) - 48;
}

function isbn10Valid(d: string): boolean {
  let sum = 0;
  for (let k = 0; k < 10; k++) {
    const ch = d[k] as string;
    const v = ch === 'X' || ch === 'x' ? 10 : ch.charCodeAt(0) - 48;
    if (v === 10 && k !== 9) return false;
    sum += v * (10 - k);
  }
  return sum % 11 === 0;
}

const GTIN_LENGTHS = [8, 12, 13, 14];

/**
 * Check a GTIN-family identifier. `property` is gtin, gtin8, gtin12, gtin13, gtin14 or isbn.
 * A value given as a JSON number may have lost leading zeros: it is left-padded to the
 * declared length (or, for `gtin`, to the next valid GTIN length) and flagged. The mod-10
 * check digit does not change with leading zeros, so the verdict stays meaningful.
 */
export function checkGtin(property: string, raw: string, isNumber: boolean): GtinCheck {
  const flags: string[] = [];
  let digits: string;
  if (isNumber) {
    const x = raw.length > 60 ? null : expandNumberToken(raw);
    if (!x || x.sign === '-' || !/^0*$/.test(x.frac)) {
      return { digits: null, check_digit: 'not_numeric', gtin14: null, leading_zeros_possibly_lost: false, valid_if_zero_padded: false, flags: ['not_an_integer'] };
    }
    digits = x.int;
    flags.push('given_as_number');
    if (/[eE]/.test(raw)) flags.push('exponent_expanded');
  } else {
    let s = trimAll(raw);
    if (s.length > 100) s = s.slice(0, 100);
    const dl = /\/01\/(\d{8,14})(?:[/?#]|$)/.exec(s);
    if (dl && /^https?:\/\//i.test(s)) {
      s = dl[1] as string;
      flags.push('gs1_digital_link');
    }
    const compact = s.replace(/[\s-]/g, '');
    if (compact !== s) flags.push('separators_removed');
    digits = compact;
  }
  const declared = property === 'isbn' ? null : /^gtin(\d+)$/.exec(property)?.[1];
  const declaredLen = declared ? Number(declared) : null;
  if (property === 'isbn' && digits.length === 10 && /^\d{9}[\dXx]$/.test(digits)) {
    return {
      digits,
      check_digit: isbn10Valid(digits) ? 'valid' : 'invalid',
      gtin14: null,
      leading_zeros_possibly_lost: false,
      valid_if_zero_padded: false,
      flags: [...flags, 'isbn10'],
    };
  }
  if (!allDigits(digits)) {
    return { digits: null, check_digit: 'not_numeric', gtin14: null, leading_zeros_possibly_lost: false, valid_if_zero_padded: false, flags };
  }
  let lost = false;
  const targetLen = ((): number | null => {
    if (declaredLen !== null) return declaredLen;
    if (property === 'isbn') return 13;
    for (const l of GTIN_LENGTHS) if (digits.length <= l) return l;
    return null;
  })();
  const lengthOk = (l: number): boolean =>
    declaredLen !== null ? l === declaredLen : property === 'isbn' ? l === 13 : GTIN_LENGTHS.includes(l);
  if (!lengthOk(digits.length) && isNumber && targetLen !== null && digits.length < targetLen) {
    digits = digits.padStart(targetLen, '0');
    lost = true;
    flags.push('leading_zeros_possibly_lost');
  }
  if (!lengthOk(digits.length)) {
    const padded = targetLen !== null && digits.length < targetLen ? digits.padStart(targetLen, '0') : null;
    return {
      digits,
      check_digit: 'bad_length',
      gtin14: null,
      leading_zeros_possibly_lost: false,
      valid_if_zero_padded: padded !== null && mod10Valid(padded),
      flags,
    };
  }
  const ok = mod10Valid(digits);
  return {
    digits,
    check_digit: ok ? 'valid' : 'invalid',
    gtin14: ok ? digits.padStart(14, '0') : null,
    leading_zeros_possibly_lost: lost,
    valid_if_zero_padded: false,
    flags,
  };
}

// ---------------------------------------------------------------------------
// Dates

export interface NormalizedDate {
  normalized: string | null;
  kind: 'date' | 'datetime' | 'invalid';
  /** The calendar date as written (YYYY-MM-DD), without any time-zone conversion. */
  date: string | null;
  flags: string[];
}

function daysInMonth(y: number, m: number): number {
  if (m === 2) return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(m) ? 30 : 31;
}

/**
 * ISO 8601 date (`YYYY-MM-DD`) or date-time (`YYYY-MM-DDTHH:MM[:SS[.fff]][Z|±HH:MM]`).
 * Calendar-checked. Whether the date is in the past is NOT decided here: a pure handler has
 * no clock; compare `date` with your own "today".
 */
export function parseIsoDate(raw: string): NormalizedDate {
  const flags: string[] = [];
  const s = trimAll(raw);
  if (s !== raw) flags.push('whitespace_trimmed');
  const bad = (why: string): NormalizedDate => ({ normalized: null, kind: 'invalid', date: null, flags: [...flags, why] });
  if (s.length > 40) return bad('not_iso8601');
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:([Tt ])(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?([Zz]|[+-]\d{2}:?\d{2})?)?$/.exec(s);
  if (!m) {
    if (/^\d{4}\/\d{1,2}\/\d{1,2}$/.test(s) || /^\d{1,2}[./-]\d{1,2}[./-]\d{4}$/.test(s)) return bad('non_iso_date_format');
    return bad('not_iso8601');
  }
  const y = Number(m[1]);
  const mo = Number(m[2]);
  const d = Number(m[3]);
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo)) return bad('impossible_calendar_date');
  const date = `${m[1]}-${m[2]}-${m[3]}`;
  if (m[4] === undefined) return { normalized: date, kind: 'date', date, flags };
  const hh = Number(m[5]);
  const mi = Number(m[6]);
  const ss = m[7] === undefined ? 0 : Number(m[7]);
  if (hh > 23 || mi > 59 || ss > 59) return bad('impossible_time');
  if (m[4] !== 'T') flags.push('non_t_separator');
  if (m[7] === undefined) flags.push('no_seconds');
  let tz = m[9];
  if (tz === undefined) {
    flags.push('no_time_zone');
    tz = '';
  } else if (tz === 'z' || tz === 'Z') tz = 'Z';
  else {
    const body = tz.slice(1).replace(':', '');
    const th = Number(body.slice(0, 2));
    const tm = Number(body.slice(2));
    if (th > 14 || tm > 59) return bad('impossible_time_zone');
    tz = `${tz[0]}${body.slice(0, 2)}:${body.slice(2)}`;
  }
  const normalized = `${date}T${m[5]}:${m[6]}:${m[7] ?? '00'}${m[8] ?? ''}${tz}`;
  return { normalized, kind: 'datetime', date, flags };
}
