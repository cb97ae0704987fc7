/**
 * Request validation from the catalog's JSON Schemas (draft 2020-12), compiled
 * once. Ajv errors are translated into the service's `details` shape:
 * a JSON pointer to the offending value and the keyword that failed.
 */
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { newAjv } from './ajv.js';
import type { ErrorDetail } from '../errors.js';
import type { JsonSchema } from './capability.js';

const ajv = newAjv({ useDefaults: true });

export type Validator = (value: unknown) => ErrorDetail[] | undefined;

function detail(e: ErrorObject): ErrorDetail {
  let path = e.instancePath;
  const p = e.params as Record<string, unknown>;
  if (e.keyword === 'required' && typeof p.missingProperty === 'string') path += '/' + escapePointer(p.missingProperty);
  if (e.keyword === 'additionalProperties' && typeof p.additionalProperty === 'string') path += '/' + escapePointer(p.additionalProperty);
  const rule = e.keyword === 'additionalProperties' ? 'additionalProperties' : e.keyword;
  let message = e.message ?? rule;
  if (e.keyword === 'enum' && Array.isArray(p.allowedValues)) message = `must be one of ${p.allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
  if (e.keyword === 'additionalProperties') message = 'is not an allowed property';
  if (e.keyword === 'required') message = 'is required';
  return { path, rule, message };
}

function escapePointer(s: string): string {
  return s.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * Compile a schema into a validator. `useDefaults` fills omitted optional
 * fields in place, so handlers and fingerprints see the canonical request.
 */
export function compileValidator(schema: JsonSchema): Validator {
  const fn: ValidateFunction = ajv.compile(schema);
  return (value) => {
    if (fn(value)) return undefined;
    const seen = new Set<string>();
    const out: ErrorDetail[] = [];
    for (const e of fn.errors ?? []) {
      // `if/then` and composite keywords add noise without a location of their own.
      if (e.keyword === 'if') continue;
      const d = detail(e);
      const key = `${d.path}|${d.rule}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(d);
      if (out.length >= 20) break;
    }
    return out;
  };
}
