/**
 * What a quote names instead of echoing (issue 41): a body of the quote (a
 * step's native body, the canonical request) whose JSON would run past
 * ECHO_LIMIT_CHARS names its largest values that the caller sent verbatim, by
 * their JSON pointer in the request as sent, with their size and SHA-256, and
 * comes as a template holding null at each of those places. The buyer builds
 * the body from the request it already has, and checks it against the body's
 * own size and hash (the hash its signed offer binds). So a quote grows with
 * what it says, not with the bytes it was sent; and the hashing of a large
 * request runs on the service's worker pool.
 */
import {
  filledTemplate,
  pointerToken,
  templateDigests,
  type CanonicalDigest,
  type JsonTemplate,
  type TemplateDigestRequest,
  type TemplateDigests,
} from '../foundation/json-template.js';
import { ISOLATE_MIN_INPUT_CHARS, stringCharsAtLeast, type StepExecutor } from '../isolation/pool.js';
import { COMPOSITE_RESOURCE, type Plan } from './planner.js';
import { ECHO_LIMIT_CHARS } from './schemas.js';

/** Smaller values are always written out: naming one (pointer, size, hash) costs about as much. */
const NAMED_MIN_CHARS = 256;

/** The bodies of a quote that name some of the caller's values, and the values they name. */
export interface QuoteReferences {
  /** Each value named, once, in order of first use, with its JSON pointer in the request as sent. */
  inputs: Array<{ from: string; value: unknown }>;
  /** Per step, its native body as a template whose placements' sources index `inputs`; undefined when written out. */
  steps: Array<JsonTemplate | undefined>;
  canonical: JsonTemplate | undefined;
}

/** The digests a quote states and signs: of each named input, of the step bodies it names or signs, of the canonical request; and the request fingerprint. */
export interface QuoteDigests {
  inputs: CanonicalDigest[];
  steps: Array<CanonicalDigest | undefined>;
  canonical: CanonicalDigest;
  fingerprint: string;
}

type Container = Record<string, unknown> | unknown[];
const isContainer = (v: unknown): v is Container => v !== null && typeof v === 'object';

/**
 * Characters of a value's JSON, estimated without writing it (a string by its
 * length, escapes not counted): the measure the echo limit is stated in.
 * Memoized per object, since the bodies share their values with the request.
 */
function charCounter(): (v: unknown) => number {
  const memo = new Map<object, number>();
  const chars = (v: unknown): number => {
    if (typeof v === 'string') return v.length + 2;
    if (typeof v === 'number') return String(v).length;
    if (!isContainer(v)) return v === false ? 5 : 4;
    let n = memo.get(v);
    if (n !== undefined) return n;
    if (Array.isArray(v)) {
      n = 1 + v.length;
      for (const x of v) n += chars(x);
    } else {
      const members = Object.entries(v);
      n = 1 + Math.max(1, members.length);
      for (const [k, x] of members) n += k.length + 3 + chars(x);
    }
    memo.set(v, n);
    return n;
  };
  return chars;
}

/** Every value of the request as sent large enough to be named, by value (strings) or identity, at its first pointer. */
function namesIn(sent: unknown, chars: (v: unknown) => number): Map<unknown, string> {
  const names = new Map<unknown, string>();
  const walk = (v: unknown, at: string) => {
    if (chars(v) <= NAMED_MIN_CHARS) return;
    if (at !== '' && !names.has(v)) names.set(v, at);
    if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${at}/${i}`));
    else if (isContainer(v)) for (const [k, x] of Object.entries(v)) walk(x, `${at}/${pointerToken(k)}`);
  };
  walk(sent, '');
  return names;
}

/**
 * The body as a template naming its largest values the caller sent, largest
 * first, until what is left to write out fits the echo limit; undefined when
 * the body fits as it is (or names nothing it could: a value the router made
 * itself is always written out).
 */
function templateOf(body: Record<string, unknown>, names: Map<unknown, string>, chars: (v: unknown) => number, sourceOf: (from: string, value: unknown) => number): JsonTemplate | undefined {
  let written = chars(body);
  if (written <= ECHO_LIMIT_CHARS) return undefined;
  const candidates: Array<{ at: string; from: string; size: number; value: unknown }> = [];
  const walk = (value: unknown, at: string) => {
    const size = chars(value);
    if (size <= NAMED_MIN_CHARS) return;
    const from = names.get(value);
    if (from !== undefined) candidates.push({ at, from, size, value });
    if (Array.isArray(value)) value.forEach((x, i) => walk(x, `${at}/${i}`));
    else if (isContainer(value)) for (const [k, x] of Object.entries(value)) walk(x, `${at}/${pointerToken(k)}`);
  };
  for (const k of Object.keys(body)) walk(body[k], `/${pointerToken(k)}`);
  // Stable: equal sizes keep document order. A container is larger than anything inside it, so it comes first.
  candidates.sort((a, b) => b.size - a.size);
  const chosen = new Set<string>();
  const insideChosen = (at: string) => {
    for (let i = at.indexOf('/', 1); i !== -1; i = at.indexOf('/', i + 1)) if (chosen.has(at.slice(0, i))) return true;
    return false;
  };
  const placements: JsonTemplate['placements'] = [];
  for (const c of candidates) {
    if (written <= ECHO_LIMIT_CHARS) break;
    if (insideChosen(c.at)) continue;
    chosen.add(c.at);
    placements.push({ at: c.at, source: sourceOf(c.from, c.value) });
    // What is left at that place: null.
    written -= c.size - 4;
  }
  if (placements.length === 0) return undefined;
  placements.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  return { template: filledTemplate({ template: body, placements: placements.map((p) => ({ at: p.at, source: 0 })) }, [null]), placements };
}

/**
 * Which of the plan's bodies name which of the values in `sent` (the request
 * exactly as the caller sent it, before aliases and folding): everything the
 * quote will not write out.
 */
export function referencesOf(plan: Plan, sent: unknown): QuoteReferences {
  const chars = charCounter();
  const names = namesIn(sent, chars);
  const inputs: QuoteReferences['inputs'] = [];
  const indexOf = new Map<string, number>();
  const sourceOf = (from: string, value: unknown) => {
    let i = indexOf.get(from);
    if (i === undefined) indexOf.set(from, (i = inputs.push({ from, value }) - 1));
    return i;
  };
  const steps = plan.steps.map((s) => templateOf(s.body, names, chars, sourceOf));
  return { inputs, steps, canonical: templateOf(plan.canonical, names, chars, sourceOf) };
}

/**
 * The digests of a quote: every named input, every step body the quote names
 * (or signs, with `signing`), the canonical request and its fingerprint. A
 * large request is hashed on the service's worker pool (from the size at which
 * the paid routes read a body there), so the event loop only posts each large
 * value once; a small one, or one the pool cannot take, is hashed here, with
 * the same answer.
 */
export async function quoteDigests(plan: Plan, refs: QuoteReferences, opts: { signing: boolean; pool?: StepExecutor }): Promise<QuoteDigests> {
  const written = (body: Record<string, unknown>): JsonTemplate => ({ template: body, placements: [] });
  const templates: JsonTemplate[] = [];
  const digestOf = (t: JsonTemplate) => templates.push(t) - 1;
  // Index into `templates` of each step digested: those named, and all when signing.
  const stepIndex = plan.steps.map((s, i) => {
    const t = refs.steps[i] ?? (opts.signing ? written(s.body) : undefined);
    return t && digestOf(t);
  });
  const canonical = digestOf(refs.canonical ?? written(plan.canonical));
  const req: TemplateDigestRequest = { sources: refs.inputs.map((x) => x.value), templates, fingerprint: { resource: COMPOSITE_RESOURCE, template: canonical } };
  const large = refs.inputs.length > 0 || stringCharsAtLeast(plan.canonical, ISOLATE_MIN_INPUT_CHARS);
  let answer: TemplateDigests | undefined;
  if (large && opts.pool) answer = await opts.pool.digest(req).catch(() => undefined);
  answer ??= templateDigests(req);
  return {
    inputs: answer.sources,
    steps: stepIndex.map((i) => (i === undefined ? undefined : answer.templates[i])),
    canonical: answer.templates[canonical]!,
    fingerprint: answer.fingerprint!,
  };
}
