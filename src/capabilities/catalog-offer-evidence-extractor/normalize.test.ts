import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  AVAILABILITY,
  ITEM_CONDITION,
  checkGtin,
  compareDecimals,
  expandNumberToken,
  normalizeCurrencyText,
  normalizeEnum,
  normalizePriceNumber,
  normalizePriceText,
  parseIsoDate,
} from './normalize.js';

describe('prices as text', () => {
  const cases: Array<[string, string | null, string, string[]]> = [
    ['12.99', '12.99', 'ok', []],
    ['1299', '1299', 'ok', []],
    ['1,299.00', '1299.00', 'ok', ['thousands_separator_removed']],
    ['1.299,00', '1299.00', 'ok', ['thousands_separator_removed', 'decimal_comma_inferred']],
    ['12,99', '12.99', 'ok', ['decimal_comma_inferred']],
    ['1,299', '1299', 'ok', ['thousands_separator_removed', 'ambiguous_separator']],
    ['1.299', '1.299', 'ok', ['ambiguous_separator']],
    ['1.234.567', '1234567', 'ok', ['thousands_separator_removed', 'dot_thousands_separator']],
    ['1,234,567.5', '1234567.5', 'ok', ['thousands_separator_removed']],
    ['1 299,00', '1299.00', 'ok', ['group_separator_removed', 'decimal_comma_inferred']],
    ["1'299.50", '1299.50', 'ok', ['group_separator_removed']],
    ['1,00,000.00', '100000.00', 'ok', ['thousands_separator_removed']],
    ['$12.99', '12.99', 'ok', ['currency_symbol_in_price', 'ambiguous_currency_symbol']],
    ['12,99 €', '12.99', 'ok', ['currency_symbol_in_price', 'decimal_comma_inferred']],
    ['USD 12.99', '12.99', 'ok', ['currency_code_in_price']],
    ['-$5.00', '-5.00', 'negative', ['currency_symbol_in_price', 'ambiguous_currency_symbol', 'negative_price']],
    ['−5', '-5', 'negative', ['unicode_minus', 'negative_price']],
    ['', null, 'empty', ['empty_price']],
    ['   ', null, 'empty', ['whitespace_trimmed', 'empty_price']],
    ['0', '0', 'zero', ['zero_price']],
    ['0.00', '0.00', 'zero', ['zero_price']],
    ['Free', '0', 'zero', ['free_word_read_as_zero', 'zero_price']],
    ['.99', '0.99', 'ok', ['missing_integer_digit']],
    ['007.50', '7.50', 'ok', ['leading_zeros_removed']],
    ['12,-', '12', 'ok', ['dash_for_zero_cents']],
    ['from 12.99', null, 'invalid', ['unrecognized_text_in_price']],
    ['10-20', null, 'invalid', ['unparseable_price']],
    ['1,2,3', null, 'invalid', ['unparseable_price']],
    ['abc', null, 'invalid', ['unrecognized_text_in_price']],
    ['$', null, 'invalid', ['currency_symbol_in_price', 'ambiguous_currency_symbol', 'no_digits']],
  ];
  for (const [raw, norm, status, flags] of cases) {
    it(`${JSON.stringify(raw)} → ${norm}`, () => {
      const r = normalizePriceText(raw);
      assert.equal(r.normalized, norm);
      assert.equal(r.status, status);
      assert.deepEqual(r.flags, flags);
    });
  }
  it('gives the currency hint from a symbol or code', () => {
    assert.equal(normalizePriceText('$12.99').currencyHint, 'USD');
    assert.equal(normalizePriceText('12,99 €').currencyHint, 'EUR');
    assert.equal(normalizePriceText('£3').currencyHint, 'GBP');
    assert.equal(normalizePriceText('12.99').currencyHint, null);
  });
  it('never throws, and normalized is always a plain decimal', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (s) => {
        const r = normalizePriceText(s);
        if (r.normalized !== null) assert.match(r.normalized, /^-?\d+(\.\d+)?$/);
      }),
      { numRuns: 3000 },
    );
  });
  it('round-trips every plain decimal exactly', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 30n }), fc.nat({ max: 8 }), (n, scale) => {
        const digits = n.toString().padStart(scale + 1, '0');
        const s = scale ? `${digits.slice(0, -scale)}.${digits.slice(-scale)}` : digits;
        const r = normalizePriceText(s);
        if (scale === 3 && /^[1-9]\d{0,2}\.\d{3}$/.test(s)) assert.ok(r.flags.includes('ambiguous_separator'));
        assert.equal(r.normalized, s);
      }),
    );
  });
});

describe('prices as JSON numbers (exact token text, never a float)', () => {
  const cases: Array<[string, string | null, string]> = [
    ['1.10', '1.10', 'ok'],
    ['119.90', '119.90', 'ok'],
    ['12', '12', 'ok'],
    ['0', '0', 'zero'],
    ['0.0', '0.0', 'zero'],
    ['-0', '0', 'zero'],
    ['-5.5', '-5.5', 'negative'],
    ['1.5e2', '150', 'ok'],
    ['125E-2', '1.25', 'ok'],
    ['1e-3', '0.001', 'ok'],
    ['9007199254740993.01', '9007199254740993.01', 'ok'],
    ['1e400', null, 'invalid'],
  ];
  for (const [raw, norm, status] of cases) {
    it(`${raw} → ${norm}`, () => {
      const r = normalizePriceNumber(raw);
      assert.equal(r.normalized, norm);
      assert.equal(r.status, status);
    });
  }
  it('expands any JSON number exactly (checked against BigInt arithmetic)', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }), fc.integer({ min: -20, max: 20 }), (m, e) => {
        const raw = `${m}e${e}`;
        const x = expandNumberToken(raw);
        assert.ok(x);
        const s = `${x.sign}${x.int}${x.frac ? '.' + x.frac : ''}`;
        // value check: s * 10^20 == m * 10^(e+20)
        const [ip, fp = ''] = s.replace('-', '').split('.');
        const scaled = BigInt((ip ?? '0') + fp.padEnd(40, '0').slice(0, 40)) * (s.startsWith('-') ? -1n : 1n);
        const want = m * 10n ** BigInt(e + 40);
        assert.equal(scaled, want);
      }),
    );
  });
});

describe('decimal comparison', () => {
  it('compares exactly', () => {
    assert.equal(compareDecimals('149.90', '119.9'), 1);
    assert.equal(compareDecimals('1.10', '1.1'), 0);
    assert.equal(compareDecimals('-1', '0'), -1);
    assert.equal(compareDecimals('0.000', '-0'), 0);
    assert.equal(compareDecimals('100', '99.999'), 1);
    assert.equal(compareDecimals('-2', '-10'), 1);
  });
});

describe('currency', () => {
  const cases: Array<[string, string | null, string, boolean]> = [
    ['USD', 'USD', 'ok', false],
    ['usd', 'USD', 'case_normalized', false],
    [' eur ', 'EUR', 'case_normalized', false],
    ['$', 'USD', 'symbol', true],
    ['€', 'EUR', 'symbol', false],
    ['£', 'GBP', 'symbol', true],
    ['¥', 'JPY', 'symbol', true],
    ['R$', 'BRL', 'symbol', false],
    ['Euro', 'EUR', 'alias', false],
    ['XYZ', null, 'unknown', false],
    ['dollars', null, 'unknown', false],
    ['', null, 'empty', false],
  ];
  for (const [raw, norm, status, amb] of cases) {
    it(`${JSON.stringify(raw)} → ${norm} (${status})`, () => {
      const r = normalizeCurrencyText(raw);
      assert.equal(r.normalized, norm);
      assert.equal(r.status, status);
      assert.equal(r.ambiguous, amb);
    });
  }
});

describe('availability and itemCondition', () => {
  for (const raw of ['InStock', 'schema:InStock', 'http://schema.org/InStock', 'https://schema.org/InStock', 'https://schema.org/InStock/']) {
    it(`${raw} → https://schema.org/InStock, unflagged`, () => {
      assert.deepEqual(normalizeEnum(raw, AVAILABILITY), { normalized: 'https://schema.org/InStock', flags: [] });
    });
  }
  it('maps other spellings with a flag', () => {
    assert.deepEqual(normalizeEnum('instock', AVAILABILITY), { normalized: 'https://schema.org/InStock', flags: ['case_normalized'] });
    assert.deepEqual(normalizeEnum('in stock', AVAILABILITY), { normalized: 'https://schema.org/InStock', flags: ['spacing_or_case_normalized'] });
    assert.deepEqual(normalizeEnum('https://www.schema.org/OutOfStock', AVAILABILITY), { normalized: 'https://schema.org/OutOfStock', flags: ['non_canonical_iri'] });
    assert.deepEqual(normalizeEnum('new', ITEM_CONDITION), { normalized: 'https://schema.org/NewCondition', flags: ['alias_value'] });
    assert.deepEqual(normalizeEnum('http://purl.org/goodrelations/v1#InStock', AVAILABILITY), { normalized: 'https://schema.org/InStock', flags: ['non_schema_org_iri'] });
    assert.deepEqual(normalizeEnum('Maybe', AVAILABILITY), { normalized: null, flags: ['unknown_value'] });
  });
});

describe('GTIN check digits', () => {
  it('verdicts', () => {
    assert.equal(checkGtin('gtin13', '4006381333931', false).check_digit, 'valid');
    assert.equal(checkGtin('gtin13', '4006381333932', false).check_digit, 'invalid');
    assert.equal(checkGtin('gtin13', '400638133393', false).check_digit, 'bad_length');
    assert.equal(checkGtin('gtin8', '96385074', false).check_digit, 'valid');
    assert.equal(checkGtin('gtin12', '036000291452', false).check_digit, 'valid');
    assert.equal(checkGtin('gtin14', '10036000291459', false).check_digit, 'valid');
    assert.equal(checkGtin('gtin', '4006381333931', false).check_digit, 'valid');
    assert.equal(checkGtin('gtin', '40063813339', false).check_digit, 'bad_length');
    assert.equal(checkGtin('gtin13', 'ABC', false).check_digit, 'not_numeric');
    assert.equal(checkGtin('gtin13', '400-6381-333931', false).check_digit, 'valid');
    assert.equal(checkGtin('isbn', '0306406152', false).check_digit, 'valid');
    assert.equal(checkGtin('isbn', '9780306406157', false).check_digit, 'valid');
  });
  it('a GTIN given as a JSON number lost its leading zeros: padded and flagged', () => {
    const g = checkGtin('gtin12', '36000291452', true);
    assert.equal(g.digits, '036000291452');
    assert.equal(g.check_digit, 'valid');
    assert.equal(g.leading_zeros_possibly_lost, true);
    assert.equal(g.gtin14, '00036000291452');
    const g2 = checkGtin('gtin', '36000291452', true);
    assert.equal(g2.digits, '036000291452');
    assert.equal(g2.check_digit, 'valid');
    const g3 = checkGtin('gtin14', '4.006381333931e12', true);
    assert.equal(g3.digits, '00004006381333931'.slice(3));
    assert.equal(g3.check_digit, 'valid');
    assert.ok(g3.flags.includes('exponent_expanded'));
  });
  it('a too-short string is bad_length, with a hint when zero padding would make it valid', () => {
    const g = checkGtin('gtin12', '36000291452', false);
    assert.equal(g.check_digit, 'bad_length');
    assert.equal(g.valid_if_zero_padded, true);
  });
  it('GS1 Digital Link URLs', () => {
    const g = checkGtin('gtin', 'https://id.gs1.org/01/09506000134352/10/ABC', false);
    assert.equal(g.digits, '09506000134352');
    assert.equal(g.check_digit, 'valid');
  });
  it('a 14-digit GTIN beyond 2^53 given as a number is kept exactly', () => {
    const g = checkGtin('gtin14', '98765432109213', true);
    assert.equal(g.digits, '98765432109213');
  });
});

describe('priceValidUntil dates', () => {
  const cases: Array<[string, string | null, string]> = [
    ['2025-12-31', '2025-12-31', 'date'],
    ['2024-02-29', '2024-02-29', 'date'],
    ['2023-02-29', null, 'invalid'],
    ['2025-12-31T23:59:59Z', '2025-12-31T23:59:59Z', 'datetime'],
    ['2025-12-31T23:59+0100', '2025-12-31T23:59:00+01:00', 'datetime'],
    ['2025-12-31 10:00:00.123-05:00', '2025-12-31T10:00:00.123-05:00', 'datetime'],
    ['2025-13-01', null, 'invalid'],
    ['31/12/2025', null, 'invalid'],
    ['tomorrow', null, 'invalid'],
    ['', null, 'invalid'],
    ['2000-01-01', '2000-01-01', 'date'],
  ];
  for (const [raw, norm, kind] of cases) {
    it(`${JSON.stringify(raw)} → ${norm}`, () => {
      const d = parseIsoDate(raw);
      assert.equal(d.normalized, norm);
      assert.equal(d.kind, kind);
    });
  }
});
