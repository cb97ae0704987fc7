/**
 * The EVM chain: x402 `exact` payments as EIP-3009 authorizations
 * (authorization.ts), the chain read through `ChainReader` (chain.ts, or
 * `ScriptedChain` in tests).
 */
import type { Hex } from 'viem';
import { authorizationOf, authorizationTypedData, checkAuthorization, ecdsaSignatureCheck, signedContent, type BoundPayment } from '../authorization.js';
import type { ChainReader } from '../chain.js';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import type { Authorization, BoundAttempt, ChainFate, CheckLimits, LocalCheck, PaymentChain } from './payment-chain.js';

function authorization(bound: BoundPayment): Authorization {
  const a = bound.authorization;
  return {
    payer: a.from,
    ledgerPayer: a.from.toLowerCase(),
    nonce: a.nonce,
    validBefore: Number(a.validBefore),
    payload: bound.payload,
    signed: signedContent(bound),
  };
}

export class EvmChain implements PaymentChain {
  constructor(
    readonly network: string,
    private readonly reader: ChainReader,
  ) {}

  ledgerForm(address: string): string {
    return address.toLowerCase();
  }

  async check(payment: PaymentPayload, requirements: PaymentRequirements, nowSeconds: number, limits: CheckLimits): Promise<LocalCheck> {
    const checked = checkAuthorization(payment, requirements, nowSeconds, limits);
    if (!checked.ok) return checked;
    const bound = checked.bound;
    let signature = await ecdsaSignatureCheck(bound, requirements);
    if (signature === 'contract') {
      // Smart-wallet signatures (ERC-1271 / ERC-6492) are checked by the chain, still before any write.
      try {
        const typed = authorizationTypedData(bound.authorization, requirements);
        signature = (await this.reader.verifyTypedData(bound.authorization.from, typed as never, bound.signature)) ? 'valid' : 'invalid';
      } catch {
        return { ok: false, code: 'service_unavailable', message: 'The smart-wallet signature could not be checked (chain unreachable); nothing was charged. Retry later.' };
      }
    }
    if (signature !== 'valid') return { ok: false, code: 'payment_invalid', message: 'The authorization\'s signature is not a valid EIP-712 signature by its `from` address.' };
    return { ok: true, authorization: authorization(bound), notNew: checked.notNew };
  }

  stored(payload: string): Authorization {
    const p = JSON.parse(payload) as PaymentPayload;
    const parsed = authorizationOf(p)!;
    return authorization({ payload: p, ...parsed });
  }

  async fate(a: BoundAttempt): Promise<ChainFate> {
    const st = await this.reader.authorizationState(a.asset as Hex, a.payer as Hex, a.nonce as Hex);
    if (st.used) {
      const tx = await this.reader.authorizationTransaction(a.asset as Hex, a.payer as Hex, a.nonce as Hex).catch(() => undefined);
      return { kind: 'used', transaction: tx };
    }
    // Later blocks are never older: unused at a block at or past validBefore is unused forever.
    return st.blockTime >= a.validBefore ? { kind: 'dead' } : { kind: 'open' };
  }
}
