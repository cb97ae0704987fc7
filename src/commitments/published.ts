/**
 * How the discovery documents announce the signer: the one address a buyer
 * checks receipts and offers against (spec §4.5.1 leaves signer authorization
 * to the service; ours is "the address published in /.well-known/x402 and the
 * agent card, fetched over the same origin"). Without a key they say plainly
 * that nothing is signed.
 */
import { OFFER_RECEIPT } from './formats.js';

const OFFER_RECEIPT_SPEC = 'https://github.com/coinbase/x402/blob/main/specs/extensions/extension-offer-and-receipt.md';

export type SigningInfo =
  | {
      extension: typeof OFFER_RECEIPT;
      spec: string;
      format: 'eip712';
      signer: string;
      receipts: string;
      offers: string;
      verify: string;
    }
  | { extension: typeof OFFER_RECEIPT; spec: string; signer: null; note: string };

export function signingInfo(signerAddress: string | undefined): SigningInfo {
  if (!signerAddress) {
    return {
      extension: OFFER_RECEIPT,
      spec: OFFER_RECEIPT_SPEC,
      signer: null,
      note: 'This instance has no signing key (X402_SIGNING_KEY): paid responses carry the settlement receipt only, and router quotes carry no signed offers.',
    };
  }
  return {
    extension: OFFER_RECEIPT,
    spec: OFFER_RECEIPT_SPEC,
    format: 'eip712',
    signer: signerAddress,
    receipts:
      'Every paid 200 carries in PAYMENT-RESPONSE extensions["offer-receipt"].info a receipt (the extension\'s, with the transaction) and a content binding signed by the same key over the receipt fields, the amount, the request fingerprint (SHA-256 of "<resource id>\\n" + RFC 8785 canonical JSON of the validated input) and the SHA-256 of the exact response bytes. Redelivery of the same payment carries the same receipt.',
    offers:
      'Router quotes carry per step an offer (the extension\'s, with validUntil) and a binding to the SHA-256 of the canonical native body; send it base64 in X-Signed-Offer with that body before validUntil and the signed amount is the price.',
    verify: 'verifyReceipt() in src/commitments/verify.ts, or npm run verify-receipt -- FILE',
  };
}

/** The A2A agent card extension entry naming the signer (A2A AgentExtension: uri, description, required, params). */
export function agentCardSigningExtension(signerAddress: string | undefined) {
  const info = signingInfo(signerAddress);
  return {
    uri: OFFER_RECEIPT_SPEC,
    description: 'note' in info ? info.note : `Signed receipts bound to request and response bytes, and signed quote offers (EIP-712), by ${info.signer}.`,
    required: false,
    params: { signer: info.signer },
  };
}
