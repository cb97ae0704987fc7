/** How to pay any paid resource of this service: the one sentence every surface quotes. */
export const HOW_TO_PAY =
  'x402 v2: call without payment to get 402 with a PAYMENT-REQUIRED header; base64-decode it, sign accepts[0] as an EIP-3009 transferWithAuthorization (scheme "exact"), and repeat the identical request with the PAYMENT-SIGNATURE header. The 200 carries the result and a PAYMENT-RESPONSE receipt; repeating the same request with the same payment returns them again. Any x402 v2 client (e.g. @x402/fetch) does this for you.';
