/**
 * The x402 Bazaar discovery extension for a capability (specs/extensions/bazaar.md
 * of coinbase/x402), sized to fit the PAYMENT-REQUIRED header. Every level
 * declares the HTTP method (the extension's own schema requires it) and the
 * levels that fit a discovery challenge also carry an output schema, where
 * discovery clients look for it (`schema.properties.output.properties.example`).
 * The transport picks the richest candidate whose header fits its budget
 * (schemas without descriptions, top levels only, only an example);
 * /openapi.json carries the full schemas. Bazaar's service metadata (the
 * service's name, the entry's tags, the icon) rides on the 402's `resource`,
 * where the spec and the SDK put it, and is traded down with the levels.
 */
import { bazaarResourceServerExtension, declareDiscoveryExtension, isValidIconUrl, sanitizeTags } from '@x402/extensions/bazaar';
import type { Capability, JsonSchema } from '../catalog/capability.js';
import { relocateDefs } from '../catalog/schema-refs.js';
import { SERVICE_METADATA_KEYS, type ServiceMetadata } from '../payments/gate.js';
import type { OfferRung, PaidOffer } from '../payments/paid-flow.js';
import { ICON_PATH, SERVICE_NAME } from './identity.js';


const DROP = new Set(['description', 'examples', 'title', '$comment', 'default']);

/** A schema with annotations removed: validation keywords only. */
function compactSchema(schema: unknown): unknown {
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

/**
 * Only the top level of an object schema: its typed properties and their JSON
 * types (an untyped property, such as an alias the reader folds, adds nothing
 * an outline can say, and leaving it out forbids nothing).
 */
function topLevel(schema: JsonSchema): JsonSchema {
  const props = (schema.properties ?? {}) as Record<string, { type?: unknown }>;
  return {
    type: 'object',
    ...(schema.required ? { required: schema.required } : {}),
    properties: Object.fromEntries(Object.entries(props).flatMap(([k, v]) => (v && v.type ? [[k, { type: v.type }]] : []))),
  };
}

export type BazaarLevel = 'full' | 'compact' | 'outline' | 'example-outline' | 'example-object' | 'example-only' | 'example-bare' | 'minimal';

type Extension = { bazaar: { info: Record<string, unknown>; schema: { properties: Record<string, unknown>; $defs?: Record<string, unknown> } } };

/**
 * Adds the output part the way the spec and the SDK shape it (`info.output`
 * with `type` and an optional example; its schema under
 * `schema.properties.output.properties.example`), also when there is no
 * example to show, which the SDK's builder skips.
 */
function withOutput(ext: Extension, schema: JsonSchema, example: unknown): Extension {
  ext.bazaar.info.output = example === undefined ? { type: 'json' } : { type: 'json', example };
  ext.bazaar.schema.properties.output = {
    type: 'object',
    properties: { type: { type: 'string' }, example: { type: 'object', ...schema } },
    required: ['type'],
  };
  return ext;
}

/**
 * The extension for one level: the SDK builds the input part, `withOutput`
 * the output part. Schemas with `$defs` point at them from their own root;
 * inside the extension's schema that root is the extension's, so the
 * definitions move there (prefixed per side) and the pointers follow.
 */
function build(method: string, path: string, body: Record<string, unknown>, inputSchema: JsonSchema | undefined, output?: { schema: JsonSchema; example: unknown }): Record<string, unknown> {
  const defs: Record<string, unknown> = {};
  const place = (schema: JsonSchema, side: 'input' | 'output') => {
    const { body: placedSchema, defs: own } = relocateDefs(schema, `#/$defs/${side}.`);
    for (const [k, v] of Object.entries(own)) defs[`${side}.${k}`] = v;
    return placedSchema;
  };
  const declared = declareDiscoveryExtension({ bodyType: 'json', input: body, ...(inputSchema ? { inputSchema: place(inputSchema, 'input') } : {}) });
  // The SDK's own request-time enrichment adds the HTTP method the extension's schema requires (we build 402s without its HTTP server).
  let ext = { bazaar: bazaarResourceServerExtension.enrichDeclaration!(declared.bazaar, { method, adapter: { getPath: () => path } }) } as unknown as Extension;
  if (output) ext = withOutput(ext, place(output.schema, 'output'), output.example);
  if (Object.keys(defs).length) ext.bazaar.schema.$defs = defs;
  return ext;
}

export function bazaarExtension(cap: Capability, level: BazaarLevel): Record<string, unknown> {
  // The smallest example keeps the header small; /openapi.json lists them all.
  const example = [...cap.examples].sort((a, b) => JSON.stringify(a.input).length - JSON.stringify(b.input).length)[0];
  const input = (example?.input ?? {}) as Record<string, unknown>;
  const method = cap.method;
  const at = (...args: [Record<string, unknown>, JsonSchema | undefined, { schema: JsonSchema; example: unknown }?]) => build(method, cap.path, ...args);
  switch (level) {
    case 'full':
      return at(input, cap.inputSchema, { schema: cap.outputSchema, example: example?.output });
    case 'compact':
      return at(input, compactSchema(cap.inputSchema) as JsonSchema, { schema: topLevel(cap.outputSchema), example: example?.output });
    case 'outline':
      // What a discovery challenge can afford: both shapes at their top level, and an input example.
      return at(input, topLevel(cap.inputSchema), { schema: topLevel(cap.outputSchema), example: undefined });
    // The leaner levels keep an output part, however small (discovery clients
    // flag a 402 without one): a 402 offering two chains has less room.
    case 'example-outline':
      return at(input, undefined, { schema: topLevel(cap.outputSchema), example: undefined });
    case 'example-object':
      return at(input, undefined, { schema: { type: 'object' }, example: undefined });
    case 'example-only':
      // The example over the output part, where the room is tightest (a payable 402 of a large example).
      return at(input, undefined);
    case 'example-bare': {
      // The example under the least schema that says there is an input (what discovery validators look for): the
      // room a payable 402 has left beside the gate's sign-in declaration, with two chains in accepts.
      const ext = at(input, undefined) as Extension;
      ext.bazaar.schema = { type: 'object', properties: { input: { type: 'object', properties: { body: { type: 'object' } } } }, required: ['input'] } as Extension['bazaar']['schema'];
      return ext;
    }
    case 'minimal':
      // Only "this is a JSON POST answering a JSON object": the shapes are at /openapi.json.
      return at({}, undefined, { schema: { type: 'object' }, example: undefined });
  }
}

/** Bazaar's levels, richest first. */
const LEVELS = ['full', 'compact', 'outline', 'example-outline', 'example-object', 'example-only', 'example-bare', 'minimal'] as const satisfies readonly BazaarLevel[];

/**
 * The leanest level that still carries an input example under an input
 * schema: below it, discovery validators (x402scan's) call a payable 402 an
 * error. The service metadata on `resource` is given up before going below it.
 */
const FLOOR: BazaarLevel = 'example-bare';

/** The service metadata kept at each step of its own trade-down: all of it, then without the icon, then the name alone. */
const METADATA_STEPS: ReadonlyArray<ReadonlyArray<keyof ServiceMetadata>> = [SERVICE_METADATA_KEYS, ['serviceName', 'tags'], ['serviceName']];

/**
 * Rungs from richest to leanest; the HTTP adapter sends the first whose
 * encoded PAYMENT-REQUIRED header fits its budget, MCP and A2A the richest.
 * Bazaar's levels are traded down first, with the whole service metadata,
 * as far as the floor: a discovery challenge keeps all of it, and gives up
 * only the schemas' descriptions, which /openapi.json has. At the floor the
 * metadata goes, the icon first (the least use in a search), then the tags;
 * only then the levels below the floor, without it. The full schemas are
 * always in /openapi.json.
 */
function bazaarRungs(cap: Capability): OfferRung[] {
  const floor = LEVELS.indexOf(FLOOR as (typeof LEVELS)[number]);
  const at = (level: BazaarLevel) => bazaarExtension(cap, level);
  return [
    ...LEVELS.slice(0, floor + 1).map((level) => ({ extensions: at(level), keeps: SERVICE_METADATA_KEYS })),
    ...METADATA_STEPS.slice(1).map((keeps) => ({ extensions: at(FLOOR), keeps })),
    { extensions: at(FLOOR), keeps: [] },
    ...LEVELS.slice(floor + 1).map((level) => ({ extensions: at(level), keeps: [] })),
  ];
}

/**
 * The entry's topical tags: the product names its routing knowledge says
 * name its outcome (what the outcome router matches an objective by), else
 * its id, which is how the router names an entry nobody described. Passed
 * through the SDK's own sanitizer (the first five, each printable ASCII of
 * at most 32 characters), so nothing is sent that the catalogue would drop.
 */
export function tagsOf(cap: Capability): string[] {
  return sanitizeTags(cap.routing?.names?.length ? cap.routing.names : [cap.id]) ?? [];
}

/**
 * Bazaar's service metadata of an entry at an origin: the service's name, the
 * entry's tags and the icon the discovery module serves there. The icon's URL
 * is stated only where Bazaar would keep it (the SDK's `isValidIconUrl`: an
 * http(s) URL whose host is a name, not an IP address or localhost): the
 * devnet's loopback origin has none.
 */
function serviceMetadataOf(cap: Capability): (origin: string) => ServiceMetadata {
  const tags = tagsOf(cap);
  const byOrigin = new Map<string, ServiceMetadata>();
  return (origin) => {
    let m = byOrigin.get(origin);
    if (!m) {
      const iconUrl = origin + ICON_PATH;
      m = { serviceName: SERVICE_NAME, ...(tags.length ? { tags } : {}), ...(isValidIconUrl(iconUrl) ? { iconUrl } : {}) };
      // Bounded: origins come from Host headers (only our own names, but several of them).
      if (byOrigin.size >= 32) byOrigin.clear();
      byOrigin.set(origin, m);
    }
    return m;
  };
}

/**
 * One sentence of the description, at most 100 characters: what the 402's
 * resource.description carries (a label; the header's room goes to the
 * Bazaar example, and to a second chain's entry in accepts).
 */
const SHORT_DESCRIPTION_CHARS = 100;
export function shortDescription(cap: Capability): string {
  const first = cap.description.split(/(?<=\.)\s/)[0] ?? cap.description;
  return first.length <= SHORT_DESCRIPTION_CHARS ? first : first.slice(0, SHORT_DESCRIPTION_CHARS - 3).replace(/\s+\S*$/, '') + '…';
}

/** A capability's paid face for every transport: its 402 summary, service metadata and extensions (the paid flow makes it once per entry). */
export function offerOf(cap: Capability): PaidOffer {
  return { cap, summary: shortDescription(cap), serviceMetadata: serviceMetadataOf(cap), rungs: bazaarRungs(cap) };
}
