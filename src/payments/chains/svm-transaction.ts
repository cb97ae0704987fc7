/**
 * The Solana transaction inside an x402 `exact` payment on Solana: its wire
 * form read strictly (legacy and v0 messages, no address lookup tables), and
 * the local checks made before anything is written or sent.
 *
 * The buyer signs a transaction whose fee payer is the facilitator; it may do
 * exactly this and nothing else: set a compute budget whose fee (paid by the
 * facilitator) the service bounds, move `amount` of the mint from the buyer's
 * token account to the payee's associated token account by `TransferChecked`,
 * and carry one memo. Anything else in it would be something the buyer's
 * signature also authorizes.
 */
import { createHash, verify } from 'node:crypto';
import { fromBase58, toBase58 } from '../../foundation/base58.js';

export { fromBase58, toBase58 };

export const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
export const TOKEN_2022_PROGRAM = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';
export const COMPUTE_BUDGET_PROGRAM = 'ComputeBudget111111111111111111111111111111';
export const MEMO_PROGRAM = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr';

/** A transaction on the wire is at most one packet (1232 bytes). */
export const MAX_TRANSACTION_BYTES = 1232;
/** The runtime's largest compute unit limit. */
export const MAX_COMPUTE_UNIT_LIMIT = 1_400_000;
/**
 * The limit the runtime grants a transaction that sets none, per instruction
 * at most (builtins, the compute budget program among them, get less).
 */
const DEFAULT_COMPUTE_UNITS_PER_INSTRUCTION = 200_000;
/** The largest unit price the SDK's facilitator accepts. */
export const MAX_COMPUTE_UNIT_PRICE_MICROLAMPORTS = 5_000_000n;
const MICROLAMPORTS_PER_LAMPORT = 1_000_000n;
/** The network's base fee per signature: the fee payer pays it for both signers. */
const LAMPORTS_PER_SIGNATURE = 5_000n;
/**
 * The most a payment may cost the facilitator's fee payer, base fee and
 * priority fee together: twice the base fee of its two signatures. The buyer
 * sets the compute unit limit and price and the fee payer pays their product,
 * so bounding each factor alone still lets one payment cost hundreds of times
 * what the official client's does (its 20,000 units at 1 micro-lamport add one
 * lamport to the two signatures' 10,000). This leaves a client room for a
 * priority fee as large as the base fee, while no payment costs the fee payer
 * more than about twice the official one.
 */
export const MAX_FEE_PAYER_LAMPORTS = 20_000n;
const MAX_MEMO_BYTES = 256;

const TRANSFER_CHECKED = 12;
const SET_COMPUTE_UNIT_LIMIT = 2;
const SET_COMPUTE_UNIT_PRICE = 3;

export interface WireInstruction {
  program: number;
  accounts: number[];
  data: Uint8Array;
}

export interface WireTransaction {
  signatures: Uint8Array[];
  messageBytes: Uint8Array;
  version: 'legacy' | 0;
  numSigners: number;
  accounts: string[];
  blockhash: string;
  instructions: WireInstruction[];
}

class Reader {
  private at = 0;
  constructor(private readonly b: Uint8Array) {}
  get offset(): number {
    return this.at;
  }
  get done(): boolean {
    return this.at === this.b.length;
  }
  byte(): number {
    if (this.at >= this.b.length) throw new Error('truncated');
    return this.b[this.at++]!;
  }
  bytes(n: number): Uint8Array {
    if (this.at + n > this.b.length) throw new Error('truncated');
    const out = this.b.subarray(this.at, this.at + n);
    this.at += n;
    return out;
  }
  /** Solana's compact-u16 length prefix. */
  length(): number {
    let n = 0;
    for (let shift = 0; shift <= 14; shift += 7) {
      const x = this.byte();
      n |= (x & 0x7f) << shift;
      if (!(x & 0x80)) return n;
    }
    throw new Error('bad length');
  }
}

/** The wire transaction, or a reason it is not one this service reads. */
export function readTransaction(wire: Uint8Array): WireTransaction | string {
  try {
    const r = new Reader(wire);
    const count = r.length();
    const signatures: Uint8Array[] = [];
    for (let i = 0; i < count; i++) signatures.push(r.bytes(64));
    const start = r.offset;
    const first = r.byte();
    let version: 'legacy' | 0 = 'legacy';
    let numSigners = first;
    if (first & 0x80) {
      if ((first & 0x7f) !== 0) return `message version ${first & 0x7f} is not read here (legacy and v0 are)`;
      version = 0;
      numSigners = r.byte();
    }
    r.byte(); // read-only signed accounts
    r.byte(); // read-only unsigned accounts
    const accounts: string[] = [];
    for (let i = r.length(); i > 0; i--) accounts.push(toBase58(r.bytes(32)));
    const blockhash = toBase58(r.bytes(32));
    const instructions: WireInstruction[] = [];
    for (let i = r.length(); i > 0; i--) {
      const program = r.byte();
      const idx: number[] = [];
      for (let j = r.length(); j > 0; j--) idx.push(r.byte());
      const data = r.bytes(r.length());
      instructions.push({ program, accounts: idx, data });
    }
    if (version === 0 && r.length() !== 0) return 'the transaction uses address lookup tables; list every account in the message';
    if (!r.done) return 'trailing bytes after the message';
    if (numSigners !== count) return `the transaction has ${count} signature slots for ${numSigners} signers`;
    for (const ix of instructions) {
      if (ix.program >= accounts.length || ix.accounts.some((a) => a >= accounts.length)) return 'an instruction names an account the message does not list';
    }
    return { signatures, messageBytes: wire.subarray(start), version, numSigners, accounts, blockhash, instructions };
  } catch (e) {
    return `the transaction could not be read (${e instanceof Error ? e.message : String(e)})`;
  }
}

/** What a payment must be: the requirements, in the forms the check compares. */
export interface SvmExpectation {
  mint: string;
  decimals: number;
  amount: bigint;
  /** The facilitator's fee payer the requirements name (`extra.feePayer`). */
  feePayer: string;
  /** The payee's associated token account for the mint, per token program. */
  destinations: Partial<Record<string, string>>;
}

export interface SvmPayment {
  /** The buyer: the transfer's authority, who signed. */
  payer: string;
  /** The buyer's token account the transfer takes from. */
  source: string;
  /** The buyer's signature (base58): how the transaction is found on chain. */
  buyerSignature: string;
  blockhash: string;
  /** SHA-256 of the signed message (hex): with the payer, the payment's identity. */
  messageHash: string;
}

function u32(b: Uint8Array, at: number): number {
  return new DataView(b.buffer, b.byteOffset, b.byteLength).getUint32(at, true);
}
function u64(b: Uint8Array, at: number): bigint {
  return new DataView(b.buffer, b.byteOffset, b.byteLength).getBigUint64(at, true);
}

/** True when `signature` is `address`'s ed25519 signature of `message`. */
export function ed25519Verify(address: string, message: Uint8Array, signature: Uint8Array): boolean {
  const key = fromBase58(address);
  if (!key || key.length !== 32) return false;
  try {
    // The raw key as a JWK: OpenSSL takes it as is, where a DER key goes through its decoders first (docs/decisions/0035).
    return verify(null, message, { key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(key).toString('base64url') }, format: 'jwk' }, signature);
  } catch {
    return false;
  }
}

/**
 * Why a payment's transaction is refused. A fee over the bound has its own
 * code: the same client would sign the same budget again, so the buyer must
 * be told to lower it rather than to sign a new payment.
 */
export interface SvmRefusal {
  code: 'payment_invalid' | 'payment_fee_too_high';
  reason: string;
}

const invalid = (reason: string): SvmRefusal => ({ code: 'payment_invalid', reason });

/**
 * What the transaction costs its fee payer in lamports: the base fee per
 * signature, and the compute unit limit times the unit price, rounded up as
 * the runtime rounds it. Without a limit instruction the runtime's default
 * counts, at its most.
 */
function feePayerLamports(tx: WireTransaction, budget: { limit: number | undefined; price: bigint | undefined }): { lamports: bigint; units: number } {
  const units = budget.limit ?? Math.min(MAX_COMPUTE_UNIT_LIMIT, DEFAULT_COMPUTE_UNITS_PER_INSTRUCTION * tx.instructions.length);
  const priority = (BigInt(units) * (budget.price ?? 0n) + MICROLAMPORTS_PER_LAMPORT - 1n) / MICROLAMPORTS_PER_LAMPORT;
  return { lamports: BigInt(tx.numSigners) * LAMPORTS_PER_SIGNATURE + priority, units };
}

/** A refusal when the compute budget would make the fee payer spend more than the service accepts. */
function feeRefusal(tx: WireTransaction, budget: { limit: number | undefined; price: bigint | undefined }): SvmRefusal | undefined {
  const advice = 'lower the compute unit price or limit (the official client\'s 20000 units at 1 micro-lamport are accepted)';
  if (budget.price !== undefined && budget.price > MAX_COMPUTE_UNIT_PRICE_MICROLAMPORTS) {
    return { code: 'payment_fee_too_high', reason: `a compute unit price of ${budget.price} micro-lamports is over the facilitator's ${MAX_COMPUTE_UNIT_PRICE_MICROLAMPORTS}; ${advice}` };
  }
  const { lamports, units } = feePayerLamports(tx, budget);
  if (lamports <= MAX_FEE_PAYER_LAMPORTS) return undefined;
  const limit = budget.limit === undefined ? `${units} compute units (no limit set: the runtime's default, up to ${DEFAULT_COMPUTE_UNITS_PER_INSTRUCTION} per instruction)` : `${units} compute units`;
  return {
    code: 'payment_fee_too_high',
    reason: `it would cost the facilitator's fee payer ${lamports} lamports (${tx.numSigners} signatures at ${LAMPORTS_PER_SIGNATURE}, and ${limit} at ${budget.price ?? 0n} micro-lamports), more than the ${MAX_FEE_PAYER_LAMPORTS} this service accepts; ${advice}`,
  };
}

/**
 * The local check: a transaction that pays exactly the expectation and does
 * nothing else, costs the fee payer no more than the service accepts, and is
 * signed by its buyer.
 */
export function checkSvmPayment(tx: WireTransaction, want: SvmExpectation): SvmPayment | SvmRefusal {
  const { accounts, instructions } = tx;
  if (accounts[0] !== want.feePayer) return invalid(`the transaction's fee payer must be the facilitator's ${want.feePayer} (extra.feePayer)`);
  if (tx.numSigners !== 2) return invalid('the transaction must have exactly two signers: the facilitator as fee payer and the buyer');
  let limit: number | undefined;
  let price: bigint | undefined;
  let memo = 0;
  let transfer: WireInstruction | undefined;
  for (const ix of instructions) {
    const program = accounts[ix.program]!;
    if (program === COMPUTE_BUDGET_PROGRAM) {
      if (ix.accounts.length !== 0) return invalid('a compute budget instruction names accounts');
      if (ix.data[0] === SET_COMPUTE_UNIT_LIMIT && ix.data.length === 5) {
        if (limit !== undefined || u32(ix.data, 1) > MAX_COMPUTE_UNIT_LIMIT) return invalid(`at most one compute unit limit, of at most ${MAX_COMPUTE_UNIT_LIMIT}`);
        limit = u32(ix.data, 1);
      } else if (ix.data[0] === SET_COMPUTE_UNIT_PRICE && ix.data.length === 9) {
        if (price !== undefined) return invalid('at most one compute unit price');
        price = u64(ix.data, 1);
      } else {
        return invalid('only compute unit limit and price instructions of the compute budget program are accepted');
      }
    } else if (program === MEMO_PROGRAM) {
      if (memo++ || ix.accounts.length !== 0 || ix.data.length > MAX_MEMO_BYTES) return invalid(`at most one memo, naming no accounts, of at most ${MAX_MEMO_BYTES} bytes`);
    } else if (isTokenProgram(program)) {
      if (transfer) return invalid('the transaction must carry exactly one token transfer');
      transfer = ix;
    } else {
      return invalid(`the transaction calls ${program}; only the compute budget, token and memo programs are accepted`);
    }
  }
  if (!transfer) return invalid('the transaction carries no TransferChecked instruction');
  const program = accounts[transfer.program]!;
  const d = transfer.data;
  if (d.length !== 10 || d[0] !== TRANSFER_CHECKED || transfer.accounts.length !== 4) return invalid('the token instruction must be a TransferChecked with a single signing authority');
  const [source, mint, destination, authority] = transfer.accounts.map((i) => accounts[i]!) as [string, string, string, string];
  if (mint !== want.mint || d[9] !== want.decimals) return invalid(`the transfer must be of mint ${want.mint} with ${want.decimals} decimals`);
  if (u64(d, 1) !== want.amount) return invalid('the transfer does not pay this resource\'s amount');
  if (destination !== want.destinations[program]) return invalid('the transfer does not pay the payee\'s associated token account');
  // The fee payer only pays the fee: as the authority or the source it would pay the buyer's price itself.
  if (authority === accounts[0] || source === accounts[0]) return invalid('the facilitator\'s fee payer may not be the transfer\'s authority or source');
  const signer = accounts.indexOf(authority);
  if (signer !== 1) return invalid('the transfer\'s authority must be the transaction\'s second signer');
  if (!ed25519Verify(authority, tx.messageBytes, tx.signatures[1]!)) return invalid('the buyer\'s signature is not a valid ed25519 signature of the transaction by the transfer\'s authority');
  // Last, so that this refusal says the payment is right in every way but its fee.
  return feeRefusal(tx, { limit, price }) ?? paymentParts(tx, transfer);
}

export const isTokenProgram = (program: string): boolean => program === TOKEN_PROGRAM || program === TOKEN_2022_PROGRAM;

/** What the gate keeps of a checked payment, read from its transaction and its transfer instruction. */
export function paymentParts(tx: WireTransaction, transfer: WireInstruction): SvmPayment {
  return {
    payer: tx.accounts[transfer.accounts[3]!]!,
    source: tx.accounts[transfer.accounts[0]!]!,
    buyerSignature: toBase58(tx.signatures[1]!),
    blockhash: tx.blockhash,
    messageHash: createHash('sha256').update(tx.messageBytes).digest('hex'),
  };
}
