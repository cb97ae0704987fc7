/**
 * A capability's input reader: a JSON body (strict UTF-8, bounded nesting, at
 * most as many JSON values as its input schema admits) or
 * a raw body the capability accepts → its validated input, or the 400/413/415
 * with a stable code. Transport-neutral: HTTP, MCP and the router's planner
 * (which checks every native body it plans) all read input the same way.
 */
import type { Capability } from './capability.js';
import { errorBody, statusOf, type ErrorCode, type ErrorDetail } from '../errors.js';
import { isJsonMediaType, mediaTypeOf, parseJsonBody, rawTextBody } from './json-input.js';
import { compileValidator } from './validation.js';
import { DEFAULT_ENTRY_BODY_BYTES, entryBudget } from './body-budget.js';

export const DEFAULT_MAX_BODY_BYTES = DEFAULT_ENTRY_BODY_BYTES;

type Parsed = { ok: true; input: unknown } | { ok: false; status: number; body: unknown };

function fail(code: ErrorCode, message: string, details: ErrorDetail[] = []): Parsed {
  return { ok: false, status: statusOf(code), body: errorBody(code, message, details) };
}

/** Body → validated, defaulted input. */
export function makeInputReader(cap: Capability) {
  const validate = compileValidator(cap.inputSchema);
  const limit = cap.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  // As many JSON values as the input schema admits: a body of many small values is refused before it is parsed.
  const maxValues = entryBudget(cap).values;
  return {
    limit,
    maxValues,
    /** Validate an already-parsed JSON value. */
    fromValue(value: unknown): Parsed {
      if (cap.readInput) {
        const r = cap.readInput(value);
        return r.ok ? { ok: true, input: r.input } : fail(r.code, r.message, r.details);
      }
      const details = validate(value);
      if (details) return fail('invalid_request', `The request does not match the ${cap.id} input schema.`, details);
      const problem = cap.check?.(value);
      if (problem) return fail(problem.code, problem.message, problem.details);
      return { ok: true, input: value };
    },
    /** Raw body → input. Bytes are decoded as strict UTF-8; a string is taken as already decoded. */
    fromBody(contentType: string | undefined, raw: Uint8Array | string): Parsed {
      const size = typeof raw === 'string' ? Buffer.byteLength(raw, 'utf8') : raw.byteLength;
      if (size > limit) return fail('payload_too_large', `The request body exceeds ${limit} bytes.`);
      const mediaType = mediaTypeOf(contentType);
      let value: unknown;
      if (isJsonMediaType(mediaType)) {
        const parsed = parseJsonBody(raw, { maxValues });
        if (!parsed.ok) return fail(parsed.error.code, parsed.error.message, parsed.error.details);
        value = parsed.value;
      } else {
        // Media type first, so an unaccepted type is 415 whatever its bytes (fromRawBody decides by type alone).
        if (!cap.fromRawBody || cap.fromRawBody(mediaType, '') === undefined) return unsupported(mediaType);
        const text = rawTextBody(contentType, raw);
        if (!text.ok) return fail(text.error.code, text.error.message, text.error.details);
        value = cap.fromRawBody(mediaType, text.value);
      }
      return this.fromValue(value);
    },
  };
}

function unsupported(mediaType: string): Parsed {
  return fail('unsupported_media_type', `Content-Type ${mediaType} is not accepted here; send application/json.`, [{ path: '', rule: 'content-type' }]);
}
