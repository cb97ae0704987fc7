/**
 * A scriptable stand-in for the payment rail and the chain (the real ones are
 * src/payments/rail.ts and chain.ts), so every transition of the gate can be
 * driven in a fast unit test: answers are queued per call, and the chain's
 * state is a map the test sets. The end-to-end tests use the real devnet.
 */
import type { Hex } from 'viem';
import type { AuthorizationState, ChainReader } from '../../src/payments/chain.js';
import { EvmChain } from '../../src/payments/chains/evm.js';
import type { PaymentChain } from '../../src/payments/chains/payment-chain.js';
import { SvmChain, type SvmChainReader, type SvmTransactionFound } from '../../src/payments/chains/svm.js';
import { readTransaction, toBase58 } from '../../src/payments/chains/svm-transaction.js';
import type { GateRail } from '../../src/payments/gate.js';
import type { RailOffer } from '../../src/payments/rails.js';
import type { PaymentPayload, PaymentRequired, PaymentRequirements, SettleOutcome, VerifyOutcome } from '../../src/payments/rail.js';

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

/** The Solana chain as a map the test sets: buyer signature → the landed transaction; blockhashes that expired. */
export class ScriptedSvmReader implements SvmChainReader {
  readonly landed = new Map<string, SvmTransactionFound>();
  readonly expired = new Set<string>();
  /** When set, every read throws it (an unreachable RPC). */
  failure: Error | undefined;
  reads = 0;

  async blockhashValid(blockhash: string): Promise<boolean> {
    this.reads++;
    if (this.failure) throw this.failure;
    return !this.expired.has(blockhash);
  }

  async findTransaction(buyerSignature: string): Promise<SvmTransactionFound | undefined> {
    if (this.failure) throw this.failure;
    return this.landed.get(buyerSignature);
  }
}

/** The scripted rail's Solana side: who is paid, in which mint, with which fee payer. */
export interface ScriptedSolana {
  network: string;
  payTo: string;
  mint: string;
  feePayer: string;
  reader: ScriptedSvmReader;
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
  /** Set by `withSolana`: a second rail in every 402. */
  solana: ScriptedSolana | undefined;
  private svmChain: SvmChain | undefined;

  get offers(): RailOffer[] {
    const evm = { network: this.payment.network, payTo: this.payment.payTo, asset: this.payment.asset };
    return this.solana ? [evm, { network: this.solana.network, payTo: this.solana.payTo, asset: { address: this.solana.mint, symbol: 'USDC', decimals: 6 } }] : [evm];
  }

  /** Offer Solana too (payments checked by the real SvmChain, the chain read from `solana.reader`). */
  withSolana(solana: ScriptedSolana): this {
    this.solana = solana;
    this.svmChain = new SvmChain(solana.network, solana.payTo, { mint: solana.mint, decimals: 6 }, solana.reader);
    return this;
  }

  chainFor(network: string): PaymentChain | undefined {
    if (network === this.payment.network) return new EvmChain(network, this.chain);
    return network === this.solana?.network ? this.svmChain : undefined;
  }
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
    const sol = this.solana;
    const solana: PaymentRequirements[] = sol
      ? [{ scheme: 'exact', network: sol.network as `${string}:${string}`, amount: priceAtomic, asset: sol.mint, payTo: sol.payTo, maxTimeoutSeconds: this.payment.maxTimeoutSeconds, extra: { feePayer: sol.feePayer } }]
      : [];
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
      ...solana,
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
    const n = ++this.txCounter;
    const network = (payload.accepted as PaymentRequirements).network;
    if (this.solana && network === this.solana.network) {
      const signature = `ScriptedSolanaTx${n}`;
      this.solana.reader.landed.set(buyerSignatureOf(payload), { signature, failed: false });
      return { kind: 'settled', response: { success: true, transaction: signature, network, payer: '' } };
    }
    const tx = ('0x' + n.toString(16).padStart(64, '0')) as Hex;
    this.chain.used.set(this.nonce(payload), tx);
    return { kind: 'settled', response: { success: true, transaction: tx, network: this.payment.network as `${string}:${string}`, payer: this.from(payload) } };
  }

  nonce(payload: PaymentPayload): string {
    return String((payload.payload as { authorization: { nonce: string } }).authorization.nonce).toLowerCase();
  }

  private from(payload: PaymentPayload): string {
    const a = (payload.payload as { authorization?: { from: string } }).authorization;
    return a ? String(a.from) : '';
  }

  private async answer<T>(next: Scripted<T>, payload: PaymentPayload): Promise<T> {
    if (next instanceof Error) throw next;
    if (typeof next === 'function') return (next as (p: PaymentPayload) => T | Promise<T>)(payload);
    return next;
  }
}

/** The buyer's signature (base58) of a Solana payload: how the chain finds its transaction. */
export function buyerSignatureOf(payload: PaymentPayload): string {
  const tx = readTransaction(new Uint8Array(Buffer.from((payload.payload as { transaction: string }).transaction, 'base64')));
  if (typeof tx === 'string') throw new Error(tx);
  return toBase58(tx.signatures[1]!);
}
