/**
 * The outcome router's planner: request → canonical request → plan, or a
 * rejection with a stable code. Pure and synchronous: no clock, no I/O, no
 * randomness, so the same request always gets the same plan. Built once from
 * the catalog at start-up; a capability added to the catalog is routable
 * without a change here.
 */
import type { Capability } from '../catalog/capability.js';
import { compileValidator, type Validator } from '../catalog/validation.js';
import type { PaymentConfig } from '../config.js';
import { ServiceError, type ErrorBody, type ErrorCode, type ErrorDetail } from '../errors.js';
import { makeInputReader } from '../catalog/input-reader.js';
import { canonicalJson } from '../foundation/canonical-json.js';
import { callFingerprint } from '../payments/paid-flow.js';
import { descriptorFor, schemaProperties, type EvidenceLevel, type Extraction, type RoutingDescriptor, type UnitDraft } from './descriptors.js';
import {
  EVIDENCE,
  FRESHNESS,
  LATENCY,
  OBJECTIVE_FIELDS,
  PREFERRED_PROTOCOLS,
  quoteRequestSchema,
  ROUTER_FIELDS,
} from './schemas.js';
import { stripSecrets } from './secrets.js';
import { compileTerms, foldText, normalizeText, pastedData, readUris } from '../catalog/objective-text.js';
import { FOLDED_REFUSAL_KEYS, refusalSentence, screen, unsupportedOf } from './unsupported.js';
import { cogsAtomic, paymentsFor, type PaymentsPerPlan, type PlanCosts } from './economics.js';

export const CONTRACT_PATH = '/v1/router';
export const QUOTE_PATH = '/v1/router/quote';
export const COMPOSITE_PATH = '/x402/v1/outcome-router';
/** The composite resource's id: what a payment for it is bound to. */
export const COMPOSITE_RESOURCE = 'outcome-router';
/** A batch is "small": at most this many steps (paid calls) per quote. */
export const DEFAULT_MAX_STEPS = 20;
/** Probability that one paid call settles and delivers, when a descriptor does not say (deterministic handler; settlement is the risk). */
const DEFAULT_RELIABILITY = 0.999;

export type Freshness = (typeof FRESHNESS)[number];
export type Latency = (typeof LATENCY)[number];
export type Evidence = (typeof EVIDENCE)[number];
export type PreferredProtocol = (typeof PREFERRED_PROTOCOLS)[number];
export type ObjectiveField = (typeof OBJECTIVE_FIELDS)[number];

/** The request after aliases and folding: objective plus inputs, plus constraints. */
export interface QuoteRequest {
  objective: string;
  inputs: Record<string, unknown>;
  required_output?: Record<string, unknown>;
  freshness: Freshness;
  latency: Latency;
  evidence: Evidence;
  preferred_protocol: PreferredProtocol;
  max_price?: string;
}

/** One element of inputs.items, read as a native body, and where it sits in the request. */
interface ItemUnit {
  inputs: Record<string, unknown>;
  at: string;
}

/** "Quelle: [...] Ziel: [...]": a pasted field list labelled source or target in a routed language. */
const FIELD_LIST_LABELS: Readonly<Record<string, string>> = Object.fromEntries([
  ...'source producer fuente origen origem source_contract quelle origine bron producent productor produtor produttore'.split(' ').map((w) => [w, 'source_fields']),
  ...'target consumer destino cible ziel destinazione doel consument consumidor consommateur verbraucher consumatore'.split(' ').map((w) => [w, 'target_fields']),
]);

export interface ParsedRequest {
  request: QuoteRequest;
  objectiveField: ObjectiveField;
  /** Top-level fields moved into inputs. */
  folded: string[];
  /** Aliases renamed to native names, as "fg → foreground". */
  renamed: string[];
  /** Inputs read from data pasted into the objective (JSON, `name: value`, a JSON-LD block or page). */
  pasted: string[];
  buyerMetadata: { received: boolean; secretKeysStripped: number; keysKept: number };
}

export interface Route {
  cap: Capability;
  d: RoutingDescriptor;
  reader: ReturnType<typeof makeInputReader>;
  /** Lower-case phrases that name the product: title, title before "(", descriptor names. */
  names: string[];
  /** Every input key the outcome reads: the descriptor's and the capability schema's. */
  inputKeys: readonly string[];
  /** inputKeys as a set, built once: every quote asks which keys some route reads. */
  inputKeySet: ReadonlySet<string>;
  /** Compiled once: the id, the path and each name as whole words of the lower-cased objective; the descriptor's terms of every language over the folded objective. */
  matchers: { id: TextTest; path: TextTest; names: Array<[string, TextTest]>; terms?: RegExp };
}

export interface PlannedStep {
  step: number;
  route: Route;
  /** The native body: valid against the capability's input schema. */
  body: Record<string, unknown>;
  /** JSON pointer of the request part it came from. */
  source: string;
}

export interface Plan extends PlanCosts {
  parsed: ParsedRequest;
  /** Objective plus inputs, plus constraints that differ from their defaults. */
  canonical: Record<string, unknown>;
  /**
   * What a composite payment is bound to: the paid flow's fingerprint of the
   * canonical request (computed when first read, or set once by whoever
   * computed the same value off the event loop).
   */
  fingerprint: string;
  steps: PlannedStep[];
  /** Distinct routes of the steps, in step order. */
  routes: Route[];
  matched: Array<{ capability_id: string; signals: string[] }>;
  assumptions: string[];
  unusedInputs: string[];
  /** One sentence per unused input: why no step reads it. */
  unusedExplained: Array<{ input: string; reason: string }>;
  total: bigint;
  evidenceLevel: EvidenceLevel;
  expectedLatencyMs: number;
  /** Per paid call, in step order. */
  reliabilities: number[];
  constraintNotes: string[];
  requiredOutput: { covered: string[]; not_covered: string[] } | null;
}

export type Outcome<T> = { ok: true; value: T } | { ok: false; error: ServiceError };

/** A rejection that says, in one sentence, why: what was asked and what the service does instead. */
export class RouterRefusal extends ServiceError {
  constructor(
    code: ErrorCode,
    message: string,
    details: ErrorDetail[],
    readonly reason: string,
  ) {
    super(code, message, details);
  }
}

const fail = (code: ErrorCode, message: string, details: ErrorDetail[] = [], reason?: string): Outcome<never> => ({
  ok: false,
  error: reason === undefined ? new ServiceError(code, message, details) : new RouterRefusal(code, message, details, reason),
});

export function errorBodyOf(e: ServiceError): ErrorBody {
  const body: ErrorBody = { error: { code: e.code, message: e.message, details: e.details } };
  if (e instanceof RouterRefusal) body.error.reason = e.reason;
  return body;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * A copy of a native body for validation (which fills defaults in place), as
 * structuredClone would make it. Bodies are JSON-shaped trees of plain objects
 * and arrays, which a direct copy handles without structuredClone's
 * serialisation round trip (decision 0017); anything else
 * (a shared or cyclic reference, a Date, a class instance) goes to
 * structuredClone whole, so the copy is always the same as structuredClone's.
 */
function cloneBody(v: unknown): unknown {
  const seen = new Set<object>();
  const copy = (x: unknown): unknown => {
    if (x === null || typeof x !== 'object') {
      if (typeof x === 'function' || typeof x === 'symbol') throw NOT_PLAIN;
      return x;
    }
    if (seen.has(x)) throw NOT_PLAIN;
    seen.add(x);
    if (Array.isArray(x)) {
      // Holes and extra properties are kept by structuredClone, not by a copy loop.
      if (Object.keys(x).length !== x.length) throw NOT_PLAIN;
      const out = new Array<unknown>(x.length);
      for (let i = 0; i < x.length; i++) out[i] = copy(x[i]);
      return out;
    }
    const proto = Object.getPrototypeOf(x);
    if (proto !== Object.prototype && proto !== null) throw NOT_PLAIN;
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(x)) {
      // Assigning "__proto__" would set the prototype, not copy the key.
      if (k === '__proto__') throw NOT_PLAIN;
      // A getter is read, as structuredClone reads it.
      out[k] = copy((x as Record<string, unknown>)[k]);
    }
    return out;
  };
  try {
    return copy(v);
  } catch (e) {
    if (e !== NOT_PLAIN) throw e;
    return structuredClone(v);
  }
}
const NOT_PLAIN = Symbol('not a plain JSON-shaped value');

/** Whether a text holds something: a RegExp, or a literal finder that answers as its RegExp would. */
export interface TextTest {
  test(text: string): boolean;
}

const isLowerAlnum = (c: number) => (c >= 97 && c <= 122) || (c >= 48 && c <= 57);

/**
 * A literal phrase found with indexOf, answering exactly as
 * /(?<![a-z0-9])phrase(?![a-z0-9])/ (whole words) or, for a route,
 * /phrase(?![a-z0-9-])/: every quote tests each route's id, path and names, and
 * a regex starting with a lookbehind is tried at every position of the text.
 */
function literalTest(phrase: string, opts: { wordStart: boolean; hyphenContinues: boolean }): TextTest {
  return {
    test(text: string): boolean {
      for (let i = text.indexOf(phrase); i !== -1; i = text.indexOf(phrase, i + 1)) {
        if (opts.wordStart && i > 0 && isLowerAlnum(text.charCodeAt(i - 1))) continue;
        const end = i + phrase.length;
        if (end < text.length) {
          const c = text.charCodeAt(end);
          if (isLowerAlnum(c) || (opts.hyphenContinues && c === 45)) continue;
        }
        return true;
      }
      return false;
    },
  };
}

/** A phrase as whole words (not inside a longer word). */
function wordsRe(phrase: string): TextTest {
  return literalTest(phrase, { wordStart: true, hyphenContinues: false });
}

export interface RouterOptions {
  /** Routing to use instead of what a capability carries, by capability id (experiments). */
  routingOverrides?: Readonly<Record<string, RoutingDescriptor>>;
  /** Supplier ids a plan may pay besides the service's own handlers (default none). */
  supplierAllowlist?: readonly string[];
  maxSteps?: number;
  /** What one settlement costs the operator (X402_SETTLEMENT_COST_ATOMIC), atomic units; default 0. */
  settlementCostAtomic?: bigint;
  /**
   * How this router's plans are paid for, hence how many settlements their
   * cost of goods counts: one per step (the quote, default) or one for the
   * plan (the composite resource).
   */
  paymentsPerPlan?: PaymentsPerPlan;
}

export class OutcomeRouter {
  readonly routes: Route[];
  /** Every top-level field accepted besides the router's own → the inputs key it becomes. */
  readonly foldable: Map<string, string>;
  /** Field aliases applied inside inputs (fg → foreground). */
  readonly aliases: Map<string, string>;
  /** Input keys some capability declares: never refused by name. */
  readonly declaredKeys: Set<string>;
  readonly allowlist: Set<string>;
  readonly ownPaths: Set<string>;
  readonly maxSteps: number;
  readonly settlementCostAtomic: bigint;
  readonly paymentsPerPlan: PaymentsPerPlan;
  /** Largest quote body accepted: the largest capability body plus room for the envelope. */
  readonly bodyLimit: number;
  private readonly validate: Validator;

  constructor(
    catalog: readonly Capability[],
    readonly payment: Pick<PaymentConfig, 'network' | 'payTo' | 'asset'>,
    opts: RouterOptions = {},
  ) {
    this.routes = catalog.map((cap) => {
      const d = descriptorFor(cap, opts.routingOverrides);
      const title = cap.title.toLowerCase();
      const names = [title, title.split(' (')[0]!.trim(), ...(d.names ?? []).map((n) => n.toLowerCase())];
      const unique = [...new Set(names)].filter((n) => n.length >= 4);
      const matchers = {
        id: wordsRe(cap.id),
        path: literalTest(cap.path.toLowerCase(), { wordStart: false, hyphenContinues: true }),
        names: unique.map((n): [string, TextTest] => [n, wordsRe(n)]),
        terms: compileTerms(d.terms),
      };
      const inputKeys = [...new Set([...d.reads, ...schemaProperties(cap)])];
      return { cap, d, reader: makeInputReader(cap), names: unique, matchers, inputKeys, inputKeySet: new Set(inputKeys) };
    });
    this.maxSteps = opts.maxSteps ?? DEFAULT_MAX_STEPS;
    this.settlementCostAtomic = opts.settlementCostAtomic ?? 0n;
    this.paymentsPerPlan = opts.paymentsPerPlan ?? 'one-per-step';
    this.declaredKeys = new Set(this.routes.flatMap((r) => schemaProperties(r.cap)));
    this.aliases = new Map();
    for (const r of this.routes) {
      for (const [alias, target] of Object.entries(r.d.fieldAliases ?? {})) if (!this.aliases.has(alias) && !this.declaredKeys.has(alias)) this.aliases.set(alias, target);
    }
    this.foldable = new Map();
    const fold = (k: string) => {
      if (!ROUTER_FIELDS.includes(k) && !this.foldable.has(k)) this.foldable.set(k, this.aliases.get(k) ?? k);
    };
    for (const r of this.routes) for (const k of [...schemaProperties(r.cap), ...r.d.reads]) fold(k);
    for (const k of this.aliases.keys()) fold(k);
    for (const k of FOLDED_REFUSAL_KEYS) fold(k);
    fold('items');
    this.allowlist = new Set([...catalog.map((c) => c.id), ...(opts.supplierAllowlist ?? [])]);
    this.ownPaths = new Set([...catalog.map((c) => c.path), CONTRACT_PATH, QUOTE_PATH, COMPOSITE_PATH]);
    this.bodyLimit = Math.max(64 * 1024, ...catalog.map((c) => c.maxBodyBytes ?? 64 * 1024)) + 64 * 1024;
    this.validate = compileValidator(quoteRequestSchema(this.foldable, { forValidation: true }));
  }

  /** The published quote request schema for this catalog. */
  requestSchema(form: 'http' | 'canonical' = 'http') {
    return quoteRequestSchema(this.foldable, { canonical: form === 'canonical' });
  }

  isOwnUrl = (url: string): boolean => {
    try {
      return this.ownPaths.has(new URL(url).pathname.replace(/\/+$/, ''));
    } catch {
      return false;
    }
  };

  // ─── reading ────────────────────────────────────────────────────────────

  /** Body text → parsed request. Secrets in buyer_metadata are gone before validation sees the value. */
  readBody(contentType: string | undefined, raw: string): Outcome<ParsedRequest> {
    if (Buffer.byteLength(raw, 'utf8') > this.bodyLimit) return fail('payload_too_large', `The request body exceeds ${this.bodyLimit} bytes.`);
    const mediaType = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
    if (mediaType !== '' && mediaType !== 'application/json' && !mediaType.endsWith('+json')) {
      return fail('unsupported_media_type', `Content-Type ${mediaType} is not accepted here; send application/json.`, [{ path: '', rule: 'content-type' }]);
    }
    if (raw.trim() === '') return fail('invalid_json', 'A JSON request body is required.', [{ path: '', rule: 'required' }]);
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (e) {
      return fail('invalid_json', `The request body is not valid JSON: ${(e as Error).message}`, [{ path: '', rule: 'json' }]);
    }
    return this.readValue(value);
  }

  readValue(value: unknown): Outcome<ParsedRequest> {
    let secretKeysStripped = 0;
    // A copy: validation fills defaults in place, and the caller's value stays as it was.
    if (isObject(value)) value = { ...value };
    if (isObject(value) && 'buyer_metadata' in value) {
      const s = stripSecrets(value.buyer_metadata);
      secretKeysStripped = s.removed;
      value = { ...value, buyer_metadata: s.value };
    }
    const schemaProblems = this.validate(value);
    if (schemaProblems) return fail('invalid_request', 'The request does not match the router quote request schema.', schemaProblems);
    const body = value as Record<string, unknown>;

    const present = OBJECTIVE_FIELDS.filter((f) => body[f] !== undefined);
    if (present.length === 0) {
      return fail('invalid_request', 'objective is required (goal, task, outcome and query are accepted aliases).', [{ path: '/objective', rule: 'required', message: 'is required' }]);
    }
    if (present.length > 1) {
      return fail(
        'invalid_request',
        `Send the objective once: ${present.join(', ')} are aliases of the same field.`,
        present.slice(1).map((f) => ({ path: `/${f}`, rule: 'alias_conflict', message: `${f} is an alias of ${present[0]}` })),
      );
    }
    const objectiveField = present[0]!;

    const conflicts: ErrorDetail[] = [];
    const inputs: Record<string, unknown> = { ...((body.inputs as Record<string, unknown> | undefined) ?? {}) };
    const renamed: string[] = [];
    const rename = (from: string, to: string, where: string) => {
      if (inputs[to] !== undefined && canonicalJson(inputs[to]) !== canonicalJson(inputs[from])) {
        conflicts.push({ path: where, rule: 'conflicts_with_inputs', message: `${from} is an alias of ${to}, which is also given with another value` });
        return;
      }
      inputs[to] = inputs[from];
      delete inputs[from];
      renamed.push(`${from} → ${to}`);
    };
    for (const [alias, target] of this.aliases) if (inputs[alias] !== undefined) rename(alias, target, `/inputs/${alias}`);

    const folded: string[] = [];
    for (const [k, v] of Object.entries(body)) {
      if (ROUTER_FIELDS.includes(k) || v === undefined) continue;
      const target = this.foldable.get(k) ?? k;
      if (inputs[target] !== undefined && canonicalJson(inputs[target]) !== canonicalJson(v)) {
        conflicts.push({ path: `/${k}`, rule: 'conflicts_with_inputs', message: `inputs.${target} is also given, with another value` });
        continue;
      }
      inputs[target] = v;
      folded.push(k);
      if (target !== k) renamed.push(`${k} → ${target}`);
    }
    if (conflicts.length) return fail('invalid_request', 'A field is given twice with different values.', conflicts);
    const pasted = this.readPasted(body[objectiveField] as string, inputs);

    const metadata = body.buyer_metadata as Record<string, unknown> | undefined;
    return {
      ok: true,
      value: {
        request: {
          objective: body[objectiveField] as string,
          inputs,
          ...(body.required_output !== undefined ? { required_output: body.required_output as Record<string, unknown> } : {}),
          freshness: (body.freshness as Freshness | undefined) ?? 'any',
          latency: (body.latency as Latency | undefined) ?? 'any',
          evidence: (body.evidence as Evidence | undefined) ?? 'any',
          preferred_protocol: (body.preferred_protocol as PreferredProtocol | undefined) ?? 'any',
          ...(body.max_price !== undefined ? { max_price: body.max_price as string } : {}),
        },
        objectiveField,
        folded: folded.sort(),
        renamed,
        pasted,
        buyerMetadata: { received: metadata !== undefined, secretKeysStripped, keysKept: metadata ? Object.keys(metadata).length : 0 },
      },
    };
  }

  /**
   * Data pasted into the objective, as inputs where the request gives none of
   * its own: a JSON object's keys and `name: value` pairs that some outcome
   * reads (aliases renamed), a Product JSON-LD object as a page holding it,
   * a pasted page as `html`. Returns the input names filled this way.
   */
  private readPasted(objective: string, inputs: Record<string, unknown>): string[] {
    const data = pastedData(objective);
    const filled: string[] = [];
    const give = (key: string, value: unknown) => {
      const target = this.foldable.get(key);
      if (target === undefined || inputs[target] !== undefined) return;
      inputs[target] = value;
      filled.push(target);
    };
    for (const o of data.objects) {
      // JSON-LD is what the offer extractor reads out of a page: the block, as the page would carry it.
      if ('@context' in o.value || '@type' in o.value || '@graph' in o.value) give('html', `<script type="application/ld+json">${o.text}</script>`);
      else for (const [k, v] of Object.entries(o.value)) give(k, v);
    }
    for (const [k, v] of data.pairs) give(FIELD_LIST_LABELS[k] ?? k, v);
    if (data.html !== undefined) give('html', data.html);
    return filled;
  }

  /** Objective plus inputs, plus the constraints that differ from their defaults. */
  canonical(r: QuoteRequest): Record<string, unknown> {
    const c: Record<string, unknown> = { objective: r.objective, inputs: r.inputs };
    if (r.required_output !== undefined) c.required_output = r.required_output;
    for (const k of ['freshness', 'latency', 'evidence', 'preferred_protocol'] as const) if (r[k] !== 'any') c[k] = r[k];
    if (r.max_price !== undefined) c.max_price = r.max_price;
    return c;
  }

  // ─── planning ───────────────────────────────────────────────────────────

  /**
   * A request → a plan, or the refusal. Every refusal happens here, before
   * any payment step; each phase below either refuses or hands on.
   */
  plan(parsed: ParsedRequest): Outcome<Plan> {
    const r = parsed.request;
    const objective = r.objective;
    const refused = this.refusedCategory(r);
    if (refused) return refused;
    const matched = this.mentions(objective);
    const items = this.readItems(r, matched);
    if (!items.ok) return items;
    const selected = this.select(r, matched);
    // URLs inside pasted data (a JSON-LD @context) are data, not something to fetch.
    const foreignUrls = readUris(pastedData(objective).words).filter((u) => u.kind === 'url' && !this.isOwnUrl(u.value));
    if (selected.length === 0) return foreignUrls.length ? this.fetchRefusal(foreignUrls[0]!.value, []) : this.noMatch();
    const drafted = this.draft(r, selected, items.value, foreignUrls);
    if (!drafted.ok) return drafted;
    const { drafts, assumptions } = drafted.value;
    if (parsed.pasted.length) assumptions.unshift(`Inputs read from data pasted into the objective: ${parsed.pasted.join(', ')}.`);
    const checked = this.validateSteps(drafts);
    if (!checked.ok) return checked;
    const steps = checked.value;
    const routes = [...new Set(steps.map((s) => s.route))];
    const constraints = this.constraints(r, steps, routes);
    if (!constraints.ok) return constraints;
    const economics = this.economics(r, steps, routes);
    if (!economics.ok) return economics;
    const { total, goodsCostAtomic } = economics.value;

    // Keys no planned route reads (items is read by the planner itself); the routes' key sets are built once, not per quote.
    const unusedInputs = Object.keys(r.inputs).filter((k) => k !== 'items' && !routes.some((rt) => rt.inputKeySet.has(k))).sort();
    if (unusedInputs.length) assumptions.push(`Inputs not used by any step: ${unusedInputs.join(', ')}.`);
    const unusedExplained = unusedInputs.map((input) => ({ input, reason: this.whyUnused(input, routes) }));
    if (foreignUrls.some((u) => !steps.some((st) => st.body.uri === u.value))) assumptions.push('URLs in the objective were not fetched (the service fetches no URLs).');

    const canonical = this.canonical(r);
    // Computed when first read (a quote, a paid composite call), not for a composite's unpaid 402: canonical
    // JSON + SHA-256 of a large request is costly work on the event loop (decision 0017; the composite reads it on the pool).
    let fingerprint: string | undefined;
    return {
      ok: true,
      value: {
        parsed,
        canonical,
        get fingerprint() {
          return (fingerprint ??= callFingerprint({ id: COMPOSITE_RESOURCE }, canonical));
        },
        set fingerprint(computed: string) {
          fingerprint = computed;
        },
        steps,
        routes,
        matched: routes.map((rt) => ({ capability_id: rt.cap.id, signals: matched.get(rt) ?? [] })),
        assumptions,
        unusedInputs,
        unusedExplained,
        total,
        goodsCostAtomic,
        settlementCostAtomic: this.settlementCostAtomic,
        evidenceLevel: routes.every((rt) => rt.d.evidence.includes('sourced')) ? 'sourced' : 'deterministic',
        expectedLatencyMs: steps.reduce((sum, st) => sum + st.route.d.expectedLatencyMs, 0),
        reliabilities: steps.map((st) => st.route.d.reliability ?? DEFAULT_RELIABILITY),
        constraintNotes: constraints.value,
        requiredOutput: r.required_output ? this.coverage(r.required_output, routes) : null,
      },
    };
  }

  /** 1. Refused categories, whatever else the request asks. */
  private refusedCategory(r: QuoteRequest): Outcome<never> | undefined {
    const findings = screen({ objective: r.objective, inputs: r.inputs, declaredKeys: this.declaredKeys, allowlist: this.allowlist, payTo: this.payment.payTo, ownPaths: this.ownPaths });
    if (!findings.length) return undefined;
    const first = unsupportedOf(findings[0]!.category);
    return fail(first.code, `Not supported (${first.category.replace(/_/g, ' ')}): ${first.reason} Nothing was charged.`, findings.map((f) => f.detail), refusalSentence(findings[0]!));
  }

  /** 2. Which outcomes the words name, with the signals that named them. */
  private mentions(objective: string): Map<Route, string[]> {
    const text = normalizeText(objective);
    const folded = foldText(objective);
    const matched = new Map<Route, string[]>();
    for (const route of this.routes) {
      const signals = this.mentionSignals(route, objective, text, folded);
      if (signals.length) matched.set(route, signals);
    }
    return matched;
  }

  /** 3. inputs.items: each element is a native body for one outcome (named by capability_id, or recognised by its fields). */
  private readItems(r: QuoteRequest, matched: Map<Route, string[]>): Outcome<Map<Route, ItemUnit[]>> {
    const itemUnits = new Map<Route, ItemUnit[]>();
    if (r.inputs.items === undefined) return { ok: true, value: itemUnits };
    if (!Array.isArray(r.inputs.items)) return fail('invalid_inputs', 'inputs.items must be an array of native bodies.', [{ path: '/inputs/items', rule: 'type', message: 'must be an array' }]);
    const mentioned = this.routes.filter((rt) => matched.has(rt));
    const problems: ErrorDetail[] = [];
    r.inputs.items.forEach((raw, i) => {
      const at = `/inputs/items/${i}`;
      if (!isObject(raw)) {
        problems.push({ path: at, rule: 'type', message: 'must be an object (a native body, optionally with capability_id)' });
        return;
      }
      const { capability_id: named, ...item } = raw;
      for (const [alias, target] of this.aliases) {
        if (item[alias] !== undefined && item[target] === undefined) {
          item[target] = item[alias];
          delete item[alias];
        }
      }
      const route = this.itemRoute(named, item, at, mentioned, problems);
      if (!route) return;
      const list = itemUnits.get(route) ?? [];
      list.push({ inputs: item, at });
      itemUnits.set(route, list);
      if (!matched.has(route)) matched.set(route, [`inputs.items (${named !== undefined ? 'capability_id' : 'its fields'})`]);
    });
    if (problems.length) {
      return fail(
        'no_matching_outcome',
        'Some inputs.items match no single supported outcome.',
        problems,
        `${problems.length} of the items in inputs match no single supported outcome by their fields, so nothing was quoted or charged; add capability_id to each.`,
      );
    }
    return { ok: true, value: itemUnits };
  }

  private itemRoute(named: unknown, item: Record<string, unknown>, at: string, mentioned: Route[], problems: ErrorDetail[]): Route | undefined {
    if (named !== undefined) {
      const route = this.routes.find((rt) => rt.cap.id === named);
      if (!route) problems.push({ path: `${at}/capability_id`, rule: 'enum', message: `no capability ${JSON.stringify(named)}; see GET ${CONTRACT_PATH}` });
      return route;
    }
    const candidates = (mentioned.length ? mentioned : this.routes).filter((rt) => rt.d.detect(item));
    if (candidates.length === 1) return candidates[0];
    problems.push({
      path: at,
      rule: candidates.length ? 'ambiguous_item' : 'unrecognized_item',
      message: candidates.length ? `matches ${candidates.map((c) => c.cap.id).join(' and ')}; add capability_id` : 'matches no supported outcome; add capability_id',
    });
    return undefined;
  }

  /**
   * 4. Selected outcomes: the named ones, plus any whose data the inputs
   * unmistakably carry and no named outcome reads (composed, rather than left
   * unused); with nothing named, the ones the inputs identify.
   */
  private select(r: QuoteRequest, matched: Map<Route, string[]>): Route[] {
    const named = this.routes.filter((rt) => matched.has(rt));
    const signal = (rt: Route) => `inputs: ${rt.inputKeys.filter((k) => r.inputs[k] !== undefined).join(', ')}`;
    if (named.length === 0) {
      const detected = this.routes.filter((rt) => rt.d.detect(r.inputs));
      for (const rt of detected) matched.set(rt, [signal(rt)]);
      return detected;
    }
    const carried = this.routes.filter((rt) => {
      if (matched.has(rt) || !(rt.d.evident ?? rt.d.detect)(r.inputs)) return false;
      // Only inputs no named outcome reads speak for another outcome.
      return rt.inputKeys.some((k) => r.inputs[k] !== undefined && !named.some((n) => n.inputKeySet.has(k)));
    });
    for (const rt of carried) matched.set(rt, [`${signal(rt)} (composed with the outcome the objective names)`]);
    return [...named, ...carried].sort((a, b) => this.routes.indexOf(a) - this.routes.indexOf(b));
  }

  private noMatch(): Outcome<never> {
    return fail(
      'no_matching_outcome',
      `No supported outcome matches this objective and these inputs. Supported: ${this.routes.map((rt) => rt.cap.id).join(', ')} (and compositions of them). See GET ${CONTRACT_PATH}. Nothing was charged.`,
      [{ path: '/objective', rule: 'supported_outcome', message: 'name an outcome, a capability id or a route, or send its native inputs' }],
      `Neither the objective's words (read in English, Spanish, Portuguese, French, German, Italian, Dutch, Chinese, Japanese and Korean) nor the inputs name one of the supported outcomes (${this.routes.map((rt) => rt.cap.id).join(', ')}), so nothing was quoted or charged.`,
    );
  }

  /** 5. Native bodies from the inputs (and, outside items, the objective's text). */
  private draft(
    r: QuoteRequest,
    selected: Route[],
    itemUnits: Map<Route, ItemUnit[]>,
    foreignUrls: Array<{ value: string }>,
  ): Outcome<{ drafts: Array<{ route: Route; unit: UnitDraft }>; assumptions: string[] }> {
    const drafts: Array<{ route: Route; unit: UnitDraft }> = [];
    const missing: ErrorDetail[] = [];
    const invalid: ErrorDetail[] = [];
    const assumptions: string[] = [];
    const take = (route: Route, x: Extraction) => {
      if (x.kind === 'missing') missing.push(...x.missing);
      else if (x.kind === 'invalid') invalid.push(...x.details);
      else {
        for (const unit of x.units) drafts.push({ route, unit });
        for (const a of x.assumptions) if (!assumptions.includes(a)) assumptions.push(a);
      }
    };
    const objective = r.objective;
    for (const route of selected) {
      const fromItems = itemUnits.get(route) ?? [];
      if (fromItems.length === 0 || route.d.detect(r.inputs)) {
        take(route, route.d.extract({ objective, inputs: r.inputs, at: '/inputs', fromItems: false, isOwnUrl: this.isOwnUrl }));
      }
    }
    for (const route of selected) {
      for (const it of itemUnits.get(route) ?? []) take(route, route.d.extract({ objective, inputs: it.inputs, at: it.at, fromItems: true, isOwnUrl: this.isOwnUrl }));
    }
    if (invalid.length) return fail('invalid_inputs', 'The inputs cannot be read as the native fields of the chosen outcome.', invalid);
    if (missing.length) {
      const consumed = new Set(drafts.map((d) => d.unit.body.uri).filter((u): u is string => typeof u === 'string'));
      const unconsumed = foreignUrls.filter((u) => !consumed.has(u.value));
      if (unconsumed.length) return this.fetchRefusal(unconsumed[0]!.value, missing);
      return fail(
        'missing_inputs',
        `The request is valid but inputs are missing: ${missing.map((m) => `${m.path} (${m.message})`).join('; ')}. Nothing was charged.`,
        missing,
        `The outcome the request asks for needs ${missing.map((m) => m.path.split('/').pop()).join(', ')}, which neither the inputs nor the objective's text supply, so nothing was quoted or charged.`,
      );
    }
    if (drafts.length > this.maxSteps) {
      return fail(
        'batch_too_large',
        `The plan has ${drafts.length} steps; a quote takes at most ${this.maxSteps}. Split the batch.`,
        [{ path: '/inputs', rule: 'maxItems', message: `at most ${this.maxSteps} items` }],
        `The request makes ${drafts.length} paid calls and one quote plans at most ${this.maxSteps}, so nothing was quoted or charged.`,
      );
    }
    return { ok: true, value: { drafts, assumptions } };
  }

  /** 6. Every native body must pass the very validation its paid route runs. */
  private validateSteps(drafts: Array<{ route: Route; unit: UnitDraft }>): Outcome<PlannedStep[]> {
    const steps: PlannedStep[] = [];
    const invalid: ErrorDetail[] = [];
    for (const { route, unit } of drafts) {
      const checked = route.reader.fromValue(cloneBody(unit.body));
      if (!checked.ok) {
        const e = (checked.body as ErrorBody).error;
        for (const d of e.details) invalid.push({ path: unit.at === '/objective' ? '/objective' : `${unit.at}${d.path}`, rule: d.rule, message: `${route.cap.id}: ${d.message ?? e.message}` });
        continue;
      }
      steps.push({ step: steps.length + 1, route, body: unit.body, source: unit.at });
    }
    // A field the paid route requires and nothing supplied is missing, not invalid.
    if (invalid.length && invalid.every((d) => d.rule === 'required')) {
      return fail(
        'missing_inputs',
        `The request is valid but inputs are missing: ${invalid.map((m) => `${m.path} (${m.message})`).join('; ')}. Nothing was charged.`,
        invalid,
        `The route this request maps to requires ${[...new Set(invalid.map((d) => d.path.split('/').pop()))].join(', ')}, which neither the inputs nor the objective's text supply, so nothing was quoted or charged.`,
      );
    }
    if (invalid.length) return fail('invalid_inputs', `The inputs do not make a valid request for ${[...new Set(drafts.map((d) => d.route.cap.id))].join(', ')}.`, invalid);
    return { ok: true, value: steps };
  }

  /** 7. Constraints the buyer set: refused when unmeetable, otherwise notes on how they are met. */
  private constraints(r: QuoteRequest, steps: PlannedStep[], routes: Route[]): Outcome<string[]> {
    const unsatisfied: ErrorDetail[] = [];
    if (r.evidence !== 'any') {
      for (const rt of routes) {
        if (!rt.d.evidence.includes(r.evidence)) unsatisfied.push({ path: '/evidence', rule: r.evidence, message: `${rt.cap.id} delivers ${rt.d.evidence.join(' / ')} evidence, not ${r.evidence}` });
      }
    }
    if (r.latency === 'interactive') {
      for (const rt of routes) if (rt.d.expectedLatencyMs > 1000) unsatisfied.push({ path: '/latency', rule: 'interactive', message: `${rt.cap.id} typically takes ${rt.d.expectedLatencyMs} ms` });
    }
    if (unsatisfied.length) {
      return fail(
        'constraint_unsatisfiable',
        'The plan cannot meet the evidence or latency asked for. Nothing was charged.',
        unsatisfied,
        `The outcome asked for cannot meet the ${[...new Set(unsatisfied.map((d) => d.path.slice(1)))].join(' and ')} constraint set on the request, so nothing was quoted or charged.`,
      );
    }
    const notes: string[] = [];
    if (r.freshness !== 'any') notes.push('Every step is computed when it is called, from the inputs sent with it; nothing is served from a cache.');
    if (r.latency === 'batch' || steps.length > 1) notes.push('Steps are separate calls made one after another; each is typically well under a second plus its settlement.');
    if (r.preferred_protocol === 'mcp') notes.push('Every route is paid with x402 over HTTP. The MCP endpoint exposes the same resources but never pays: it hands the 402 challenge back to you.');
    return { ok: true, value: notes };
  }

  /**
   * 8. Suppliers, economics and the buyer's budget. The cost of goods counts
   * the settlements of the way this router sells the plan (economics.ts): a
   * plan whose price does not cover its goods and settlements is refused.
   */
  private economics(r: QuoteRequest, steps: PlannedStep[], routes: Route[]): Outcome<{ total: bigint; goodsCostAtomic: bigint }> {
    const offList: Array<{ rt: Route; sup: string }> = [];
    for (const rt of routes) for (const sup of rt.d.suppliers ?? []) if (!this.allowlist.has(sup)) offList.push({ rt, sup });
    if (offList.length) {
      const u = unsupportedOf('non_allowlisted_supplier');
      return fail(
        u.code,
        `Not supported (non-allowlisted supplier): ${u.reason} Nothing was charged.`,
        offList.map(({ rt, sup }) => ({ path: '/objective', rule: 'supplier_allowlist', message: `${rt.cap.id} would pay ${sup}` })),
        `Delivering this plan would pay ${offList.map((o) => o.sup).join(', ')}, which is not on the supplier allowlist, so nothing was quoted or charged.`,
      );
    }
    const total = steps.reduce((sum, st) => sum + BigInt(st.route.cap.priceAtomic), 0n);
    const goodsCostAtomic = steps.reduce((sum, st) => sum + BigInt(st.route.d.cogsAtomic ?? '0'), 0n);
    const payments = paymentsFor(steps.length, this.paymentsPerPlan);
    const cogs = cogsAtomic({ goodsCostAtomic, settlementCostAtomic: this.settlementCostAtomic }, payments);
    if (total - cogs < 0n) {
      const u = unsupportedOf('negative_contribution');
      const parts = `${goodsCostAtomic} of goods and ${payments} settlement${payments === 1 ? '' : 's'} at ${this.settlementCostAtomic}`;
      return fail(u.code, `Not supported (negative contribution): the plan would cost ${cogs} atomic units to deliver (${parts}) for a price of ${total}. ${u.reason} Nothing was charged.`, [
        { path: '/objective', rule: 'contribution', message: `price ${total} < cost of goods ${cogs}` },
      ], `Delivering this plan would cost ${cogs} atomic units against a price of ${total}, and the router never sells at a loss, so nothing was quoted or charged.`);
    }
    if (r.max_price !== undefined && total > BigInt(r.max_price)) {
      return fail('price_above_max', `The plan costs ${total} atomic units (${steps.length} paid call${steps.length === 1 ? '' : 's'}), above max_price ${r.max_price}. Prices are fixed; raise max_price or send fewer items. Nothing was charged.`, [
        { path: '/max_price', rule: 'maximum', message: `total ${total} > ${r.max_price}` },
      ], `The plan costs ${total} atomic units, above the max_price of ${r.max_price} set on the request, so nothing was quoted or charged.`);
    }
    return { ok: true, value: { total, goodsCostAtomic } };
  }

  /** Parse and plan a value in one go (contract examples, bench, MCP). */
  quote(value: unknown): Outcome<Plan> {
    const parsed = this.readValue(value);
    return parsed.ok ? this.plan(parsed.value) : parsed;
  }

  private mentionSignals(route: Route, objective: string, text: string, folded: string): string[] {
    const signals: string[] = [];
    const m = route.matchers;
    if (m.id.test(text)) signals.push(`capability id ${route.cap.id}`);
    if (m.path.test(text)) signals.push(`route ${route.cap.path}`);
    const name = m.names.find(([, re]) => re.test(text));
    if (name) signals.push(`name "${name[0]}"`);
    let worded = false;
    for (const re of route.d.keywords ?? []) {
      const hit = re.exec(text);
      if (hit) {
        signals.push(`wording "${hit[0].slice(0, 60)}"`);
        worded = true;
        break;
      }
    }
    if (!worded && m.terms) {
      const hit = m.terms.exec(folded);
      if (hit) signals.push(`wording "${hit[0].slice(0, 60)}"`);
    }
    const data = route.d.textSignal?.(objective);
    if (data) signals.push(data);
    return signals;
  }

  private fetchRefusal(url: string, missing: ErrorDetail[]): Outcome<never> {
    const u = unsupportedOf('url_fetching');
    return fail(
      u.code,
      `Not supported (URL fetching): the objective points at ${url.slice(0, 200)}, which would have to be fetched. ${u.reason} Nothing was charged.`,
      [{ path: '/objective', rule: 'url_fetching', message: 'a URL to fetch' }, ...missing],
      `The objective points at ${url.slice(0, 80)} instead of supplying its content, and this service fetches no URLs, so nothing was quoted or charged.`,
    );
  }

  /** Why an input key no step reads was left alone, in one sentence. */
  private whyUnused(input: string, routes: Route[]): string {
    const owners = this.routes.filter((rt) => !routes.includes(rt) && rt.inputKeys.includes(input));
    const planned = routes.map((rt) => rt.cap.id).join(', ');
    if (owners.length) {
      return `${input} is an input of ${owners.map((rt) => rt.cap.id).join(', ')}, which the objective does not ask for and whose data the inputs do not unmistakably carry, so the plan (${planned}) does not use it.`;
    }
    return `${input} is not an input of any supported outcome, so the plan (${planned}) ignores it and it changes nothing in the price or the result.`;
  }

  private coverage(required: Record<string, unknown>, routes: Route[]): { covered: string[]; not_covered: string[] } {
    const fields = new Set(
      routes.flatMap((rt) => {
        const props = (rt.cap.outputSchema as { properties?: Record<string, unknown> }).properties;
        return props ? Object.keys(props) : [];
      }),
    );
    const keys = Object.keys(required).sort();
    return { covered: keys.filter((k) => fields.has(k)), not_covered: keys.filter((k) => !fields.has(k)) };
  }
}
