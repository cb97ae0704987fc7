/**
 * What a request body may cost, per surface, derived from the catalog: its
 * bytes (the largest body a catalog entry accepts) and its JSON values (the
 * most its input schema admits). An unpaid request can then cause only the
 * work its surface legitimately needs: a message of millions of small values
 * (`[{},{},…]`, `[1,1,…]`, `["a","a",…]`) is refused by a scan of its text
 * before JSON.parse builds anything, while the one legitimately large input
 * (the extractor's page) is a single JSON string and passes (issue 21).
 *
 * Values are counted as the scan in json-input.ts counts them: every object,
 * array, string (member names too: each is a string the parser allocates),
 * number and literal.
 */
import type { Capability, JsonSchema } from './capability.js';

/** Largest body of an entry that does not declare one (mirrors input-reader's default, which imports this module). */
export const DEFAULT_ENTRY_BODY_BYTES = 64 * 1024;

/**
 * Room a transport adds around an entry's arguments: a JSON-RPC envelope, an
 * A2A message with its metadata and an x402 PaymentPayload, a quote's
 * objective and buyer_metadata. Generous: the largest envelope we build or
 * read holds a few dozen values and a few KiB.
 */
const ENVELOPE_BYTES = 64 * 1024;
export const ENVELOPE_VALUES = 4096;

/**
 * No entry's own route counts fewer values than this: a body that small
 * parses in microseconds, and its schema's error (an unknown member, too many
 * items) tells the caller more than a count would.
 */
export const MIN_ENTRY_VALUES = 4096;

export interface BodyBudget {
  /** Largest accepted body, bytes. */
  bytes: number;
  /** Most JSON values accepted in it (see the module comment for what counts). */
  values: number;
}

/** The most values `bytes` bytes of JSON can hold: one per two characters (`[1,1,…]`), plus the last. */
export function valuesIn(bytes: number): number {
  return Math.floor(bytes / 2) + 1;
}

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/** Values in one JSON literal (an enum or const member). */
function literalValues(v: unknown): number {
  if (Array.isArray(v)) return 1 + v.reduce((n: number, x) => n + literalValues(x), 0);
  if (isObject(v)) return 1 + Object.values(v).reduce((n: number, x) => n + 1 + literalValues(x), 0);
  return 1;
}

/**
 * The most JSON values a body valid under `schema` can hold, or Infinity when
 * the schema leaves it open (an object that takes any member, an array
 * without maxItems, a `$ref` it cannot follow). Local `#/$defs/…` and
 * `#/definitions/…` references are followed, a bounded number of times.
 */
export function schemaValuesBound(schema: JsonSchema): number {
  return bound(schema, schema, 0);
}

const MAX_REF_HOPS = 32;

function bound(s: unknown, root: JsonSchema, hops: number): number {
  if (s === false) return 0;
  if (!isObject(s)) return Infinity;
  let own = ownBound(s, root, hops);
  if (typeof s.$ref === 'string') own = Math.min(own, refBound(s.$ref, root, hops));
  for (const key of ['anyOf', 'oneOf'] as const) {
    const alts = s[key];
    if (Array.isArray(alts)) own = Math.min(own, Math.max(0, ...alts.map((a) => bound(a, root, hops))));
  }
  if (Array.isArray(s.allOf)) for (const a of s.allOf) own = Math.min(own, bound(a, root, hops));
  return own;
}

function refBound(ref: string, root: JsonSchema, hops: number): number {
  const m = /^#\/(\$defs|definitions)\/([^/]+)$/.exec(ref);
  const defs = m ? root[m[1]!] : undefined;
  if (!m || !isObject(defs) || hops >= MAX_REF_HOPS) return Infinity;
  return bound(defs[m[2]!], root, hops + 1);
}

/** The bound set by the schema's own keywords (type, const/enum, properties, items). */
function ownBound(s: Record<string, unknown>, root: JsonSchema, hops: number): number {
  if ('const' in s) return literalValues(s.const);
  if (Array.isArray(s.enum)) return Math.max(0, ...s.enum.map(literalValues));
  const types = typeof s.type === 'string' ? [s.type] : Array.isArray(s.type) ? (s.type as unknown[]) : undefined;
  if (!types) return 'properties' in s ? objectBound(s, root, hops) : 'items' in s ? arrayBound(s, root, hops) : Infinity;
  return Math.max(0, ...types.map((t) => (t === 'object' ? objectBound(s, root, hops) : t === 'array' ? arrayBound(s, root, hops) : 1)));
}

function objectBound(s: Record<string, unknown>, root: JsonSchema, hops: number): number {
  // Members beyond `properties` are open unless refused.
  if (s.additionalProperties !== false || s.patternProperties !== undefined) return Infinity;
  const props = isObject(s.properties) ? Object.values(s.properties) : [];
  return props.reduce((n: number, p) => n + 1 + bound(p, root, hops), 1);
}

function arrayBound(s: Record<string, unknown>, root: JsonSchema, hops: number): number {
  const prefix = Array.isArray(s.prefixItems) ? s.prefixItems : [];
  const head = prefix.reduce((n: number, p) => n + bound(p, root, hops), 1);
  if (s.items === false) return head;
  if (typeof s.maxItems !== 'number') return Infinity;
  const rest = Math.max(0, s.maxItems - prefix.length);
  return rest === 0 ? head : head + rest * bound(s.items ?? true, root, hops);
}

type Entry = Pick<Capability, 'maxBodyBytes' | 'inputSchema' | 'readInput'>;

/** The most values a valid body of `cap` holds: what its schema admits, never more than its bytes can hold. */
function entryValues(cap: Entry): number {
  const bytes = cap.maxBodyBytes ?? DEFAULT_ENTRY_BODY_BYTES;
  return Math.min(cap.readInput ? Infinity : schemaValuesBound(cap.inputSchema), valuesIn(bytes));
}

/**
 * One catalog entry's own route: its byte limit, and as many values as its
 * input schema admits, at least MIN_ENTRY_VALUES (never more than those bytes
 * can hold). An entry read by its own rules (`readInput`: the composite
 * router) is bounded by its bytes here.
 */
export function entryBudget(cap: Entry): BodyBudget {
  const bytes = cap.maxBodyBytes ?? DEFAULT_ENTRY_BODY_BYTES;
  return { bytes, values: Math.min(Math.max(entryValues(cap), MIN_ENTRY_VALUES), valuesIn(bytes)) };
}

/**
 * A message that carries up to `steps` entries' arguments (a tool call or an
 * A2A message carries one; a router quote up to its batch size) inside an
 * envelope: the largest entry body plus ENVELOPE_BYTES, and `steps` times the
 * most values any entry admits plus ENVELOPE_VALUES. Entries read by their
 * own rules (the composite) are left out: their input is a plan over the
 * others, which this already bounds.
 */
export function messageBudget(catalog: readonly Capability[], steps = 1): BodyBudget {
  const entries = catalog.filter((c) => !c.readInput);
  const bytes = Math.max(DEFAULT_ENTRY_BODY_BYTES, ...entries.map((c) => c.maxBodyBytes ?? DEFAULT_ENTRY_BODY_BYTES)) + ENVELOPE_BYTES;
  const values = Math.min(valuesIn(bytes), steps * Math.max(0, ...entries.map(entryValues)) + ENVELOPE_VALUES);
  return { bytes, values };
}
