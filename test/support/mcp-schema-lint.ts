/**
 * The rules of the MCP Inspector's tool-schema portability lint
 * (modelcontextprotocol/inspector, issue #1005), written for our tests: a
 * construct that is legal JSON Schema but refused or degraded by real MCP
 * clients is a finding. The Inspector lints both inputSchema and outputSchema.
 *   boolean-schema (error): a bare true/false where a schema object is expected
 *     (allowed only under additionalProperties, unevaluatedProperties, additionalItems, unevaluatedItems);
 *   non-object-root (error): an inputSchema whose root type is not "object";
 *   type-union (warning): `type` given as an array;
 *   remote-ref (warning): a `$ref` not starting with "#";
 *   untyped-schema (warning): a schema with no constraining keyword (it accepts anything).
 */
export interface Finding {
  rule: 'boolean-schema' | 'non-object-root' | 'type-union' | 'remote-ref' | 'untyped-schema';
  severity: 'error' | 'warning';
  schema: 'inputSchema' | 'outputSchema';
  path: string;
}

const BOOLEAN_OK = new Set(['additionalProperties', 'unevaluatedProperties', 'additionalItems', 'unevaluatedItems']);
const ONE = ['items', 'contains', 'not', 'propertyNames', 'if', 'then', 'else', 'additionalProperties', 'unevaluatedProperties', 'additionalItems', 'unevaluatedItems'];
const MANY = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const MAPS = ['properties', 'patternProperties', 'dependentSchemas', 'dependencies', '$defs', 'definitions'];
// Assertions, applicators and references: a schema with none of these accepts any value.
const CONSTRAINING = new Set([
  'type', 'enum', 'const', 'multipleOf', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum', 'maxLength', 'minLength', 'pattern', 'format',
  'maxItems', 'minItems', 'uniqueItems', 'maxContains', 'minContains', 'maxProperties', 'minProperties', 'required', 'dependentRequired',
  'allOf', 'anyOf', 'oneOf', 'not', 'if', 'then', 'else', 'items', 'prefixItems', 'contains', 'additionalItems', 'unevaluatedItems',
  'properties', 'patternProperties', 'additionalProperties', 'unevaluatedProperties', 'propertyNames', 'dependentSchemas', 'dependencies',
  '$ref', '$dynamicRef', '$recursiveRef',
]);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function lintSchema(schema: unknown, kind: Finding['schema']): Finding[] {
  const out: Finding[] = [];
  const add = (rule: Finding['rule'], severity: Finding['severity'], path: string) => out.push({ rule, severity, schema: kind, path });
  if (kind === 'inputSchema' && isObject(schema) && typeof schema.type === 'string' && schema.type !== 'object') add('non-object-root', 'error', '');
  const visit = (node: unknown, path: string, parentKeyword: string | undefined, depth: number): void => {
    if (depth > 64) return;
    if (typeof node === 'boolean') {
      if (parentKeyword === undefined || !BOOLEAN_OK.has(parentKeyword)) add('boolean-schema', 'error', path);
      return;
    }
    if (!isObject(node)) return;
    if (Array.isArray(node.type)) add('type-union', 'warning', path);
    if (typeof node.$ref === 'string' && node.$ref !== '' && !node.$ref.startsWith('#')) add('remote-ref', 'warning', path);
    if (!Object.keys(node).some((k) => CONSTRAINING.has(k))) add('untyped-schema', 'warning', path);
    for (const k of MAPS) if (isObject(node[k])) for (const [name, sub] of Object.entries(node[k])) visit(sub, `${path}/${k}/${name}`, k, depth + 1);
    for (const k of MANY) if (Array.isArray(node[k])) (node[k] as unknown[]).forEach((sub, i) => visit(sub, `${path}/${k}/${i}`, k, depth + 1));
    for (const k of ONE) {
      if (!(k in node)) continue;
      const v = node[k];
      if (k === 'items' && Array.isArray(v)) v.forEach((sub, i) => visit(sub, `${path}/items/${i}`, k, depth + 1));
      else visit(v, `${path}/${k}`, k, depth + 1);
    }
  };
  visit(schema, '', undefined, 0);
  return out;
}
