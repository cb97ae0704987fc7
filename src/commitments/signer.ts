/**
 * The operator's signing key (X402_SIGNING_KEY) and the three things it
 * signs: receipts bound to a delivery, offers bound to a quoted body, and the
 * steps of a composite execution. Everything signed is a pure function of
 * its facts, so the same delivery always gets the same receipt (ECDSA
 * signatures here are deterministic, RFC 6979).
 */
import { privateKeyToAccount } from 'viem/accounts';
import { sha256Hex } from '../foundation/canonical-json.js';
import type { DeliveryFacts } from '../payments/paid-flow.js';
import { createTypedSigner } from './typed-signer.js';
import {
  BOUND_OFFER_TYPES,
  BOUND_RECEIPT_TYPES,
  OFFER_BINDING_DOMAIN,
  OFFER_DOMAIN,
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
  type OfferPayload,
  type ReceiptExtension,
  type Signed,
  type SignedQuoteOffer,
  type StepPayload,
} from './formats.js';

/** What a paid delivery is: enough to sign its receipt, all of it stored in the ledger (the paid flow's facts). */
export type Delivery = DeliveryFacts;

/** What a quote offers: the offer payload's terms (its version is the format's) bound to the quoted body. */
export type QuotedOffer = Omit<OfferPayload, 'version'> & {
  /** Hex SHA-256 of the canonical JSON of the native body. */
  bodySha256: string;
};

export interface CommitmentSigner {
  /** The address every signature recovers to; published in the discovery documents. */
  readonly address: Hex;
  receipt(d: Delivery): Promise<ReceiptExtension>;
  offer(o: QuotedOffer): Promise<SignedQuoteOffer>;
  step(s: StepPayload): Promise<Signed<StepPayload>>;
}

/** Repeated identical requests (redelivery, the same quote) reuse a signature instead of signing the same facts again (decision 0014). */
class Memo<V> {
  private readonly map = new Map<string, Promise<V>>();
  constructor(private readonly max: number) {}
  get(key: string, make: () => Promise<V>): Promise<V> {
    let v = this.map.get(key);
    if (v) return v;
    v = make();
    if (this.map.size >= this.max) this.map.delete(this.map.keys().next().value!);
    this.map.set(key, v);
    v.catch(() => this.map.delete(key));
    return v;
  }
}

export function createCommitmentSigner(privateKey: Hex): CommitmentSigner {
  const account = privateKeyToAccount(privateKey);
  // EIP-712 with the domain separators and type hashes computed once (typed-signer.ts); same bytes as viem's.
  const typed = createTypedSigner(privateKey);
  const offers = new Memo<Signed<OfferPayload>>(256);
  const receipts = new Memo<ReceiptExtension>(256);
  return {
    address: account.address,
    receipt(d) {
      const payload = { version: 1 as const, network: d.network, resourceUrl: d.resourceUrl, payer: d.payer, issuedAt: d.issuedAt, transaction: d.transaction };
      const binding = { amount: d.amount, requestFingerprint: bytes32(d.requestFingerprint), responseSha256: bytes32(d.responseSha256 ?? sha256Hex(d.responseBody)) };
      const key = JSON.stringify([payload, binding]);
      return receipts.get(key, async () => {
        const receiptSig = typed.sign(RECEIPT_DOMAIN, RECEIPT_TYPES, 'Receipt', receiptMessage(payload));
        const bindingSig = typed.sign(RECEIPT_BINDING_DOMAIN, BOUND_RECEIPT_TYPES, 'BoundReceipt', boundReceiptMessage(payload, binding));
        return { info: { receipt: { format: 'eip712', payload, signature: receiptSig }, binding: { format: 'eip712', payload: binding, signature: bindingSig } } };
      });
    },
    async offer(o) {
      const payload: OfferPayload = { version: 1, resourceUrl: o.resourceUrl, scheme: o.scheme, network: o.network, asset: o.asset, payTo: o.payTo, amount: o.amount, validUntil: o.validUntil };
      const binding = { bodySha256: bytes32(o.bodySha256) };
      // The plain offer depends only on the route, price and validity: signed once per validity window.
      const offerSigned = offers.get(JSON.stringify(payload), async () => ({
        format: 'eip712' as const,
        payload,
        signature: typed.sign(OFFER_DOMAIN, OFFER_TYPES, 'Offer', offerMessage(payload)),
      }));
      const bindingSig = typed.sign(OFFER_BINDING_DOMAIN, BOUND_OFFER_TYPES, 'BoundOffer', boundOfferMessage(payload, binding));
      return { offer: await offerSigned, binding: { format: 'eip712', payload: binding, signature: bindingSig } };
    },
    async step(s) {
      return { format: 'eip712', payload: s, signature: typed.sign(STEP_DOMAIN, STEP_TYPES, 'Step', stepMessage(s)) };
    },
  };
}
