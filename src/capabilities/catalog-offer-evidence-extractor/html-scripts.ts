/**
 * Linear-time scanner that finds `<script type="application/ld+json">` elements (and the
 * first `<base href>`) the way an HTML5 tokenizer would see them, without building a DOM.
 *
 * What it follows from the HTML standard's tokenizer:
 *  - tag names and attribute names are ASCII case-insensitive; attributes may come in any
 *    order, quoted with " or ', or unquoted; the first of duplicated attributes wins;
 *    character references in attribute values are decoded;
 *  - comments (`<!-- … -->`, also `<!-->`, `--!>`), doctype / bogus comments are skipped, so a
 *    script inside a comment is not a script;
 *  - RAWTEXT / RCDATA elements (style, textarea, title, xmp, iframe, noembed, noframes) are
 *    skipped to their end tag; `<plaintext>` ends markup;
 *  - script data: the script ends at the first `</script` followed by whitespace, `/` or `>`,
 *    with the "escaped" (`<!--`) and "double escaped" (`<!-- … <script>`) states applied, so the
 *    element ends exactly where a browser ends it — also when that `</script>` sits inside a
 *    JSON string (the extractor may then try a flagged re-join, see `continuationEnd`);
 *  - nothing special happens at `</html>`: scripts after it are found (and marked);
 *  - schema.org Product items in microdata (`itemscope` + `itemtype`) and RDFa (`typeof`) are
 *    counted from the start tags' attributes, not extracted: so a caller knows why a page with
 *    product markup gives no products.
 * Every loop advances the position, and every search starts where the previous one stopped
 * (or inside a region that is then skipped), so the cost is linear in the page length.
 */
import { decodeAttributeReferences } from './character-references.js';
import { SCHEMA_ORG_SUBCLASSES } from './schemaorg-types.js';

const PRODUCT_TYPES: ReadonlySet<string> = new Set(SCHEMA_ORG_SUBCLASSES.Product);

export interface FoundScript {
  /** Raw `type` attribute value (after character-reference decoding), null when absent. */
  typeAttribute: string | null;
  /** How the type attribute deviates from exactly `application/ld+json`. */
  typeFlags: string[];
  /** Offset of the `<` of the start tag (UTF-16 code units). */
  tagStart: number;
  /** Offsets of the script text (UTF-16 code units), end exclusive. */
  contentStart: number;
  contentEnd: number;
  /** Offset just after the end tag, or the page length when the script is unterminated. */
  endTagEnd: number;
  unterminated: boolean;
  /** The script text passed through the "double escaped" state (`<!--` then `<script`). */
  doubleEscaped: boolean;
  /**
   * When the text after this script's end tag holds no other script start tag before a stray
   * `</script` end tag, the offset of that stray end tag: a JSON string containing `</script>`
   * most likely split the script there. Null otherwise.
   */
  continuationEnd: number | null;
  src: string | null;
  afterHtmlEnd: boolean;
  insideNoscript: boolean;
  insideTemplate: boolean;
}

export interface ScanResult {
  scripts: FoundScript[];
  /** Count of script elements of other types (skipped). */
  otherScripts: number;
  baseHref: { raw: string; offset: number } | null;
  /** Offset of the first `</html>` end tag, if any. */
  htmlEnd: number | null;
  /** Elements typed as a schema.org Product (or subtype) in microdata / RDFa: seen, not extracted. */
  markup: { microdataProducts: number; rdfaProducts: number };
  notes: Array<{ code: string; message: string; offset: number }>;
}

const RAW_TEXT = new Set(['style', 'textarea', 'title', 'xmp', 'iframe', 'noembed', 'noframes']);

function isAlpha(c: number): boolean {
  return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}
function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d;
}
/** A character that ends a tag name in the tokenizer ("whitespace, / or >"). */
function isTagTerm(c: number): boolean {
  return isSpace(c) || c === 0x2f || c === 0x3e;
}

/** Case-insensitive match of lowercase ASCII `word` at `at`. */
function matchWordCI(s: string, at: number, word: string): boolean {
  if (at + word.length > s.length) return false;
  for (let k = 0; k < word.length; k++) {
    if ((s.charCodeAt(at + k) | 0x20) !== word.charCodeAt(k)) return false;
  }
  return true;
}

/**
 * `</name` followed by a tag-name terminator at `at`. At the end of input it is not an end
 * tag: the tokenizer's end-tag-name state emits `</name` as text there (found by the parse5
 * oracle test).
 */
function isEndTagAt(s: string, at: number, name: string): boolean {
  if (s.charCodeAt(at) !== 0x3c || s.charCodeAt(at + 1) !== 0x2f) return false;
  if (!matchWordCI(s, at + 2, name)) return false;
  const t = at + 2 + name.length;
  return t < s.length && isTagTerm(s.charCodeAt(t));
}

interface TagParse {
  /** Offset just after the closing `>` (or the page length when the tag never closes). */
  end: number;
  closed: boolean;
  attrs: Map<string, string>;
}

/** Microdata / RDFa attributes of one start tag (the first of duplicates wins, as in the tokenizer). */
interface MarkupAttrs {
  itemscope: boolean;
  itemtype: string | null;
  typeOf: string | null;
  vocab: string | null;
}

const MARKUP_ITEMSCOPE = 1;
const MARKUP_ITEMTYPE = 2;
const MARKUP_TYPEOF = 3;
const MARKUP_VOCAB = 4;

/** Which markup attribute the name s[from, to) is, by length first so most names cost one compare. */
function markupAttrAt(s: string, from: number, to: number): number {
  switch (to - from) {
    case 5:
      return matchWordCI(s, from, 'vocab') ? MARKUP_VOCAB : 0;
    case 6:
      return matchWordCI(s, from, 'typeof') ? MARKUP_TYPEOF : 0;
    case 8:
      return matchWordCI(s, from, 'itemtype') ? MARKUP_ITEMTYPE : 0;
    case 9:
      return matchWordCI(s, from, 'itemscope') ? MARKUP_ITEMSCOPE : 0;
    default:
      return 0;
  }
}

/**
 * Parse attributes from `pos` (just after the tag name) up to the closing `>`.
 * Follows the tokenizer's attribute states, including quoted values containing `>`.
 * With `markup`, the microdata/RDFa attributes are recorded there (it is reset first).
 */
function parseAttributes(s: string, pos: number, wantAttrs: boolean, markup?: MarkupAttrs): TagParse {
  if (markup) {
    markup.itemscope = false;
    markup.itemtype = null;
    markup.typeOf = null;
    markup.vocab = null;
  }
  const n = s.length;
  const attrs = new Map<string, string>();
  while (pos < n) {
    let c = s.charCodeAt(pos);
    if (isSpace(c) || c === 0x2f) {
      pos++;
      continue;
    }
    if (c === 0x3e) return { end: pos + 1, closed: true, attrs };
    // attribute name: the first character may be '=' (a tokenizer parse error, kept in the name)
    const ns = pos;
    pos++;
    while (pos < n) {
      c = s.charCodeAt(pos);
      if (isSpace(c) || c === 0x2f || c === 0x3e || c === 0x3d) break;
      pos++;
    }
    const name = wantAttrs ? s.slice(ns, pos).toLowerCase() : '';
    const mk = markup ? markupAttrAt(s, ns, pos) : 0;
    const keep = wantAttrs || mk !== 0;
    while (pos < n && isSpace(s.charCodeAt(pos))) pos++;
    let value = '';
    if (s.charCodeAt(pos) === 0x3d /* = */) {
      pos++;
      while (pos < n && isSpace(s.charCodeAt(pos))) pos++;
      const q = s.charCodeAt(pos);
      if (q === 0x22 || q === 0x27) {
        const e = s.indexOf(q === 0x22 ? '"' : "'", pos + 1);
        if (e === -1) return { end: n, closed: false, attrs };
        if (keep) value = s.slice(pos + 1, e);
        pos = e + 1;
      } else {
        const vs = pos;
        while (pos < n) {
          c = s.charCodeAt(pos);
          if (isSpace(c) || c === 0x3e) break;
          pos++;
        }
        if (keep) value = s.slice(vs, pos);
      }
    }
    if (wantAttrs && !attrs.has(name)) {
      attrs.set(name, decodeAttributeReferences(value));
    }
    if (mk !== 0 && markup) {
      const v = decodeAttributeReferences(value);
      if (mk === MARKUP_ITEMSCOPE) markup.itemscope = true;
      else if (mk === MARKUP_ITEMTYPE) markup.itemtype ??= v;
      else if (mk === MARKUP_TYPEOF) markup.typeOf ??= v;
      else markup.vocab ??= v;
    }
  }
  return { end: n, closed: false, attrs };
}

/** Strip leading and trailing ASCII whitespace (no regex: linear on any input). */
export function trimAsciiSpace(v: string): string {
  let a = 0;
  let b = v.length;
  while (a < b && isSpace(v.charCodeAt(a))) a++;
  while (b > a && isSpace(v.charCodeAt(b - 1))) b--;
  return a === 0 && b === v.length ? v : v.slice(a, b);
}

/** Result of classifying a `type` attribute. */
export function classifyType(raw: string | null): { ldJson: boolean; flags: string[] } {
  if (raw === null) return { ldJson: false, flags: [] };
  const flags: string[] = [];
  let a = 0;
  let b = raw.length;
  const trimAB = (): boolean => {
    const a0 = a;
    const b0 = b;
    while (a < b && isSpace(raw.charCodeAt(a))) a++;
    while (b > a && isSpace(raw.charCodeAt(b - 1))) b--;
    return a !== a0 || b !== b0;
  };
  if (trimAB()) flags.push('whitespace');
  let quoted = false;
  while (b - a >= 2) {
    const q = raw.charCodeAt(a);
    if ((q !== 0x22 && q !== 0x27) || raw.charCodeAt(b - 1) !== q) break;
    a++;
    b--;
    quoted = true;
    trimAB();
  }
  if (quoted) flags.push('quotes');
  // An essence longer than any media type we accept cannot match: no need to copy it.
  const semi = raw.indexOf(';', a);
  const essEnd = semi === -1 || semi >= b ? b : semi;
  if (essEnd !== b) flags.push('parameters');
  let ea = a;
  let eb = essEnd;
  while (ea < eb && isSpace(raw.charCodeAt(ea))) ea++;
  while (eb > ea && isSpace(raw.charCodeAt(eb - 1))) eb--;
  if ((ea !== a || eb !== essEnd) && !flags.includes('whitespace')) flags.push('whitespace');
  if (eb - ea !== 19) return { ldJson: false, flags };
  const essence = raw.slice(ea, eb);
  const lower = essence.toLowerCase();
  if (lower !== essence) flags.push('uppercase');
  return { ldJson: lower === 'application/ld+json', flags };
}

/**
 * Find where script data ends, starting at `from` (just after the start tag).
 * Returns the offset of the end tag's `<` (or the page length) and whether the double-escaped
 * state was entered.
 */
function findScriptEnd(s: string, from: number): { contentEnd: number; doubleEscaped: boolean } {
  const n = s.length;
  const DATA = 0;
  const ESCAPED = 1;
  const DOUBLE = 2;
  let state = DATA;
  let dashes = 0;
  let doubleEscaped = false;
  let i = from;
  while (i < n) {
    if (state === DATA) {
      const j = s.indexOf('<', i);
      if (j === -1) return { contentEnd: n, doubleEscaped };
      i = j;
      if (isEndTagAt(s, i, 'script')) return { contentEnd: i, doubleEscaped };
      if (s.startsWith('<!--', i)) {
        state = ESCAPED;
        dashes = 2;
        i += 4;
        continue;
      }
      i++;
      continue;
    }
    const c = s.charCodeAt(i);
    if (c === 0x2d /* - */) {
      dashes++;
      i++;
      continue;
    }
    if (c === 0x3e /* > */ && dashes >= 2) {
      state = DATA;
      dashes = 0;
      i++;
      continue;
    }
    dashes = 0;
    if (c === 0x3c /* < */) {
      if (state === ESCAPED) {
        if (isEndTagAt(s, i, 'script')) return { contentEnd: i, doubleEscaped };
        if (matchWordCI(s, i + 1, 'script') && i + 7 < n && isTagTerm(s.charCodeAt(i + 7))) {
          state = DOUBLE;
          doubleEscaped = true;
          i += 7;
          continue;
        }
      } else if (isEndTagAt(s, i, 'script')) {
        state = ESCAPED;
        i += 8;
        continue;
      }
    }
    i++;
  }
  return { contentEnd: n, doubleEscaped };
}

/** Skip a comment starting at `lt` (`<!--`). Returns the offset after it, or -1 if unterminated. */
function skipComment(s: string, lt: number): number {
  let p = lt + 4;
  if (s.charCodeAt(p) === 0x3e) return p + 1; // <!-->
  if (s.charCodeAt(p) === 0x2d && s.charCodeAt(p + 1) === 0x3e) return p + 2; // <!--->
  while (true) {
    const d = s.indexOf('--', p);
    if (d === -1) return -1;
    let q = d + 2;
    while (s.charCodeAt(q) === 0x2d) q++; // runs of dashes: `--->`
    if (s.charCodeAt(q) === 0x3e) return q + 1;
    if (s.charCodeAt(q) === 0x21 && s.charCodeAt(q + 1) === 0x3e) return q + 2; // --!>
    p = q;
  }
}

/** Local name of a schema.org type IRI (`http(s)://(www.)schema.org/Name`), else null. */
function schemaOrgLocal(iri: string): string | null {
  const m = /^https?:\/\/(?:www\.)?schema\.org\/([A-Za-z0-9_]+)$/i.exec(iri);
  return m ? (m[1] as string) : null;
}

/** Split an attribute value on ASCII white space (a set of space-separated tokens). */
function tokens(v: string): string[] {
  return v.split(/[ \t\n\f\r]+/).filter((t) => t !== '');
}

/** A microdata item (itemscope) whose itemtype names a schema.org Product type. */
function isMicrodataProduct(m: MarkupAttrs): boolean {
  if (!m.itemscope || m.itemtype === null || m.itemtype.length > 2000) return false;
  for (const t of tokens(m.itemtype)) {
    const local = schemaOrgLocal(t);
    if (local !== null && PRODUCT_TYPES.has(local)) return true;
  }
  return false;
}

/**
 * An RDFa `typeof` naming a schema.org Product type: a full IRI, a `schema:` CURIE (a prefix of
 * RDFa 1.1's initial context), or a bare term once a schema.org `vocab` was seen on this or an
 * earlier element. Ancestry is not tracked (no DOM), so the last case is an approximation.
 */
function isRdfaProduct(m: MarkupAttrs, schemaVocab: boolean): boolean {
  if (m.typeOf === null || m.typeOf.length > 2000) return false;
  for (const t of tokens(m.typeOf)) {
    let local: string | null = null;
    if (t.indexOf(':') === -1) local = schemaVocab ? t : null;
    else if (t.length > 7 && matchWordCI(t, 0, 'schema:')) local = t.slice(7);
    else local = schemaOrgLocal(t);
    if (local !== null && PRODUCT_TYPES.has(local)) return true;
  }
  return false;
}

const INTERESTING = ['script', 'base', 'html', 'noscript', 'template', 'plaintext', ...RAW_TEXT];

/** The lower-case tag name if it is one the scanner acts on, else '' (no string is built). */
function tagNameOfInterest(s: string, from: number, to: number): string {
  const len = to - from;
  if (len < 3 || len > 9) return '';
  for (const name of INTERESTING) {
    if (name.length === len && matchWordCI(s, from, name)) return name;
  }
  return '';
}

/** Everything the scan carries from one tag to the next (one object per page, not per tag). */
interface ScanState {
  readonly html: string;
  readonly scripts: FoundScript[];
  readonly notes: ScanResult['notes'];
  otherScripts: number;
  baseHref: ScanResult['baseHref'];
  htmlEnd: number | null;
  noscriptDepth: number;
  templateDepth: number;
  /** The last ld+json script, while no other script start tag has been seen after it. */
  openForContinuation: FoundScript | null;
  /** Reused for every start tag, so reading attributes allocates nothing for the markup counts. */
  readonly markupAttrs: MarkupAttrs;
  readonly markup: ScanResult['markup'];
  schemaVocab: boolean;
}

/** Returned instead of a position when the tokenizer would emit nothing more. */
const STOP = -1;

/**
 * The scan moves from `<` to `<`; what follows each `<` decides which tokenizer state reads it,
 * and each state's function returns where the next search starts (or STOP).
 */
export function scanHtml(html: string): ScanResult {
  const st: ScanState = {
    html,
    scripts: [],
    notes: [],
    otherScripts: 0,
    baseHref: null,
    htmlEnd: null,
    noscriptDepth: 0,
    templateDepth: 0,
    openForContinuation: null,
    markupAttrs: { itemscope: false, itemtype: null, typeOf: null, vocab: null },
    markup: { microdataProducts: 0, rdfaProducts: 0 },
    schemaVocab: false,
  };
  const n = html.length;
  let i = 0;
  while (i < n) {
    const lt = html.indexOf('<', i);
    if (lt === -1) break;
    const c1 = html.charCodeAt(lt + 1);
    if (c1 === 0x21 /* ! */) i = afterMarkupDeclaration(st, lt);
    else if (c1 === 0x3f /* ? */) i = afterBogusComment(html, lt + 2);
    else if (c1 === 0x2f /* / */) i = afterEndTag(st, lt);
    else if (isAlpha(c1)) i = afterStartTag(st, lt);
    else i = lt + 1; // a `<` that starts no tag is text
    if (i === STOP) break;
  }
  return scanResult(st);
}

/** A bogus comment (`<?…>`, `<!DOCTYPE…>`, `</1…>`) runs to the next `>`. */
function afterBogusComment(html: string, from: number): number {
  const e = html.indexOf('>', from);
  return e === -1 ? html.length : e + 1;
}

/** `<!--` opens a comment (no script inside one counts); any other `<!` is a bogus comment. */
function afterMarkupDeclaration(st: ScanState, lt: number): number {
  if (!st.html.startsWith('<!--', lt)) return afterBogusComment(st.html, lt + 2);
  const e = skipComment(st.html, lt);
  if (e !== -1) return e;
  st.notes.push({
    code: 'unterminated_html_comment',
    message:
      'An HTML comment is never closed; like a browser, everything after it is treated as comment text and no scripts are taken from it.',
    offset: lt,
  });
  return STOP;
}

/** Offset of the first character after a tag name starting at `from`. */
function tagNameEnd(html: string, from: number): number {
  const n = html.length;
  let ne = from;
  while (ne < n && !isTagTerm(html.charCodeAt(ne))) ne++;
  return ne;
}

function afterEndTag(st: ScanState, lt: number): number {
  const html = st.html;
  const ns = lt + 2;
  // `</>` is dropped; `</` + non-letter is a bogus comment up to `>`
  if (!isAlpha(html.charCodeAt(ns))) return afterBogusComment(html, ns);
  const ne = tagNameEnd(html, ns);
  closeElement(st, tagNameOfInterest(html, ns, ne), lt);
  return parseAttributes(html, ne, false).end;
}

/**
 * An end tag of interest. A stray `</script>` right after an ld+json script marks where a
 * `</script>` inside a JSON string probably split it (see FoundScript.continuationEnd).
 */
function closeElement(st: ScanState, name: string, lt: number): void {
  if (name === 'script' && st.openForContinuation && st.openForContinuation.continuationEnd === null) {
    st.openForContinuation.continuationEnd = lt;
    st.openForContinuation = null;
  } else if (name === 'html' && st.htmlEnd === null) {
    st.htmlEnd = lt;
  } else if (name === 'noscript' && st.noscriptDepth > 0) {
    st.noscriptDepth--;
  } else if (name === 'template' && st.templateDepth > 0) {
    st.templateDepth--;
  }
}

function afterStartTag(st: ScanState, lt: number): number {
  const html = st.html;
  const ns = lt + 1;
  const ne = tagNameEnd(html, ns);
  const name = tagNameOfInterest(html, ns, ne);
  // attribute values are kept only where they are read: script and base
  const tag = parseAttributes(html, ne, name === 'script' || name === 'base', st.markupAttrs);
  if (!tag.closed) return STOP; // EOF inside a tag: the tokenizer emits nothing more
  countProductMarkup(st);
  if (name === '') return tag.end;
  return afterElementOfInterest(st, name, lt, tag);
}

/** Any start tag may carry microdata or RDFa typing it as a Product: counted, not extracted. */
function countProductMarkup(st: ScanState): void {
  const m = st.markupAttrs;
  if (m.vocab !== null && /schema\.org/i.test(m.vocab)) st.schemaVocab = true;
  if (isMicrodataProduct(m)) st.markup.microdataProducts++;
  if (isRdfaProduct(m, st.schemaVocab)) st.markup.rdfaProducts++;
}

/** The elements that change what the scan sees next, one case each. */
function afterElementOfInterest(st: ScanState, name: string, lt: number, tag: TagParse): number {
  switch (name) {
    case 'script':
      return afterScript(st, lt, tag);
    case 'base':
      // only the first <base href> counts, as in a browser
      if (st.baseHref === null && tag.attrs.has('href')) st.baseHref = { raw: tag.attrs.get('href') as string, offset: lt };
      return tag.end;
    case 'noscript':
      st.noscriptDepth++;
      return tag.end;
    case 'template':
      st.templateDepth++;
      return tag.end;
    case 'plaintext':
      return STOP; // everything after it is text
    default:
      return RAW_TEXT.has(name) ? rawTextEnd(st.html, tag.end, name) : tag.end;
  }
}

/** Inside RAWTEXT / RCDATA (style, textarea, …) nothing is a tag until the element's own end tag. */
function rawTextEnd(html: string, from: number, name: string): number {
  let p = from;
  while (true) {
    const j = html.indexOf('</', p);
    if (j === -1) return html.length;
    if (isEndTagAt(html, j, name)) return j;
    p = j + 2;
  }
}

/**
 * A script element: its text is skipped in script-data states whatever its type, so that
 * markup inside a JavaScript string is not read as tags; only ld+json scripts are reported.
 */
function afterScript(st: ScanState, lt: number, tag: TagParse): number {
  const html = st.html;
  const n = html.length;
  st.openForContinuation = null;
  const typeAttr = tag.attrs.has('type') ? (tag.attrs.get('type') as string) : null;
  const cls = classifyType(typeAttr);
  const end = findScriptEnd(html, tag.end);
  const unterminated = end.contentEnd >= n;
  const endTagEnd = unterminated ? n : parseAttributes(html, end.contentEnd + 8, false).end;
  if (!cls.ldJson) {
    st.otherScripts++;
    return endTagEnd;
  }
  const found: FoundScript = {
    typeAttribute: typeAttr,
    typeFlags: cls.flags,
    tagStart: lt,
    contentStart: tag.end,
    contentEnd: end.contentEnd,
    endTagEnd,
    unterminated,
    doubleEscaped: end.doubleEscaped,
    continuationEnd: null,
    src: tag.attrs.has('src') ? (tag.attrs.get('src') as string) : null,
    afterHtmlEnd: st.htmlEnd !== null,
    insideNoscript: st.noscriptDepth > 0,
    insideTemplate: st.templateDepth > 0,
  };
  st.scripts.push(found);
  if (!unterminated) st.openForContinuation = found;
  return endTagEnd;
}

function scanResult(st: ScanState): ScanResult {
  const { markup, notes } = st;
  if (markup.microdataProducts + markup.rdfaProducts > 0) {
    notes.push({
      code: 'product_markup_not_extracted',
      message: `The page types ${markup.microdataProducts} element(s) as a schema.org Product in microdata and ${markup.rdfaProducts} in RDFa; only JSON-LD is extracted, so they are not in "products" (see unextracted_markup).`,
      offset: 0,
    });
  }
  return { scripts: st.scripts, otherScripts: st.otherScripts, baseHref: st.baseHref, htmlEnd: st.htmlEnd, markup, notes };
}

/**
 * UTF-8 length of s[from, to). Lone surrogates count 3 bytes, as U+FFFD — the same bytes
 * `Buffer.from(s, 'utf8')` produces — so offsets agree with the hashed bytes.
 */
export function utf8Length(s: string, from: number, to: number): number {
  if (to - from > 256) return Buffer.byteLength(from === 0 && to === s.length ? s : s.slice(from, to), 'utf8');
  let bytes = 0;
  for (let k = from; k < to; k++) {
    const c = s.charCodeAt(k);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && k + 1 < to) {
      const d = s.charCodeAt(k + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        bytes += 4;
        k++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}
