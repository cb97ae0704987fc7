/**
 * JSON Schema spelled the way every MCP client reads it. Several clients read
 * `type` as one string and reject or silently drop `type: [X, "null"]`, and a
 * schema with no validation keyword at all (an "any JSON value" field) is
 * reported as unconstrained (the MCP Inspector's schema-portability rules).
 * Both have an equivalent portable spelling, so a tool's schema is rewritten,
 * never weakened:
 *   - `{type: [A, B], ...rest}` → `{anyOf: [{type: A}, {type: B}], ...rest}`
 *     (the other keywords apply per type anyway, so they stay beside it);
 *   - a schema with no constraining keyword → `anyOf` over the six JSON types
 *     and null, keeping its annotations.
 */

/** Keywords that constrain a value; a schema with none of them accepts anything. */
const CONSTRAINING = new Set([
  'type', 'enum', 'const', 'multipleOf', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum', 'maxLength', 'minLength', 'pattern', 'format',
  'maxItems', 'minItems', 'uniqueItems', 'maxContains', 'minContains', 'maxProperties', 'minProperties', 'required', 'dependentRequired',
  'allOf', 'anyOf', 'oneOf', 'not', 'if', 'then', 'else', 'items', 'prefixItems', 'contains', 'additionalItems', 'unevaluatedItems',
  'properties', 'patternProperties', 'additionalProperties', 'unevaluatedProperties', 'propertyNames', 'dependentSchemas', 'dependencies',
  '$ref', '$dynamicRef', '$recursiveRef',
]);

/** Keywords whose value is one subschema, a list of them, or a map of them. */
const ONE = new Set(['items', 'contains', 'not', 'propertyNames', 'if', 'then', 'else', 'additionalProperties', 'unevaluatedProperties', 'additionalItems', 'unevaluatedItems']);
const MANY = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
const MAPS = new Set(['properties', 'patternProperties', 'dependentSchemas', '$defs', 'definitions']);

const ANY_JSON = ['object', 'array', 'string', 'number', 'boolean', 'null'].map((type) => ({ type }));

type Node = Record<string, unknown>;
const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A copy of `schema` in the portable spelling (the input is not changed). */
export function portableSchema<T>(schema: T): T {
  return rewrite(schema) as T;
}

function rewrite(node: unknown): unknown {
  if (!isNode(node)) return node;
  const out: Node = {};
  for (const [k, v] of Object.entries(node)) {
    if (MAPS.has(k) && isNode(v)) out[k] = Object.fromEntries(Object.entries(v).map(([name, sub]) => [name, rewrite(sub)]));
    else if (MANY.has(k) && Array.isArray(v)) out[k] = v.map(rewrite);
    else if (ONE.has(k)) out[k] = Array.isArray(v) ? v.map(rewrite) : rewrite(v);
    else out[k] = v;
  }
  if (Array.isArray(out.type)) {
    const { type, anyOf, ...rest } = out;
    const branches = (type as unknown[]).map((t) => ({ type: t }));
    // An existing anyOf is kept as a conjunct: both must hold, as before.
    if (anyOf === undefined) return { ...rest, anyOf: branches };
    const allOf = Array.isArray(rest.allOf) ? rest.allOf : [];
    return { ...rest, allOf: [...allOf, { anyOf: branches }, { anyOf }] };
  }
  if (!Object.keys(out).some((k) => CONSTRAINING.has(k))) return { ...out, anyOf: ANY_JSON };
  return out;
}
