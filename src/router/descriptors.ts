/**
 * The router's view of each capability's routing knowledge: the descriptor
 * the capability carries (`capabilities/<id>/routing.ts`), or a generic one
 * built from its id, title and input schema.
 */
import type { Capability } from '../catalog/capability.js';
import { has, need, pick, type RoutingDescriptor } from '../catalog/routing.js';

export type { EvidenceLevel, Extraction, ExtractContext, RoutingDescriptor, UnitDraft } from '../catalog/routing.js';

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

/** The descriptor for a capability: an override by id (tests, experiments), its own, else generic. */
export function descriptorFor(cap: Capability, overrides: Readonly<Record<string, RoutingDescriptor>> = {}): RoutingDescriptor {
  return overrides[cap.id] ?? cap.routing ?? genericDescriptor(cap);
}
