/**
 * A JSON body given as a template plus the values to put into it: each
 * placement names a place in the template by JSON pointer (RFC 6901) and one
 * of the sources. The router names a caller's large input this way instead of
 * echoing it, and the canonical-JSON size and SHA-256 of every such body are
 * computed on the worker pool or inline, by the same function here
 * (`templateDigests`), so both threads answer alike.
 */
import { canonicalJson, requestFingerprint, sha256Hex } from './canonical-json.js';

/** Size (UTF-8 bytes) and SHA-256 (hex) of a value's canonical JSON. */
export interface CanonicalDigest {
  bytes: number;
  sha256: string;
}

/** Where one source goes: a JSON pointer into the template, and the index of the source. */
export interface Placement {
  at: string;
  source: number;
}

export interface JsonTemplate {
  template: Record<string, unknown>;
  placements: Placement[];
}

/** The digests asked for: of each source, of each template once filled, and optionally one filled template's request fingerprint. */
export interface TemplateDigestRequest {
  sources: unknown[];
  templates: JsonTemplate[];
  fingerprint?: { resource: string; template: number };
}

export interface TemplateDigests {
  sources: CanonicalDigest[];
  templates: CanonicalDigest[];
  fingerprint?: string;
}

/** One reference token of a JSON pointer, escaped (RFC 6901 §3). */
export function pointerToken(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

function tokensOf(pointer: string): string[] {
  if (!pointer.startsWith('/')) throw new Error(`not a JSON pointer into a member: ${JSON.stringify(pointer)}`);
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

type Container = Record<string, unknown> | unknown[];

const isContainer = (v: unknown): v is Container => v !== null && typeof v === 'object';

// A member named "__proto__" (JSON.parse makes it an own member) is written as one, never through the prototype setter.
function put(node: Container, key: string, value: unknown): void {
  if (Array.isArray(node)) node[Number(key)] = value;
  else Object.defineProperty(node, key, { value, enumerable: true, writable: true, configurable: true });
}

const copyOf = (node: Container): Container => (Array.isArray(node) ? node.slice() : Object.fromEntries(Object.entries(node)));

/** The template with each source at its place: a new value (only the containers on a placement's path are copied). */
export function filledTemplate(t: JsonTemplate, sources: readonly unknown[]): Record<string, unknown> {
  const root = copyOf(t.template) as Record<string, unknown>;
  for (const { at, source } of t.placements) {
    const keys = tokensOf(at);
    const last = keys.pop()!;
    let node: Container = root;
    for (const key of keys) {
      const child = (node as Record<string, unknown>)[key];
      if (!isContainer(child)) throw new Error(`${at} is not inside the template`);
      const copy = copyOf(child);
      put(node, key, copy);
      node = copy;
    }
    put(node, last, sources[source]);
  }
  return root;
}

export function canonicalDigest(value: unknown): CanonicalDigest {
  const text = canonicalJson(value);
  return { bytes: Buffer.byteLength(text, 'utf8'), sha256: sha256Hex(text) };
}

/** Everything a request for digests asks, computed here (on whichever thread calls it). */
export function templateDigests(req: TemplateDigestRequest): TemplateDigests {
  const filled = req.templates.map((t) => filledTemplate(t, req.sources));
  const out: TemplateDigests = { sources: req.sources.map(canonicalDigest), templates: filled.map(canonicalDigest) };
  if (req.fingerprint) out.fingerprint = requestFingerprint(req.fingerprint.resource, filled[req.fingerprint.template]);
  return out;
}
