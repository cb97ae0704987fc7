/**
 * Routing descriptors: what the router knows about a capability beyond the
 * catalog entry — the words that name its outcome, how to find its inputs in a
 * quote request (including batches) and how to build its native body.
 *
 * The table is keyed by capability id (with the route's path as a fallback, for
 * a capability whose id is chosen elsewhere). A capability without a
 * descriptor is still routable: by its id, its path and its title, with its
 * input schema's top-level properties read from `inputs` (see
 * `genericDescriptor`). Nothing here is a price or a payee: those always come
 * from the catalog entry and the payment configuration.
 */
import type { Capability } from '../catalog/capability.js';
import type { ErrorDetail } from '../errors.js';
import { readColours, readLargeText, readTimestamp, readUris, isGatewayUrl, normalizeText, toTimestamp } from './text.js';

export type EvidenceLevel = 'deterministic' | 'sourced';

/** One native body to send, and where in the request it came from (a JSON pointer, for error details). */
export interface UnitDraft {
  body: Record<string, unknown>;
  at: string;
}

export type Extraction =
  | { kind: 'units'; units: UnitDraft[]; assumptions: string[] }
  | { kind: 'missing'; missing: ErrorDetail[] }
  | { kind: 'invalid'; details: ErrorDetail[] };

export interface ExtractContext {
  /** The objective as written. */
  objective: string;
  /** The inputs to read: the request's canonical inputs, or one element of `inputs.items`. */
  inputs: Record<string, unknown>;
  /** JSON pointer of `inputs` in the request: `/inputs` or `/inputs/items/3`. */
  at: string;
  /** True when `inputs` is one element of `inputs.items`: the objective's text is not read for values then. */
  fromItems: boolean;
  /** Is this URL one of the service's own routes (never an input value)? */
  isOwnUrl(url: string): boolean;
}

export interface RoutingDescriptor {
  /** Capability id this describes. */
  id: string;
  /** Also describes the capability at this path, whatever its id. */
  path?: string;
  /** The outcome in one sentence, for the contract. */
  outcome: string;
  /** Product names and other phrases that name the outcome (matched case-insensitively as words). */
  names?: string[];
  /** Objective wording that asks for this outcome. */
  keywords?: RegExp[];
  /** Data in the objective's text that only this outcome uses (colours, ipfs:// URIs): a label when present. */
  textSignal?(objective: string): string | undefined;
  /** Input names accepted for the native ones (`fg` → `foreground`), at the top level and in `inputs`. */
  fieldAliases?: Record<string, string>;
  /** Every input key this outcome reads (besides the capability's own schema properties). */
  reads: string[];
  /** Required inputs, as documented in the contract. */
  requiredInputs: string[];
  optionalInputs?: string[];
  /** How a batch is written, for the contract. */
  batch?: string;
  /** Do the inputs alone (no wording) identify this outcome? */
  detect(inputs: Record<string, unknown>): boolean;
  /** The native bodies the inputs (and the objective's text) make. */
  extract(ctx: ExtractContext): Extraction;
  evidence: EvidenceLevel[];
  /** Typical handler time per call, excluding settlement. */
  expectedLatencyMs: number;
  /** Probability that one paid call settles and delivers (an estimate; settlement is the main risk). */
  reliability?: number;
  /** Cost of goods per call in atomic units (own handlers: 0). */
  cogsAtomic?: string;
  /** Suppliers a call pays (own handlers: none). Each must be on the allowlist. */
  suppliers?: string[];
  /** The example request the contract quotes. */
  example?(cap: Capability): { objective: string; inputs?: Record<string, unknown> };
}

const has = (o: Record<string, unknown>, k: string) => o[k] !== undefined;
const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function pick(o: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of keys) if (o[k] !== undefined) out[k] = o[k];
  return out;
}

function need(at: string, field: string, message: string): ErrorDetail {
  return { path: `${at}/${field}`, rule: 'required', message };
}

function notAList(at: string, field: string, what: string): Extraction {
  return { kind: 'invalid', details: [{ path: `${at}/${field}`, rule: 'type', message: `must be an array of ${what}` }] };
}

function done(units: UnitDraft[], missing: ErrorDetail[], invalid: ErrorDetail[], assumptions: string[]): Extraction {
  if (invalid.length) return { kind: 'invalid', details: invalid };
  if (missing.length) return { kind: 'missing', missing };
  return { kind: 'units', units, assumptions };
}

// ─── WCAG contrast ──────────────────────────────────────────────────────────

const contrast: RoutingDescriptor = {
  id: 'accessibility-contrast-calculator',
  outcome: 'WCAG 2.x sRGB contrast for one or many #RRGGBB colour pairs (one paid call per pair).',
  names: ['contrast calculator', 'contrast checker', 'wcag contrast', 'colour contrast', 'color contrast'],
  keywords: [/\bcontrast\b/, /\bwcag\b/, /\ba11y\b/, /\b(?:legib|readab)\w*\b.*\bcolou?rs?\b/, /\bcolou?r (?:pairs?|combinations?)\b/],
  textSignal: (objective) => (readColours(objective).colours.length ? '#RRGGBB colours in the objective' : undefined),
  fieldAliases: { fg: 'foreground', bg: 'background', colour_pairs: 'pairs', color_pairs: 'pairs' },
  reads: ['foreground', 'background', 'large_text', 'pairs'],
  requiredInputs: ['foreground', 'background'],
  optionalInputs: ['large_text', 'pairs'],
  batch:
    'inputs.pairs: an array of {foreground, background, large_text?}, ["#RRGGBB", "#RRGGBB"] or "#RRGGBB on #RRGGBB"; or several pairs written in the objective ("#000000 on #ffffff and #777777 on #ffffff", "#111111, #222222 and #333333 on #ffffff"). One step per pair.',
  detect: (inputs) => has(inputs, 'foreground') || has(inputs, 'background') || has(inputs, 'pairs'),
  extract(ctx) {
    const { inputs, at } = ctx;
    const units: UnitDraft[] = [];
    const missing: ErrorDetail[] = [];
    const invalid: ErrorDetail[] = [];
    const assumptions: string[] = [];
    const worded = ctx.fromItems ? undefined : readLargeText(ctx.objective);
    let defaulted = false;
    const largeText = (own: unknown): unknown => {
      if (own !== undefined) return own;
      if (inputs.large_text !== undefined) return inputs.large_text;
      if (worded !== undefined) return worded;
      defaulted = true;
      return false;
    };
    if (has(inputs, 'pairs')) {
      if (!Array.isArray(inputs.pairs)) return notAList(at, 'pairs', 'colour pairs');
      inputs.pairs.forEach((p, i) => {
        const here = `${at}/pairs/${i}`;
        let fg: unknown;
        let bg: unknown;
        let own: unknown;
        if (typeof p === 'string') {
          const r = readColours(p);
          if (r.pairs.length !== 1) {
            invalid.push({ path: here, rule: 'colour_pair', message: 'write one pair as "#RRGGBB on #RRGGBB"' });
            return;
          }
          fg = r.pairs[0]!.foreground;
          bg = r.pairs[0]!.background;
        } else if (Array.isArray(p)) {
          [fg, bg] = p;
          if (p.length !== 2) invalid.push({ path: here, rule: 'colour_pair', message: 'a pair is [foreground, background]' });
        } else if (isObject(p)) {
          fg = p.foreground ?? p.fg;
          bg = p.background ?? p.bg;
          own = p.large_text;
        } else {
          invalid.push({ path: here, rule: 'type', message: 'a pair is an object, a two-element array or a string' });
          return;
        }
        if (fg === undefined) missing.push(need(here, 'foreground', 'this pair has no foreground colour'));
        if (bg === undefined) missing.push(need(here, 'background', 'this pair has no background colour'));
        units.push({ at: here, body: { foreground: fg, background: bg, large_text: largeText(own) } });
      });
    }
    if (has(inputs, 'foreground') || has(inputs, 'background')) {
      if (!has(inputs, 'foreground')) missing.push(need(at, 'foreground', 'the text colour (#RRGGBB) is missing'));
      if (!has(inputs, 'background')) missing.push(need(at, 'background', 'the background colour (#RRGGBB) is missing'));
      units.push({ at, body: { foreground: inputs.foreground, background: inputs.background, large_text: largeText(undefined) } });
    } else if (units.length === 0 && missing.length === 0 && invalid.length === 0) {
      const r = ctx.fromItems ? undefined : readColours(ctx.objective);
      if (r && r.pairs.length) {
        for (const pair of r.pairs) units.push({ at: '/objective', body: { ...pair, large_text: largeText(undefined) } });
        assumptions.push(`Colours read from the objective: ${r.how}.`);
      } else if (r && r.colours.length) {
        missing.push(
          need(
            at,
            'background',
            `the objective names ${r.colours.length} colour${r.colours.length === 1 ? '' : 's'} (${r.colours.join(', ')}); write them in pairs ("#RRGGBB on #RRGGBB") or send inputs.foreground and inputs.background`,
          ),
        );
      } else {
        missing.push(need(at, 'foreground', 'the text colour (#RRGGBB), or write "#RRGGBB on #RRGGBB" in the objective'));
        missing.push(need(at, 'background', 'the background colour (#RRGGBB)'));
      }
    }
    if (defaulted) assumptions.push('large_text was not stated: false (normal text, the stricter AA 4.5 / AAA 7 thresholds) was used.');
    return done(units, missing, invalid, assumptions);
  },
  evidence: ['deterministic'],
  expectedLatencyMs: 5,
  example: () => ({ objective: 'Does #777777 text on #ffffff meet WCAG AA for normal text?' }),
};

// ─── field-contract compatibility ───────────────────────────────────────────

const CHECKER_OPTIONS = ['contract_version', 'comparison_mode', 'canonicalization'] as const;

const checker: RoutingDescriptor = {
  id: 'data-compatibility-checker',
  outcome: 'Structural compatibility of a source (producer) and a target (consumer) field contract, including small batches of contract pairs.',
  names: ['compatibility checker', 'data compatibility', 'contract checker', 'schema compatibility'],
  keywords: [
    /\bcompatib\w*/,
    /\bfield contracts?\b/,
    /\bdata contracts?\b/,
    /\bschema (?:diff|drift|evolution|changes?)\b/,
    /\bbreaking changes?\b/,
    /\bsource_fields\b|\btarget_fields\b/,
    /\bproducer\b.*\bconsumer\b/,
  ],
  fieldAliases: { source_contract: 'source_fields', target_contract: 'target_fields', contract_pairs: 'comparisons' },
  reads: ['source_fields', 'target_fields', ...CHECKER_OPTIONS, 'comparisons'],
  requiredInputs: ['source_fields', 'target_fields'],
  optionalInputs: [...CHECKER_OPTIONS, 'comparisons'],
  batch: 'inputs.comparisons: an array of {source_fields, target_fields, comparison_mode?, canonicalization?}; top-level comparison_mode / canonicalization apply to every pair that does not set its own. One step per pair.',
  detect: (inputs) => has(inputs, 'source_fields') || has(inputs, 'target_fields') || has(inputs, 'comparisons'),
  extract(ctx) {
    const { inputs, at } = ctx;
    const units: UnitDraft[] = [];
    const missing: ErrorDetail[] = [];
    const assumptions: string[] = [];
    const shared = pick(inputs, CHECKER_OPTIONS);
    if (!ctx.fromItems) {
      const t = normalizeText(ctx.objective);
      if (shared.comparison_mode === undefined && /\bexact(?:ly)?[- ](?:match(?:es|ing)?|same|equal|identical)\b|\bidentical\b|\bexact (?:comparison|mode)\b/.test(t)) {
        shared.comparison_mode = 'exact';
        assumptions.push('comparison_mode "exact" because the objective asks for identical contracts.');
      }
      if (shared.canonicalization === undefined && /\bcase[- ]insensitive\w*\b|\bignor(?:e|ing) (?:the )?(?:letter )?case\b/.test(t)) {
        shared.canonicalization = 'ascii_case_insensitive';
        assumptions.push('canonicalization "ascii_case_insensitive" because the objective asks to ignore case.');
      }
    }
    if (has(inputs, 'comparisons')) {
      if (!Array.isArray(inputs.comparisons)) return notAList(at, 'comparisons', 'contract pairs');
      const invalid: ErrorDetail[] = [];
      inputs.comparisons.forEach((c, i) => {
        const here = `${at}/comparisons/${i}`;
        if (!isObject(c)) {
          invalid.push({ path: here, rule: 'type', message: 'a comparison is an object {source_fields, target_fields}' });
          return;
        }
        if (!has(c, 'source_fields')) missing.push(need(here, 'source_fields', 'the producer contract is missing'));
        if (!has(c, 'target_fields')) missing.push(need(here, 'target_fields', 'the consumer contract is missing'));
        units.push({ at: here, body: { ...shared, ...c } });
      });
      if (invalid.length) return { kind: 'invalid', details: invalid };
    }
    if (has(inputs, 'source_fields') || has(inputs, 'target_fields') || units.length === 0) {
      if (!has(inputs, 'source_fields')) missing.push(need(at, 'source_fields', 'the producer (source) contract: an array of {name, type, required, nullable}'));
      if (!has(inputs, 'target_fields')) missing.push(need(at, 'target_fields', 'the consumer (target) contract: an array of {name, type, required, nullable}'));
      units.push({ at, body: { source_fields: inputs.source_fields, target_fields: inputs.target_fields, ...shared } });
    }
    return done(units, missing, [], assumptions);
  },
  evidence: ['deterministic'],
  expectedLatencyMs: 10,
  example: (cap) => ({
    objective: 'Is the producer field contract backward compatible with the consumer contract?',
    inputs: pick((cap.examples[0]?.input ?? {}) as Record<string, unknown>, ['source_fields', 'target_fields']),
  }),
};

// ─── NFT metadata URIs ──────────────────────────────────────────────────────

const TOKEN_ID_WORDS = /\btoken[ _-]?id\s*[:=#]?\s*(0x[0-9a-fA-F]+|[0-9]+)\b/i;

const nft: RoutingDescriptor = {
  id: 'nft-metadata-uri-normalizer',
  outcome: 'Syntactic normalization of NFT metadata URIs (ipfs://, ipns://, ar://, data:, gateway and http(s) URLs), one paid call per URI; nothing is fetched.',
  names: ['uri normalizer', 'nft metadata', 'tokenuri', 'token uri', 'metadata uri'],
  keywords: [/\bnfts?\b/, /\btoken ?uris?\b/, /\bmetadata uris?\b/, /\berc-?(?:721|1155)\b/, /\bipfs\b/, /\bipns\b/, /\barweave\b/, /\bcids?\b/, /\bnormali[sz]\w* (?:the |this |my |these |an? )?(?:uris?|urls?|links?)\b/],
  textSignal: (objective) => (readUris(objective).some((u) => u.kind === 'nft') ? 'an ipfs://, ipns://, ar://, data: URI or a CID in the objective' : undefined),
  fieldAliases: { token_uri: 'uri', tokenuri: 'uri', tokenURI: 'uri', metadata_uri: 'uri', token_uris: 'uris' },
  reads: ['uri', 'uris', 'token_id', 'ipfs_gateway'],
  requiredInputs: ['uri'],
  optionalInputs: ['token_id', 'ipfs_gateway', 'uris'],
  batch: 'inputs.uris: an array of URI strings or {uri, token_id?}; or several URIs written in the objective. One step per URI.',
  detect: (inputs) => has(inputs, 'uri') || has(inputs, 'uris'),
  extract(ctx) {
    const { inputs, at } = ctx;
    const units: UnitDraft[] = [];
    const assumptions: string[] = [];
    const shared = pick(inputs, ['token_id', 'ipfs_gateway']);
    if (!ctx.fromItems && shared.token_id === undefined) {
      const m = TOKEN_ID_WORDS.exec(ctx.objective);
      if (m) {
        shared.token_id = m[1];
        assumptions.push(`token_id ${m[1]} read from the objective.`);
      }
    }
    if (has(inputs, 'uris')) {
      if (!Array.isArray(inputs.uris)) return notAList(at, 'uris', 'URI strings');
      const invalid: ErrorDetail[] = [];
      inputs.uris.forEach((u, i) => {
        const here = `${at}/uris/${i}`;
        if (typeof u === 'string') units.push({ at: here, body: { uri: u, ...shared } });
        else if (isObject(u)) units.push({ at: here, body: { ...shared, ...u } });
        else invalid.push({ path: here, rule: 'type', message: 'a URI string or {uri, token_id?}' });
      });
      if (invalid.length) return { kind: 'invalid', details: invalid };
    }
    if (has(inputs, 'uri')) {
      units.push({ at, body: { uri: inputs.uri, ...shared } });
    } else if (units.length === 0 && !ctx.fromItems) {
      const found = readUris(ctx.objective).filter((u) => u.kind === 'nft' || isGatewayUrl(u.value) || !ctx.isOwnUrl(u.value));
      for (const u of found) units.push({ at: '/objective', body: { uri: u.value, ...shared } });
      if (found.length) assumptions.push(`URI${found.length === 1 ? '' : 's'} read from the objective: ${found.length}.`);
    }
    if (units.length === 0) return { kind: 'missing', missing: [need(at, 'uri', 'the metadata URI exactly as tokenURI / uri returns it (or write it in the objective)')] };
    return { kind: 'units', units, assumptions };
  },
  evidence: ['deterministic'],
  expectedLatencyMs: 5,
  example: () => ({ objective: 'Normalize the NFT metadata URI ipfs://ipfs/QmZHKZDavkvNfA9gSAg7HALv8jF7BJaKjUc9U2LSuvUySB' }),
};

// ─── Product JSON-LD offer evidence ─────────────────────────────────────────

const extractor: RoutingDescriptor = {
  id: 'catalog-offer-evidence-extractor',
  outcome: 'Product JSON-LD offer evidence (products, offers, prices, identifiers, each cited) from caller-supplied HTML; the page is never fetched.',
  names: ['offer evidence extractor', 'offer extractor', 'catalog offer evidence', 'product offers', 'offer evidence'],
  keywords: [
    /\bjson-?ld\b/,
    /\bproduct (?:offers?|prices?|page|markup|schema|structured data|data)\b/,
    /\bstructured data\b/,
    /\bschema\.org\b/,
    /\bmerchant listings?\b/,
    /\brich (?:results?|snippets?)\b/,
    /\bproduct snippets?\b/,
    /\bextract\w* (?:the )?(?:offers?|prices?|products?)\b/,
    /\bgtins?\b/,
  ],
  fieldAliases: { page_html: 'html', product_html: 'html', htmls: 'pages' },
  reads: ['html', 'base_url', 'pages'],
  requiredInputs: ['html'],
  optionalInputs: ['base_url', 'pages'],
  batch: 'inputs.pages: an array of HTML strings or {html, base_url?}. One step per page.',
  detect: (inputs) => has(inputs, 'html') || has(inputs, 'pages'),
  extract(ctx) {
    const { inputs, at } = ctx;
    const units: UnitDraft[] = [];
    const shared = pick(inputs, ['base_url']);
    if (has(inputs, 'pages')) {
      if (!Array.isArray(inputs.pages)) return notAList(at, 'pages', 'HTML strings');
      const invalid: ErrorDetail[] = [];
      inputs.pages.forEach((p, i) => {
        const here = `${at}/pages/${i}`;
        if (typeof p === 'string') units.push({ at: here, body: { html: p, ...shared } });
        else if (isObject(p)) units.push({ at: here, body: { ...shared, ...p } });
        else invalid.push({ path: here, rule: 'type', message: 'an HTML string or {html, base_url?}' });
      });
      if (invalid.length) return { kind: 'invalid', details: invalid };
    }
    if (has(inputs, 'html')) units.push({ at, body: { html: inputs.html, ...shared } });
    if (units.length === 0) return { kind: 'missing', missing: [need(at, 'html', 'the page HTML itself (the service fetches no URLs)')] };
    return { kind: 'units', units, assumptions: [] };
  },
  evidence: ['deterministic', 'sourced'],
  expectedLatencyMs: 40,
  example: (cap) => ({ objective: 'Extract the Product JSON-LD offers from this HTML', inputs: (cap.examples[0]?.input ?? {}) as Record<string, unknown> }),
};

// ─── changes-since ──────────────────────────────────────────────────────────

const RELATIVE_TIME = /\b(?:yesterday|today|last (?:week|month|year|night)|ago|this (?:week|month|morning))\b/i;

const changesSince: RoutingDescriptor = {
  id: 'intelligence-changes-since',
  path: '/v1/intelligence/changes-since',
  outcome: 'Material deltas of the machine-economy newswire since an ISO 8601 cursor.',
  names: ['changes-since', 'changes since', 'intelligence feed', 'newswire'],
  keywords: [
    /\bchanges?[- ]since\b/,
    /\bwhat(?:'s| has| have| is)? (?:changed|new)\b/,
    /\b(?:news|updates|deltas?|developments) since\b/,
    /\bmachine[- ]economy (?:news|changes|updates|deltas?|developments)\b/,
    /\bnews ?wire\b/,
  ],
  // Renamed only where the capability does not itself accept `since` (then it is read below).
  fieldAliases: { since: 'cursor' },
  reads: ['cursor', 'since', 'include_high_resolution', 'max_items'],
  requiredInputs: ['cursor'],
  optionalInputs: ['include_high_resolution', 'max_items'],
  detect: (inputs) => has(inputs, 'cursor') || has(inputs, 'since'),
  extract(ctx) {
    const { inputs, at } = ctx;
    const assumptions: string[] = [];
    let cursor: unknown = inputs.cursor ?? inputs.since;
    if (typeof cursor === 'string') {
      const t = toTimestamp(cursor);
      if (t && t.filled.length) {
        assumptions.push(`cursor ${cursor} read as ${t.value} (${t.filled.join(', ')} filled in).`);
        cursor = t.value;
      }
    } else if (cursor === undefined && !ctx.fromItems) {
      const t = readTimestamp(ctx.objective);
      if (t) {
        cursor = t.value;
        assumptions.push(`cursor ${t.value} read from the objective${t.filled.length ? ` (${t.filled.join(', ')} filled in)` : ''}.`);
      }
    }
    if (cursor === undefined) {
      const relative = !ctx.fromItems && RELATIVE_TIME.test(ctx.objective);
      return {
        kind: 'missing',
        missing: [need(at, 'cursor', `an ISO 8601 timestamp such as 2025-06-01T00:00:00Z${relative ? ' (relative times like "yesterday" are not resolved: a quote does not depend on the clock)' : ''}`)],
      };
    }
    let high: unknown = inputs.include_high_resolution;
    if (high === undefined) {
      high = !ctx.fromItems && /\bhigh[- ]?res(?:olution)?\b|\bhi[- ]?res\b/i.test(ctx.objective);
      if (high === false) assumptions.push('include_high_resolution was not stated: false was used.');
    }
    return { kind: 'units', units: [{ at, body: { cursor, include_high_resolution: high, ...pick(inputs, ['max_items']) } }], assumptions };
  },
  evidence: ['deterministic', 'sourced'],
  expectedLatencyMs: 20,
  example: () => ({ objective: 'What changed in the machine economy since 2025-06-01?' }),
};

/** The built-in descriptors. Capabilities not listed here get `genericDescriptor`. */
export const DESCRIPTORS: readonly RoutingDescriptor[] = [contrast, checker, nft, extractor, changesSince];

type SchemaLike = { properties?: Record<string, unknown>; required?: unknown };

/** A capability's top-level input properties (from its JSON Schema). */
export function schemaProperties(cap: Capability): string[] {
  const s = cap.inputSchema as SchemaLike;
  return s.properties && typeof s.properties === 'object' ? Object.keys(s.properties) : [];
}

function schemaRequired(cap: Capability): string[] {
  const r = (cap.inputSchema as SchemaLike).required;
  return Array.isArray(r) ? r.filter((x): x is string => typeof x === 'string') : [];
}

function firstSentence(s: string): string {
  const m = /^(.*?[.!?])(\s|$)/.exec(s);
  return (m ? m[1]! : s).slice(0, 300);
}

/**
 * Routing for a capability nobody described: named by its id, path or title;
 * its inputs are its schema's top-level properties, read from `inputs`.
 */
export function genericDescriptor(cap: Capability): RoutingDescriptor {
  const props = schemaProperties(cap);
  const required = schemaRequired(cap);
  return {
    id: cap.id,
    outcome: firstSentence(cap.description),
    reads: props,
    requiredInputs: required,
    optionalInputs: props.filter((p) => !required.includes(p)),
    detect: (inputs) => required.length > 0 && required.every((k) => has(inputs, k)),
    extract(ctx) {
      const absent = required.filter((k) => !has(ctx.inputs, k));
      if (absent.length) return { kind: 'missing', missing: absent.map((k) => need(ctx.at, k, `${cap.id} requires ${k}`)) };
      return { kind: 'units', units: [{ at: ctx.at, body: props.length ? pick(ctx.inputs, props) : { ...ctx.inputs } }], assumptions: [] };
    },
    evidence: ['deterministic'],
    expectedLatencyMs: 50,
    example: (c) => ({ objective: c.title, inputs: (c.examples[0]?.input ?? {}) as Record<string, unknown> }),
  };
}

/** The descriptor for a capability: by id, then by path, else generic. */
export function descriptorFor(cap: Capability, table: readonly RoutingDescriptor[]): RoutingDescriptor {
  return table.find((d) => d.id === cap.id) ?? table.find((d) => d.path !== undefined && d.path === cap.path) ?? genericDescriptor(cap);
}
