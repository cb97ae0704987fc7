/**
 * The operator's key as the paid flow's two hooks (payments/paid-flow.ts):
 * each delivery's signed receipt, and the check of a signed quote offer a
 * buyer hands back. The flow decides when to call them; what is signed and
 * how it verifies lives here.
 */
import type { OfferVerifier, ReceiptHook } from '../payments/paid-flow.js';
import { OFFER_RECEIPT } from './formats.js';
import type { CommitmentSigner } from './signer.js';
import { verifyQuoteOffer } from './verify.js';

/** The receipt in PAYMENT-RESPONSE's `extensions["offer-receipt"]`. */
export function receiptHook(signer: CommitmentSigner): ReceiptHook {
  return async (delivery) => ({ [OFFER_RECEIPT]: await signer.receipt(delivery) });
}

/** A signed offer is honoured only when this service signed it, for this route and this very body. */
export function offerVerifier(signer: CommitmentSigner): OfferVerifier {
  return async (signed, against) => {
    const check = await verifyQuoteOffer(signed, { signer: signer.address, ...against });
    if (check.ok) return { ok: true, offer: { amount: check.offer.amount, validUntil: check.offer.validUntil } };
    return { ok: false, problem: check.problem, ...(check.expired && { expired: { amount: check.expired.amount, validUntil: check.expired.validUntil } }) };
  };
}
