/**
 * The Solana chain: x402 `exact` payments as a transaction the buyer signed
 * and the facilitator sends as fee payer (svm-transaction.ts), the chain read
 * through `SvmChainReader` (JSON-RPC here, `ScriptedSvmReader` in tests).
 *
 * A Solana transaction carries no expiry time of its own: it can land only
 * while its recent blockhash is among the last 150 blocks (60 to 90 s). So
 * the ledger's `validBefore` for it is an estimate, used only to decide
 * whether to start a settlement; whether a payment is dead is always the
 * chain's answer: its blockhash has expired, and it is not on chain.
 */
import { findAssociatedTokenPda } from '@solana-program/token';
import type { Address } from '@solana/kit';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { boundPayload, type Authorization, type BoundAttempt, type ChainFate, type CheckLimits, type LocalCheck, type PaymentChain } from './payment-chain.js';
import { checkSvmPayment, fromBase58, isTokenProgram, MAX_TRANSACTION_BYTES, paymentParts, readTransaction, TOKEN_2022_PROGRAM, TOKEN_PROGRAM, type SvmPayment } from './svm-transaction.js';

/** How long after it is bound a Solana payment is assumed settleable: a blockhash lives at least 150 slots of 400 ms. */
const SVM_LIFETIME_SECONDS = 60;

/**
 * How long before it was bound a payment's transaction may have landed: its
 * blockhash is older than the signature the buyer made with it, by a minute or
 * two at most (150 slots, at the slowest slots seen); searched with room to spare.
 */
const SVM_LANDED_BEFORE_BIND_SECONDS = 600;

export interface SvmTransactionFound {
  /** The transaction's id (its first signature, the fee payer's). */
  signature: string;
  /** True when it landed but failed (its transfer did not happen, and that message can never land again). */
  failed: boolean;
}

export interface SvmChainReader {
  /** Whether a transaction with this recent blockhash can still land. */
  blockhashValid(blockhash: string): Promise<boolean>;
  /**
   * The landed transaction carrying the buyer's signature, searched among
   * every one touching `account` that landed at or after `sinceSeconds`
   * (unix). Undefined only when that search was complete; throws when it
   * could not be (the chain unreadable, or more history than it reads).
   */
  findTransaction(buyerSignature: string, account: string, sinceSeconds: number): Promise<SvmTransactionFound | undefined>;
}

export interface SvmAsset {
  mint: string;
  decimals: number;
}

export class SvmChain implements PaymentChain {
  private destinations: Promise<Partial<Record<string, string>>> | undefined;

  constructor(
    readonly network: string,
    private readonly payTo: string,
    private readonly asset: SvmAsset,
    private readonly reader: SvmChainReader,
  ) {}

  ledgerForm(address: string): string {
    return address;
  }

  /** The payee's associated token account for the mint, under either token program. */
  private payeeAccounts(): Promise<Partial<Record<string, string>>> {
    this.destinations ??= (async () => {
      const out: Record<string, string> = {};
      for (const program of [TOKEN_PROGRAM, TOKEN_2022_PROGRAM]) {
        const [ata] = await findAssociatedTokenPda({ mint: this.asset.mint as Address, owner: this.payTo as Address, tokenProgram: program as Address });
        out[program] = ata;
      }
      return out;
    })();
    return this.destinations;
  }

  async check(payment: PaymentPayload, requirements: PaymentRequirements, nowSeconds: number, _limits: CheckLimits): Promise<LocalCheck> {
    const invalid = (message: string): LocalCheck => ({ ok: false, code: 'payment_invalid', message });
    const wire = wireOf(payment);
    if (typeof wire === 'string') return invalid(wire);
    const tx = readTransaction(wire);
    if (typeof tx === 'string') return invalid(`The payment's transaction is not acceptable: ${tx}.`);
    const feePayer = (requirements.extra as { feePayer?: unknown } | undefined)?.feePayer;
    if (typeof feePayer !== 'string') return invalid('These requirements name no fee payer; pay with the requirements of this resource\'s 402.');
    const paid = checkSvmPayment(tx, { mint: this.asset.mint, decimals: this.asset.decimals, amount: BigInt(requirements.amount), feePayer, destinations: await this.payeeAccounts() });
    if ('reason' in paid) return { ok: false, code: paid.code, message: `The payment's transaction is not acceptable: ${paid.reason}.` };
    const payload = boundPayload(payment, requirements, { transaction: Buffer.from(wire).toString('base64') });
    return { ok: true, authorization: { ...authorizationOf(paid), validBefore: Math.floor(nowSeconds) + SVM_LIFETIME_SECONDS, payload } };
  }

  stored(payload: string): Pick<Authorization, 'payer' | 'signed'> {
    return authorizationOf(this.storedPayment(payload));
  }

  private storedPayment(payload: string): SvmPayment & { blockhash: string } {
    // Stored by check(): it always reads and passes again, but against the
    // requirements it was bound with, which the stored payload carries.
    const p = JSON.parse(payload) as PaymentPayload;
    const tx = readTransaction(wireOf(p) as Uint8Array);
    if (typeof tx === 'string') throw new Error(`stored Solana payment unreadable: ${tx}`);
    const transfer = tx.instructions.find((ix) => isTokenProgram(tx.accounts[ix.program]!))!;
    return paymentParts(tx, transfer);
  }

  async fate(a: BoundAttempt): Promise<ChainFate> {
    const p = this.storedPayment(a.payload);
    // Validity first: a blockhash seen expired before the search means a
    // transaction the search does not find can never land afterwards.
    const valid = await this.reader.blockhashValid(p.blockhash);
    const found = await this.reader.findTransaction(p.buyerSignature, p.source, Math.floor(a.createdAt / 1000) - SVM_LANDED_BEFORE_BIND_SECONDS);
    if (found) return found.failed ? { kind: 'dead' } : { kind: 'used', transaction: found.signature };
    return valid ? { kind: 'open' } : { kind: 'dead' };
  }
}

function authorizationOf(p: SvmPayment): Omit<Authorization, 'validBefore' | 'payload'> {
  return { payer: p.payer, ledgerPayer: p.payer, nonce: p.messageHash, signed: `${p.messageHash}|${p.buyerSignature}` };
}


/** The wire bytes of `payload.transaction` (base64), or why there are none. */
function wireOf(payment: PaymentPayload): Uint8Array | string {
  const t = (payment.payload as { transaction?: unknown } | undefined)?.transaction;
  if (typeof t !== 'string' || t.length === 0 || t.length > Math.ceil(MAX_TRANSACTION_BYTES / 3) * 4 || !/^[A-Za-z0-9+/]+={0,2}$/.test(t)) {
    return `The payment payload is not a Solana transaction (payload.transaction: base64, at most ${MAX_TRANSACTION_BYTES} bytes).`;
  }
  return new Uint8Array(Buffer.from(t, 'base64'));
}

// ---------------------------------------------------------------- reading the chain over JSON-RPC

/** Pages of an account's history read at most (1,000 signatures each) before the search is called inconclusive. */
const SEARCH_PAGES = 20;

export function rpcSvmReader(rpcUrl: string, opts: { timeoutMs?: number; searchPages?: number } = {}): SvmChainReader {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const searchPages = opts.searchPages ?? SEARCH_PAGES;
  let id = 0;
  async function call<T>(method: string, params: unknown[]): Promise<T> {
    const res = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!res.ok) throw new Error(`${method}: HTTP ${res.status}`);
    const body = (await res.json()) as { result?: T; error?: { message?: string } };
    if (body.error) throw new Error(`${method}: ${body.error.message ?? 'error'}`);
    return body.result as T;
  }
  // 'confirmed': a transaction in a block at or below the blockhash's last
  // valid height is confirmed by the time a confirmed bank is past that height.
  const commitment = 'confirmed';
  return {
    async blockhashValid(blockhash) {
      return (await call<{ value: boolean }>('isBlockhashValid', [blockhash, { commitment }])).value;
    },
    async findTransaction(buyerSignature, account, sinceSeconds) {
      const want = Buffer.from(fromBase58(buyerSignature) ?? []);
      let before: string | undefined;
      // Newest first, page by page, until the history is older than the window or ends.
      for (let page = 0; page < searchPages; page++) {
        const list = await call<Array<{ signature: string; blockTime: number | null }>>('getSignaturesForAddress', [account, { limit: 1000, commitment, ...(before && { before }) }]);
        for (const { signature, blockTime } of list) {
          if (blockTime !== null && blockTime < sinceSeconds) return undefined;
          const tx = await call<{ transaction: [string, string]; meta: { err: unknown } | null } | null>('getTransaction', [signature, { encoding: 'base64', commitment, maxSupportedTransactionVersion: 0 }]);
          // Listed but not readable yet: the search cannot say it is not there.
          if (!tx) throw new Error(`getTransaction ${signature}: not found`);
          const read = readTransaction(new Uint8Array(Buffer.from(tx.transaction[0], 'base64')));
          if (typeof read !== 'string' && read.signatures.some((s) => want.equals(s))) return { signature, failed: tx.meta?.err != null };
        }
        if (list.length < 1000) return undefined;
        before = list[list.length - 1]!.signature;
      }
      throw new Error(`more than ${searchPages * 1000} transactions of ${account} since ${sinceSeconds}: the search is inconclusive`);
    },
  };
}
