/**
 * Verification for buyers (and for the service itself, when a buyer hands a
 * signed offer back): pure functions over what came on the wire, using only
 * viem. Nothing here trusts the artifact: every field a signature covers is
 * rebuilt from the payloads as transmitted, the signer is recovered and
 * compared with the address the operator publishes (`signer` in
 * /.well-known/x402), and the hashes are recomputed from the bytes in hand.
 *
 *   const check = await verifyReceipt({
 *     paymentResponse: decodePaymentResponseHeader(res.headers.get('PAYMENT-RESPONSE')!),
 *     responseBody: new Uint8Array(await res.arrayBuffer()),   // the exact bytes
 *     request: { resource: 'accessibility-contrast-calculator', input: body },
 *     signer: '0x…',                                           // published address
 *   });
 *   check.ok  // and check.problems says why not
 */
import { recoverTypedDataAddress } from 'viem';
import { canonicalJson, requestFingerprint, sha256Hex } from '../foundation/canonical-json.js';
import {
  BOUND_OFFER_TYPES,
  BOUND_RECEIPT_TYPES,
  OFFER_BINDING_DOMAIN,
  OFFER_DOMAIN,
  OFFER_RECEIPT,
  OFFER_TYPES,
  RECEIPT_BINDING_DOMAIN,
  RECEIPT_DOMAIN,
  RECEIPT_TYPES,
  STEP_DOMAIN,
  STEP_TYPES,
  boundOfferMessage,
  boundReceiptMessage,
  bytes32,
  offerMessage,
  receiptMessage,
  stepMessage,
  type Hex,
  type OfferBindingPayload,
  type OfferPayload,
  type ReceiptBindingPayload,
  type ReceiptPayload,
  type Signed,
  type StepPayload,
} from './formats.js';

export interface ReceiptCheck {
  ok: boolean;
  /** Why not, one sentence each; empty when ok. */
  problems: string[];
  /** The address the receipt's signatures recover to (when they parse). */
  recovered?: Hex;
  receipt?: ReceiptPayload;
  binding?: ReceiptBindingPayload;
}

export interface ReceiptInput {
  /** The decoded `PAYMENT-RESPONSE` (an x402 SettleResponse), or MCP's `_meta["x402/payment-response"]`. */
  paymentResponse: unknown;
  /** The exact response body bytes (a string is taken as its UTF-8 bytes). */
  responseBody: string | Uint8Array;
  /**
   * The request to check against: the capability id and the validated input
   * (the body with the schema's defaults filled in; send every field to make
   * them the same), or the fingerprint itself when computed elsewhere.
   */
  request?: { resource: string; input: unknown } | { fingerprint: string };
  /** The operator's published signing address. */
  signer: string;
}

const HEX32 = /^0x[0-9a-f]{64}$/;
const SIG = /^0x[0-9a-fA-F]{130}$/;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function signedOf<P>(v: unknown, fields: Record<string, 'string' | 'number' | 'hex32'>): Signed<P> | undefined {
  if (!isObject(v) || v.format !== 'eip712' || typeof v.signature !== 'string' || !SIG.test(v.signature) || !isObject(v.payload)) return undefined;
  const p = v.payload;
  for (const [k, t] of Object.entries(fields)) {
    const x = p[k];
    if (t === 'number' ? !Number.isSafeInteger(x) || (x as number) < 0 : typeof x !== 'string' || (t === 'hex32' && !HEX32.test(x))) return undefined;
  }
  return v as unknown as Signed<P>;
}

const RECEIPT_FIELDS = { version: 'number', network: 'string', resourceUrl: 'string', payer: 'string', issuedAt: 'number', transaction: 'string' } as const;
const RECEIPT_BINDING_FIELDS = { amount: 'string', requestFingerprint: 'hex32', responseSha256: 'hex32' } as const;
const OFFER_FIELDS = { version: 'number', resourceUrl: 'string', scheme: 'string', network: 'string', asset: 'string', payTo: 'string', amount: 'string', validUntil: 'number' } as const;
const STEP_FIELDS = { executionId: 'string', step: 'number', capabilityId: 'string', route: 'string', inputSha256: 'hex32', outputSha256: 'hex32' } as const;

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

async function recover(args: Parameters<typeof recoverTypedDataAddress>[0]): Promise<Hex | undefined> {
  try {
    return await recoverTypedDataAddress(args);
  } catch {
    return undefined;
  }
}

/** The receipt and binding in a SettleResponse, or why they are not there. */
export function receiptOf(paymentResponse: unknown): { receipt: Signed<ReceiptPayload>; binding: Signed<ReceiptBindingPayload> } | string {
  const ext = isObject(paymentResponse) && isObject(paymentResponse.extensions) ? paymentResponse.extensions[OFFER_RECEIPT] : undefined;
  const info = isObject(ext) && isObject(ext.info) ? ext.info : undefined;
  if (!info) return `the payment response has no extensions["${OFFER_RECEIPT}"].info`;
  const receipt = signedOf<ReceiptPayload>(info.receipt, RECEIPT_FIELDS);
  if (!receipt || receipt.payload.version !== 1) return 'info.receipt is not an EIP-712 offer-receipt receipt (version 1)';
  const binding = signedOf<ReceiptBindingPayload>(info.binding, RECEIPT_BINDING_FIELDS);
  if (!binding) return 'info.binding is not an EIP-712 content binding';
  return { receipt, binding };
}

/** Check a receipt: both signatures by `signer`, the response bytes, the request, and agreement with the settlement it rides on. */
export async function verifyReceipt(input: ReceiptInput): Promise<ReceiptCheck> {
  const found = receiptOf(input.paymentResponse);
  if (typeof found === 'string') return { ok: false, problems: [found] };
  const { receipt, binding } = found;
  const problems: string[] = [];
  const recovered = await recover({ domain: RECEIPT_DOMAIN, types: RECEIPT_TYPES, primaryType: 'Receipt', message: receiptMessage(receipt.payload), signature: receipt.signature });
  const boundBy = await recover({
    domain: RECEIPT_BINDING_DOMAIN,
    types: BOUND_RECEIPT_TYPES,
    primaryType: 'BoundReceipt',
    message: boundReceiptMessage(receipt.payload, binding.payload),
    signature: binding.signature,
  });
  if (!recovered || !same(recovered, input.signer)) problems.push(`the receipt is not signed by ${input.signer} (recovers to ${recovered ?? 'nothing'})`);
  if (!boundBy || !same(boundBy, input.signer)) problems.push(`the content binding is not signed by ${input.signer} (recovers to ${boundBy ?? 'nothing'})`);
  const bodySha = bytes32(sha256Hex(input.responseBody));
  if (binding.payload.responseSha256 !== bodySha) problems.push(`the response bytes hash to ${bodySha}, the receipt names ${binding.payload.responseSha256}`);
  if (input.request) {
    const fp = bytes32('fingerprint' in input.request ? input.request.fingerprint : requestFingerprint(input.request.resource, input.request.input));
    if (binding.payload.requestFingerprint !== fp) problems.push(`the request fingerprints to ${fp}, the receipt names ${binding.payload.requestFingerprint}`);
  }
  const pr = input.paymentResponse as Record<string, unknown>;
  for (const k of ['transaction', 'network', 'payer'] as const) {
    if (typeof pr[k] === 'string' && !same(pr[k] as string, receipt.payload[k])) problems.push(`the settlement's ${k} ${String(pr[k])} differs from the receipt's ${receipt.payload[k]}`);
  }
  return { ok: problems.length === 0, problems, recovered, receipt: receipt.payload, binding: binding.payload };
}

/** `expired` is set when the offer is ours and for this body and route, and only its validUntil has passed. */
export type OfferCheck = { ok: true; offer: OfferPayload } | { ok: false; problem: string; expired?: OfferPayload };

/**
 * Check a quote's signed offer for a native body: signed by `signer`, bound
 * to this body (SHA-256 of its canonical JSON), for `resourceUrl` when given,
 * and not past `validUntil` at `nowSeconds`.
 */
export async function verifyQuoteOffer(signed: unknown, opts: { signer: string; body: unknown; resourceUrl?: string; nowSeconds: number }): Promise<OfferCheck> {
  if (!isObject(signed)) return { ok: false, problem: 'not a signed offer object {offer, binding}' };
  const offer = signedOf<OfferPayload>(signed.offer, OFFER_FIELDS);
  const binding = signedOf<OfferBindingPayload>(signed.binding, { bodySha256: 'hex32' });
  if (!offer || offer.payload.version !== 1 || !binding) return { ok: false, problem: 'not a signed offer object {offer, binding} in EIP-712 format' };
  const by = await recover({ domain: OFFER_BINDING_DOMAIN, types: BOUND_OFFER_TYPES, primaryType: 'BoundOffer', message: boundOfferMessage(offer.payload, binding.payload), signature: binding.signature });
  if (!by || !same(by, opts.signer)) return { ok: false, problem: 'the offer is not signed by this service' };
  const plain = await recover({ domain: OFFER_DOMAIN, types: OFFER_TYPES, primaryType: 'Offer', message: offerMessage(offer.payload), signature: offer.signature });
  if (!plain || !same(plain, opts.signer)) return { ok: false, problem: 'the offer is not signed by this service' };
  if (binding.payload.bodySha256 !== bytes32(sha256Hex(canonicalJson(opts.body)))) return { ok: false, problem: 'the offer was signed for a different body' };
  if (opts.resourceUrl !== undefined && offer.payload.resourceUrl !== opts.resourceUrl) return { ok: false, problem: `the offer is for ${offer.payload.resourceUrl}, not ${opts.resourceUrl}` };
  if (offer.payload.validUntil !== 0 && opts.nowSeconds > offer.payload.validUntil) return { ok: false, problem: `the offer expired at ${offer.payload.validUntil}`, expired: offer.payload };
  return { ok: true, offer: offer.payload };
}

/**
 * Check one composite step's signed commitment against the step's output (as
 * found in the execution's `result.results`). The outer PAYMENT-RESPONSE
 * receipt binds the whole body these steps sit in to the payment.
 */
export async function verifyStep(signed: unknown, opts: { signer: string; output: unknown; input?: unknown }): Promise<{ ok: boolean; problem?: string }> {
  const s = signedOf<StepPayload>(signed, STEP_FIELDS);
  if (!s) return { ok: false, problem: 'not an EIP-712 step commitment' };
  const by = await recover({ domain: STEP_DOMAIN, types: STEP_TYPES, primaryType: 'Step', message: stepMessage(s.payload), signature: s.signature });
  if (!by || !same(by, opts.signer)) return { ok: false, problem: 'the step is not signed by this service' };
  if (s.payload.outputSha256 !== bytes32(sha256Hex(canonicalJson(opts.output)))) return { ok: false, problem: 'the step output differs from the signed one' };
  if (opts.input !== undefined && s.payload.inputSha256 !== bytes32(sha256Hex(canonicalJson(opts.input)))) return { ok: false, problem: 'the step input differs from the signed one' };
  return { ok: true };
}
