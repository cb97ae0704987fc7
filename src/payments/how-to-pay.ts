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
  'a sign-in by the wallet that paid: sign the sign-in-with-x declaration of any 402 of the resource and send the same request with the SIGN-IN-WITH-X header and no payment (wrapFetchWithSIWx of @x402/extensions, or an x402 client with its sign-in hook createSIWxClientHook, does this; each sign-in is used once); or the same payment with the payment-identifier extension it was sent with (x402 clients add it only when you register it); or over MPP the same Authorization: Payment credential';

export const RESEND_NEEDS_PROOF = `Lost the answer? Get the same result again without paying twice, with one proof that you are its buyer: ${RESEND_PROOF}. The same PAYMENT-SIGNATURE alone gets 402 redelivery_proof_required: its signature is public on chain once settled.`;

/** How to pay any paid resource of this service: the one sentence every surface quotes. */
export const HOW_TO_PAY = `x402 v2: call without payment to get 402 with a PAYMENT-REQUIRED header; base64-decode it, sign one of its accepts (scheme "exact": an EIP-3009 transferWithAuthorization on EVM, a token transfer on Solana; Prefer: network=solana lists Solana first), and repeat the identical request with the PAYMENT-SIGNATURE header. The 200 carries the result and a PAYMENT-RESPONSE receipt. Any x402 v2 client (e.g. @x402/fetch) does this for you. ${RESEND_NEEDS_PROOF}`;
