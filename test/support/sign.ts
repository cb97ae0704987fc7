/**
 * Hand-made EIP-3009 authorizations for attack tests (expired, tampered):
 * the official client only ever signs well-formed ones.
 */
import { randomBytes } from 'node:crypto';
import { privateKeyToAccount } from 'viem/accounts';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import type { DevnetAccount } from '../../devnet/index.js';
import { authorizationTypedData } from '../../src/payments/authorization.js';

export async function signAuthorization(
  buyer: DevnetAccount,
  req: PaymentRequirements,
  opts: { validAfter?: bigint; validBefore?: bigint; value?: string; to?: string; nonce?: `0x${string}`; chainId?: number } = {},
): Promise<PaymentPayload> {
  const account = privateKeyToAccount(buyer.privateKey);
  const now = BigInt(Math.floor(Date.now() / 1000));
  const authorization = {
    from: account.address,
    to: (opts.to ?? req.payTo) as `0x${string}`,
    value: BigInt(opts.value ?? req.amount),
    validAfter: opts.validAfter ?? now - 600n,
    validBefore: opts.validBefore ?? now + 300n,
    nonce: opts.nonce ?? (`0x${randomBytes(32).toString('hex')}` as `0x${string}`),
  };
  // The service's own EIP-712 definition: the facilitator that verifies these in the e2e tests checks it too.
  const typed = authorizationTypedData(
    { ...authorization, value: String(authorization.value), validAfter: String(authorization.validAfter), validBefore: String(authorization.validBefore) },
    opts.chainId === undefined ? req : { ...req, network: `eip155:${opts.chainId}` },
  );
  const signature = await account.signTypedData(typed);
  return {
    x402Version: 2,
    accepted: req,
    payload: {
      signature,
      authorization: {
        from: authorization.from,
        to: authorization.to,
        value: authorization.value.toString(),
        validAfter: authorization.validAfter.toString(),
        validBefore: authorization.validBefore.toString(),
        nonce: authorization.nonce,
      },
    },
  };
}
