/**
 * A scriptable stand-in for the payment rail and the chain, beside the real
 * ones (`rail.ts`, `chain.ts`), so every transition of the gate can be
 * driven in a fast unit test: answers are queued per call, and the chain's
 * state is a map the test sets. The end-to-end tests use the real devnet.
 */
import type { Hex } from 'viem';
import type { AuthorizationState, ChainReader } from './chain.js';
import type { GateRail } from './gate.js';
import type { PaymentPayload, PaymentRequired, PaymentRequirements, SettleOutcome, VerifyOutcome } from './rail.js';

type Scripted<T> = T | Error | ((payload: PaymentPayload) => T | Promise<T>);

export const SCRIPTED_ASSET = '0x5FbDB2315678afecb367f032d93F642f64180aa3' as Hex;
export const SCRIPTED_PAY_TO = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' as Hex;

export class ScriptedChain implements ChainReader {
  /** nonce (lower case) → transaction hash, for authorizations used on chain. */
  readonly used = new Map<string, Hex | undefined>();
  /** Timestamp of the "latest block". */
  blockTime = 0;
  /** When set, every read throws it (an unreachable RPC). */
  failure: Error | undefined;
  smartWalletAnswer: boolean | Error = false;
  reads = 0;

  async authorizationState(_asset: Hex, _authorizer: Hex, nonce: Hex): Promise<AuthorizationState> {
    this.reads++;
    if (this.failure) throw this.failure;
    return { used: this.used.has(nonce.toLowerCase()), blockTime: this.blockTime };
  }

  async authorizationTransaction(_asset: Hex, _authorizer: Hex, nonce: Hex): Promise<Hex | undefined> {
    if (this.failure) throw this.failure;
    return this.used.get(nonce.toLowerCase());
  }

  async verifyTypedData(): Promise<boolean> {
    if (this.smartWalletAnswer instanceof Error) throw this.smartWalletAnswer;
    return this.smartWalletAnswer;
  }
}

export class ScriptedRail implements GateRail {
  ready = true;
  readonly payment = {
    network: 'eip155:31337',
    payTo: SCRIPTED_PAY_TO,
    asset: { address: SCRIPTED_ASSET, name: 'USD Coin', version: '2', decimals: 6, symbol: 'USDC' },
    maxTimeoutSeconds: 300,
  };
  readonly chain = new ScriptedChain();
  /** Answers for the next verify / settle calls, in order; when empty, the defaults below. */
  readonly verifyAnswers: Array<Scripted<VerifyOutcome>> = [];
  readonly settleAnswers: Array<Scripted<SettleOutcome>> = [];
  /** Payloads the gate sent, per call. */
  readonly verified: PaymentPayload[] = [];
  readonly settled: PaymentPayload[] = [];
  requirementsFailure: Error | undefined;
  private txCounter = 0;

  async requirements(priceAtomic: string): Promise<PaymentRequirements[]> {
    if (this.requirementsFailure) throw this.requirementsFailure;
    return [
      {
        scheme: 'exact',
        network: this.payment.network as `${string}:${string}`,
        amount: priceAtomic,
        asset: SCRIPTED_ASSET,
        payTo: SCRIPTED_PAY_TO,
        maxTimeoutSeconds: this.payment.maxTimeoutSeconds,
        extra: { name: 'USD Coin', version: '2' },
      },
    ];
  }

  async paymentRequired(
    requirements: PaymentRequirements[],
    resource: { url: string; description: string; mimeType: string },
    error?: string,
    extra: Record<string, unknown> = {},
  ): Promise<PaymentRequired> {
    return { x402Version: 2, ...(error ? { error } : {}), resource, accepts: requirements, extensions: extra } as PaymentRequired;
  }

  match(requirements: PaymentRequirements[], payload: PaymentPayload): PaymentRequirements | undefined {
    const a = payload.accepted as PaymentRequirements | undefined;
    return requirements.find((r) => a && r.scheme === a.scheme && r.network === a.network && r.amount === a.amount && r.asset === a.asset && r.payTo === a.payTo);
  }

  async verify(payload: PaymentPayload): Promise<VerifyOutcome> {
    this.verified.push(payload);
    const next = this.verifyAnswers.shift();
    if (next === undefined) return { kind: 'valid', response: { isValid: true, payer: this.from(payload) } };
    return this.answer(next, payload);
  }

  /** Default: the transfer is mined and the chain records it. */
  async settle(payload: PaymentPayload): Promise<SettleOutcome> {
    this.settled.push(payload);
    const next = this.settleAnswers.shift();
    if (next === undefined) return this.mine(payload);
    return this.answer(next, payload);
  }

  /** Record the payload's authorization as used on chain and answer like a facilitator that saw it mined. */
  mine(payload: PaymentPayload): SettleOutcome {
    const tx = ('0x' + (++this.txCounter).toString(16).padStart(64, '0')) as Hex;
    this.chain.used.set(this.nonce(payload), tx);
    return { kind: 'settled', response: { success: true, transaction: tx, network: this.payment.network as `${string}:${string}`, payer: this.from(payload) } };
  }

  nonce(payload: PaymentPayload): string {
    return String((payload.payload as { authorization: { nonce: string } }).authorization.nonce).toLowerCase();
  }

  private from(payload: PaymentPayload): string {
    return String((payload.payload as { authorization: { from: string } }).authorization.from);
  }

  private async answer<T>(next: Scripted<T>, payload: PaymentPayload): Promise<T> {
    if (next instanceof Error) throw next;
    if (typeof next === 'function') return (next as (p: PaymentPayload) => T | Promise<T>)(payload);
    return next;
  }
}
