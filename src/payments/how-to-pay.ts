/**
 * What resending a paid request takes, in the words every text that speaks of
 * it uses (the 402 body, llms.txt, the front page, OpenAPI, the gate's
 * retry messages; README.md quotes RESEND_NEEDS_PROOF verbatim). Once
 * settled, a payment's signature is public calldata, so a resend proves
 * nothing by itself (redelivery.ts): a plain client that only repeats its
 * PAYMENT-SIGNATURE gets 402 redelivery_proof_required, and no text may
 * promise it more.
 */
export const RESEND_PROOF =
  'the payment-identifier extension sent with the original payment (x402 clients add it only when you register it), or a SIGN-IN-WITH-X header signed by the paying wallet over the sign-in-with-x challenge of the 402 redelivery_proof_required that a resend without proof gets, or with MPP the same Authorization: Payment credential';

export const RESEND_NEEDS_PROOF = `Lost the answer? Resend the same request with the same payment and one proof that you are its buyer, and you get the same result without paying twice: ${RESEND_PROOF}. The same PAYMENT-SIGNATURE alone gets only that 402: its signature is public on chain once settled.`;

/** How to pay any paid resource of this service: the one sentence every surface quotes. */
export const HOW_TO_PAY = `x402 v2: call without payment to get 402 with a PAYMENT-REQUIRED header; base64-decode it, sign accepts[0] as an EIP-3009 transferWithAuthorization (scheme "exact"), and repeat the identical request with the PAYMENT-SIGNATURE header. The 200 carries the result and a PAYMENT-RESPONSE receipt. Any x402 v2 client (e.g. @x402/fetch) does this for you. ${RESEND_NEEDS_PROOF}`;
