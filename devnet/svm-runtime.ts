// The chain behind the embedded Solana devnet: a litesvm runtime (Solana's SVM in
// process, no validator) plus the few things a cluster does that litesvm leaves to
// its caller — time passing, a window of valid blockhashes, a ledger of processed
// transactions, a mempool that can hold transactions back. The JSON-RPC server
// (svm-rpc.ts) and the facilitator signer (svm-devnet.ts) are both thin views of it.
//
// Time. litesvm's clock only moves when told (warpToSlot/setClock). A periodic timer
// would wake an idle process every 400 ms, so instead every entry point calls tick(),
// which sets the slot from wall-clock time since start (400 ms per slot, Solana's
// target) and, when the slot moved, rolls the latest blockhash as a cluster does with
// each new block. An idle devnet therefore costs nothing, and a devnet touched after
// a minute looks exactly as if it had produced those blocks.
//
// Blockhashes. litesvm's own check (LiteSVM::check_transaction_age_inner in
// crates/litesvm/src/lib.rs) accepts a transaction only when its recent blockhash
// *equals* the single latest one (or is a valid durable nonce); expireBlockhash()
// replaces that hash with a new one and resets the SlotHashes sysvar. A cluster
// instead accepts any blockhash from the last 150 blocks (MAX_PROCESSING_AGE in
// agave's BlockhashQueue). With a new blockhash every slot, litesvm's rule would
// reject a payment signed 400 ms earlier, so its check is switched off
// (withBlockhashCheck(false)) and replaced here by the cluster's rule: every
// blockhash we hand out is remembered with the slot it was issued at and stays valid
// while the current slot is at most 150 past it. A transaction failing the rule is
// refused before it reaches litesvm, with `BlockhashNotFound`, as an agave bank
// refuses it (such a transaction never lands and pays no fee). Durable-nonce
// transactions are not supported (litesvm's nonce path is bypassed with the check).
//
// Fees of failed transactions. litesvm mirrors the bank: a transaction that fails
// while executing (an instruction error) still pays its fee, the fee payer's
// debit is committed, and it enters litesvm's history (a resend answers
// AlreadyProcessed). One refused before execution (bad signature, unknown
// blockhash, fee payer unable to pay) changes nothing. The ledger here records a
// transaction exactly when it landed in that sense: succeeded, or failed and paid.
import { createHash } from 'node:crypto';
import {
  getAddressDecoder,
  getAddressEncoder,
  getBase58Decoder,
  getBase58Encoder,
  getCompiledTransactionMessageDecoder,
  getCompiledTransactionMessageEncoder,
  getTransactionDecoder,
  getTransactionEncoder,
  isOffCurveAddress,
  type Address,
  type Transaction,
} from '@solana/kit';
import { Clock, FailedTransactionMetadata, LiteSVM, type TransactionMetadata } from 'litesvm';

/** Solana's slot target. */
export const SLOT_MS = 400;
/** A blockhash is usable for this many slots after the slot it was issued at (agave's MAX_PROCESSING_AGE). */
export const MAX_PROCESSING_AGE = 150;
/** Signature fee of the default fee structure (litesvm and every public cluster). */
export const LAMPORTS_PER_SIGNATURE = 5000n;

export const SYSTEM_PROGRAM = '11111111111111111111111111111111';
export const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
export const ASSOCIATED_TOKEN_PROGRAM = 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL';
const COMPUTE_BUDGET_PROGRAM = 'ComputeBudget111111111111111111111111111111';
const TOKEN_ACCOUNT_SIZE = 165;
const MINT_SIZE = 82;

/** A transaction error in Solana's JSON form: 'BlockhashNotFound' or {"InstructionError":[2,{"Custom":1}]}. */
export type TxError = string | Record<string, unknown>;

export interface TokenBalanceEntry {
  accountIndex: number;
  mint: string;
  owner: string;
  programId: string;
  uiTokenAmount: { amount: string; decimals: number; uiAmount: number | null; uiAmountString: string };
}

/** One processed (landed) transaction, success or failure. */
export interface LedgerEntry {
  signature: string;
  slot: bigint;
  /** Unix seconds of the slot. */
  blockTime: number;
  wire: Uint8Array;
  err: TxError | null;
  fee: bigint;
  feePayer: string;
  /** The message's static account keys, in order (address-lookup-table accounts are not resolved). */
  accounts: string[];
  version: 'legacy' | 0;
  logs: string[];
  unitsConsumed: bigint;
  preBalances: bigint[];
  postBalances: bigint[];
  preTokenBalances: TokenBalanceEntry[];
  postTokenBalances: TokenBalanceEntry[];
  innerInstructions: InnerInstructionsJson[];
}

export interface InnerInstructionsJson {
  index: number;
  instructions: { programIdIndex: number; accounts: number[]; data: string; stackHeight: number }[];
}

export interface SimulationResult {
  err: TxError | null;
  logs: string[];
  unitsConsumed: bigint;
  innerInstructions: InnerInstructionsJson[];
}

/** What happened to a transaction handed to the chain. */
export type SubmitOutcome =
  | { kind: 'landed'; entry: LedgerEntry }
  | { kind: 'held'; signature: string }
  /** Refused before execution: never lands, pays nothing (what a validator drops). */
  | { kind: 'refused'; signature: string; err: TxError };

export interface DecodedTx {
  tx: Transaction;
  wire: Uint8Array;
  signature: string;
  version: 'legacy' | 0;
  staticAccounts: string[];
  blockhash: string;
  header: { numSignerAccounts: number; numReadonlySignerAccounts: number; numReadonlyNonSignerAccounts: number };
  instructions: { programAddressIndex: number; accountIndices?: number[]; data?: Uint8Array }[];
  addressTableLookups: { lookupTableAddress: string; writableIndexes: number[]; readonlyIndexes: number[] }[];
}

const b58 = { encode: getBase58Decoder(), decode: getBase58Encoder() };
const addressBytes = getAddressEncoder();
const addressFromBytes = getAddressDecoder();

/** Decodes wire bytes into what the chain needs; throws on anything that is not a legacy or v0 transaction. */
export function decodeTransaction(wire: Uint8Array): DecodedTx {
  const tx = getTransactionDecoder().decode(wire);
  const msg = getCompiledTransactionMessageDecoder().decode(tx.messageBytes);
  if (msg.version !== 'legacy' && msg.version !== 0) throw new Error(`unsupported transaction version ${String(msg.version)}`);
  const first = Object.values(tx.signatures)[0];
  // An unsigned first slot still names the transaction: 64 zero bytes, as Solana prints it.
  const signature = b58.encode.decode(first ?? new Uint8Array(64));
  return {
    tx,
    wire,
    signature,
    version: msg.version,
    staticAccounts: msg.staticAccounts.map(String),
    blockhash: msg.lifetimeToken,
    header: msg.header,
    instructions: msg.instructions.map((ix) => ({
      programAddressIndex: ix.programAddressIndex,
      accountIndices: ix.accountIndices,
      data: ix.data ? new Uint8Array(ix.data) : undefined,
    })),
    addressTableLookups:
      msg.version === 0
        ? (msg.addressTableLookups ?? []).map((l) => ({
            lookupTableAddress: String(l.lookupTableAddress),
            writableIndexes: [...l.writableIndexes],
            readonlyIndexes: [...l.readonlyIndexes],
          }))
        : [],
  };
}

/** The same transaction with another recent blockhash (for simulateTransaction's replaceRecentBlockhash). */
function withBlockhash(decoded: DecodedTx, blockhash: string): Transaction {
  const msg = getCompiledTransactionMessageDecoder().decode(decoded.tx.messageBytes);
  const messageBytes = getCompiledTransactionMessageEncoder().encode({ ...msg, lifetimeToken: blockhash });
  return { ...decoded.tx, messageBytes } as unknown as Transaction;
}

/**
 * The associated token account of (owner, mint) under the classic token program,
 * computed synchronously: the PDA of [owner, token program, mint] under the ATA
 * program — the first bump from 255 down whose SHA-256 is not an ed25519 point.
 * (kit's findAssociatedTokenPda is async; tokenBalance() must not be.)
 */
export function associatedTokenAddress(owner: string, mint: string): string {
  const seeds = [addressBytes.encode(owner as Address), addressBytes.encode(TOKEN_PROGRAM as Address), addressBytes.encode(mint as Address)];
  const program = addressBytes.encode(ASSOCIATED_TOKEN_PROGRAM as Address);
  for (let bump = 255; bump >= 0; bump--) {
    const h = createHash('sha256');
    for (const s of seeds) h.update(new Uint8Array(s));
    h.update(Uint8Array.of(bump)).update(new Uint8Array(program)).update('ProgramDerivedAddress');
    const candidate = addressFromBytes.decode(h.digest());
    if (isOffCurveAddress(candidate)) return candidate;
  }
  throw new Error(`no associated token address for ${owner}/${mint}`);
}

// ---------------------------------------------------------------- litesvm errors → Solana JSON

// litesvm's error enums are `const enum`s in its typings with no runtime object, so
// their member names are listed here in declaration order (litesvm/dist/internal.d.ts).
const TX_ERRORS = [
  'AccountInUse', 'AccountLoadedTwice', 'AccountNotFound', 'ProgramAccountNotFound', 'InsufficientFundsForFee',
  'InvalidAccountForFee', 'AlreadyProcessed', 'BlockhashNotFound', 'CallChainTooDeep', 'MissingSignatureForFee',
  'InvalidAccountIndex', 'SignatureFailure', 'InvalidProgramForExecution', 'SanitizeFailure', 'ClusterMaintenance',
  'AccountBorrowOutstanding', 'WouldExceedMaxBlockCostLimit', 'UnsupportedVersion', 'InvalidWritableAccount',
  'WouldExceedMaxAccountCostLimit', 'WouldExceedAccountDataBlockLimit', 'TooManyAccountLocks', 'AddressLookupTableNotFound',
  'InvalidAddressLookupTableOwner', 'InvalidAddressLookupTableData', 'InvalidAddressLookupTableIndex', 'InvalidRentPayingAccount',
  'WouldExceedMaxVoteCostLimit', 'WouldExceedAccountDataTotalLimit', 'MaxLoadedAccountsDataSizeExceeded', 'ResanitizationNeeded',
  'InvalidLoadedAccountsDataSizeLimit', 'UnbalancedTransaction', 'ProgramCacheHitMaxLimit', 'CommitCancelled',
];
const INSTRUCTION_ERRORS = [
  'GenericError', 'InvalidArgument', 'InvalidInstructionData', 'InvalidAccountData', 'AccountDataTooSmall', 'InsufficientFunds',
  'IncorrectProgramId', 'MissingRequiredSignature', 'AccountAlreadyInitialized', 'UninitializedAccount', 'UnbalancedInstruction',
  'ModifiedProgramId', 'ExternalAccountLamportSpend', 'ExternalAccountDataModified', 'ReadonlyLamportChange', 'ReadonlyDataModified',
  'DuplicateAccountIndex', 'ExecutableModified', 'RentEpochModified', 'NotEnoughAccountKeys', 'AccountDataSizeChanged',
  'AccountNotExecutable', 'AccountBorrowFailed', 'AccountBorrowOutstanding', 'DuplicateAccountOutOfSync', 'InvalidError',
  'ExecutableDataModified', 'ExecutableLamportChange', 'ExecutableAccountNotRentExempt', 'UnsupportedProgramId', 'CallDepth',
  'MissingAccount', 'ReentrancyNotAllowed', 'MaxSeedLengthExceeded', 'InvalidSeeds', 'InvalidRealloc', 'ComputationalBudgetExceeded',
  'PrivilegeEscalation', 'ProgramEnvironmentSetupFailure', 'ProgramFailedToComplete', 'ProgramFailedToCompile', 'Immutable',
  'IncorrectAuthority', 'AccountNotRentExempt', 'InvalidAccountOwner', 'ArithmeticOverflow', 'UnsupportedSysvar', 'IllegalOwner',
  'MaxAccountsDataAllocationsExceeded', 'MaxAccountsExceeded', 'MaxInstructionTraceLengthExceeded',
  'BuiltinProgramsMustConsumeComputeUnits', 'BorshIoError',
];

/** litesvm's error value (a number for fieldless variants, a class instance otherwise) in Solana's RPC JSON form. */
export function toTxError(err: ReturnType<FailedTransactionMetadata['err']>): TxError {
  if (typeof err === 'number') return TX_ERRORS[err] ?? `Unknown(${err})`;
  const name = err.constructor.name;
  if (name === 'TransactionErrorInstructionError') {
    const e = err as { index: number; err(): unknown };
    const inner = e.err();
    let ix: unknown;
    if (typeof inner === 'number') ix = INSTRUCTION_ERRORS[inner] ?? `Unknown(${inner})`;
    else if (inner && typeof inner === 'object' && 'code' in inner) ix = { Custom: (inner as { code: number }).code };
    else if (inner && typeof inner === 'object' && 'msg' in inner) ix = { BorshIoError: (inner as { msg: string }).msg };
    else ix = String(inner);
    return { InstructionError: [e.index, ix] };
  }
  if (name === 'TransactionErrorDuplicateInstruction') return { DuplicateInstruction: (err as { index: number }).index };
  if (name === 'TransactionErrorInsufficientFundsForRent') return { InsufficientFundsForRent: { account_index: (err as { accountIndex: number }).accountIndex } };
  if (name === 'TransactionErrorProgramExecutionTemporarilyRestricted') {
    return { ProgramExecutionTemporarilyRestricted: { account_index: (err as { accountIndex: number }).accountIndex } };
  }
  return String(err);
}

/** A one-line description of a transaction error, like the RPC's "Transaction simulation failed: …" messages. */
export function describeTxError(err: TxError): string {
  if (err === 'BlockhashNotFound') return 'Blockhash not found';
  if (typeof err === 'string') return err;
  const ie = (err as { InstructionError?: [number, unknown] }).InstructionError;
  if (ie) {
    const [i, e] = ie;
    const what = typeof e === 'object' && e && 'Custom' in e ? `custom program error: 0x${(e as { Custom: number }).Custom.toString(16)}` : JSON.stringify(e);
    return `Error processing Instruction ${i}: ${what}`;
  }
  return JSON.stringify(err);
}

function innerInstructionsJson(meta: TransactionMetadata): InnerInstructionsJson[] {
  return meta
    .innerInstructions()
    .map((list, index) => ({
      index,
      instructions: list.map((ii) => {
        const ix = ii.instruction();
        return { programIdIndex: ix.programIdIndex(), accounts: [...ix.accounts()], data: b58.encode.decode(ix.data()), stackHeight: ii.stackHeight() };
      }),
    }))
    .filter((x) => x.instructions.length > 0);
}

// ---------------------------------------------------------------- the chain

export interface SvmChainOptions {
  /** Wall clock, for tests of the chain itself. */
  now?: () => number;
}

export class SvmChain {
  readonly svm: LiteSVM;
  private readonly now: () => number;
  private readonly startMs: number;
  private readonly startSlot: bigint;
  private readonly startUnix: bigint;
  private slot: bigint;
  /** blockhash → slot it was issued at, for every blockhash still within MAX_PROCESSING_AGE. */
  private readonly blockhashes = new Map<string, bigint>();
  private latest: { blockhash: string; slot: bigint };
  private readonly ledger = new Map<string, LedgerEntry>();
  /** Ledger signatures in landing order (oldest first). */
  private readonly order: string[] = [];
  private holding = false;
  private held: DecodedTx[] = [];
  private readonly landingListeners = new Set<(entry: LedgerEntry) => void>();

  constructor(opts: SvmChainOptions = {}) {
    this.now = opts.now ?? Date.now;
    // The standard runtime (sysvars, builtins, SPL token/ATA/memo programs), with
    // litesvm's equal-to-latest blockhash rule replaced by the window below.
    this.svm = new LiteSVM().withBlockhashCheck(false).withSigverify(true);
    this.startMs = this.now();
    // litesvm boots at a mainnet-like slot (447,552,000 in 1.5.0), with a zero
    // timestamp; the clock keeps its slot and gets the real time.
    this.startSlot = this.svm.getClock().slot;
    this.startUnix = BigInt(Math.floor(this.startMs / 1000));
    this.slot = this.startSlot;
    this.setClock(this.slot);
    this.latest = { blockhash: this.svm.latestBlockhash(), slot: this.slot };
    this.blockhashes.set(this.latest.blockhash, this.slot);
  }

  // ---------------------------------------------------------------- time

  /** Brings the chain up to wall-clock time: the slot, the clock sysvar and the latest blockhash. */
  tick(): void {
    const target = this.startSlot + BigInt(Math.floor((this.now() - this.startMs) / SLOT_MS));
    if (target <= this.slot) return;
    this.slot = target;
    this.setClock(target);
    // One new blockhash per tick, however many slots passed: the blocks in between
    // were never observed, so nobody can hold their hashes.
    this.svm.expireBlockhash();
    this.issue(this.svm.latestBlockhash());
    for (const [hash, at] of this.blockhashes) if (target - at > BigInt(MAX_PROCESSING_AGE)) this.blockhashes.delete(hash);
  }

  private issue(blockhash: string): void {
    this.latest = { blockhash, slot: this.slot };
    this.blockhashes.set(blockhash, this.slot);
  }

  private setClock(slot: bigint): void {
    const unix = this.blockTime(slot);
    const sched = this.svm.getEpochSchedule();
    const epoch = sched.warmup && slot < sched.firstNormalSlot ? 0n : sched.firstNormalEpoch + (slot - sched.firstNormalSlot) / sched.slotsPerEpoch;
    this.svm.setClock(new Clock(slot, unix, epoch, epoch + 1n, unix));
  }

  blockTime(slot: bigint): bigint {
    return this.startUnix + ((slot - this.startSlot) * BigInt(SLOT_MS)) / 1000n;
  }

  currentSlot(): bigint {
    this.tick();
    return this.slot;
  }

  /** No skipped slots here, so a block's height is its slot. */
  blockHeight(): bigint {
    return this.currentSlot();
  }

  latestBlockhash(): { blockhash: string; lastValidBlockHeight: bigint; slot: bigint } {
    this.tick();
    return { blockhash: this.latest.blockhash, lastValidBlockHeight: this.latest.slot + BigInt(MAX_PROCESSING_AGE), slot: this.slot };
  }

  isBlockhashValid(blockhash: string): boolean {
    this.tick();
    const at = this.blockhashes.get(blockhash);
    return at !== undefined && this.slot - at <= BigInt(MAX_PROCESSING_AGE);
  }

  /** Fault: every blockhash issued so far stops being valid; a fresh one is issued. */
  expireBlockhashes(): void {
    this.tick();
    this.blockhashes.clear();
    this.svm.expireBlockhash();
    this.issue(this.svm.latestBlockhash());
  }

  // ---------------------------------------------------------------- transactions

  /**
   * Broadcast: processes the transaction now, or queues it while holding. A
   * transaction already in the ledger is not processed twice (a cluster
   * deduplicates by signature); its entry is returned.
   */
  submit(decoded: DecodedTx): SubmitOutcome {
    this.tick();
    const known = this.ledger.get(decoded.signature);
    if (known) return { kind: 'landed', entry: known };
    if (this.holding) {
      if (!this.held.some((h) => h.signature === decoded.signature)) this.held.push(decoded);
      return { kind: 'held', signature: decoded.signature };
    }
    return this.process(decoded);
  }

  private process(decoded: DecodedTx): SubmitOutcome {
    if (!this.isBlockhashValid(decoded.blockhash)) return { kind: 'refused', signature: decoded.signature, err: 'BlockhashNotFound' };
    const feePayer = decoded.staticAccounts[0]!;
    const pre = decoded.staticAccounts.map((a) => this.lamports(a));
    const preTokens = this.tokenBalances(decoded.staticAccounts);
    let result: ReturnType<LiteSVM['sendTransaction']>;
    try {
      result = this.svm.sendTransaction(decoded.tx);
    } catch {
      // litesvm's wrapper refuses a transaction missing a signature before the
      // runtime sees it; a validator's sigverify stage drops it the same way.
      return { kind: 'refused', signature: decoded.signature, err: 'SignatureFailure' };
    }
    const post = decoded.staticAccounts.map((a) => this.lamports(a));
    const err = result instanceof FailedTransactionMetadata ? toTxError(result.err()) : null;
    // Landed = executed (ok), or failed during execution and paid its fee: the fee
    // payer's debit is the only trace a failed transaction leaves.
    if (err !== null && post[0]! >= pre[0]!) return { kind: 'refused', signature: decoded.signature, err };
    const meta = result instanceof FailedTransactionMetadata ? result.meta() : result;
    const entry: LedgerEntry = {
      signature: decoded.signature,
      slot: this.slot,
      blockTime: Number(this.blockTime(this.slot)),
      wire: decoded.wire,
      err,
      fee: err !== null ? pre[0]! - post[0]! : this.fee(decoded),
      feePayer,
      accounts: decoded.staticAccounts,
      version: decoded.version,
      logs: meta.logs(),
      unitsConsumed: meta.computeUnitsConsumed(),
      preBalances: pre,
      postBalances: post,
      preTokenBalances: preTokens,
      postTokenBalances: this.tokenBalances(decoded.staticAccounts),
      innerInstructions: innerInstructionsJson(meta),
    };
    this.ledger.set(entry.signature, entry);
    this.order.push(entry.signature);
    for (const l of this.landingListeners) l(entry);
    return { kind: 'landed', entry };
  }

  /**
   * The fee litesvm charged a successful transaction, recomputed the way the bank
   * does: 5000 lamports per signature plus the prioritization fee, ⌈price × limit / 10⁶⌉
   * from the ComputeBudget instructions (limit defaulting to 200k per other instruction).
   */
  private fee(decoded: DecodedTx): bigint {
    let price = 0n;
    let limit: bigint | undefined;
    let others = 0n;
    for (const ix of decoded.instructions) {
      const program = decoded.staticAccounts[ix.programAddressIndex];
      const d = ix.data;
      if (program !== COMPUTE_BUDGET_PROGRAM || !d || d.length === 0) {
        others++;
        continue;
      }
      const view = new DataView(d.buffer, d.byteOffset, d.byteLength);
      if (d[0] === 2 && d.length >= 5) limit = BigInt(view.getUint32(1, true));
      if (d[0] === 3 && d.length >= 9) price = view.getBigUint64(1, true);
    }
    const units = limit ?? (others * 200_000n > 1_400_000n ? 1_400_000n : others * 200_000n);
    const priority = (price * units + 999_999n) / 1_000_000n;
    return BigInt(decoded.header.numSignerAccounts) * LAMPORTS_PER_SIGNATURE + priority;
  }

  /** Runs the transaction against current state without committing anything. */
  simulate(decoded: DecodedTx, opts: { sigVerify?: boolean; replaceRecentBlockhash?: boolean } = {}): SimulationResult {
    this.tick();
    let tx = decoded.tx;
    if (opts.replaceRecentBlockhash) tx = withBlockhash(decoded, this.latest.blockhash);
    else if (!this.isBlockhashValid(decoded.blockhash)) return { err: 'BlockhashNotFound', logs: [], unitsConsumed: 0n, innerInstructions: [] };
    const sigVerify = opts.sigVerify ?? false;
    if (!sigVerify) this.svm.withSigverify(false);
    try {
      let r: ReturnType<LiteSVM['simulateTransaction']>;
      try {
        r = this.svm.simulateTransaction(tx);
      } catch {
        // litesvm's wrapper throws (rather than reporting) a missing signature under sigverify.
        return { err: 'SignatureFailure', logs: [], unitsConsumed: 0n, innerInstructions: [] };
      }
      if (r instanceof FailedTransactionMetadata) {
        const meta = r.meta();
        return { err: toTxError(r.err()), logs: meta.logs(), unitsConsumed: meta.computeUnitsConsumed(), innerInstructions: innerInstructionsJson(meta) };
      }
      const meta = r.meta();
      return { err: null, logs: meta.logs(), unitsConsumed: meta.computeUnitsConsumed(), innerInstructions: innerInstructionsJson(meta) };
    } finally {
      if (!sigVerify) this.svm.withSigverify(true);
    }
  }

  // ---------------------------------------------------------------- ledger

  transaction(signature: string): LedgerEntry | undefined {
    return this.ledger.get(signature);
  }

  /** Ledger entries touching `address` (a static account key), newest first. */
  history(address: string): LedgerEntry[] {
    const out: LedgerEntry[] = [];
    for (let i = this.order.length - 1; i >= 0; i--) {
      const e = this.ledger.get(this.order[i]!)!;
      if (e.accounts.includes(address)) out.push(e);
    }
    return out;
  }

  transactionCount(): number {
    return this.order.length;
  }

  /** Calls `listener` for every transaction that lands from now on; returns the unsubscribe. */
  onLanded(listener: (entry: LedgerEntry) => void): () => void {
    this.landingListeners.add(listener);
    return () => this.landingListeners.delete(listener);
  }

  // ---------------------------------------------------------------- the mempool fault

  hold(): void {
    this.holding = true;
  }

  release(): void {
    this.holding = false;
  }

  /** Processes the held transactions now, in arrival order; returns the signatures that landed. */
  landHeld(): string[] {
    this.tick();
    const queue = this.held;
    this.held = [];
    const landed: string[] = [];
    for (const d of queue) {
      const known = this.ledger.get(d.signature);
      const outcome = known ? ({ kind: 'landed', entry: known } as const) : this.process(d);
      if (outcome.kind === 'landed' && !known) landed.push(outcome.entry.signature);
    }
    return landed;
  }

  dropHeld(): void {
    this.held = [];
  }

  isHeld(signature: string): boolean {
    return this.held.some((h) => h.signature === signature);
  }

  // ---------------------------------------------------------------- state

  lamports(address: string): bigint {
    return this.svm.getBalance(address as Address) ?? 0n;
  }

  account(address: string): { lamports: bigint; owner: string; data: Uint8Array; executable: boolean; rentEpoch: bigint } | null {
    const a = this.svm.getAccount(address as Address);
    if (!a.exists) return null;
    // litesvm's wrapper drops rentEpoch; every rent-exempt account carries u64::MAX today.
    return { lamports: a.lamports, owner: a.programAddress, data: new Uint8Array(a.data), executable: a.executable, rentEpoch: 18446744073709551615n };
  }

  /** A classic SPL token account, decoded; undefined when `address` is not one. */
  tokenAccount(address: string): { mint: string; owner: string; amount: bigint; state: number; delegate: string | null; delegatedAmount: bigint; isNative: bigint | null } | undefined {
    const a = this.account(address);
    if (!a || a.owner !== TOKEN_PROGRAM || a.data.length !== TOKEN_ACCOUNT_SIZE) return undefined;
    const d = a.data;
    const v = new DataView(d.buffer, d.byteOffset, d.byteLength);
    const state = d[108]!;
    if (state === 0) return undefined; // uninitialized
    return {
      mint: addressFromBytes.decode(d.subarray(0, 32)),
      owner: addressFromBytes.decode(d.subarray(32, 64)),
      amount: v.getBigUint64(64, true),
      delegate: v.getUint32(72, true) === 1 ? addressFromBytes.decode(d.subarray(76, 108)) : null,
      state,
      isNative: v.getUint32(109, true) === 1 ? v.getBigUint64(113, true) : null,
      delegatedAmount: v.getBigUint64(121, true),
    };
  }

  /** A classic SPL mint, decoded; undefined when `address` is not one. */
  mintAccount(address: string): { mintAuthority: string | null; supply: bigint; decimals: number; isInitialized: boolean; freezeAuthority: string | null } | undefined {
    const a = this.account(address);
    if (!a || a.owner !== TOKEN_PROGRAM || a.data.length !== MINT_SIZE) return undefined;
    const d = a.data;
    const v = new DataView(d.buffer, d.byteOffset, d.byteLength);
    return {
      mintAuthority: v.getUint32(0, true) === 1 ? addressFromBytes.decode(d.subarray(4, 36)) : null,
      supply: v.getBigUint64(36, true),
      decimals: d[44]!,
      isInitialized: d[45] === 1,
      freezeAuthority: v.getUint32(46, true) === 1 ? addressFromBytes.decode(d.subarray(50, 82)) : null,
    };
  }

  private tokenBalances(accounts: string[]): TokenBalanceEntry[] {
    const out: TokenBalanceEntry[] = [];
    accounts.forEach((address, accountIndex) => {
      const t = this.tokenAccount(address);
      if (!t) return;
      const decimals = this.mintAccount(t.mint)?.decimals ?? 0;
      out.push({ accountIndex, mint: t.mint, owner: t.owner, programId: TOKEN_PROGRAM, uiTokenAmount: uiAmount(t.amount, decimals) });
    });
    return out;
  }
}

/** Solana's `UiTokenAmount`: the atomic amount, and the same as a decimal string and (lossy) number. */
export function uiAmount(amount: bigint, decimals: number): { amount: string; decimals: number; uiAmount: number | null; uiAmountString: string } {
  const s = amount.toString().padStart(decimals + 1, '0');
  const whole = s.slice(0, s.length - decimals);
  const frac = s.slice(s.length - decimals).replace(/0+$/, '');
  const uiAmountString = frac ? `${whole}.${frac}` : whole;
  return { amount: amount.toString(), decimals, uiAmount: Number(uiAmountString), uiAmountString };
}

/** Base58 helpers shared by the RPC server. */
export const base58 = {
  encode: (bytes: Uint8Array): string => b58.encode.decode(bytes),
  decode: (text: string): Uint8Array => new Uint8Array(b58.decode.encode(text)),
};

/** Wire bytes of a kit Transaction. */
export function encodeTransaction(tx: Transaction): Uint8Array {
  return new Uint8Array(getTransactionEncoder().encode(tx));
}
