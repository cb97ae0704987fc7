import type { ErrorCode, ErrorDetail } from '../errors.js';
import type { RoutingDescriptor } from './routing.js';

/** A JSON Schema (draft 2020-12) as a plain object. */
export type JsonSchema = Record<string, unknown>;

/**
 * A problem found in a request that passed its JSON Schema but breaks a rule
 * of the capability (for example two fields with the same name). Reported as
 * a 400 with `code` before any payment step.
 */
export interface InputProblem {
  code: 'duplicate_field_name' | 'invalid_request';
  message: string;
  details: ErrorDetail[];
}

/**
 * One paid capability. The catalog of these is the single source of truth for
 * routes, validation, 402 requirements, OpenAPI, MCP tools and the router.
 *
 * `run` must be a pure, deterministic function of its validated input: no I/O,
 * no clock, no randomness. It may assume the input already passed
 * `inputSchema` and `check`.
 */
// Members are declared as methods so an entry of any input type is a `Capability` (method parameters are
// bivariant); surfaces that hold mixed entries see `unknown`, never `any`.
export interface Capability<I = unknown, O = unknown, R extends O | Promise<O> = O> {
  /** Stable identifier, kebab-case, also the last path segment. */
  id: string;
  method: 'POST';
  path: string;
  /**
   * Price in atomic units of the asset (USDC has 6 decimals: 1000 = US$0.001).
   * For an entry priced by its input (`priceOf`), the smallest price it asks.
   */
  priceAtomic: string;
  /** The price for this validated input, when it depends on the input (the composite router: its plan's total). */
  priceOf?(input: I): string;
  /** The request fingerprint an authorization is bound to, when not the canonical JSON of the input. */
  fingerprintOf?(input: I): string;
  /**
   * For an entry whose input is read by its own rules rather than `inputSchema`
   * (the composite router: a quote request becomes a plan, or a 400/422 with
   * the router's codes). Runs before any payment step, like schema validation.
   */
  readInput?(value: unknown): { ok: true; input: I } | { ok: false; code: ErrorCode; message: string; details: ErrorDetail[] };
  /** A price that depends on the input, for discovery documents: the range and how it is set. */
  priceRange?: { minAtomic: string; maxAtomic: string; note: string };
  /** Refusals beyond the common ones, by HTTP status, for discovery documents (e.g. the router's 422 codes). */
  extraRefusals?: Record<string, { description: string; codes: readonly ErrorCode[] }>;
  title: string;
  /** One sentence for people: what a call returns (the front page; the long form is `description`). */
  summary: string;
  description: string;
  inputSchema: JsonSchema;
  /**
   * The input tool surfaces (MCP) take when it is narrower than what HTTP
   * accepts: the canonical form, without conveniences such as aliases. The
   * reader still runs on it. Defaults to `inputSchema`.
   */
  toolInputSchema?: JsonSchema;
  outputSchema: JsonSchema;
  /** Request bodies as sent on the wire, and their results. */
  examples: Array<{ summary: string; input: I; output: O }>;
  /** Rules beyond the JSON Schema, checked before any payment step. */
  check?(input: I): InputProblem | undefined;
  /**
   * Produce the result. Paid utilities are pure and synchronous. A capability
   * that reads service-owned content (e.g. changes-since) is built by a factory
   * that closes over a read-only store and may return a promise; it must still
   * be deterministic for the content it reads.
   */
  run(input: I): R;
  /**
   * Optional: build the input from a non-JSON body (e.g. raw `text/html`).
   * Return undefined when the media type is not accepted.
   */
  fromRawBody?(mediaType: string, body: string): I | undefined;
  /** Largest accepted request body in bytes (default 64 KiB). */
  maxBodyBytes?: number;
  /**
   * Run on the worker pool (src/isolation) rather than the event loop, under the
   * per-call budget: 'always', or 'large-input' (only inputs carrying at least
   * 16 KiB of strings). For handlers whose cost grows with their input. Only
   * entries of the static CATALOG can be isolated.
   */
  isolate?: 'always' | 'large-input';
  /**
   * An entry that reads its own large request bodies off the event loop (one
   * that composes others, given the service's worker pool when it was built:
   * the router's composite). Undefined result: read the body inline. The
   * verdict is the inline reader's; when `paid`, with the call's fingerprint.
   */
  readBodyOffThread?(contentType: string | undefined, body: Uint8Array, paid: boolean): Promise<{ verdict: { ok: true; input: unknown } | { ok: false; status: number; body: unknown }; fingerprint?: string } | undefined>;
  /**
   * How the outcome router recognises an objective for this capability and
   * builds its native body (`capabilities/<id>/routing.ts`). Without it the
   * router still routes by id, path, title and input schema.
   */
  routing?: RoutingDescriptor;
}
