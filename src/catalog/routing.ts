/**
 * Routing knowledge, the part of a capability's descriptor the outcome router
 * reads: the words that name its outcome, how to find its inputs in a quote
 * request (including batches) and how to build its native body. Each
 * capability keeps its own in `capabilities/<id>/routing.ts`; a capability
 * without one is still routable by its id, path, title and input schema (the
 * router's generic descriptor). Nothing here is a price or a payee: those
 * always come from the catalog entry and the payment configuration.
 */
import type { ErrorDetail } from '../errors.js';
import type { Terms } from './objective-text.js';

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
  /** The outcome in one sentence, for the contract. */
  outcome: string;
  /** Product names and other phrases that name the outcome (matched case-insensitively as words). */
  names?: string[];
  /** Objective wording that asks for this outcome (English patterns, over lower-cased text). */
  keywords?: RegExp[];
  /**
   * Phrases that ask for this outcome, per language (matched by the shared
   * reader in objective-text.ts: diacritics ignored, whole words in Latin
   * scripts, substrings in CJK).
   */
  terms?: Terms;
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
  /**
   * Do the inputs unmistakably carry this outcome's data (JSON-LD in html, an
   * ipfs:// uri, both field contracts)? Then the router adds this outcome to
   * one the objective names, rather than leaving the inputs unused. Defaults
   * to `detect`.
   */
  evident?(inputs: Record<string, unknown>): boolean;
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
  example?(cap: { title: string; examples: ReadonlyArray<{ input: unknown }> }): { objective: string; inputs?: Record<string, unknown> };
}

export const has = (o: Record<string, unknown>, k: string) => o[k] !== undefined;
export const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

export function pick(o: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of keys) if (o[k] !== undefined) out[k] = o[k];
  return out;
}

export function need(at: string, field: string, message: string): ErrorDetail {
  return { path: `${at}/${field}`, rule: 'required', message };
}

export function notAList(at: string, field: string, what: string): Extraction {
  return { kind: 'invalid', details: [{ path: `${at}/${field}`, rule: 'type', message: `must be an array of ${what}` }] };
}

export function done(units: UnitDraft[], missing: ErrorDetail[], invalid: ErrorDetail[], assumptions: string[]): Extraction {
  if (invalid.length) return { kind: 'invalid', details: invalid };
  if (missing.length) return { kind: 'missing', missing };
  return { kind: 'units', units, assumptions };
}
