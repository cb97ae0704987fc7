/**
 * Attack: a paid route reached unpaid through an encoded or unusual form of
 * its request. The reference x402 middleware fixed this three times (its
 * releases 2.21, 2.22 and 2.27): its payment check matched the raw path while
 * the framework's router decoded it, so `%0A`, `%5C`, `%2F`, a trailing slash
 * and the like reached the handler without the gate.
 *
 * Property, on real sockets against the real app (@hono/node-server, devnet
 * rail): for every paid entry of the catalog (the utilities, changes-since,
 * the composite router), a valid input and NO payment, whatever the form of
 *  - HTTP: the path (percent-encoding of any character in either hex case,
 *    double encoding, %2F %5C %0A %0D %00 %09 %20, trailing and duplicated
 *    slashes, /./ and /x/../ segments plain or encoded, case, ;params, .json,
 *    ? and # forms, Unicode lookalikes raw or encoded, backslashes,
 *    absolute-form targets), the method (lower case on a raw socket, PUT,
 *    PATCH, GET, HEAD, OPTIONS, method-override and URL-rewrite headers) and
 *    the Host (missing, empty, with and without port, upper case, IPv6, a
 *    foreign one), with and without a trusted proxy in front;
 *  - MCP: tools/call of a variant of each paid tool's name (case, whitespace,
 *    Unicode, prefixes and suffixes, encoded forms), with no `_meta` payment
 *    or a malformed, empty, forged or already-spent one;
 *  - A2A: message/send (v0.3) and SendMessage (v1.0) of a variant of each paid
 *    skill's name, with the same payment variants;
 * the answer never carries a PAYMENT-RESPONSE (or its MCP/A2A receipt), never
 * holds any entry's result for any probed input (as its handler computes it
 * here, in process), an HTTP 2xx is never a body of an entry's output schema,
 * and an HTTP answer to anything but GET/HEAD/OPTIONS is a 4xx (402, 404, 405,
 * 400, 413, 415, 421 for a host that is not ours …), never a 5xx. A stored
 * result exists for one input of each entry (it was paid for first), so a
 * redelivery without proof would show. The advisories' forms also run as a
 * table, each on its own on every paid route, since a random mix meets any
 * one of them only now and then; and the free router quote of a composite
 * input must hold none of its steps' results.
 *
 * It found a fault, not a bypass: the trailing-slash redirect wrote the
 * decoded path into Location, a 500 for `HEAD /x%E2%80%8D/` and an open
 * redirect for `/%09/evil.example/` (test/open-redirect-through-encoded-whitespace).
 *
 * Bounded: UNPAID_ENCODINGS_RUNS runs per surface (default 200), seeded by
 * UNPAID_ENCODINGS_SEED (default below) so a failure replays exactly.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { randomBytes, randomUUID } from 'node:crypto';
import fc from 'fast-check';
import type { Capability } from '../src/catalog/capability.js';
import { makeInputReader } from '../src/catalog/input-reader.js';
import { compileValidator, type Validator } from '../src/catalog/validation.js';
import { canonicalJson } from '../src/foundation/canonical-json.js';
import { loadConfig } from '../src/config.js';
import { startService } from '../src/service.js';
import { CHANGES_SINCE_PATH } from '../src/intel/changes.js';
import { COMPOSITE_PATH, COMPOSITE_RESOURCE } from '../src/router/planner.js';
import { prng } from './support/prng.js';
import { X402_URI } from './support/a2a-messages.js';
import { decodePaymentRequiredHeader, devnetEnv, payingFetch, signFor, startRig, tempDir, type PaymentPayload, type Rig, type RunningService } from './support/harness.js';

const SEED = Number(process.env.UNPAID_ENCODINGS_SEED ?? 412021);
const RUNS = Number(process.env.UNPAID_ENCODINGS_RUNS ?? 200);
/** Inputs per paid entry: each run picks one; the first of each is paid for before the properties run. */
const INPUTS_PER_ENTRY = 4;

// ---------- inputs, and the result each must never be served unpaid ----------

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const hex6 = (r: () => number) => Math.floor(r() * 0x1000000).toString(16).padStart(6, '0');
const word = (r: () => number, n = 8) => Array.from({ length: n }, () => 'abcdefghijklmnopqrstuvwxyz'[Math.floor(r() * 26)]).join('');

/** A valid input for each entry, never one of its published examples (those outputs are in the discovery documents). */
const INPUTS: Record<string, (r: () => number) => Json> = {
  'accessibility-contrast-calculator': (r) => ({ foreground: `#${hex6(r)}`, background: `#${hex6(r)}`, large_text: r() < 0.5 }),
  'data-compatibility-checker': (r) => {
    const names = [word(r), word(r), word(r)];
    const types = ['string', 'integer', 'number', 'boolean'];
    const field = (name: string) => ({ name, type: types[Math.floor(r() * types.length)]!, required: r() < 0.5, nullable: r() < 0.5 });
    return { source_fields: names.map(field), target_fields: [names[0]!, names[1]!.toUpperCase(), word(r)].map(field) };
  },
  'catalog-offer-evidence-extractor': (r) => {
    const name = `${word(r, 6)} ${word(r, 7)}`;
    const ld = { '@context': 'https://schema.org', '@type': 'Product', name, sku: word(r, 10), offers: { '@type': 'Offer', price: (1 + Math.floor(r() * 9000) / 100).toFixed(2), priceCurrency: 'EUR', availability: 'https://schema.org/InStock' } };
    return { html: `<!doctype html><html><head><title>${name}</title><script type="application/ld+json">${JSON.stringify(ld)}</script></head><body><h1>${name}</h1></body></html>`, base_url: `https://shop.example/${word(r)}/` };
  },
  'nft-metadata-uri-normalizer': (r) => ({ uri: `https://${word(r, 5)}.example/token/${Math.floor(r() * 1e6)}.json` }),
  'intelligence-changes-since': (r) => ({ cursor: new Date(Date.UTC(2020, 0, 1) + Math.floor(r() * 6 * 365) * 86_400_000).toISOString(), include_high_resolution: r() < 0.5, maxItems: 1 + Math.floor(r() * 50) }),
  [COMPOSITE_RESOURCE]: (r) => ({ objective: `Does #${hex6(r)} text on #${hex6(r)} meet WCAG AA for normal text?` }),
};

interface Probe {
  input: Json;
  body: string;
  /** The handler's result for `input` (its stable part: see stablePart). */
  result: unknown;
}

interface PaidEntry {
  cap: Capability;
  probes: Probe[];
  /** The payment requirement of the first probe (what a forged payment imitates). */
  accepted: Record<string, unknown>;
}

/** The part of a result that is the same on every run of the same input (the composite's: its steps' results, not its id, clock or latency). */
function stablePart(cap: Capability, output: unknown): unknown {
  return cap.id === COMPOSITE_RESOURCE ? (output as { result: unknown }).result : output;
}

async function resultOf(cap: Capability, input: Json): Promise<unknown> {
  const parsed = makeInputReader(cap).fromValue(structuredClone(input));
  assert.ok(parsed.ok, `${cap.id}: the generated input is valid: ${JSON.stringify(parsed.ok ? '' : parsed.body)}`);
  return stablePart(cap, await cap.run(parsed.input));
}

/** The results an answer must never hold: canonical JSON (for any subtree) and plain JSON (for the raw text). */
class Results {
  private readonly canonical = new Map<string, string>();
  private readonly plain: Array<[string, string]> = [];
  add(label: string, value: unknown) {
    this.canonical.set(canonicalJson(value), label);
    this.plain.push([JSON.stringify(value), label]);
  }

  /** The label of a result held by `text` (as text, or as any subtree of its JSON, JSON in strings included), if any. */
  heldBy(text: string): string | undefined {
    for (const [json, label] of this.plain) if (text.includes(json)) return label;
    const seen = (v: unknown, depth: number): string | undefined => {
      if (depth > 12) return undefined;
      if (typeof v === 'string') {
        const t = v.trimStart();
        return (t.startsWith('{') || t.startsWith('[')) && v.length < 4_000_000 ? seen(parse(v), depth + 1) : undefined;
      }
      if (v === null || typeof v !== 'object') return undefined;
      const hit = this.canonical.get(canonicalJson(v));
      if (hit) return hit;
      for (const x of Object.values(v)) {
        const h = seen(x, depth + 1);
        if (h) return h;
      }
      return undefined;
    };
    return seen(parse(text), 0);
  }
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

// ---------- HTTP on a raw socket ----------

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The bytes as received, for the failure message. */
  head: string;
}

/** One request written as given (nothing normalises it), `Connection: close`, the answer read to the end. */
function exchange(port: number, request: Buffer, isHead: boolean): Promise<RawAnswer | 'no answer'> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      const raw = Buffer.concat(chunks);
      resolve(raw.length === 0 ? 'no answer' : readAnswer(raw, isHead));
    };
    const timer = setTimeout(done, 8_000);
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('error', done);
    socket.on('end', done);
    socket.on('close', done);
    socket.write(request);
  });
}

function readAnswer(raw: Buffer, isHead: boolean): RawAnswer {
  const headEnd = raw.indexOf('\r\n\r\n');
  const head = raw.subarray(0, headEnd < 0 ? raw.length : headEnd).toString('latin1');
  const [statusLine, ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const l of lines) {
    const i = l.indexOf(':');
    if (i > 0) headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
  }
  let body = headEnd < 0 || isHead ? Buffer.alloc(0) : raw.subarray(headEnd + 4);
  if (/chunked/i.test(headers['transfer-encoding'] ?? '')) body = dechunk(body);
  return { status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '')?.[1] ?? 0), headers, body: body.toString('utf8'), head };
}

function dechunk(b: Buffer): Buffer {
  const out: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = b.indexOf('\r\n', at);
    if (eol < 0) break;
    const size = parseInt(b.subarray(at, eol).toString('latin1'), 16);
    if (!(size > 0)) break;
    out.push(b.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
  return Buffer.concat(out);
}

// ---------- path, method and Host variants ----------

/** Characters that stand in for ASCII ones: Cyrillic, fullwidth, hyphens and slashes of other scripts, invisible ones. */
const LOOKALIKES: Record<string, string[]> = {
  a: ['\u0430', '\uff41', '\u00e0'],
  e: ['\u0435', '\uff45'],
  o: ['\u043e', '\u03bf', '\uff4f'],
  c: ['\u0441', '\u217d'],
  p: ['\u0440'],
  i: ['\u0456', '\u0131', '\uff49'],
  x: ['\u0445', '\u00d7'],
  '-': ['\u2010', '\u2011', '\u2212', '\uff0d', '\u00ad'],
  '/': ['\u2215', '\u2044', '\uff0f', '\u29f8'],
  '4': ['\uff14'],
  '0': ['\uff10', 'O'],
};
const INVISIBLE = ['\u200b', '\ufeff', '\u00ad', '\u2060', '\u200d'];

const pctByte = (byte: number, upper: boolean) => '%' + (upper ? byte.toString(16).toUpperCase() : byte.toString(16)).padStart(2, '0');
const pct = (s: string, upper: boolean) => [...Buffer.from(s, 'utf8')].map((b) => pctByte(b, upper)).join('');

/** Tokens put inside or at the end of a path: separators, controls, encodings of them, parameters, suffixes, query and fragment forms (the advisories' first). */
const TOKENS = [
  '/', '//', '///', '/.', '/..', '/./', '/../', '%2F', '%2f', '%5C', '%5c', '%0A', '%0a', '%0D', '%0D%0A', '%00', '%09', '%20', '%23', '%3F', '%3f', '%3B',
  '%2e', '%2E', '%2e%2e', '%252F', '%255C', '%250A', '%C0%AF', '%c0%ae', '%E2%88%95', '%EF%BC%8F', '%u002f', ';', ';x=1', ';jsessionid=A1', '/;', '..;/', '.json',
  '.JSON', '.html', '?', '?x=1', '?a=%2F', '#', '#frag', '?#', '/?', '~', '.', '\\', '%20HTTP/1.1', '*', '%2A', '+', '&', '$', '@', ':', ':80',
];
/** Put after a slash: a segment that resolves back (or does not), plain or encoded. */
const DOT_SEGMENTS = ['./', 'x/../', '.%2F', '%2e/', '%2E/', 'x/%2e%2e/', 'x/%2E%2E/', 'x/.%2e/', 'x/%2e./', 'x/..%2f', 'x/..%5C', 'x/..\\', 'x402/../', '../', '..%2F', '%2e%2e/', 'x/..;/', ';/'];

type PathOp =
  | { op: 'pct'; at: number; upper: boolean }
  | { op: 'double'; at: number; upper: boolean }
  | { op: 'insert'; at: number; token: number }
  | { op: 'trail'; token: number; times: number }
  | { op: 'slashes'; which: number; n: number }
  | { op: 'dot'; which: number; form: number }
  | { op: 'case'; mode: 'all' | 'segment' | 'char'; at: number }
  | { op: 'lookalike'; at: number; pick: number; form: 'raw' | 'upper' | 'lower' }
  | { op: 'invisible'; at: number; pick: number; encoded: boolean }
  | { op: 'backslash'; which: number; form: number };

/** The first CLASSIC_TOKENS of TOKENS (the advisories' forms) are drawn more often than the rest. */
const CLASSIC_TOKENS = 22;
const tokenArb = fc.oneof({ weight: 3, arbitrary: fc.nat({ max: CLASSIC_TOKENS - 1 }) }, { weight: 1, arbitrary: fc.nat({ max: TOKENS.length - 1 }) });

const pathOpArb: fc.Arbitrary<PathOp> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ op: fc.constant('pct' as const), at: fc.nat(), upper: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('double' as const), at: fc.nat(), upper: fc.boolean() }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('insert' as const), at: fc.nat(), token: tokenArb }) },
  { weight: 4, arbitrary: fc.record({ op: fc.constant('trail' as const), token: tokenArb, times: fc.oneof({ weight: 3, arbitrary: fc.constant(1) }, { weight: 1, arbitrary: fc.integer({ min: 2, max: 3 }) }) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('slashes' as const), which: fc.nat(), n: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('dot' as const), which: fc.nat(), form: fc.nat({ max: DOT_SEGMENTS.length - 1 }) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('case' as const), mode: fc.constantFrom('all' as const, 'segment' as const, 'char' as const), at: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('lookalike' as const), at: fc.nat(), pick: fc.nat(), form: fc.constantFrom('raw' as const, 'upper' as const, 'lower' as const) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('invisible' as const), at: fc.nat(), pick: fc.nat(), encoded: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('backslash' as const), which: fc.nat(), form: fc.nat({ max: 2 }) }) },
);

const slashes = (p: string) => [...p].flatMap((ch, i) => (ch === '/' ? [i] : []));

function applyPathOp(p: string, o: PathOp): string {
  const at = (n: number) => n % p.length;
  switch (o.op) {
    case 'pct': {
      const i = at(o.at);
      return p.slice(0, i) + pct(p[i]!, o.upper) + p.slice(i + 1);
    }
    case 'double': {
      const i = at(o.at);
      return p.slice(0, i) + '%25' + pct(p[i]!, o.upper).slice(1) + p.slice(i + 1);
    }
    case 'insert': {
      const i = at(o.at) || 1;
      return p.slice(0, i) + TOKENS[o.token]! + p.slice(i);
    }
    case 'trail':
      return p + TOKENS[o.token]!.repeat(o.times);
    case 'slashes': {
      const s = slashes(p);
      if (!s.length) return p;
      const i = s[o.which % s.length]!;
      return p.slice(0, i) + '/'.repeat(o.n + 1) + p.slice(i + 1);
    }
    case 'dot': {
      const s = slashes(p);
      if (!s.length) return p;
      const i = s[o.which % s.length]! + 1;
      return p.slice(0, i) + DOT_SEGMENTS[o.form]! + p.slice(i);
    }
    case 'case': {
      if (o.mode === 'all') return p.toUpperCase();
      if (o.mode === 'char') {
        const i = at(o.at);
        const ch = p[i]!;
        return p.slice(0, i) + (ch === ch.toUpperCase() ? ch.toLowerCase() : ch.toUpperCase()) + p.slice(i + 1);
      }
      const parts = p.split('/');
      const k = 1 + (o.at % Math.max(1, parts.length - 1));
      if (parts[k] !== undefined) parts[k] = parts[k]!.toUpperCase();
      return parts.join('/');
    }
    case 'lookalike': {
      const candidates = [...p].flatMap((ch, i) => (LOOKALIKES[ch] ? [i] : []));
      if (!candidates.length) return p;
      const i = candidates[o.at % candidates.length]!;
      const options = LOOKALIKES[p[i]!]!;
      const ch = options[o.pick % options.length]!;
      return p.slice(0, i) + (o.form === 'raw' ? ch : pct(ch, o.form === 'upper')) + p.slice(i + 1);
    }
    case 'invisible': {
      const i = at(o.at) || 1;
      const ch = INVISIBLE[o.pick % INVISIBLE.length]!;
      return p.slice(0, i) + (o.encoded ? pct(ch, true) : ch) + p.slice(i);
    }
    case 'backslash': {
      const s = slashes(p);
      if (!s.length) return p;
      const i = s[o.which % s.length]!;
      return p.slice(0, i) + ['\\', '%5C', '%5c'][o.form]! + p.slice(i + 1);
    }
  }
}

type TargetForm = 'origin' | 'absolute' | 'absolute-localhost' | 'absolute-foreign' | 'absolute-https' | 'absolute-upper-scheme' | 'no-leading-slash' | 'double-leading-slash';

function targetOf(form: TargetForm, path: string, port: number): string {
  switch (form) {
    case 'origin':
      return path;
    case 'absolute':
      return `http://127.0.0.1:${port}${path}`;
    case 'absolute-localhost':
      return `http://localhost:${port}${path}`;
    case 'absolute-foreign':
      return `http://evil.example${path}`;
    case 'absolute-https':
      return `https://127.0.0.1:${port}${path}`;
    case 'absolute-upper-scheme':
      return `HTTP://127.0.0.1:${port}${path}`;
    case 'no-leading-slash':
      return path.replace(/^\/+/, '');
    case 'double-leading-slash':
      return '/' + path;
  }
}

type HostForm = 'ip-port' | 'localhost-port' | 'upper' | 'no-port' | 'ipv6' | 'empty' | 'missing' | 'foreign' | 'trailing-dot' | 'twice' | 'with-userinfo' | 'with-path';

function hostLines(form: HostForm, port: number): string[] {
  switch (form) {
    case 'ip-port':
      return [`Host: 127.0.0.1:${port}`];
    case 'localhost-port':
      return [`Host: localhost:${port}`];
    case 'upper':
      return [`HOST: LOCALHOST:${port}`];
    case 'no-port':
      return ['Host: 127.0.0.1'];
    case 'ipv6':
      return [`Host: [::1]:${port}`];
    case 'empty':
      return ['Host:'];
    case 'missing':
      return [];
    case 'foreign':
      return ['Host: evil.example'];
    case 'trailing-dot':
      return [`Host: localhost.:${port}`];
    case 'twice':
      return [`Host: 127.0.0.1:${port}`, 'Host: evil.example'];
    case 'with-userinfo':
      return [`Host: user@127.0.0.1:${port}`];
    case 'with-path':
      return [`Host: 127.0.0.1:${port}/x402`];
  }
}

/** Headers some frameworks and proxies read as the "real" method or path. */
const OVERRIDES: Array<(path: string) => [string, string]> = [
  () => ['X-HTTP-Method-Override', 'POST'],
  () => ['X-HTTP-Method', 'POST'],
  () => ['X-Method-Override', 'POST'],
  (p) => ['X-Original-URL', p],
  (p) => ['X-Rewrite-URL', p],
  () => ['X-Forwarded-Prefix', '/x402/v1'],
  () => ['X-Forwarded-Host', 'evil.example'],
  () => ['X-Forwarded-Proto', 'https'],
  () => ['X-Forwarded-For', '10.9.8.7'],
  () => ['Forwarded', 'for=10.9.8.7;host=evil.example;proto=https'],
  () => ['X-Forwarded-Path', '/x402/v1'],
];

const METHODS = ['POST', 'post', 'Post', 'PUT', 'PATCH', 'GET', 'HEAD', 'OPTIONS', 'DELETE', 'QUERY', 'PROPFIND', 'POST ', 'P0ST'];
const CONTENT_TYPES = ['application/json', 'application/json; charset=utf-8', 'APPLICATION/JSON', 'application/json;charset=UTF-8', 'text/plain', 'application/x-www-form-urlencoded', undefined];
/** Methods after which a 2xx is a free resource's answer (the free sample of changes-since is one), never a paid route's. */
const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

const httpCaseArb = (entries: number) =>
  fc.record({
    entry: fc.nat({ max: entries - 1 }),
    probe: fc.nat({ max: INPUTS_PER_ENTRY - 1 }),
    // One change at a time most often (each form on its own), sometimes none or several together.
    ops: fc.oneof({ weight: 1, arbitrary: fc.constant<PathOp[]>([]) }, { weight: 4, arbitrary: fc.array(pathOpArb, { minLength: 1, maxLength: 1 }) }, { weight: 3, arbitrary: fc.array(pathOpArb, { minLength: 2, maxLength: 3 }) }),
    target: fc.oneof(
      { weight: 8, arbitrary: fc.constant<TargetForm>('origin') },
      { weight: 2, arbitrary: fc.constantFrom<TargetForm>('absolute', 'absolute-localhost', 'absolute-foreign', 'absolute-https', 'absolute-upper-scheme', 'no-leading-slash', 'double-leading-slash') },
    ),
    method: fc.oneof({ weight: 10, arbitrary: fc.constant('POST') }, { weight: 5, arbitrary: fc.constantFrom(...METHODS) }),
    version: fc.oneof({ weight: 9, arbitrary: fc.constant('HTTP/1.1') }, { weight: 1, arbitrary: fc.constant('HTTP/1.0') }),
    host: fc.oneof(
      { weight: 10, arbitrary: fc.constantFrom<HostForm>('ip-port', 'localhost-port') },
      { weight: 3, arbitrary: fc.constantFrom<HostForm>('upper', 'no-port', 'ipv6', 'empty', 'missing', 'foreign', 'trailing-dot', 'twice', 'with-userinfo', 'with-path') },
    ),
    overrides: fc.subarray([...OVERRIDES.keys()], { maxLength: 3 }),
    contentType: fc.oneof({ weight: 6, arbitrary: fc.constant<string | undefined>('application/json') }, { weight: 2, arbitrary: fc.constantFrom(...CONTENT_TYPES) }),
    chunked: fc.boolean(),
    proxied: fc.boolean(),
  });

type HttpCase = ReturnType<typeof httpCaseArb> extends fc.Arbitrary<infer T> ? T : never;

/** A request as written on the socket: nothing between the test and the server normalises it. */
interface RawRequest {
  method: string;
  target: string;
  version: 'HTTP/1.1' | 'HTTP/1.0';
  host: HostForm;
  contentType: string | undefined;
  headers: Array<[string, string]>;
  chunked: boolean;
}

function requestBytes(r: RawRequest, port: number, body: string): Buffer {
  const lines = [`${r.method} ${r.target} ${r.version}`, ...hostLines(r.host, port)];
  if (r.contentType !== undefined) lines.push(`Content-Type: ${r.contentType}`);
  for (const [k, v] of r.headers) lines.push(`${k}: ${v}`);
  lines.push('Connection: close');
  const payload = Buffer.from(body, 'utf8');
  if (r.chunked && r.version === 'HTTP/1.1') {
    lines.push('Transfer-Encoding: chunked');
    return Buffer.concat([Buffer.from(lines.join('\r\n') + '\r\n\r\n', 'utf8'), Buffer.from(payload.length.toString(16) + '\r\n'), payload, Buffer.from('\r\n0\r\n\r\n')]);
  }
  lines.push(`Content-Length: ${payload.length}`);
  return Buffer.concat([Buffer.from(lines.join('\r\n') + '\r\n\r\n', 'utf8'), payload]);
}

function rawRequestOf(c: HttpCase, path: string, port: number, paidPath: string): RawRequest {
  return { method: c.method, target: targetOf(c.target, path, port), version: c.version as RawRequest['version'], host: c.host, contentType: c.contentType, headers: c.overrides.map((k) => OVERRIDES[k]!(paidPath)), chunked: c.chunked };
}

/** A valid request to the paid path as a plain client sends it; the table below changes one thing at a time. */
const plain = (path: string): RawRequest => ({ method: 'POST', target: path, version: 'HTTP/1.1', host: 'ip-port', contentType: 'application/json', headers: [], chunked: false });

const lastSlash = (p: string) => p.lastIndexOf('/');
const lastSegment = (p: string, f: (segment: string) => string) => p.slice(0, lastSlash(p) + 1) + f(p.slice(lastSlash(p) + 1));

/**
 * The forms the reference middleware's advisories name, and their neighbours,
 * each on its own: what a bypass most likely answers to, so every paid route
 * meets every one of them on every run (the property then mixes them).
 */
const ADVISORY_FORMS: Array<[string, (port: number, path: string) => RawRequest]> = [
  ...TOKENS.slice(0, CLASSIC_TOKENS).concat([';x=1', '.json', '?x=1', '#frag', '..;/', '\\', '/x/..', '%2e', '%20%20', '%0A%0A']).map((t): [string, (port: number, path: string) => RawRequest] => [`path + ${JSON.stringify(t)}`, (_port, p) => plain(p + t)]),
  ...['%2F', '%2f', '%5C', '%5c', '\\', '//', '/./', '/x/../', '/%2e/', '/%2E/', '/x/%2e%2e/', '/x/%2E%2E/', '/%0A', '/%09', '/%20', '/%00', '/;/'].map((t): [string, (port: number, path: string) => RawRequest] => [
    `last / as ${JSON.stringify(t)}`,
    (_port, p) => plain(p.slice(0, lastSlash(p)) + t + p.slice(lastSlash(p) + 1)),
  ]),
  ...['/x/..', '/.', '/', '/x402/..', '/%2e', '/x/%2e%2e', '//x'].map((t): [string, (port: number, path: string) => RawRequest] => [`${JSON.stringify(t)} + path`, (_port, p) => plain(t + p)]),
  ['upper case', (_port, p) => plain(p.toUpperCase())],
  ['last segment upper case', (_port, p) => plain(lastSegment(p, (s) => s.toUpperCase()))],
  ['first letter %XX', (_port, p) => plain(lastSegment(p, (s) => pct(s[0]!, true) + s.slice(1)))],
  ['first letter %xx', (_port, p) => plain(lastSegment(p, (s) => pct(s[0]!, false) + s.slice(1)))],
  ['first letter %25XX', (_port, p) => plain(lastSegment(p, (s) => '%25' + pct(s[0]!, true).slice(1) + s.slice(1)))],
  ['every character %XX', (_port, p) => plain(p.split('/').map((s) => pct(s, true)).join('/'))],
  ['hyphen as U+2010', (_port, p) => plain(lastSegment(p, (s) => s.replace('-', '\u2010')))],
  ['hyphen as %E2%80%90', (_port, p) => plain(lastSegment(p, (s) => s.replace('-', '%E2%80%90')))],
  ['a as Cyrillic а, encoded', (_port, p) => plain(lastSegment(p, (s) => s.replace('a', '%D0%B0')))],
  ['slash as U+2215, encoded', (_port, p) => plain(p.slice(0, lastSlash(p)) + '%E2%88%95' + p.slice(lastSlash(p) + 1))],
  ['absolute-form', (port, p) => ({ ...plain(p), target: `http://127.0.0.1:${port}${p}` })],
  ['absolute-form, foreign host', (_port, p) => ({ ...plain(p), target: `http://evil.example${p}` })],
  ['absolute-form with a trailing slash', (port, p) => ({ ...plain(p), target: `http://127.0.0.1:${port}${p}/` })],
  ...['post', 'Post', 'PUT', 'PATCH', 'GET', 'HEAD', 'OPTIONS', 'DELETE', 'QUERY'].map((m): [string, (port: number, path: string) => RawRequest] => [`method ${m}`, (_port, p) => ({ ...plain(p), method: m })]),
  ...['X-HTTP-Method-Override', 'X-HTTP-Method', 'X-Method-Override'].flatMap((h) =>
    ['GET', 'PUT'].map((m): [string, (port: number, path: string) => RawRequest] => [`${m} with ${h}: POST`, (_port, p) => ({ ...plain(p), method: m, headers: [[h, 'POST']] })]),
  ),
  ['GET / with X-Original-URL', (_port, p) => ({ ...plain('/'), method: 'GET', headers: [['X-Original-URL', p]] })],
  ['POST / with X-Rewrite-URL', (_port, p) => ({ ...plain('/'), headers: [['X-Rewrite-URL', p]] })],
  ...(['localhost-port', 'upper', 'no-port', 'ipv6', 'empty', 'foreign', 'trailing-dot', 'twice', 'with-userinfo', 'with-path'] as const).map((h): [string, (port: number, path: string) => RawRequest] => [`Host ${h}`, (_port, p) => ({ ...plain(p), host: h })]),
  ['HTTP/1.0 without Host', (_port, p) => ({ ...plain(p), version: 'HTTP/1.0', host: 'missing' })],
  ['HTTP/1.1 without Host', (_port, p) => ({ ...plain(p), host: 'missing' })],
  ['chunked', (_port, p) => ({ ...plain(p), chunked: true })],
  ['chunked, trailing slash', (_port, p) => ({ ...plain(p + '/'), chunked: true })],
];

// ---------- tool and skill name variants ----------

type NameOp =
  | { op: 'case'; mode: 'upper' | 'title' | 'char'; at: number }
  | { op: 'space'; where: 'before' | 'after' | 'inside'; pick: number; at: number }
  | { op: 'lookalike'; at: number; pick: number }
  | { op: 'invisible'; at: number; pick: number }
  | { op: 'fullwidth' }
  | { op: 'affix'; pick: number }
  | { op: 'encoded'; mode: 'one' | 'all' | 'double' | 'plus'; at: number };

const SPACES = [' ', '  ', '\t', '\n', '\r\n', '\u00a0', '\u3000', '\u2028', '\u0000'];
const AFFIXES: Array<(name: string, path: string) => string> = [
  (n) => `x402/${n}`,
  (n) => `/${n}`,
  (n) => `${n}/`,
  (_n, p) => p,
  (_n, p) => p.slice(1),
  (n) => `paid:${n}`,
  (n) => `mcp__agent-pay-service__${n}`,
  (n) => `tools/${n}`,
  (n) => `${n}.json`,
  (n) => `${n};`,
  (n) => `${n}?`,
  (n) => `${n}#`,
  (n) => `${n}%00`,
  (n) => `${n}-free`,
  (n) => `free-${n}`,
  (n) => `${n}-sample`,
  (n) => `${n}${n}`,
  (n) => n.replace(/-/g, '_'),
  (n) => n.replace(/-/g, ''),
  (n) => n.replace(/-/g, '.'),
  (n) => `${n}\\`,
  (n) => `./${n}`,
  (n) => `../${n}`,
  (n) => `x/../${n}`,
];

const nameOpArb: fc.Arbitrary<NameOp> = fc.oneof(
  fc.record({ op: fc.constant('case' as const), mode: fc.constantFrom('upper' as const, 'title' as const, 'char' as const), at: fc.nat() }),
  fc.record({ op: fc.constant('space' as const), where: fc.constantFrom('before' as const, 'after' as const, 'inside' as const), pick: fc.nat(), at: fc.nat() }),
  fc.record({ op: fc.constant('lookalike' as const), at: fc.nat(), pick: fc.nat() }),
  fc.record({ op: fc.constant('invisible' as const), at: fc.nat(), pick: fc.nat() }),
  fc.record({ op: fc.constant('fullwidth' as const) }),
  fc.record({ op: fc.constant('affix' as const), pick: fc.nat({ max: AFFIXES.length - 1 }) }),
  fc.record({ op: fc.constant('encoded' as const), mode: fc.constantFrom('one' as const, 'all' as const, 'double' as const, 'plus' as const), at: fc.nat() }),
);

function applyNameOp(n: string, o: NameOp, path: string): string {
  const at = (k: number) => k % Math.max(1, n.length);
  switch (o.op) {
    case 'case': {
      if (o.mode === 'upper') return n.toUpperCase();
      if (o.mode === 'title') return n.replace(/(^|-)([a-z])/g, (_m, d: string, ch: string) => d + ch.toUpperCase());
      const i = at(o.at);
      const ch = n[i] ?? '';
      return n.slice(0, i) + (ch === ch.toUpperCase() ? ch.toLowerCase() : ch.toUpperCase()) + n.slice(i + 1);
    }
    case 'space': {
      const s = SPACES[o.pick % SPACES.length]!;
      if (o.where === 'before') return s + n;
      if (o.where === 'after') return n + s;
      const i = at(o.at) || 1;
      return n.slice(0, i) + s + n.slice(i);
    }
    case 'lookalike': {
      const candidates = [...n].flatMap((ch, i) => (LOOKALIKES[ch] ? [i] : []));
      if (!candidates.length) return n;
      const i = candidates[o.at % candidates.length]!;
      const options = LOOKALIKES[n[i]!]!;
      return n.slice(0, i) + options[o.pick % options.length]! + n.slice(i + 1);
    }
    case 'invisible': {
      const i = at(o.at);
      return n.slice(0, i) + INVISIBLE[o.pick % INVISIBLE.length]! + n.slice(i);
    }
    case 'fullwidth':
      return [...n].map((ch) => (ch >= '!' && ch <= '~' ? String.fromCharCode(ch.charCodeAt(0) + 0xfee0) : ch)).join('');
    case 'affix':
      return AFFIXES[o.pick]!(n, path);
    case 'encoded': {
      if (o.mode === 'all') return pct(n, true);
      if (o.mode === 'plus') return n.replace(/-/g, '+');
      const i = at(o.at);
      const enc = pct(n[i] ?? '-', true);
      return n.slice(0, i) + (o.mode === 'double' ? '%25' + enc.slice(1) : enc) + n.slice(i + 1);
    }
  }
}

/** What a call carries in place of a payment: nothing, something malformed, a forged payment, or one already spent on another input. */
type PaymentForm = 'none' | 'null' | 'empty-string' | 'string' | 'number' | 'array' | 'empty-object' | 'version-only' | 'forged' | 'forged-other-entry' | 'spent';
const PAYMENT_FORMS: PaymentForm[] = ['none', 'null', 'empty-string', 'string', 'number', 'array', 'empty-object', 'version-only', 'forged', 'forged-other-entry', 'spent'];

/** A payment with the requirement's shape and a signature nobody made. */
function forged(accepted: Record<string, unknown>): Record<string, Json> {
  const now = Math.floor(Date.now() / 1000);
  const from = '0x' + randomBytes(20).toString('hex');
  return {
    x402Version: 2,
    accepted: accepted as Record<string, Json>,
    payload: {
      signature: '0x' + randomBytes(65).toString('hex'),
      authorization: { from, to: String(accepted.payTo), value: String(accepted.amount), validAfter: String(now - 60), validBefore: String(now + 600), nonce: '0x' + randomBytes(32).toString('hex') },
    },
  };
}

// ---------- the property ----------

describe('no paid result is served unpaid through encoded paths, methods, Host forms, tool or skill names', () => {
  let rig: Rig;
  /** The same service behind a trusted proxy (TRUST_PROXY=1): X-Forwarded-Host and -Proto rewrite its request URL. */
  let proxied: RunningService;
  const entriesOf = new Map<RunningService, PaidEntry[]>();
  const resultsOf = new Map<RunningService, Results>();
  const validators: Array<[string, Validator]> = [];
  let spent: PaymentPayload;
  const portOf = (s: RunningService) => Number(new URL(s.url).port);

  before(async () => {
    // The composite router is off by default: on here, so its route is one of those probed.
    rig = await startRig({ env: { OUTCOME_ROUTER_COMPOSITE: '1' } });
    proxied = await startService(loadConfig(devnetEnv(rig.devnet, rig.proxy.url, { DATA_DIR: tempDir(), TRUST_PROXY: '1', OUTCOME_ROUTER_COMPOSITE: '1' })));
    const catalog = rig.service.catalog;
    for (const path of [CHANGES_SINCE_PATH, COMPOSITE_PATH]) assert.ok(catalog.some((c) => c.path === path), `${path} is a paid entry of the catalog`);
    const rand = prng(SEED);
    const inputs = new Map(catalog.map((cap) => [cap.id, Array.from({ length: INPUTS_PER_ENTRY }, (_, k) => (INPUTS[cap.id] ? INPUTS[cap.id]!(rand) : (cap.examples[k % cap.examples.length]!.input as Json)))]));
    for (const cap of catalog) validators.push([cap.id, compileValidator(cap.outputSchema)]);
    for (const service of [rig.service, proxied]) {
      const entries: PaidEntry[] = [];
      for (const cap of service.catalog) {
        const probes: Probe[] = [];
        for (const input of inputs.get(cap.id)!) probes.push({ input, body: JSON.stringify(input), result: await resultOf(cap, input) });
        const res = await fetch(service.url + cap.path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: probes[0]!.body });
        assert.equal(res.status, 402, `${cap.path}: the plain unpaid call is challenged (${await res.text()})`);
        const accepted = decodePaymentRequiredHeader(res.headers.get('payment-required')!).accepts[0] as unknown as Record<string, unknown>;
        entries.push({ cap, probes, accepted });
      }
      entriesOf.set(service, entries);
    }
  });
  after(async () => {
    await proxied?.close();
    await rig?.close();
  });

  /** Every result of every entry on `service`, so a variant of one route serving another's result shows too. */
  async function refreshResults(service: RunningService) {
    const results = new Results();
    for (const e of entriesOf.get(service)!) for (const [k, p] of e.probes.entries()) {
      p.result = await resultOf(e.cap, p.input);
      results.add(`${e.cap.id} #${k}`, p.result);
      // Each step's output of a composite on its own too: a free answer must not hold one either.
      if (e.cap.id === COMPOSITE_RESOURCE) for (const [i, step] of (p.result as { results: Array<{ output: unknown }> }).results.entries()) results.add(`${e.cap.id} #${k} step ${i}`, step.output);
    }
    resultsOf.set(service, results);
  }

  test('controls: a paid call delivers a result this test recognises, for every paid entry (and leaves it stored for a redelivery)', async () => {
    const pay = payingFetch(rig.devnet);
    for (const service of [rig.service, proxied]) {
      await refreshResults(service);
      for (const e of entriesOf.get(service)!) {
        const res = await pay(service.url + e.cap.path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: e.probes[0]!.body });
        const text = await res.text();
        assert.equal(res.status, 200, `${e.cap.id}: paid: ${text.slice(0, 300)}`);
        assert.ok(res.headers.get('payment-response'), `${e.cap.id}: PAYMENT-RESPONSE on a paid delivery`);
        assert.equal(resultsOf.get(service)!.heldBy(text), `${e.cap.id} #0`, `${e.cap.id}: the delivered body is recognised as its result`);
        assert.ok(validators.some(([, v]) => v(parse(text)) === undefined), `${e.cap.id}: the delivered body matches an output schema`);
      }
      // Paid calls could move what changes-since reads: the results are computed again after them.
      await refreshResults(service);
    }
    // A payment spent on an input no property sends: replayed with another input it pays for nothing.
    const contrast = entriesOf.get(rig.service)!.find((e) => e.cap.id === 'accessibility-contrast-calculator')!;
    const elsewhere = { foreground: '#010203', background: '#fdfcfb', large_text: false };
    const signed = await signFor(rig.service.url + contrast.cap.path, elsewhere, rig.devnet);
    const res = await fetch(rig.service.url + contrast.cap.path, { method: 'POST', headers: { 'content-type': 'application/json', 'PAYMENT-SIGNATURE': signed.header }, body: JSON.stringify(elsewhere) });
    assert.equal(res.status, 200, await res.text());
    spent = signed.payload;
  });

  const tally = (counts: Map<string, number>, key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);
  const summary = (counts: Map<string, number>) => [...counts.entries()].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k}×${n}`).join(' ');

  /** One raw request to `service` with a valid body and no payment; its answer is checked: never a paid result, never a receipt. */
  async function probeHttp(service: RunningService, r: RawRequest, probe: Probe, statuses: Map<string, number>, label: string): Promise<void> {
    const port = portOf(service);
    const answer = await exchange(port, requestBytes(r, port, probe.body), r.method === 'HEAD');
    const where = `${label}: ${r.method} ${JSON.stringify(r.target)} ${r.version} host=${r.host}${r.headers.length ? ' ' + JSON.stringify(r.headers) : ''}${service === proxied ? ' (behind a trusted proxy)' : ''}`;
    if (answer === 'no answer') {
      tally(statuses, 'closed');
      return;
    }
    tally(statuses, String(answer.status));
    const seen = `${where} → ${answer.status}: ${answer.body.slice(0, 300)}`;
    assert.ok(answer.status >= 100, `an HTTP answer: ${where}: ${JSON.stringify(answer.head.slice(0, 200))}`);
    assert.equal(answer.headers['payment-response'], undefined, `PAYMENT-RESPONSE without payment: ${seen}`);
    assert.equal(resultsOf.get(service)!.heldBy(answer.body), undefined, `a paid result served unpaid: ${seen}`);
    assert.ok(answer.status < 500, `no fault either: ${seen}`);
    if (answer.status < 300) {
      assert.ok(SAFE.has(r.method), `a ${answer.status} to ${r.method} (only GET, HEAD and OPTIONS reach a free 2xx): ${seen}`);
      const json = parse(answer.body);
      if (json !== undefined) for (const [id, v] of validators) assert.notEqual(v(json), undefined, `a ${id} result (by its output schema): ${seen}`);
    }
  }

  test(`HTTP: the advisories' forms (${ADVISORY_FORMS.length}), each on every paid route, on raw sockets, never get a paid result unpaid`, async (t) => {
    assert.ok(spent, 'the controls ran first');
    const statuses = new Map<string, number>();
    for (const service of [rig.service, proxied]) {
      for (const entry of entriesOf.get(service)!) {
        for (const [label, form] of ADVISORY_FORMS) await probeHttp(service, form(portOf(service), entry.cap.path), entry.probes[0]!, statuses, label);
      }
    }
    t.diagnostic(`HTTP answers: ${summary(statuses)}`);
    assert.ok((statuses.get('402') ?? 0) > 0 && (statuses.get('404') ?? 0) > 0, `both the gate and the refusals were reached (${summary(statuses)})`);
  });

  test(`HTTP: ${RUNS} mixes of encoded and unusual paths, methods and Host forms on raw sockets never get a paid result unpaid`, async (t) => {
    assert.ok(spent, 'the controls ran first');
    const statuses = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(httpCaseArb(entriesOf.get(rig.service)!.length), async (c) => {
        const service = c.proxied ? proxied : rig.service;
        const entry = entriesOf.get(service)![c.entry]!;
        const path = c.ops.reduce(applyPathOp, entry.cap.path);
        await probeHttp(service, rawRequestOf(c, path, portOf(service), entry.cap.path), entry.probes[c.probe]!, statuses, JSON.stringify(c.ops));
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
    t.diagnostic(`HTTP answers: ${summary(statuses)}`);
    assert.ok((statuses.get('402') ?? 0) > RUNS / 20, `the gate was reached by many variants (${summary(statuses)})`);
  });

  test(`MCP: ${RUNS} tools/call of variants of each paid tool's name, unpaid or with a malformed, forged or spent payment, never deliver`, async (t) => {
    assert.ok(spent, 'the controls ran first');
    const entries = entriesOf.get(rig.service)!;
    const results = resultsOf.get(rig.service)!;
    const outcomes = new Map<string, number>();
    const metaKeys = ['x402/payment', 'X402/Payment', 'x402/payment ', 'x402-payment'];
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          entry: fc.nat({ max: entries.length - 1 }),
          probe: fc.nat({ max: INPUTS_PER_ENTRY - 1 }),
          ops: fc.oneof({ weight: 1, arbitrary: fc.constant<NameOp[]>([]) }, { weight: 4, arbitrary: fc.array(nameOpArb, { minLength: 1, maxLength: 2 }) }),
          payment: fc.constantFrom(...PAYMENT_FORMS),
          metaKey: fc.oneof({ weight: 5, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.nat({ max: metaKeys.length - 1 }) }),
          extraMeta: fc.subarray(['org.paymentauth/credential', 'x402/sign-in-with-x', 'x402/payment-response'] as const, { maxLength: 1 }),
          escapeName: fc.boolean(),
          rpcMethod: fc.oneof({ weight: 8, arbitrary: fc.constant('tools/call') }, { weight: 1, arbitrary: fc.constantFrom('Tools/Call', 'tools/call ', 'tools.call', 'tools/Call', 'tools/run') }),
          batch: fc.oneof({ weight: 8, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
        }),
        async (c) => {
          const entry = entries[c.entry]!;
          const probe = entry.probes[c.probe]!;
          const name = c.ops.reduce((n, o) => applyNameOp(n, o, entry.cap.path), entry.cap.id);
          const meta: Record<string, Json> = {};
          const payment = paymentValue(c.payment, entry, entries);
          if (payment !== undefined) meta[metaKeys[c.metaKey]!] = payment;
          for (const k of c.extraMeta) meta[k] = k === 'x402/payment-response' ? { success: true, transaction: '0x' + '00'.repeat(32) } : 'e30';
          const params = { name, arguments: probe.input, ...(Object.keys(meta).length ? { _meta: meta } : {}) };
          const message = { jsonrpc: '2.0', id: 1, method: c.rpcMethod, params };
          let body = JSON.stringify(c.batch ? [message] : message);
          // The same name spelled with JSON escapes: the same string once parsed.
          if (c.escapeName) body = body.replace(JSON.stringify(name), '"' + [...name].map((ch) => '\\u' + ch.charCodeAt(0).toString(16).padStart(4, '0')).join('') + '"');
          const res = await fetch(rig.service.url + '/mcp', { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body });
          const text = await res.text();
          const seen = `${c.batch ? 'batch of ' : ''}${c.rpcMethod} ${JSON.stringify(name)} payment=${c.payment} → ${res.status}: ${text.slice(0, 300)}`;
          assert.equal(results.heldBy(text), undefined, `a paid result delivered unpaid over MCP: ${seen}`);
          assert.equal(res.headers.get('payment-response'), null, seen);
          type Answer = { result?: { isError?: boolean; structuredContent?: Record<string, unknown>; _meta?: Record<string, unknown>; content?: Array<{ text: string }> }; error?: unknown };
          const parsed = parse(text) as Answer | Answer[] | undefined;
          const answers = Array.isArray(parsed) ? parsed : [parsed];
          for (const rpc of answers) {
            assert.ok(rpc && (rpc.result || rpc.error), `a JSON-RPC answer: ${seen}`);
            if (rpc.result) {
              assert.equal(rpc.result.isError, true, `no tool result without payment: ${seen}`);
              assert.equal(rpc.result._meta?.['x402/payment-response'], undefined, `no receipt: ${seen}`);
              const code = rpc.result.structuredContent?.x402Version === 2 ? 'challenge' : ((parse(rpc.result.content?.[0]?.text ?? '') as { error?: { code?: string } } | undefined)?.error?.code ?? 'other');
              tally(outcomes, code);
            } else tally(outcomes, 'json-rpc error');
          }
        },
      ),
      { numRuns: RUNS, seed: SEED + 1, endOnFailure: true },
    );
    t.diagnostic(`MCP answers: ${summary(outcomes)}`);
    assert.ok((outcomes.get('challenge') ?? 0) > 0 && (outcomes.get('not_found') ?? 0) > 0, `both the paid tools and unknown names were reached (${summary(outcomes)})`);
  });

  /** The value a call carries as its payment, by form; undefined: none. */
  function paymentValue(form: PaymentForm, entry: PaidEntry, entries: PaidEntry[]): Json | undefined {
    switch (form) {
      case 'none':
        return undefined;
      case 'null':
        return null;
      case 'empty-string':
        return '';
      case 'string':
        return 'eyJ4NDAyVmVyc2lvbiI6Mn0=';
      case 'number':
        return 0;
      case 'array':
        return [];
      case 'empty-object':
        return {};
      case 'version-only':
        return { x402Version: 2 };
      case 'forged':
        return forged(entry.accepted);
      case 'forged-other-entry':
        return forged(entries[(entries.indexOf(entry) + 1) % entries.length]!.accepted);
      case 'spent':
        return spent as unknown as Json;
    }
  }

  test(`A2A: ${RUNS} message/send and SendMessage to variants of each paid skill's name, unpaid or with a malformed, forged or spent payment, never complete`, async (t) => {
    assert.ok(spent, 'the controls ran first');
    const entries = entriesOf.get(rig.service)!;
    const results = resultsOf.get(rig.service)!;
    const outcomes = new Map<string, number>();
    const rpc = async (v1: boolean, method: string, params: unknown) => {
      const res = await fetch(rig.service.url + '/a2a', {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(v1 ? { 'A2A-Version': '1.0', 'A2A-Extensions': X402_URI } : { 'X-A2A-Extensions': X402_URI }) },
        body: JSON.stringify({ jsonrpc: '2.0', id: randomUUID(), method, params }),
      });
      return { status: res.status, text: await res.text(), receipt: res.headers.get('payment-response') };
    };
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          entry: fc.nat({ max: entries.length - 1 }),
          probe: fc.nat({ max: INPUTS_PER_ENTRY - 1 }),
          ops: fc.oneof({ weight: 1, arbitrary: fc.constant<NameOp[]>([]) }, { weight: 4, arbitrary: fc.array(nameOpArb, { minLength: 1, maxLength: 2 }) }),
          payment: fc.constantFrom(...PAYMENT_FORMS),
          status: fc.constantFrom('payment-submitted', 'payment-completed', 'payment-verified', undefined),
          v1: fc.boolean(),
          stream: fc.oneof({ weight: 5, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
          argsAsText: fc.oneof({ weight: 9, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
        }),
        async (c) => {
          const entry = entries[c.entry]!;
          const probe = entry.probes[c.probe]!;
          const skill = c.ops.reduce((n, o) => applyNameOp(n, o, entry.cap.path), entry.cap.id);
          const metadata: Record<string, Json> = { skill };
          const payment = paymentValue(c.payment, entry, entries);
          if (payment !== undefined) metadata['x402.payment.payload'] = payment;
          if (c.status !== undefined) metadata['x402.payment.status'] = c.status;
          const messageId = randomUUID();
          const message = c.v1
            ? { messageId, role: 'ROLE_USER', parts: [c.argsAsText ? { text: probe.body } : { data: probe.input }], metadata }
            : { kind: 'message', messageId, role: 'user', parts: [c.argsAsText ? { kind: 'text', text: probe.body } : { kind: 'data', data: probe.input }], metadata };
          const method = c.v1 ? (c.stream ? 'SendStreamingMessage' : 'SendMessage') : c.stream ? 'message/stream' : 'message/send';
          const answer = await rpc(c.v1, method, { message });
          const seen = `${method} skill=${JSON.stringify(skill)} payment=${c.payment} → ${answer.status}: ${answer.text.slice(0, 300)}`;
          assert.equal(results.heldBy(answer.text), undefined, `a paid result delivered unpaid over A2A: ${seen}`);
          assert.equal(answer.receipt, null, seen);
          const body = parse(answer.text) as { result?: Record<string, unknown>; error?: { code: number } } | undefined;
          assert.ok(body && (body.result || body.error), `a JSON-RPC answer: ${seen}`);
          if (body.error) {
            tally(outcomes, `error ${body.error.code}`);
            return;
          }
          const task = (c.v1 ? (body.result!.task ?? body.result!.message) : body.result) as { id?: string; kind?: string; status?: { state: string; message?: { metadata?: Record<string, unknown> } }; artifacts?: unknown[] } | undefined;
          const state = task?.status?.state ?? 'message';
          tally(outcomes, state.replace(/^TASK_STATE_/, '').toLowerCase().replace(/_/g, '-'));
          assert.ok(!/completed/i.test(state), `no task completes without payment: ${seen}`);
          assert.equal((task?.artifacts ?? []).length, 0, `no artifact without payment: ${seen}`);
          const receipts = task?.status?.message?.metadata?.['x402.payment.receipts'] as Array<{ success?: boolean }> | undefined;
          assert.ok(!receipts?.some((r) => r.success), `no successful receipt: ${seen}`);
          // A task left waiting for payment counts against this client's budget: cancel it, and the cancel gives nothing either.
          if (task?.id && /input.required/i.test(state)) {
            const cancel = await rpc(c.v1, c.v1 ? 'CancelTask' : 'tasks/cancel', { id: task.id });
            assert.equal(results.heldBy(cancel.text), undefined, `a paid result in a cancel: ${cancel.text.slice(0, 300)}`);
          }
        },
      ),
      { numRuns: RUNS, seed: SEED + 2, endOnFailure: true },
    );
    t.diagnostic(`A2A answers: ${summary(outcomes)}`);
    assert.ok((outcomes.get('input-required') ?? 0) > 0 && (outcomes.get('rejected') ?? 0) > 0, `both the paid skills and unknown names were reached (${summary(outcomes)})`);
  });

  test('the free router quote of a composite input (HTTP, MCP tool, A2A skill) holds none of its steps\' results', async () => {
    const composite = entriesOf.get(rig.service)!.find((e) => e.cap.id === COMPOSITE_RESOURCE)!;
    const results = resultsOf.get(rig.service)!;
    for (const probe of composite.probes) {
      const http = await fetch(rig.service.url + '/v1/router/quote', { method: 'POST', headers: { 'content-type': 'application/json' }, body: probe.body });
      const mcp = await fetch(rig.service.url + '/mcp', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'router-quote', arguments: probe.input } }),
      });
      const a2a = await fetch(rig.service.url + '/a2a', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'message/send', params: { message: { kind: 'message', messageId: randomUUID(), role: 'user', parts: [{ kind: 'data', data: probe.input }], metadata: { skill: 'router-quote' } } } }),
      });
      for (const [surface, res] of [['HTTP', http], ['MCP', mcp], ['A2A', a2a]] as const) {
        const text = await res.text();
        assert.equal(res.status, 200, `${surface}: the quote answers: ${text.slice(0, 300)}`);
        assert.equal(results.heldBy(text), undefined, `${surface}: a free quote holds a paid result: ${text.slice(0, 300)}`);
      }
    }
  });
});
