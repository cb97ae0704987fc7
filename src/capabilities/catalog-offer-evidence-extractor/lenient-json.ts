/**
 * A small JSON parser written for JSON-LD evidence work.
 *
 * Why not `JSON.parse`:
 *  - numbers must keep their source text (`1.10` stays "1.10"; JSON.parse gives 1.1,
 *    and turns a 14-digit GTIN given as a number beyond 2^53 into a different number);
 *  - every value must know where it sits (parent + key) so a JSON pointer can be cited;
 *  - duplicate keys must be noticed (the value kept is the last one, as with JSON.parse,
 *    so a pointer resolved with any common JSON library lands on the value we used);
 *  - broken scripts found in the wild need a flagged, lenient recovery.
 *
 * The parser is iterative (an explicit stack), so deep nesting cannot overflow the
 * call stack; nesting beyond MAX_DEPTH is reported as a parse error for that script.
 * Every step advances through the text, so the cost is linear in its length.
 */
import { decodeTextReferences } from './character-references.js';

export const MAX_DEPTH = 512;

export type JsonContainer = JsonObject | JsonArray;

interface NodeBase {
  /** Containing object or array; null for the root. */
  parent: JsonContainer | null;
  /** Key in the parent object, or index in the parent array ('' for the root). */
  key: string | number;
}
export interface JsonObject extends NodeBase {
  kind: 'object';
  props: Map<string, JsonNode>;
}
export interface JsonArray extends NodeBase {
  kind: 'array';
  items: JsonNode[];
}
export interface JsonString extends NodeBase {
  kind: 'string';
  value: string;
}
export interface JsonNumber extends NodeBase {
  kind: 'number';
  /** The number token exactly as written in the source. */
  raw: string;
}
export interface JsonBool extends NodeBase {
  kind: 'boolean';
  value: boolean;
}
export interface JsonNull extends NodeBase {
  kind: 'null';
}
export type JsonNode = JsonObject | JsonArray | JsonString | JsonNumber | JsonBool | JsonNull;

/** Recoveries the lenient mode may apply; each one is reported when used. */
export type Recovery =
  | 'bom_removed'
  | 'html_comment_wrapper'
  | 'cdata_wrapper'
  | 'js_comments'
  | 'trailing_commas'
  | 'trailing_semicolon'
  | 'multiple_top_level_values'
  | 'control_characters_in_strings'
  | 'invalid_escapes'
  | 'single_quoted_strings'
  | 'unquoted_keys'
  | 'nonstandard_numbers'
  | 'nonstandard_whitespace'
  | 'missing_commas'
  | 'entity_decoded'
  | 'double_entity_decoded'
  | 'rejoined_after_end_tag';

const RECOVERY_ORDER: readonly Recovery[] = [
  'bom_removed',
  'html_comment_wrapper',
  'cdata_wrapper',
  'js_comments',
  'trailing_commas',
  'trailing_semicolon',
  'multiple_top_level_values',
  'control_characters_in_strings',
  'invalid_escapes',
  'single_quoted_strings',
  'unquoted_keys',
  'nonstandard_numbers',
  'nonstandard_whitespace',
  'missing_commas',
  'entity_decoded',
  'double_entity_decoded',
  'rejoined_after_end_tag',
];

export interface ParseError {
  message: string;
  /** Offset in UTF-16 code units into the parsed text. */
  offset: number;
  line: number;
  column: number;
}

export interface DuplicateKey {
  /** Pointer of the object holding the repeated key. */
  object: JsonObject;
  key: string;
}

export type ParseResult =
  | { ok: true; value: JsonNode; recoveries: Set<Recovery>; duplicates: DuplicateKey[] }
  | { ok: false; error: ParseError };

class Fail {
  constructor(
    readonly message: string,
    readonly offset: number,
  ) {}
}

function lineCol(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lastNl = -1;
  const end = Math.min(offset, text.length);
  for (let i = text.indexOf('\n'); i !== -1 && i < end; i = text.indexOf('\n', i + 1)) {
    line++;
    lastNl = i;
  }
  return { line, column: end - lastNl };
}

function describe(text: string, pos: number): string {
  if (pos >= text.length) return 'end of input';
  const c = text.charCodeAt(pos);
  if (c < 0x20 || c === 0x7f) return `control character U+${c.toString(16).toUpperCase().padStart(4, '0')}`;
  return `'${text[pos]}'`;
}

const HEX: Record<string, number> = {};
for (let i = 0; i < 16; i++) {
  HEX[i.toString(16)] = i;
  HEX[i.toString(16).toUpperCase()] = i;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** Characters allowed in an unquoted key (lenient mode). */
function isIdentChar(c: number): boolean {
  return (
    (c >= 0x30 && c <= 0x39) ||
    (c >= 0x41 && c <= 0x5a) ||
    (c >= 0x61 && c <= 0x7a) ||
    c === 0x5f || // _
    c === 0x24 || // $
    c === 0x40 || // @
    c === 0x2d // -
  );
}

const WS_LENIENT_EXTRA = new Set([0xa0, 0xfeff, 0x2028, 0x2029, 0x0b, 0x0c, 0x3000, 0x200b]);

interface Frame {
  node: JsonContainer;
  /** Pending key for an object frame. */
  key: string;
}

/**
 * The parser state. A class with methods rather than closures: no function objects are
 * created per parse, which matters for pages with thousands of small scripts.
 */
class Parser {
  pos = 0;
  readonly n: number;
  readonly rec = new Set<Recovery>();
  readonly duplicates: DuplicateKey[] = [];
  private stack: Frame[] = [];
  private root: JsonNode | undefined = undefined;

  constructor(
    readonly text: string,
    readonly lenient: boolean,
  ) {
    this.n = text.length;
  }

  skipWs(): void {
    const text = this.text;
    const n = this.n;
    while (this.pos < n) {
      const c = text.charCodeAt(this.pos);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) {
        this.pos++;
        continue;
      }
      if (!this.lenient) return;
      if (c === 0x2f /* / */) {
        const d = text.charCodeAt(this.pos + 1);
        if (d === 0x2f) {
          const e = text.indexOf('\n', this.pos + 2);
          this.pos = e === -1 ? n : e + 1;
          this.rec.add('js_comments');
          continue;
        }
        if (d === 0x2a) {
          const e = text.indexOf('*/', this.pos + 2);
          if (e === -1) throw new Fail('unterminated /* comment', this.pos);
          this.pos = e + 2;
          this.rec.add('js_comments');
          continue;
        }
        return;
      }
      if (WS_LENIENT_EXTRA.has(c)) {
        if (c === 0xfeff && this.pos === 0) this.rec.add('bom_removed');
        else this.rec.add('nonstandard_whitespace');
        this.pos++;
        continue;
      }
      return;
    }
  }

  readString(quote: number): string {
    const text = this.text;
    const n = this.n;
    const open = this.pos;
    let pos = this.pos + 1;
    let out = '';
    let chunk = pos;
    while (true) {
      if (pos >= n) throw new Fail('unterminated string', open);
      const c = text.charCodeAt(pos);
      if (c === quote) {
        out += text.slice(chunk, pos);
        this.pos = pos + 1;
        return out;
      }
      if (c === 0x5c /* \ */) {
        out += text.slice(chunk, pos);
        const e = text.charCodeAt(pos + 1);
        switch (e) {
          case 0x22:
            out += '"';
            pos += 2;
            break;
          case 0x5c:
            out += '\\';
            pos += 2;
            break;
          case 0x2f:
            out += '/';
            pos += 2;
            break;
          case 0x62:
            out += '\b';
            pos += 2;
            break;
          case 0x66:
            out += '\f';
            pos += 2;
            break;
          case 0x6e:
            out += '\n';
            pos += 2;
            break;
          case 0x72:
            out += '\r';
            pos += 2;
            break;
          case 0x74:
            out += '\t';
            pos += 2;
            break;
          case 0x75: {
            let v = 0;
            let okHex = pos + 6 <= n;
            for (let k = 2; okHex && k < 6; k++) {
              const h = HEX[text[pos + k] as string];
              if (h === undefined) okHex = false;
              else v = v * 16 + h;
            }
            if (!okHex) {
              if (!this.lenient) throw new Fail('invalid \\u escape', pos);
              this.rec.add('invalid_escapes');
              out += 'u';
              pos += 2;
            } else {
              out += String.fromCharCode(v);
              pos += 6;
            }
            break;
          }
          default:
            if (pos + 1 >= n) throw new Fail('unterminated string', open);
            if (!this.lenient) throw new Fail(`invalid escape \\${text[pos + 1]}`, pos);
            this.rec.add('invalid_escapes');
            out += text[pos + 1];
            pos += 2;
        }
        chunk = pos;
        continue;
      }
      if (c < 0x20) {
        if (!this.lenient) throw new Fail(`unescaped ${describe(text, pos)} in string`, pos);
        this.rec.add('control_characters_in_strings');
      }
      pos++;
    }
  }

  readNumber(): string {
    const text = this.text;
    const n = this.n;
    let pos = this.pos;
    const start = pos;
    let c = text.charCodeAt(pos);
    let nonStandard = false;
    if (c === 0x2d /* - */ || c === 0x2b /* + */) {
      if (c === 0x2b) nonStandard = true;
      pos++;
    }
    const intStart = pos;
    while (pos < n && isDigit(text.charCodeAt(pos))) pos++;
    const intLen = pos - intStart;
    if (intLen === 0) {
      if (!(this.lenient && text.charCodeAt(pos) === 0x2e && isDigit(text.charCodeAt(pos + 1)))) {
        throw new Fail(`invalid number near ${describe(text, pos)}`, start);
      }
      nonStandard = true;
    } else if (intLen > 1 && text.charCodeAt(intStart) === 0x30) {
      nonStandard = true;
    }
    if (text.charCodeAt(pos) === 0x2e) {
      pos++;
      const f = pos;
      while (pos < n && isDigit(text.charCodeAt(pos))) pos++;
      if (pos === f) nonStandard = true;
    }
    c = text.charCodeAt(pos);
    if (c === 0x65 || c === 0x45) {
      const ePos = pos;
      pos++;
      c = text.charCodeAt(pos);
      if (c === 0x2b || c === 0x2d) pos++;
      const d = pos;
      while (pos < n && isDigit(text.charCodeAt(pos))) pos++;
      if (pos === d) throw new Fail('invalid number exponent', ePos);
    }
    if (nonStandard) {
      if (!this.lenient) throw new Fail('invalid number', start);
      this.rec.add('nonstandard_numbers');
    }
    this.pos = pos;
    return text.slice(start, pos);
  }

  private attach(v: JsonNode): void {
    const top = this.stack[this.stack.length - 1];
    if (!top) {
      v.parent = null;
      v.key = '';
      this.root = v;
      return;
    }
    v.parent = top.node;
    if (top.node.kind === 'array') {
      v.key = top.node.items.length;
      top.node.items.push(v);
    } else {
      v.key = top.key;
      if (top.node.props.has(top.key)) {
        this.duplicates.push({ object: top.node, key: top.key });
        top.node.props.delete(top.key);
      }
      top.node.props.set(top.key, v);
    }
  }

  private takeRoot(): JsonNode {
    return this.root as JsonNode;
  }

  private depthCheck(): void {
    if (this.stack.length >= MAX_DEPTH) throw new Fail(`nesting deeper than ${MAX_DEPTH} levels`, this.pos);
  }

  /** Parse one value starting at pos (whitespace already skipped). */
  parseOne(): JsonNode {
    const text = this.text;
    const n = this.n;
    const lenient = this.lenient;
    const stack: Frame[] = [];
    this.stack = stack;
    this.root = undefined;
    // mode 0: expect value; 1: expect key; 2: after a value
    let mode = 0;
    while (true) {
      if (mode === 0) {
        this.skipWs();
        const pos = this.pos;
        if (pos >= n) throw new Fail('unexpected end of input, expected a value', pos);
        const c = text.charCodeAt(pos);
        if (c === 0x7b /* { */) {
          this.depthCheck();
          const o: JsonObject = { kind: 'object', props: new Map(), parent: null, key: '' };
          this.attach(o);
          stack.push({ node: o, key: '' });
          this.pos++;
          this.skipWs();
          if (text.charCodeAt(this.pos) === 0x7d) {
            this.pos++;
            stack.pop();
            mode = 2;
          } else mode = 1;
          continue;
        }
        if (c === 0x5b /* [ */) {
          this.depthCheck();
          const a: JsonArray = { kind: 'array', items: [], parent: null, key: '' };
          this.attach(a);
          stack.push({ node: a, key: '' });
          this.pos++;
          this.skipWs();
          if (text.charCodeAt(this.pos) === 0x5d) {
            this.pos++;
            stack.pop();
            mode = 2;
          } else mode = 0;
          continue;
        }
        if (c === 0x22 || (lenient && c === 0x27)) {
          if (c === 0x27) this.rec.add('single_quoted_strings');
          this.attach({ kind: 'string', value: this.readString(c), parent: null, key: '' });
          mode = 2;
          continue;
        }
        if (c === 0x2d || isDigit(c) || (lenient && (c === 0x2b || c === 0x2e))) {
          this.attach({ kind: 'number', raw: this.readNumber(), parent: null, key: '' });
          mode = 2;
          continue;
        }
        if (text.startsWith('true', pos)) {
          this.pos += 4;
          this.attach({ kind: 'boolean', value: true, parent: null, key: '' });
          mode = 2;
          continue;
        }
        if (text.startsWith('false', pos)) {
          this.pos += 5;
          this.attach({ kind: 'boolean', value: false, parent: null, key: '' });
          mode = 2;
          continue;
        }
        if (text.startsWith('null', pos)) {
          this.pos += 4;
          this.attach({ kind: 'null', parent: null, key: '' });
          mode = 2;
          continue;
        }
        throw new Fail(`unexpected ${describe(text, pos)}, expected a value`, pos);
      }
      if (mode === 1) {
        this.skipWs();
        const top = stack[stack.length - 1] as Frame;
        const c = text.charCodeAt(this.pos);
        let key: string;
        if (c === 0x22 || (lenient && c === 0x27)) {
          if (c === 0x27) this.rec.add('single_quoted_strings');
          key = this.readString(c);
        } else if (lenient && this.pos < n && isIdentChar(c) && c !== 0x2d) {
          const st = this.pos;
          while (this.pos < n && isIdentChar(text.charCodeAt(this.pos))) this.pos++;
          key = text.slice(st, this.pos);
          this.rec.add('unquoted_keys');
        } else {
          throw new Fail(`unexpected ${describe(text, this.pos)}, expected a property name`, this.pos);
        }
        this.skipWs();
        if (text.charCodeAt(this.pos) !== 0x3a /* : */) {
          throw new Fail(`unexpected ${describe(text, this.pos)}, expected ':'`, this.pos);
        }
        this.pos++;
        top.key = key;
        mode = 0;
        continue;
      }
      // mode 2: after a value
      if (stack.length === 0) return this.takeRoot();
      this.skipWs();
      const top = stack[stack.length - 1] as Frame;
      const c = text.charCodeAt(this.pos);
      const closer = top.node.kind === 'object' ? 0x7d : 0x5d;
      if (c === 0x2c /* , */) {
        this.pos++;
        if (lenient) {
          this.skipWs();
          // Repeated commas and a comma before the closer are trailing-comma damage.
          while (text.charCodeAt(this.pos) === 0x2c) {
            this.pos++;
            this.rec.add('trailing_commas');
            this.skipWs();
          }
          if (text.charCodeAt(this.pos) === closer) {
            this.rec.add('trailing_commas');
            continue; // the closer is handled next round
          }
        }
        mode = top.node.kind === 'object' ? 1 : 0;
        continue;
      }
      if (c === closer) {
        this.pos++;
        stack.pop();
        continue;
      }
      if (lenient && this.pos < n) {
        // A missing comma between two members on separate lines: `"a": 1\n "b": 2`.
        const isValueStart =
          top.node.kind === 'object' ? c === 0x22 : c === 0x22 || c === 0x7b || c === 0x5b || isDigit(c);
        let sawNewline = false;
        for (let k = this.pos - 1; k >= 0; k--) {
          const p = text.charCodeAt(k);
          if (p === 0x0a) {
            sawNewline = true;
            break;
          }
          if (p !== 0x20 && p !== 0x09 && p !== 0x0d) break;
        }
        if (isValueStart && sawNewline) {
          this.rec.add('missing_commas');
          mode = top.node.kind === 'object' ? 1 : 0;
          continue;
        }
      }
      throw new Fail(`unexpected ${describe(text, this.pos)}, expected ',' or '${String.fromCharCode(closer)}'`, this.pos);
    }
  }

  /** Cached searches: pos only grows, so a hit at or after pos is still the first one. */
  private closeAt = -2;
  private valueAt = -2;

  /** Offset of the first `-->` at or after `from` (-1 when none). */
  private commentClose(from: number): number {
    if (this.closeAt === -1 || this.closeAt >= from) return this.closeAt;
    this.closeAt = this.text.indexOf('-->', from);
    return this.closeAt;
  }

  /** Offset of the first `{` or `[` at or after `from` (-1 when none). */
  private valueStart(from: number): number {
    if (this.valueAt === -1 || this.valueAt >= from) return this.valueAt;
    const text = this.text;
    let k = from;
    while (k < this.n) {
      const c = text.charCodeAt(k);
      if (c === 0x7b || c === 0x5b) break;
      k++;
    }
    this.valueAt = k < this.n ? k : -1;
    return this.valueAt;
  }

  /** Lenient only: skip wrappers and junk that may precede the value. */
  skipPrefix(): void {
    while (true) {
      this.skipWs();
      if (this.text.startsWith('<!--', this.pos)) {
        // `<!-- note -->` closing before any `{`/`[` is a whole comment; otherwise `<!--` opens
        // a `<!-- {…} -->` wrapper whose `-->` follows the value.
        const close = this.commentClose(this.pos + 2);
        const value = this.valueStart(this.pos + 4);
        this.pos = close !== -1 && (value === -1 || close < value) ? close + 3 : this.pos + 4;
        this.rec.add('html_comment_wrapper');
        continue;
      }
      if (this.text.startsWith('<![CDATA[', this.pos)) {
        this.pos += 9;
        this.rec.add('cdata_wrapper');
        continue;
      }
      return;
    }
  }

  /** Lenient only: skip wrappers and junk after a value. */
  skipSuffix(): void {
    while (true) {
      this.skipWs();
      if (this.text.charCodeAt(this.pos) === 0x3b /* ; */) {
        this.pos++;
        this.rec.add('trailing_semicolon');
        continue;
      }
      if (this.text.startsWith('-->', this.pos)) {
        this.pos += 3;
        this.rec.add('html_comment_wrapper');
        continue;
      }
      if (this.text.startsWith('<!--', this.pos)) {
        // a whole comment after the value (`{…}\n<!-- end -->`)
        const close = this.commentClose(this.pos + 2);
        if (close === -1) return;
        this.pos = close + 3;
        this.rec.add('html_comment_wrapper');
        continue;
      }
      if (this.text.startsWith(']]>', this.pos)) {
        this.pos += 3;
        this.rec.add('cdata_wrapper');
        continue;
      }
      return;
    }
  }

  parse(): JsonNode {
    const n = this.n;
    if (!this.lenient) {
      this.skipWs();
      if (this.pos >= n) throw new Fail(n === 0 ? 'empty script' : 'script holds only whitespace', this.pos);
      const v = this.parseOne();
      this.skipWs();
      if (this.pos < n) throw new Fail(`unexpected ${describe(this.text, this.pos)} after the JSON value`, this.pos);
      return v;
    }
    if (this.text.charCodeAt(0) === 0xfeff) {
      this.pos = 1;
      this.rec.add('bom_removed');
    }
    this.skipPrefix();
    if (this.pos >= n) throw new Fail('no JSON value in script', this.pos);
    const values: JsonNode[] = [this.parseOne()];
    this.skipSuffix();
    while (this.pos < n) {
      const c = this.text.charCodeAt(this.pos);
      if (c !== 0x7b && c !== 0x5b) {
        throw new Fail(`unexpected ${describe(this.text, this.pos)} after the JSON value`, this.pos);
      }
      values.push(this.parseOne());
      this.rec.add('multiple_top_level_values');
      this.skipSuffix();
    }
    if (values.length === 1) return values[0] as JsonNode;
    const arr: JsonArray = { kind: 'array', items: values, parent: null, key: '' };
    for (let i = 0; i < values.length; i++) {
      const v = values[i] as JsonNode;
      v.parent = arr;
      v.key = i;
    }
    return arr;
  }
}

/**
 * Parse `text` as one JSON text.
 * strict: RFC 8259 exactly (JSON whitespace only, no BOM, no comments).
 * lenient: additionally accepts the damage listed in `Recovery`, reporting each kind used.
 */
export function parseJson(text: string, lenient: boolean): ParseResult {
  const p = new Parser(text, lenient);
  try {
    const value = p.parse();
    return { ok: true, value, recoveries: p.rec, duplicates: p.duplicates };
  } catch (e) {
    if (e instanceof Fail) {
      const lc = lineCol(text, e.offset);
      return { ok: false, error: { message: e.message, offset: e.offset, ...lc } };
    }
    throw e;
  }
}

/** True when the text looks like a JSON text whose quotes were written as character references. */
function looksEntityEncoded(s: string): boolean {
  return /&(?:amp;)*(?:quot|#0*34|#x0*22);/i.test(s);
}

export interface ScriptParse {
  /** `empty`: the text is only white space — nothing to parse, not an error. */
  mode: 'strict' | 'lenient' | 'failed' | 'empty';
  value: JsonNode | null;
  recoveries: Recovery[];
  duplicates: DuplicateKey[];
  /** The strict-mode error on the raw text (also set when a lenient recovery succeeded). */
  error: ParseError | null;
}

function ordered(set: Set<Recovery>): Recovery[] {
  return RECOVERY_ORDER.filter((r) => set.has(r));
}

/**
 * The HTML standard's input stream preprocessing: CRLF and lone CR become LF before the
 * tokenizer runs, so a script's text (as a browser gives it to JSON.parse) never holds a CR.
 */
function normalizeNewlines(text: string): string {
  if (text.indexOf('\r') === -1) return text;
  return text.replace(/\r\n?/g, '\n');
}

/**
 * Empty or white space only: nothing to read, which is not a parse error (a script with `src`,
 * a placeholder a template left empty). White space as String.prototype.trim sees it.
 */
function isBlank(text: string): boolean {
  return /^\s*$/.test(text);
}

/**
 * Strict JSON first. When that fails: the lenient grammar on the newline-normalised text; then,
 * if the text looks entity-encoded, up to three rounds of HTML character-reference decoding, each
 * followed by strict then lenient parsing. A valid script is never entity-decoded (JSON-LD 1.1
 * §HTML). Strict parsing reads the raw text: JSON treats CR as white space outside strings and
 * refuses it inside them, so normalising first would change nothing but the error offsets.
 */
export function parseScriptText(raw: string): ScriptParse {
  if (isBlank(raw)) return { mode: 'empty', value: null, recoveries: [], duplicates: [], error: null };
  const strict = parseJson(raw, false);
  if (strict.ok) {
    return { mode: 'strict', value: strict.value, recoveries: [], duplicates: strict.duplicates, error: null };
  }
  const text = normalizeNewlines(raw);
  const lenient = parseJson(text, true);
  if (lenient.ok) {
    return {
      mode: 'lenient',
      value: lenient.value,
      recoveries: ordered(lenient.recoveries),
      duplicates: lenient.duplicates,
      error: strict.error,
    };
  }
  let current = text;
  for (let round = 1; round <= 3 && looksEntityEncoded(current); round++) {
    const decoded = decodeTextReferences(current);
    if (decoded === current) break;
    current = decoded;
    const extra: Recovery[] = round === 1 ? ['entity_decoded'] : ['entity_decoded', 'double_entity_decoded'];
    const s2 = parseJson(current, false);
    if (s2.ok) {
      return { mode: 'lenient', value: s2.value, recoveries: extra, duplicates: s2.duplicates, error: strict.error };
    }
    const l2 = parseJson(current, true);
    if (l2.ok) {
      for (const r of extra) l2.recoveries.add(r);
      return {
        mode: 'lenient',
        value: l2.value,
        recoveries: ordered(l2.recoveries),
        duplicates: l2.duplicates,
        error: strict.error,
      };
    }
  }
  return { mode: 'failed', value: null, recoveries: [], duplicates: [], error: strict.error };
}

// ---------------------------------------------------------------------------
// JSON pointers

function escapeToken(t: string): string {
  if (t.indexOf('~') === -1 && t.indexOf('/') === -1) return t;
  return t.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** RFC 6901 pointer of `node` from its root. */
export function pointerOf(node: JsonNode): string {
  const parts: string[] = [];
  let cur: JsonNode | null = node;
  while (cur && cur.parent) {
    parts.push(escapeToken(String(cur.key)));
    cur = cur.parent;
  }
  if (parts.length === 0) return '';
  parts.reverse();
  return '/' + parts.join('/');
}

/** Plain JS value of a node (numbers as their source text). Iterative. Used for tests and debugging. */
export function toPlain(node: JsonNode): unknown {
  switch (node.kind) {
    case 'string':
      return node.value;
    case 'number':
      return node.raw;
    case 'boolean':
      return node.value;
    case 'null':
      return null;
    case 'array':
      return node.items.map(toPlain);
    case 'object': {
      const o: Record<string, unknown> = {};
      for (const [k, v] of node.props) {
        Object.defineProperty(o, k, { value: toPlain(v), enumerable: true, writable: true, configurable: true });
      }
      return o;
    }
  }
}
