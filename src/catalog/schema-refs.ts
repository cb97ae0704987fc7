/**
 * Capability schemas may keep shared parts in `$defs` and point at them with
 * `#/$defs/name`. Such a pointer is relative to the document it sits in, so a
 * schema embedded in a larger document (OpenAPI, an MCP `anyOf` wrapper) must
 * have its definitions moved to where the new pointers say.
 */
import type { JsonSchema } from './capability.js';

function rewrite(node: unknown, from: string, to: string): unknown {
  if (Array.isArray(node)) return node.map((n) => rewrite(n, from, to));
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node as Record<string, unknown>)) {
    out[k] = k === '$ref' && typeof v === 'string' && v.startsWith(from) ? to + v.slice(from.length) : rewrite(v, from, to);
  }
  return out;
}

/**
 * Split a schema into its body (with `#/$defs/x` rewritten to `${target}x`)
 * and its definitions (also rewritten), for placing at `target`.
 */
export function relocateDefs(schema: JsonSchema, target: string): { body: JsonSchema; defs: Record<string, JsonSchema> } {
  const { $defs, ...rest } = schema as JsonSchema & { $defs?: Record<string, JsonSchema> };
  const body = rewrite(rest, '#/$defs/', target) as JsonSchema;
  const defs = Object.fromEntries(Object.entries($defs ?? {}).map(([k, v]) => [k, rewrite(v, '#/$defs/', target) as JsonSchema]));
  return { body, defs };
}
