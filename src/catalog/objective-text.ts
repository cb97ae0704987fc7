/**
 * What the router reads out of an objective's text: colours (paired into
 * contrast inputs), URIs and URLs, ISO 8601 dates, negations, and the folded
 * form every language's terms are matched against. Pure functions of the
 * text, so a quote is a pure function of the request. The words themselves
 * (which outcome a phrase names) live with each capability's routing.
 */
import { CSS_NAMED_COLOURS } from './css-colours.js';
import { cjkColourValue, cjkColourWords, latinColourWords } from './colour-words.js';


/** Lower-case, one space between words: the form keyword rules are written against. */
export function normalizeText(s: string): string {
  return oneSpace(s.toLowerCase()).trim();
}

/** Runs of whitespace as one space. Most objectives have none to change, and the check is one scan with no replacement strings built. */
const NOT_ONE_SPACE = /\s\s|[^\S ]/;
function oneSpace(s: string): string {
  return NOT_ONE_SPACE.test(s) ? s.replace(/\s+/g, ' ') : s;
}

// ─── folding and terms (every language) ─────────────────────────────────────

/** The languages whose wording the router reads (each capability's routing.ts lists its terms per language). */
const LANGUAGES = ['en', 'es', 'pt', 'fr', 'de', 'it', 'nl', 'zh', 'ja', 'ko'] as const;
export type Language = (typeof LANGUAGES)[number];
/** Phrases per language. A trailing `*` lets the last word continue ("kontrast*" matches "Kontrastverhältnis"). */
export type Terms = Partial<Record<Language, readonly string[]>>;

const ASCII = /^[\x00-\x7f]*$/;
const MARKS = /[\u0300-\u036f]/g;

/**
 * The form terms are matched against: compatibility-decomposed (full-width
 * "＃ＦＦＦ" is "#fff"), lower-case, Latin diacritics removed ("Kontrastverhältnis"
 * → "kontrastverhaltnis", "página" → "pagina"), ß → ss, typographic apostrophes
 * straight, one space between words. CJK text keeps its characters (NFC).
 */
export function foldText(s: string): string {
  // One quote folds the same objective several times (screening, naming, colours): remember the last one.
  if (s === lastFoldInput) return lastFoldOutput;
  lastFoldInput = s;
  lastFoldOutput = fold(s);
  return lastFoldOutput;
}
let lastFoldInput: string | undefined;
let lastFoldOutput = '';

function fold(s: string): string {
  if (ASCII.test(s)) return oneSpace(s.toLowerCase()).trim();
  return s
    .normalize('NFKD')
    .toLowerCase()
    .replace(MARKS, '')
    .normalize('NFC')
    .replace(/ß/g, 'ss')
    .replace(/[\u2018\u2019\u02bc]/g, "'")
    .replace(/\s+/g, ' ')
    .trim();
}

/** Han, kana, Hangul: scripts written without spaces, matched as substrings. */
const CJK = /[\u1100-\u11ff\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f]/;
const LETTER_OR_DIGIT = 'a-z0-9\\u00c0-\\u024f';

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * One term as a regular-expression source over folded text. In a term, a
 * word ending in `*` may continue ("kontrast*"), and a lone `*` stands for one to
 * three words ("ruf * ab"); words may also be written joined or hyphenated.
 */
function termSource(term: string): string {
  const folded = foldText(term);
  const cjk = CJK.test(folded);
  const letters = `[${LETTER_OR_DIGIT}]`;
  const words = folded.split(' ');
  let body = '';
  words.forEach((w, i) => {
    if (i > 0) body += w === '*' || words[i - 1] === '*' ? ' ' : cjk ? ' ?' : '[ -]?';
    if (w === '*') body += cjk ? '\\S{1,12}?' : `${letters}+(?: ${letters}+){0,2}?`;
    else if (w.endsWith('*')) body += `${escapeRegExp(w.slice(0, -1))}${cjk ? '' : `${letters}*`}`;
    else body += escapeRegExp(w);
  });
  if (cjk) return body;
  const last = words[words.length - 1]!;
  return `(?<!${letters})${body}${last.endsWith('*') ? '' : `(?!${letters})`}`;
}

/**
 * Terms of every language compiled into one regular expression over folded
 * text: Latin-script terms as whole words (diacritics ignored), CJK terms as
 * substrings. Undefined when there are no terms.
 */
export function compileTerms(terms: Terms | undefined): RegExp | undefined {
  const all = Object.values(terms ?? {}).flat();
  if (all.length === 0) return undefined;
  // Longest first, so the reported match is the most specific phrase.
  const sources = [...new Set(all.map(termSource))].sort((a, b) => b.length - a.length);
  // Consecutive whole-word terms share one leading lookbehind, (?<!L)(?:A|B) rather than (?<!L)A|(?<!L)B:
  // the same matches in the same order of preference, but a position inside a word fails once instead of once per term.
  const lead = `(?<![${LETTER_OR_DIGIT}])`;
  const parts: string[] = [];
  let run: string[] = [];
  const flush = () => {
    if (run.length) parts.push(`${lead}(?:${run.join('|')})`);
    run = [];
  };
  for (const src of sources) {
    if (src.startsWith(lead)) run.push(src.slice(lead.length));
    else {
      flush();
      parts.push(src);
    }
  }
  flush();
  return new RegExp(parts.join('|'));
}

// ─── colours ────────────────────────────────────────────────────────────────

export interface ColourPair {
  foreground: string;
  background: string;
}

export interface ColourReading {
  /** Every colour in the text, in order, as lower-case #rrggbb. */
  colours: string[];
  pairs: ColourPair[];
  /** Set when the colours cannot be paired (an odd count that is not "A, B and C on D"). */
  unpaired?: string;
  /** How the pairs were formed, for the quote's assumptions. */
  how?: string;
  /** True when a colour was written as #rrggbb, #rgb, rgb() or hsl(): data no other outcome uses. */
  explicit: boolean;
  /**
   * Colour words naming a shade that has no exact value ("dark yellow",
   * "light red", "pastel blue"), as written. While there are any, no pair is
   * formed: the buyer is asked for the value rather than quoted another colour.
   */
  unread?: string[];
}

const HEX = String.raw`#(?:[0-9a-f]{6}|[0-9a-f]{3})(?![0-9a-z])`;
const CHANNEL = String.raw`\s*(\d{1,3}(?:\.\d+)?%?)\s*`;
const RGB = String.raw`rgba?\(${CHANNEL}[,\s]${CHANNEL}[,\s]${CHANNEL}(?:[,/]\s*(\d*\.?\d+%?)\s*)?\)`;
const HSL = String.raw`hsla?\(\s*(-?\d{1,3}(?:\.\d+)?)(?:deg)?\s*[,\s]\s*(\d{1,3}(?:\.\d+)?)%\s*[,\s]\s*(\d{1,3}(?:\.\d+)?)%\s*(?:[,/]\s*(\d*\.?\d+%?)\s*)?\)`;
const STRONG_COLOUR = new RegExp(String.raw`(?<![&\w#])${HEX}|\b${RGB}|\b${HSL}`, 'g');
const RGB_EXACT = new RegExp(`^${RGB}$`);
const HSL_EXACT = new RegExp(`^${HSL}$`);
const WORD = /[a-z]+/g;

/** "on", "over" and their equivalents: the colour before is written on the colour after. */
const ON_WORD = /(?<![a-z])(?:on|onto|against|over|atop|upon|behind|background|bg|sobre|en|em|sur|auf|uber|su|sopra|op|tegen)(?![a-z])|在|上|위/;
/** Japanese and Korean write the background first: "#fff の上の #333", "#fff 위의 #333". Chinese "B 上的 A" too. */
const BACKGROUND_FIRST = /の上|上の|上的|위에|위의/;
const BG_WORDS = '(?:background|bg|backdrop|fill|button|fondo|fundo|fond|bouton|boton|botao|hintergrund\\w*|schaltflache|sfondo|pulsante|achtergrond\\w*|knop)';
const FG_WORDS = '(?:foreground|fg|text|font|label|texto|texte|libelle|police|schrift\\w*|beschriftung|testo|etichetta|tekst|letra|etiqueta|rotulo|caratteri)';
const BG_LABEL = new RegExp(`(?:(?<![a-z])${BG_WORDS}(?:[\\s:=-]*(?:colou?r|color|couleur|farbe|colore|kleur|de|du|di|van))*|背景|배경|바탕)[\\s:=-]*(?:色|颜色|색)?(?:\\s+(?:is|are|was|es|est|ist|e|sind|son|sont|sono|zijn|era))?[\\s:=-]*$`);
const FG_LABEL = new RegExp(`(?:(?<![a-z])${FG_WORDS}(?:[\\s:=-]*(?:colou?r|color|couleur|farbe|colore|kleur|de|du|di|van))*|文字|文本|前景|글자|글씨|텍스트)[\\s:=-]*(?:色|颜色|색)?(?:\\s+(?:is|are|was|es|est|ist|e|sind|son|sont|sono|zijn|era))?[\\s:=-]*$`);
/** A label right after a colour (CJK and "#fff background"): "#fff の背景", "#333 文字". */
const BG_AFTER = new RegExp(`^\\s*(?:の|的|색의?)?\\s*(?:${BG_WORDS}(?![a-z])|背景|배경|바탕)`);
const FG_AFTER = new RegExp(`^\\s*(?:の|的|색의?)?\\s*(?:(?:text|font|texto|texte|testo|tekst)(?![a-z])|文字|文本|前景|글자|글씨|텍스트)`);

const clampByte = (n: number) => Math.max(0, Math.min(255, Math.round(n)));
const hex2 = (n: number) => clampByte(n).toString(16).padStart(2, '0');

/** CSS Color 4 hsl() → sRGB (the specification's conversion), as #rrggbb; undefined when out of range. */
function hslToHex(hue: number, sat: number, light: number): string | undefined {
  if (sat > 100 || light > 100) return undefined;
  const s = sat / 100;
  const l = light / 100;
  const f = (n: number) => {
    const k = (n + (((hue % 360) + 360) % 360) / 30) % 12;
    return (l - s * Math.min(l, 1 - l) * Math.max(-1, Math.min(k - 3, 9 - k, 1))) * 255;
  };
  return `#${hex2(f(0))}${hex2(f(8))}${hex2(f(4))}`;
}

function channel(s: string): number | undefined {
  const v = s.endsWith('%') ? (Number(s.slice(0, -1)) * 255) / 100 : Number(s);
  return Number.isFinite(v) && v >= 0 && v <= 255.0001 ? v : undefined;
}

function opaque(alpha: string | undefined): boolean {
  if (alpha === undefined) return true;
  const a = alpha.endsWith('%') ? Number(alpha.slice(0, -1)) / 100 : Number(alpha);
  return a === 1;
}

/** One colour token (already lower-case) → #rrggbb, or undefined (not a colour, or not opaque). */
function fromToken(t: string): string | undefined {
  if (t.startsWith('#')) return t.length === 4 ? `#${t[1]}${t[1]}${t[2]}${t[2]}${t[3]}${t[3]}` : t.length === 7 ? t : undefined;
  const m = RGB_EXACT.exec(t);
  if (m) {
    const [r, g, b] = [channel(m[1]!), channel(m[2]!), channel(m[3]!)];
    return r === undefined || g === undefined || b === undefined || !opaque(m[4]) ? undefined : `#${hex2(r)}${hex2(g)}${hex2(b)}`;
  }
  const h = HSL_EXACT.exec(t);
  if (h) return opaque(h[4]) ? hslToHex(Number(h[1]), Number(h[2]), Number(h[3])) : undefined;
  return CSS_NAMED_COLOURS.get(t.replace(/[\s-]/g, ''));
}

/**
 * A colour as people write it — "#333", "#333333", "navy", "light grey",
 * "rgb(51, 51, 51)", "rgba(0 0 0 / 100%)" — as the native #rrggbb (lower-case),
 * or undefined when it is none of these (or is not opaque).
 */
export function parseColour(value: string): string | undefined {
  const folded = foldText(value);
  const direct = fromToken(folded);
  if (direct !== undefined || folded.startsWith('#')) return direct;
  const cjk = cjkColourValue(folded);
  if (cjk !== undefined) return cjk;
  // A colour name in any routed language ("azul oscuro", "浅灰色"), when it is the whole value.
  const found: Found[] = [];
  const unread: string[] = [];
  namedColours(folded, found, unread);
  return found.length === 1 && unread.length === 0 && found[0]!.start === 0 && found[0]!.end === folded.length ? found[0]!.value : undefined;
}

interface Found {
  value: string;
  start: number;
  end: number;
  /** Named colours are ordinary words too; they count only when written as a pair. */
  named: boolean;
}

/**
 * Colour names in the ten routed languages (colour-words.ts): the colours it
 * reads go to `out`, the shades it cannot name exactly to `unread`.
 */
function namedColours(text: string, out: Found[], unread: string[]): void {
  const words: Array<{ w: string; start: number; end: number }> = [];
  for (const m of text.matchAll(WORD)) words.push({ w: m[0], start: m.index!, end: m.index! + m[0].length });
  const all = ASCII.test(text) ? latinColourWords(text, words) : [...latinColourWords(text, words), ...cjkColourWords(text)];
  for (const c of all) {
    if (c.value) out.push({ value: c.value, start: c.start, end: c.end, named: true });
    else unread.push(c.words);
  }
}

/** "and", "vs", "," and their equivalents: how a list of colours is written once colours are known to be wanted. */
const AND_WORD = /^\s*(?:,|\/|&|and|vs\.?|versus|with|y|e|et|und|en|o|和|与|與|跟|配|と|와|과|및)?\s*$/;

/**
 * A named colour counts when the words between it and a neighbouring colour
 * pair them ("white text on navy"); with `loose` (the objective already asks
 * for contrast) a plain list does too ("teal and white").
 */
function pairsWithNeighbour(text: string, all: Found[], i: number, loose: boolean): boolean {
  const near = (a: Found, b: Found) => {
    const between = text.slice(a.end, b.start);
    if (between.length > 40) return false;
    if (ON_WORD.test(between) || BG_LABEL.test(between) || FG_LABEL.test(between) || BG_AFTER.test(between) || /^\s*\/\s*$/.test(between)) return true;
    // "紺色の文字と白い背景", "진한 파랑 글자, 흰색 배경": a label after the first colour, then "and".
    const afterLabel = between.replace(BG_AFTER, '').replace(FG_AFTER, '');
    if (afterLabel !== between && (AND_WORD.test(afterLabel) || /^\s*[をでにはが、]?\s*$/.test(afterLabel))) return true;
    return loose && AND_WORD.test(between);
  };
  return (i > 0 && near(all[i - 1]!, all[i]!)) || (i + 1 < all.length && near(all[i]!, all[i + 1]!));
}

/** "dark gray (#444)", "#444 (dark gray)", "blue #4285f4": one colour written twice; the explicit value wins. */
function restates(text: string, all: Found[], i: number): boolean {
  // "brand blue #4285f4", "dark gray (#444)", "#444 (dark gray)", "white: #fff": the name and the value side by side.
  const beside = /^\s*[(:=]?\s*$/;
  return (i + 1 < all.length && !all[i + 1]!.named && beside.test(text.slice(all[i]!.end, all[i + 1]!.start))) || (i > 0 && !all[i - 1]!.named && /^\s*\(\s*$/.test(text.slice(all[i - 1]!.end, all[i]!.start)));
}

const colourMemo: Array<{ text: string; loose: boolean; reading: ColourReading }> = [];

/**
 * Colours in the order written, paired:
 * - "A on B", "A/B, C/D", "A vs B and C vs D": consecutive pairs (foreground first);
 * - "A, B and C on D": one background after the only "on", every earlier colour a foreground;
 * - two colours labelled "background A … text B" (or "A の背景 … B の文字"): the labels win;
 * - Japanese/Korean/Chinese "B の上の A", "B 위의 A", "B 上的 A": background first.
 * Colours: #rrggbb, #rgb, rgb()/rgba() and hsl()/hsla() with an opaque alpha,
 * and CSS named colours where the text pairs them with another colour (with
 * `loose`, also in a plain list: "teal and white"). Connectors and labels
 * in the ten routed languages.
 */
export function readColours(raw: string, opts: { loose?: boolean } = {}): ColourReading {
  const loose = opts.loose === true;
  // The same objective is read for the signal and again for the bodies: remember the last two readings.
  const hit = colourMemo.find((m) => m.text === raw && m.loose === loose);
  if (hit) return hit.reading;
  const text = foldText(raw);
  const candidates: Found[] = [];
  for (const m of text.matchAll(STRONG_COLOUR)) {
    const value = fromToken(m[0]);
    if (value) candidates.push({ value, start: m.index!, end: m.index! + m[0].length, named: false });
  }
  const unread: string[] = [];
  namedColours(text, candidates, unread);
  // "not light blue but sky blue", "水色ではなく空色": a colour the text rules out is not one of the pair.
  for (let i = candidates.length - 1; i >= 0; i--) if (ruledOut(text, candidates[i]!)) candidates.splice(i, 1);
  candidates.sort((a, b) => a.start - b.start);
  const found = candidates.filter((f, i) => !f.named || (pairsWithNeighbour(text, candidates, i, loose) && !restates(text, candidates, i)));
  const paired = pairColours(text, found);
  const reading: ColourReading = unread.length ? { colours: paired.colours, pairs: [], explicit: paired.explicit, unread } : paired;
  colourMemo.unshift({ text: raw, loose, reading });
  colourMemo.length = Math.min(colourMemo.length, 2);
  return reading;
}

const RULED_OUT_BEFORE = /(?:(?<![a-z])(?:not|instead of|rather than|nicht|niet|pas|non)\s+|不是|而不是)$/;
const RULED_OUT_AFTER = /^\s*(?:ではなく|じゃなく|でなく|가 아니라|이 아니라|가 아닌|이 아닌)/;
function ruledOut(text: string, c: Found): boolean {
  return RULED_OUT_BEFORE.test(text.slice(Math.max(0, c.start - 16), c.start)) || RULED_OUT_AFTER.test(text.slice(c.end, c.end + 12));
}

function pairColours(text: string, found: Found[]): ColourReading {
  const colours = found.map((f) => f.value);
  const explicit = found.some((f) => !f.named);
  if (found.length < 2) return { colours, pairs: [], unpaired: found.length === 1 ? colours[0] : undefined, explicit };
  const separators = found.slice(1).map((f, i) => text.slice(found[i]!.end, f.start));

  if (found.length >= 3) {
    const onAt = separators.map((s) => ON_WORD.test(s));
    if (onAt[onAt.length - 1] && onAt.filter(Boolean).length === 1) {
      const background = colours[colours.length - 1]!;
      return {
        colours,
        pairs: colours.slice(0, -1).map((foreground) => ({ foreground, background })),
        how: `${colours.length - 1} foreground colours on the one background ${background} named last in the objective`,
        explicit,
      };
    }
  }
  if (found.length % 2 === 1) return { colours, pairs: [], unpaired: colours[colours.length - 1], explicit };
  const pairs: ColourPair[] = [];
  let swapped = false;
  for (let i = 0; i < found.length; i += 2) {
    let foreground = colours[i]!;
    let background = colours[i + 1]!;
    if (found.length === 2 && backgroundFirst(text, found[0]!, found[1]!, separators[0]!)) {
      [foreground, background] = [background, foreground];
      swapped = true;
    } else if (BACKGROUND_FIRST.test(separators[i]!)) {
      [foreground, background] = [background, foreground];
      swapped = true;
    }
    pairs.push({ foreground, background });
  }
  const how =
    pairs.length === 1
      ? swapped
        ? 'the two colours in the objective, the background named first'
        : 'the two colours in the objective, foreground first'
      : 'consecutive colours in the objective, foreground first in each pair';
  return { colours, pairs, how, explicit };
}

/** Two colours: is the first one the background (by the labels before them, else after them, else a background-first connector)? */
function backgroundFirst(text: string, a: Found, b: Found, between: string): boolean {
  const before0 = text.slice(Math.max(0, a.start - 30), a.start);
  const before1 = text.slice(Math.max(0, b.start - 30), b.start);
  const byLabels = (bg0: boolean, fg0: boolean, bg1: boolean, fg1: boolean): boolean | undefined => {
    if (bg0 && !fg0 && !bg1) return true;
    if (fg1 && !bg1 && !fg0) return true;
    return bg0 || fg0 || bg1 || fg1 ? false : undefined;
  };
  const before = byLabels(BG_LABEL.test(before0), FG_LABEL.test(before0), BG_LABEL.test(before1), FG_LABEL.test(before1));
  if (before !== undefined) return before;
  const after0 = text.slice(a.end, Math.min(a.end + 16, b.start));
  const after1 = text.slice(b.end, b.end + 16);
  const after = byLabels(BG_AFTER.test(after0), FG_AFTER.test(after0), BG_AFTER.test(after1), FG_AFTER.test(after1));
  if (after !== undefined) return after;
  return BACKGROUND_FIRST.test(between);
}

/** large_text as stated in words (the ten routed languages), or undefined when the text does not say. */
export function readLargeText(text: string): boolean | undefined {
  const t = foldText(text);
  const large =
    /\blarge[- ]?(?:text|type|font|print)\b|\b(?:18|24) ?(?:pt|px)\b|\b14 ?pt bold\b|\bbold 14 ?pt\b|\bheadings?\b|\bheadlines?\b|\b(?:texto|letra) grande\b|\bgrand texte\b|\btexte en gros\b|\bgrosse[rns]? (?:text|schrift)\b|\bgrosstext\b|\btesto grande\b|\bgrote (?:tekst|letters)\b|\b(?:titulos?|titres?|uberschrift\w*|titoli|koppen)\b|大号文字|大字|大きな文字|大きい文字|큰 (?:텍스트|글자|글씨)|제목/.test(t);
  const normal =
    /\b(?:normal|body|small|regular|paragraph)[- ]?(?:text|type|font|copy)\b|\btexto (?:normal|pequeno)\b|\btexte (?:normal|courant)\b|\b(?:normale[rns]?|kleine[rns]?) (?:text|schrift)\b|\bfliesstext\b|\btesto (?:normale|piccolo)\b|\b(?:normale|kleine) tekst\b|正文|普通文字|本文|通常の文字|본문|일반 텍스트/.test(t);
  if (large && !normal) return true;
  if (normal && !large) return false;
  return undefined;
}

// ─── URIs and URLs ──────────────────────────────────────────────────────────

export interface TextUri {
  value: string;
  /** ipfs://, ipns://, ar://, data: or a bare CID: an NFT-style identifier. http(s) URLs are `url`. */
  kind: 'nft' | 'url';
}

const URI_PATTERNS = [
  /\b(?:ipfs|ipns|ar):\/\/[^\s"'<>`]+/gi,
  /\bdata:[a-z]+\/[a-z0-9.+-]+[^\s"'<>`]*/gi,
  /\bhttps?:\/\/[^\s"'<>`]+/gi,
  /(?<![\w/.:-])(?:Qm[1-9A-HJ-NP-Za-km-z]{44}|bafy[a-z2-7]{50,})(?:\/[^\s"'<>`]*)?/g,
];
const TRAILING = /[.,;:!?)\]}'"]+$/;

let lastUriText: string | undefined;
let lastUris: readonly TextUri[] = [];

/** URIs and URLs in the text in order of appearance, trailing punctuation removed (do not mutate the answer: the last one is reused). */
export function readUris(text: string): readonly TextUri[] {
  if (text === lastUriText) return lastUris;
  lastUris = findUris(text);
  lastUriText = text;
  return lastUris;
}

function findUris(text: string): TextUri[] {
  const hits: Array<{ at: number; value: string; kind: TextUri['kind'] }> = [];
  const taken: Array<[number, number]> = [];
  for (const re of URI_PATTERNS) {
    for (const m of text.matchAll(re)) {
      const start = m.index!;
      let value = m[0];
      // Keep a closing brace that belongs to an ERC-1155 {id} template.
      const stripped = value.replace(TRAILING, '');
      value = stripped.endsWith('{id') ? stripped + '}' : stripped;
      const end = start + value.length;
      if (value.length < 8 || taken.some(([a, b]) => start < b && end > a)) continue;
      taken.push([start, end]);
      hits.push({ at: start, value, kind: /^https?:/i.test(value) ? 'url' : 'nft' });
    }
  }
  hits.sort((a, b) => a.at - b.at);
  return hits.map(({ value, kind }) => ({ value, kind }));
}

/** An http(s) URL that points at an IPFS/IPNS gateway or Arweave: a token URI in URL form, not a page. */
export function isGatewayUrl(url: string): boolean {
  return /^https?:\/\/[^/]*(?:\.ipfs\.|\.ipns\.)|^https?:\/\/[^/]+\/(?:ipfs|ipns)\/|^https?:\/\/(?:[^/]+\.)?arweave\.net\//i.test(url);
}

// ─── dates ──────────────────────────────────────────────────────────────────

const ISO = /(?<![\w-])(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?(?![\w:])/i;

export interface Timestamp {
  /** RFC 3339 date-time, e.g. 2025-06-01T00:00:00Z. */
  value: string;
  /** What was filled in (midnight, UTC), for the quote's assumptions. */
  filled: string[];
}

/**
 * An ISO 8601 date or date-time as an RFC 3339 timestamp: a date means
 * midnight UTC, a time without offset means UTC. Undefined when there is none
 * or it is not a real calendar date.
 */
export function toTimestamp(s: string, anywhere = false): Timestamp | undefined {
  const m = anywhere ? ISO.exec(s) : new RegExp(`^${ISO.source}$`, 'i').exec(s.trim());
  if (!m) return undefined;
  const [, y, mo, d, h, mi, sec, frac, zone] = m;
  const filled: string[] = [];
  const time = h === undefined ? (filled.push('midnight'), '00:00:00') : `${h}:${mi}:${sec ?? (filled.push('seconds'), '00')}${frac ?? ''}`;
  let offset = zone ?? (filled.push('UTC'), 'Z');
  if (/^[+-]\d{4}$/.test(offset)) offset = `${offset.slice(0, 3)}:${offset.slice(3)}`;
  if (offset === 'z') offset = 'Z';
  const value = `${y}-${mo}-${d}T${time}${offset}`;
  const t = Date.parse(value);
  if (Number.isNaN(t)) return undefined;
  // Date.parse rolls 2025-02-30 over to March; a real date survives the round trip.
  const probe = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d)));
  if (probe.getUTCFullYear() !== Number(y) || probe.getUTCMonth() !== Number(mo) - 1 || probe.getUTCDate() !== Number(d)) return undefined;
  if (Number(h ?? 0) > 23 || Number(mi ?? 0) > 59 || Number(sec ?? 0) > 59) return undefined;
  return { value, filled };
}

/** The first date in the text, preferring one right after "since", "after", "from" (or desde, depuis, seit, dal, sinds, 以来…). */
export function readTimestamp(text: string): Timestamp | undefined {
  const after = /(?:\b(?:since|after|from|desde|depuis|seit|dal|dall'|sinds|vanaf|a partir de|apres|nach|dopo|na)\s+(?:the\s+|el\s+|le\s+|dem\s+|il\s+|o\s+)?|自|从|從)(\d{4}-\d{2}-\d{2}[^\s,;]*)/i.exec(text);
  if (after) {
    const t = toTimestamp(after[1]!.replace(TRAILING, ''), true);
    if (t) return t;
  }
  return toTimestamp(text, true);
}

// ─── negation ───────────────────────────────────────────────────────────────

const NEGATION =
  /\b(?:without|no(?! (?:google|site|sitio|painel|botao|navegador|link|menu|campo|formulario|carrinho|app)\b)|not|never|don't|dont|do not|doesn't|does not|won't|will not|nor|avoid|avoiding|instead of)\b(?:\s+(?:any|the|a|an|it|them|to|be|being|need|needing|doing|further|additional|extra|outbound|external|real|actual|live|remote|use|using|via|through|an?|my|mcp|wallet|server|endpoint))*\s+[\w-]+/gi;
/** The same in the other routed languages, over folded text: "sin descargar", "ohne abzurufen", "sans télécharger", "不要下载", "取得せずに", "가져오지 않고". */
const NEGATION_FOLDED =
  /(?<![a-z])(?:sin|sem|sans|ohne|senza|zonder|nao|nicht|niet|kein\w*|geen|ne pas|pas de|non|no(?! (?:google|site|sitio|painel|botao|navegador|link|menu|campo|formulario|carrinho|app)\b))(?:\s+(?:la|el|los|las|lo|o|a|os|as|le|les|l'|die|der|das|den|zu|il|lo|de|het|een|un|una|uma|une|ein\w*|se|ni|pas|hacer|fazer|faire))*\s+[\w'-]+|(?:不要|不用|无需|無需|无须|請勿|请勿|勿|别|別)[\u4e00-\u9fff]{1,4}|[^\s、。,.!?]{1,12}(?:せずに|せず|しないで|しないで|なしで|지 않고|지 말고|없이)/g;

/** The text with negated phrases ("without fetching", "do not browse") blanked out. Portuguese "no" before a place ("no Google", "no site") is "in the", not a negation. */
export function withoutNegations(text: string): string {
  return text.replace(NEGATION, ' ');
}

/** Folded text (see foldText) with negated phrases blanked out, in every routed language. */
export function withoutNegationsFolded(folded: string): string {
  return folded.replace(NEGATION, ' ').replace(NEGATION_FOLDED, ' ');
}

// ─── colour conversion (not offered) ────────────────────────────────────────

const COLOUR_SPACE = String.raw`(?:cmyk|cmjn|pantone|hsv|hsb|hsl|cie ?lab|lab|lch|oklch|oklab|ral|hex(?:adecimal)?|rgb|ncs|xyz)`;
/** "convert #ff8800 to CMYK", "#ff8800 in Pantone", "convierte #ff8800 a CMYK", "#ff8800 转换为 CMYK". */
const CONVERSION = new RegExp(
  [
    String.raw`(?<![a-z])(?:convert\w*|conver(?:tir|ter|tire|ti|ta|te|tis)\w*|umrechn\w*|umwandl\w*|wandle\w*|reken\w* om|omzet\w*|zet\w* om|translate\w*|traduc\w*|tradui\w*|tradu[sz]\w*)(?![a-z])[^.?!]{0,60}?(?<![a-z])(?:to|into|in|as|a|al|en|em|para|naar|zu|nach|in)\s+(?:the |el |la |le |o |de |den |das |il |het )?${COLOUR_SPACE}(?![a-z])`,
    String.raw`(?<![a-z])(?:in|as|en|em|como|als|naar)\s+${COLOUR_SPACE}\s*(?:\?|$|values?|valor\w*|valeur\w*|wert\w*|waarde\w*|valore|format\w*)`,
    String.raw`(?<![a-z])(?:cmyk|cmjn|pantone|hsv|hsb|ral|ncs|cie ?lab)(?![a-z])`,
    String.raw`(?:转换|轉換|换算|変換|변환)[^。？！]{0,12}${COLOUR_SPACE}|${COLOUR_SPACE}[^。？！]{0,12}(?:转换|轉換|换算|変換|변환|로 바꿔|に直して)`,
  ].join('|'),
);

/**
 * Whether the text asks to convert a colour into another notation (CMYK,
 * Pantone, HSL…): not something the catalogue offers, and not a contrast
 * question, so colours in it are not a contrast pair missing its background.
 */
export function asksColourConversion(text: string): boolean {
  return CONVERSION.test(foldText(text));
}

// ─── data pasted into the objective ─────────────────────────────────────────

export interface PastedData {
  /** JSON objects pasted into the text (labelled or not), each with its text as written. */
  objects: Array<{ value: Record<string, unknown>; text: string }>;
  /** `name: value` written in the text (`large_text: true`, `"source_fields": [...]`), in order. */
  pairs: Array<[string, unknown]>;
  /** An HTML page pasted into the text (from its first tag to its last), when it carries JSON-LD. */
  html?: string;
  /** The text with every pasted value blanked: the words that say what is asked. */
  words: string;
}

/** "source_fields:", "source fields =", '"target_fields":' right before a pasted value (words joined by _ as input names are). */
const LABEL_BEFORE = /(["']?)([A-Za-z_][A-Za-z0-9_]{0,40}(?: [A-Za-z][A-Za-z0-9_]{0,20}){0,2})\1\s*[:=]\s*$/;
const SCALAR_PAIR = /(["']?)\b([A-Za-z_][A-Za-z0-9_]{0,63})\1\s*[:=]\s*(true|false|null|-?\d+(?:\.\d+)?(?![\w.])|"(?:[^"\\\n]|\\.){0,500}")/g;

/** Where the JSON value starting at `from` ('{' or '[') ends (exclusive), or -1: brackets counted outside strings. */
function jsonEnd(text: string, from: number): number {
  let depth = 0;
  let inString = false;
  for (let i = from; i < text.length; i++) {
    const ch = text[i]!;
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === '{' || ch === '[') depth++;
    else if (ch === '}' || ch === ']') {
      depth--;
      if (depth === 0) return i + 1;
      if (depth < 0) return -1;
    }
  }
  return -1;
}

/**
 * JSON and HTML an agent pasted into its objective ("check these contracts:
 * {"source_fields": …}", "large_text: true", a Product JSON-LD block), read as
 * data when it parses, and the words around it. A URL inside pasted data
 * (`"@context": "https://schema.org"`) is data, not something asked for.
 */
export function pastedData(text: string): PastedData {
  const objects: PastedData['objects'] = [];
  const pairs: PastedData['pairs'] = [];
  let words = text;
  const blank = (start: number, end: number) => {
    words = words.slice(0, start) + ' '.repeat(end - start) + words.slice(end);
  };
  let html: string | undefined;
  const open = text.search(/<(?:!doctype|html|head|body|script)\b/i);
  if (open >= 0 && /application\/ld\+json/i.test(text)) {
    const close = text.lastIndexOf('>');
    if (close > open) {
      html = text.slice(open, close + 1);
      blank(open, close + 1);
    }
  }
  for (let i = 0; i < words.length; i++) {
    const ch = words[i];
    if (ch !== '{' && ch !== '[') continue;
    const end = jsonEnd(words, i);
    if (end < 0) continue;
    const segment = words.slice(i, end);
    let value: unknown;
    try {
      value = JSON.parse(segment);
    } catch {
      continue;
    }
    const label = LABEL_BEFORE.exec(words.slice(Math.max(0, i - 70), i));
    const isObject = value !== null && typeof value === 'object' && !Array.isArray(value);
    // "check: {…}" labels an object with a word that may be no input's name: the object counts either way.
    if (label) pairs.push([label[2]!.toLowerCase().replace(/ /g, '_'), value]);
    if (isObject) objects.push({ value: value as Record<string, unknown>, text: segment });
    if (!label && !isObject) continue;
    blank(isObject ? i : i - label![0].length, end);
    i = end - 1;
  }
  for (const m of words.matchAll(SCALAR_PAIR)) {
    let value: unknown;
    try {
      value = JSON.parse(m[3]!);
    } catch {
      continue;
    }
    pairs.push([m[2]!, value]);
  }
  return { objects, pairs, ...(html !== undefined ? { html } : {}), words };
}
