/**
 * The a2a-x402 extension (v0.2, standalone flow) as this service speaks it:
 * the metadata keys and payment states the spec defines, and the translation
 * of the payment gate's outcome into a task status. The spec's examples are
 * x402 v1; every x402 object here is v2 (PaymentRequired, PaymentPayload,
 * SettleResponse), the only version the gate speaks.
 */
import type { ErrorCode } from '../errors.js';
import type { GateOutcome } from '../payments/gate.js';
import type { PaidAnswer } from '../payments/paid-flow.js';

/** Metadata keys of the spec (§7), on `task.status.message.metadata` and the client's `message.metadata`. */
export const X402_STATUS = 'x402.payment.status';
export const X402_REQUIRED = 'x402.payment.required';
export const X402_PAYLOAD = 'x402.payment.payload';
export const X402_RECEIPTS = 'x402.payment.receipts';
export const X402_ERROR = 'x402.payment.error';
/** Ours, beside the spec's keys: a redelivery's proof of the payer's key, the SIGN-IN-WITH-X value (base64 JSON) the requirement's challenge asked for. */
export const X402_SIGN_IN = 'x402.sign-in-with-x';
/** A router quote's signed offer for the skill's arguments (the object HTTP sends base64 in X-Signed-Offer): its amount is the price. */
export { SIGNED_OFFER_A2A_METADATA as X402_SIGNED_OFFER } from '../commitments/formats.js';

export type X402PaymentStatus = 'payment-required' | 'payment-submitted' | 'payment-rejected' | 'payment-verified' | 'payment-completed' | 'payment-failed';

/** Where a paid call stands after one message, in the task's terms. */
export type PaidStep =
  /** Waiting for a (new or repeated) payment: the task stays input-required. */
  | { state: 'input-required'; text: string; metadata: Record<string, unknown> }
  | { state: 'completed'; text: string; metadata: Record<string, unknown>; resultJson: string }
  /** Nothing was charged and the same input cannot be delivered: the task ends. */
  | { state: 'failed'; text: string; metadata: Record<string, unknown> };

/**
 * The gate's codes after which the same task cannot succeed: the handler
 * could not produce a result for this input (nothing was charged). Every
 * other refusal leaves the task waiting, so the buyer can repeat the same
 * payment (503, 409) or send a new one (402).
 */
/** How to pay over A2A: the a2a-x402 extension's payment message, not an HTTP header. */
export const A2A_HOW_TO_PAY = `To pay over A2A (the a2a-x402 extension): sign one of the accepts in this message's metadata "${X402_REQUIRED}" with an x402 v2 client (scheme "exact"), then send a message on this task (same taskId) whose metadata has "${X402_STATUS}": "payment-submitted" and "${X402_PAYLOAD}": the signed PaymentPayload. The completed task carries the result and "${X402_RECEIPTS}". Lost it? Send the same skill call again (the same input) without a payment and with "${X402_SIGN_IN}": a sign-in by the wallet that paid over the sign-in-with-x declaration of any "${X402_REQUIRED}" for it (the SDK's createSIWxPayload and encodeSIWxHeader make it; each sign-in is used once), and the result and receipts come again at no charge. Sending the same payment message again returns them only with that sign-in or the payment-identifier extension in that PaymentPayload as first sent; the payment alone gets redelivery_proof_required: it is public on chain once settled.`;

const FINAL_CODES: ReadonlySet<ErrorCode> = new Set(['handler_failed', 'handler_over_budget']);

/** Where the flow's answer leaves the task (an answer refusing the input itself never reaches a task: it is rejected). */
export function paidStep(outcome: PaidAnswer | GateOutcome): PaidStep {
  switch (outcome.kind) {
    case 'invalid': {
      // A payment that could not be read: say why, and offer the requirement again.
      const again = outcome.requirement && paidStep(outcome.requirement);
      return { state: 'input-required', text: outcome.body.error.message, metadata: { ...again?.metadata, [X402_STATUS]: 'payment-failed', [X402_ERROR]: outcome.body.error.code } };
    }
    case 'challenge': {
      const required = outcome.paymentRequired;
      if (outcome.code === 'payment_required') {
        return { state: 'input-required', text: `${outcome.price ?? 'Payment required.'} ${A2A_HOW_TO_PAY}`, metadata: { [X402_STATUS]: 'payment-required', [X402_REQUIRED]: required } };
      }
      // The payment was refused (invalid, expired, or its settlement failed): say why, and offer the requirement again.
      return {
        state: 'input-required',
        text: outcome.message,
        metadata: {
          [X402_STATUS]: 'payment-failed',
          [X402_ERROR]: outcome.code,
          [X402_REQUIRED]: required,
          ...(outcome.paymentResponse ? { [X402_RECEIPTS]: [outcome.paymentResponse] } : {}),
        },
      };
    }
    case 'deliver':
      return {
        state: 'completed',
        text: outcome.replayed ? 'Paid earlier with this payment; the stored result is returned and nothing was charged again.' : 'Payment settled.',
        metadata: { [X402_STATUS]: 'payment-completed', [X402_RECEIPTS]: [outcome.paymentResponse] },
        resultJson: outcome.response.body,
      };
    case 'refuse': {
      const metadata = {
        [X402_STATUS]: 'payment-failed',
        [X402_ERROR]: outcome.code,
        ...(outcome.retryAfterSeconds !== undefined ? { retry_after_seconds: outcome.retryAfterSeconds } : {}),
      };
      return { state: FINAL_CODES.has(outcome.code) ? 'failed' : 'input-required', text: outcome.message, metadata };
    }
  }
}
