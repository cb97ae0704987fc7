/**
 * The file a buyer keeps as evidence of one paid call (`npm run buy -- --save
 * FILE` writes it, `npm run verify-receipt -- FILE` reads it): the request as
 * sent and the response with its exact body bytes (base64, so nothing is
 * re-encoded). Format `x402-saved-response/1`:
 *
 *   { "format": "x402-saved-response/1",
 *     "request":  { "method": "POST", "url": "https://host/x402/v1/…", "body": "<the JSON text sent>" },
 *     "response": { "status": 200, "headers": { "payment-response": "…", … }, "body_base64": "…" } }
 *
 * Header names are lower-case.
 */
const SAVED_RESPONSE_FORMAT = 'x402-saved-response/1';

export interface SavedResponse {
  format: typeof SAVED_RESPONSE_FORMAT;
  request: { method: string; url: string; body?: string };
  response: { status: number; headers: Record<string, string>; body_base64: string };
}

export function savedResponse(request: SavedResponse['request'], status: number, headers: Iterable<[string, string]>, body: Uint8Array): SavedResponse {
  const h: Record<string, string> = {};
  for (const [k, v] of headers) h[k.toLowerCase()] = v;
  return { format: SAVED_RESPONSE_FORMAT, request, response: { status, headers: h, body_base64: Buffer.from(body).toString('base64') } };
}

/** The parsed file, or what is wrong with it. */
export function readSavedResponse(value: unknown): SavedResponse | string {
  const v = value as Partial<SavedResponse> | null;
  if (!v || typeof v !== 'object' || v.format !== SAVED_RESPONSE_FORMAT) return `not a saved response (format must be "${SAVED_RESPONSE_FORMAT}")`;
  const { request: rq, response: rs } = v;
  if (!rq || typeof rq.method !== 'string' || typeof rq.url !== 'string' || (rq.body !== undefined && typeof rq.body !== 'string')) return 'request must be {method, url, body?} with body the JSON text sent';
  if (!rs || typeof rs.status !== 'number' || typeof rs.headers !== 'object' || rs.headers === null || typeof rs.body_base64 !== 'string') return 'response must be {status, headers, body_base64}';
  return v as SavedResponse;
}
