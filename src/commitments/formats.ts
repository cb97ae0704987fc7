/**
 * What this service signs, as EIP-712 typed data: the x402 `offer-receipt`
 * extension's two artifacts (spec: coinbase/x402
 * specs/extensions/extension-offer-and-receipt.md, v1.0, §3.2, §4.3, §5.3)
 * and our two bindings, which the extension lacks: a receipt bound to the
 * request and to the exact response bytes, and an offer bound to the body it
 * quotes.
 *
 * A binding is a second signature, by the same key, over the artifact's own
 * fields plus the hashes; on the wire it carries only what the artifact does
 * not (`{format, payload: {the extra fields}, signature}`), so the standard
 * artifact stays exactly the extension's (any offer-receipt verifier checks
 * it) and the binding is checked by rebuilding the message from both
 * payloads. Changing any type below breaks every signature already issued:
 * bump the domain version instead.
 */

export const OFFER_RECEIPT = 'offer-receipt';
/** Request header carrying a quote's signed offer (base64 JSON `{offer, binding}`), honoured until its validUntil. */
export const SIGNED_OFFER_HEADER = 'X-Signed-Offer';
/** The same offer over MCP, in the tool call's `_meta` (the object, not base64). */
export const SIGNED_OFFER_MCP_META = 'x402/signed-offer';
/** The same offer over A2A, in the message's metadata (the object), on the asking and the paying message. */
export const SIGNED_OFFER_A2A_METADATA = 'x402.signed-offer';

/** The extension's constant domain: EIP-712 as an off-chain format, chainId fixed to 1 whatever the payment network (§3.2). */
export const OFFER_DOMAIN = { name: 'x402 offer', version: '1', chainId: 1 } as const;
export const RECEIPT_DOMAIN = { name: 'x402 receipt', version: '1', chainId: 1 } as const;
/** Our bindings' domains, distinct so a binding can never be replayed as an artifact or the other way round. */
export const RECEIPT_BINDING_DOMAIN = { name: 'x402 receipt content binding', version: '1', chainId: 1 } as const;
export const OFFER_BINDING_DOMAIN = { name: 'x402 offer body binding', version: '1', chainId: 1 } as const;
export const STEP_DOMAIN = { name: 'x402 composite step', version: '1', chainId: 1 } as const;

const OFFER_FIELDS = [
  { name: 'version', type: 'uint256' },
  { name: 'resourceUrl', type: 'string' },
  { name: 'scheme', type: 'string' },
  { name: 'network', type: 'string' },
  { name: 'asset', type: 'string' },
  { name: 'payTo', type: 'string' },
  { name: 'amount', type: 'string' },
  { name: 'validUntil', type: 'uint256' },
] as const;

const RECEIPT_FIELDS = [
  { name: 'version', type: 'uint256' },
  { name: 'network', type: 'string' },
  { name: 'resourceUrl', type: 'string' },
  { name: 'payer', type: 'string' },
  { name: 'issuedAt', type: 'uint256' },
  { name: 'transaction', type: 'string' },
] as const;

export const OFFER_TYPES = { Offer: OFFER_FIELDS } as const;
export const RECEIPT_TYPES = { Receipt: RECEIPT_FIELDS } as const;
export const BOUND_RECEIPT_TYPES = {
  BoundReceipt: [
    ...RECEIPT_FIELDS,
    { name: 'amount', type: 'string' },
    { name: 'requestFingerprint', type: 'bytes32' },
    { name: 'responseSha256', type: 'bytes32' },
  ],
} as const;
export const BOUND_OFFER_TYPES = { BoundOffer: [...OFFER_FIELDS, { name: 'bodySha256', type: 'bytes32' }] } as const;
/** One step of a composite execution: what ran on which input, giving which output (the outer receipt names the payment). */
export const STEP_TYPES = {
  Step: [
    { name: 'executionId', type: 'string' },
    { name: 'step', type: 'uint256' },
    { name: 'capabilityId', type: 'string' },
    { name: 'route', type: 'string' },
    { name: 'inputSha256', type: 'bytes32' },
    { name: 'outputSha256', type: 'bytes32' },
  ],
} as const;

/** Hex strings as they travel: 0x-prefixed, lower-case. */
export type Hex = `0x${string}`;

/** §4.2: the offer payload (EIP-712 `Offer`); `validUntil` 0 means none. */
export interface OfferPayload {
  version: 1;
  resourceUrl: string;
  scheme: string;
  network: string;
  asset: string;
  payTo: string;
  amount: string;
  validUntil: number;
}

/** §5.2: the receipt payload (EIP-712 `Receipt`); `transaction` "" means none (ours always names it). */
export interface ReceiptPayload {
  version: 1;
  network: string;
  resourceUrl: string;
  payer: string;
  issuedAt: number;
  transaction: string;
}

export interface ReceiptBindingPayload {
  /** The amount charged, atomic units of the asset. */
  amount: string;
  /** The ledger's request fingerprint: SHA-256 of `<resource id>\n<canonical JSON of the validated input>`. */
  requestFingerprint: Hex;
  /** SHA-256 of the exact response body bytes. */
  responseSha256: Hex;
}

export interface OfferBindingPayload {
  /** SHA-256 of the canonical JSON of the native body the offer prices. */
  bodySha256: Hex;
}

export interface StepPayload {
  executionId: string;
  step: number;
  capabilityId: string;
  /** `POST /x402/v1/…`: the native route the step's handler serves. */
  route: string;
  /** SHA-256 of the RFC 8785 canonical JSON of the step's validated input. */
  inputSha256: Hex;
  /** SHA-256 of the canonical JSON of the step's output. */
  outputSha256: Hex;
}

export interface Signed<P> {
  format: 'eip712';
  payload: P;
  signature: Hex;
}

/** What `PAYMENT-RESPONSE`'s `extensions["offer-receipt"]` holds: the extension's `info.receipt` (§5.1) and our `info.binding`. */
export interface ReceiptExtension {
  info: { receipt: Signed<ReceiptPayload>; binding: Signed<ReceiptBindingPayload> };
}

/** A quote step's signed offer: the extension's offer and our binding to the quoted body. */
export interface SignedQuoteOffer {
  offer: Signed<OfferPayload>;
  binding: Signed<OfferBindingPayload>;
}

/** EIP-712 messages take integers as bigint. */
export const offerMessage = (p: OfferPayload) => ({ ...p, version: BigInt(p.version), validUntil: BigInt(p.validUntil) });
export const receiptMessage = (p: ReceiptPayload) => ({ ...p, version: BigInt(p.version), issuedAt: BigInt(p.issuedAt) });
export const boundReceiptMessage = (p: ReceiptPayload, b: ReceiptBindingPayload) => ({ ...receiptMessage(p), ...b });
export const boundOfferMessage = (p: OfferPayload, b: OfferBindingPayload) => ({ ...offerMessage(p), ...b });
export const stepMessage = (p: StepPayload) => ({ ...p, step: BigInt(p.step) });

/** A hex SHA-256 digest (as the ledger writes it) as an EIP-712 bytes32. */
export const bytes32 = (hexDigest: string): Hex => `0x${hexDigest.replace(/^0x/, '').toLowerCase()}`;
