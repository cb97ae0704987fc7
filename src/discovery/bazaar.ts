/**
 * The x402 Bazaar discovery extension for a capability, sized to fit the
 * PAYMENT-REQUIRED header. The gate picks the richest candidate whose
 * header fits its budget (schemas without descriptions, output trimmed to
 * its top level, or only an example); /openapi.json carries the full schemas.
 */
import { declareDiscoveryExtension } from '@x402/extensions/bazaar';
import type { Capability, JsonSchema } from '../catalog/capability.js';
import type { PaidOffer } from '../payments/paid-flow.js';


const DROP = new Set(['description', 'examples', 'title', '$comment', 'default']);

/** A schema with annotations removed: validation keywords only. */
export function compactSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(compactSchema);
  if (!schema || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema as Record<string, unknown>)) {
    if (DROP.has(k)) continue;
    if (k === 'properties' || k === '$defs' || k === 'patternProperties') {
      out[k] = Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([p, s]) => [p, compactSchema(s)]));
    } else {
      out[k] = compactSchema(v);
    }
  }
  return out;
}

/** Only the top level of an object schema: property names and their JSON types. */
function topLevel(schema: JsonSchema): JsonSchema {
  const props = (schema.properties ?? {}) as Record<string, { type?: unknown }>;
  return {
    type: 'object',
    required: schema.required,
    properties: Object.fromEntries(Object.entries(props).map(([k, v]) => [k, v && v.type ? { type: v.type } : {}])),
  };
}

export type BazaarLevel = 'full' | 'compact' | 'compact-input' | 'example-only' | 'minimal';

export function bazaarExtension(cap: Capability, level: BazaarLevel): Record<string, unknown> {
  // The smallest example keeps the header small; /openapi.json lists them all.
  const example = [...cap.examples].sort((a, b) => JSON.stringify(a.input).length - JSON.stringify(b.input).length)[0];
  const input = (example?.input ?? {}) as Record<string, unknown>;
  switch (level) {
    case 'full':
      return declareDiscoveryExtension({ bodyType: 'json', input, inputSchema: cap.inputSchema, output: { example: example?.output, schema: cap.outputSchema } });
    case 'compact':
      return declareDiscoveryExtension({
        bodyType: 'json',
        input,
        inputSchema: compactSchema(cap.inputSchema) as Record<string, unknown>,
        output: { example: example?.output, schema: topLevel(cap.outputSchema) },
      });
    case 'compact-input':
      return declareDiscoveryExtension({ bodyType: 'json', input, inputSchema: compactSchema(cap.inputSchema) as Record<string, unknown> });
    case 'example-only':
      return declareDiscoveryExtension({ bodyType: 'json', input });
    case 'minimal':
      // Only "this is a JSON POST": the input shape is at /openapi.json.
      return declareDiscoveryExtension({ bodyType: 'json' });
  }
}

/**
 * Candidates from richest to leanest; the HTTP adapter sends the first whose
 * encoded PAYMENT-REQUIRED header fits its budget, MCP the richest. The full schemas are always in /openapi.json.
 */
export function bazaarCandidates(cap: Capability): Array<Record<string, unknown>> {
  return (['full', 'compact', 'compact-input', 'example-only', 'minimal'] as const).map((l) => bazaarExtension(cap, l));
}

/** One sentence of the description, at most 160 characters: what the 402's resource.description carries. */
export function shortDescription(cap: Capability): string {
  const first = cap.description.split(/(?<=\.)\s/)[0] ?? cap.description;
  return first.length <= 160 ? first : first.slice(0, 157).replace(/\s+\S*$/, '') + '…';
}

/** A capability's paid face for every transport: its 402 summary and extensions, built once per entry. */
const offers = new WeakMap<Capability, PaidOffer>();
export function offerOf(cap: Capability): PaidOffer {
  let o = offers.get(cap);
  if (!o) {
    o = { cap, summary: shortDescription(cap), extensionCandidates: bazaarCandidates(cap) };
    offers.set(cap, o);
  }
  return o;
}
