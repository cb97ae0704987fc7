/**
 * Solana x402 `exact` payments for tests, built the way the official client
 * builds them (compute budget, TransferChecked to the payee's associated token
 * account, a memo; the facilitator as fee payer, its signature slot left
 * empty), with knobs to build the dishonest variants a local check must refuse.
 */
import {
  address,
  appendTransactionMessageInstructions,
  blockhash as asBlockhash,
  createKeyPairSignerFromBytes,
  createKeyPairSignerFromPrivateKeyBytes,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  partiallySignTransactionMessageWithSigners,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  signBytes,
  type Instruction,
  type KeyPairSigner,
} from '@solana/kit';
import { getSetComputeUnitLimitInstruction, getSetComputeUnitPriceInstruction } from '@solana-program/compute-budget';
import { getTransferSolInstruction } from '@solana-program/system';
import { findAssociatedTokenPda, getTransferCheckedInstruction, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { createHash, randomBytes } from 'node:crypto';
import { COMPUTE_BUDGET_PROGRAM, readTransaction, toBase58 } from '../../src/payments/chains/svm-transaction.js';
import type { PaymentPayload, PaymentRequirements } from '../../src/payments/rail.js';

const MEMO_PROGRAM = address('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');

/** A key pair signer from a fixed label (deterministic, public: test keys only). */
export async function svmKey(label: string): Promise<KeyPairSigner> {
  return createKeyPairSignerFromPrivateKeyBytes(createHash('sha256').update(`svm test key ${label}`).digest());
}

export async function svmKeyFromSecret(secretKey: Uint8Array): Promise<KeyPairSigner> {
  return createKeyPairSignerFromBytes(secretKey);
}

/** A fresh recent-blockhash-shaped value (32 random bytes, base58). */
export function someBlockhash(): string {
  return toBase58(randomBytes(32));
}

export interface SvmPaymentOptions {
  buyer: KeyPairSigner;
  requirements: PaymentRequirements;
  decimals?: number;
  blockhash?: string;
  /** Overrides for the dishonest variants. */
  amount?: bigint;
  payTo?: string;
  mint?: string;
  feePayer?: string;
  /** Instructions added after the transfer (a second transfer, a SOL transfer…). */
  extra?: (buyer: KeyPairSigner) => Promise<Instruction[]> | Instruction[];
  /** Replaces the memo's text (default: 16 random bytes as hex, like the official client). */
  memo?: string | null;
  paymentId?: string | null;
  /** The compute budget the buyer sets (default: the official client's 20,000 units at 1 micro-lamport); null leaves the instruction out. */
  computeUnitLimit?: number | null;
  computeUnitPriceMicroLamports?: bigint | null;
}

/** A payment payload as the official client makes it, signed by `buyer`. */
export async function svmPayment(o: SvmPaymentOptions): Promise<PaymentPayload> {
  const req = o.requirements;
  const mint = address(o.mint ?? req.asset);
  const [source] = await findAssociatedTokenPda({ mint, owner: o.buyer.address, tokenProgram: TOKEN_PROGRAM_ADDRESS });
  const [destination] = await findAssociatedTokenPda({ mint, owner: address(o.payTo ?? req.payTo), tokenProgram: TOKEN_PROGRAM_ADDRESS });
  const transfer = getTransferCheckedInstruction({ source, mint, destination, authority: o.buyer, amount: o.amount ?? BigInt(req.amount), decimals: o.decimals ?? 6 });
  const memo = o.memo === null ? [] : [{ programAddress: MEMO_PROGRAM, accounts: [], data: new TextEncoder().encode(o.memo ?? randomBytes(16).toString('hex')) }];
  const feePayer = address(o.feePayer ?? String((req.extra as { feePayer: string }).feePayer));
  const extra = o.extra ? await o.extra(o.buyer) : [];
  const limit = o.computeUnitLimit === undefined ? 20_000 : o.computeUnitLimit;
  const price = o.computeUnitPriceMicroLamports === undefined ? 1n : o.computeUnitPriceMicroLamports;
  const budget = [
    ...(limit === null ? [] : [getSetComputeUnitLimitInstruction({ units: limit })]),
    ...(price === null ? [] : [getSetComputeUnitPriceInstruction({ microLamports: price })]),
  ];
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(feePayer, m),
    (m) => appendTransactionMessageInstructions([...budget, transfer, ...memo, ...extra], m),
    (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: asBlockhash(o.blockhash ?? someBlockhash()), lastValidBlockHeight: 0n }, m),
  );
  const signed = await partiallySignTransactionMessageWithSigners(message);
  const id = o.paymentId === undefined ? 'pay_' + randomBytes(16).toString('hex') : o.paymentId;
  return {
    x402Version: 2,
    accepted: req,
    payload: { transaction: getBase64EncodedWireTransaction(signed) },
    ...(id !== null && { extensions: { 'payment-identifier': { info: { required: false, id } } } }),
  } as PaymentPayload;
}

/** A SOL transfer out of the buyer's wallet: something a payment must not also authorize. */
export function solDrain(to: string) {
  return (buyer: KeyPairSigner) => [getTransferSolInstruction({ source: buyer, destination: address(to), amount: 1_000_000n })];
}

/**
 * The same payment with its compute budget rewritten and signed again by its
 * buyer: what a buyer holding its own key can always do to the transaction its
 * client built. Only values the transaction already carries are rewritten.
 */
export async function resignComputeBudget(p: PaymentPayload, buyer: KeyPairSigner, budget: { limit?: number; priceMicroLamports?: bigint }): Promise<PaymentPayload> {
  const wire = new Uint8Array(Buffer.from((p.payload as { transaction: string }).transaction, 'base64'));
  const tx = readTransaction(wire);
  if (typeof tx === 'string') throw new Error(tx);
  for (const ix of tx.instructions) {
    if (tx.accounts[ix.program] !== COMPUTE_BUDGET_PROGRAM) continue;
    // The instruction's data is a view into `wire`: writing it rewrites the message.
    const data = new DataView(ix.data.buffer, ix.data.byteOffset, ix.data.byteLength);
    if (ix.data[0] === 2 && budget.limit !== undefined) data.setUint32(1, budget.limit, true);
    if (ix.data[0] === 3 && budget.priceMicroLamports !== undefined) data.setBigUint64(1, budget.priceMicroLamports, true);
  }
  const signature = await signBytes(buyer.keyPair.privateKey, tx.messageBytes);
  const slot = tx.accounts.indexOf(buyer.address);
  // compact-u16 count (1 byte for 2 signers), then 64 bytes per signature slot.
  wire.set(signature, 1 + 64 * slot);
  return { ...p, payload: { transaction: Buffer.from(wire).toString('base64') } } as PaymentPayload;
}

/** The same payload with one bit of the buyer's signature flipped (a forged signature). */
export function forgeSignature(p: PaymentPayload): PaymentPayload {
  const wire = Buffer.from((p.payload as { transaction: string }).transaction, 'base64');
  // compact-u16 count (1 byte for 2), then the fee payer's 64 bytes, then the buyer's.
  wire[1 + 64 + 10]! ^= 0x01;
  return { ...p, payload: { transaction: wire.toString('base64') } } as PaymentPayload;
}
