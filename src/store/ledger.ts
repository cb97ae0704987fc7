/**
 * The payment ledger: a durable write-ahead record of every payment attempt.
 *
 *   reserved → verified → executed → settling → settled
 *        ↘         ↘                      ↘
 *              failed                     unknown → settled | failed
 *
 * `failed` is final, so it is written only when no transfer can happen any
 * more: the facilitator refused the payment at verify, the result could not
 * be produced (nothing was sent to settle), or the chain shows the
 * authorization unused at a block past its `validBefore`. A settlement the
 * facilitator refused or left unanswered stays `unknown` until then: it may
 * still be mined (broadcast, then "settlement_pending" or a timeout).
 *
 * The chain (through the facilitator) is the source of truth for settlement;
 * this ledger is the source of truth for delivery. Every write that moves an
 * attempt is a compare-and-set on the lease owner, so two requests (or two
 * processes) can never both drive the same authorization.
 */
export const ATTEMPT_STATES = ['reserved', 'verified', 'executed', 'settling', 'settled', 'failed', 'unknown'] as const;
export type AttemptState = (typeof ATTEMPT_STATES)[number];

export interface StoredResponse {
  status: number;
  contentType: string;
  body: string;
  /**
   * SHA-256 (hex) of `body`'s UTF-8 bytes, when whoever produced the body
   * already computed it (the worker pool does, so the event loop does not
   * hash a multi-megabyte result for the signed receipt). Never stored: a
   * response read back from the ledger has none and is hashed when needed.
   */
  bodySha256?: string;
  /** `body` as UTF-8, when its producer already encoded it (the worker pool); never stored, like `bodySha256`. */
  bodyBytes?: Uint8Array;
}

export interface PaymentAttempt {
  id: string;
  network: string;
  asset: string;
  payer: string;
  nonce: string;
  payTo: string;
  amount: string;
  resource: string;
  requestFingerprint: string;
  /** Payer-scoped key of the x402 `payment-identifier` extension, when the client sent one. */
  paymentKey: string | null;
  state: AttemptState;
  /** Unix seconds after which the authorization can no longer be settled. */
  validBefore: number;
  /** The PaymentPayload JSON, kept so a resumed attempt can settle it. */
  payload: string;
  /** The PaymentRequirements JSON it was matched against. */
  requirements: string;
  response: StoredResponse | null;
  settleResponse: string | null;
  txHash: string | null;
  /**
   * The facilitator the settlement was sent to (origin and path of its URL,
   * no credentials); when a settle was re-sent after the chain showed the
   * authorization unused, the last one. Null until a settle is sent.
   */
  facilitator: string | null;
  failureCode: string | null;
  failureDetail: string | null;
  leaseOwner: string | null;
  leaseUntil: number;
  createdAt: number;
  updatedAt: number;
}

export type NewAttempt = Omit<
  PaymentAttempt,
  'state' | 'response' | 'settleResponse' | 'txHash' | 'facilitator' | 'failureCode' | 'failureDetail' | 'leaseOwner' | 'leaseUntil' | 'createdAt' | 'updatedAt'
>;

export interface Lease {
  owner: string;
  until: number;
}

/**
 * A response as the ledger is given it to store: its text, or the UTF-8
 * bytes its producer already made (the worker pool), turned into text where
 * the write runs (the SQLite ledger's own thread), so a multi-megabyte
 * result is never a string on the event loop just to be stored.
 */
export type ResponseToStore = Pick<StoredResponse, 'status' | 'contentType'> & ({ body: string } | { bodyBytes: Uint8Array });

/** What of `r` the ledger stores: its bytes when it has them, else its text (never the transient hash). */
export function responseToStore(r: StoredResponse): ResponseToStore {
  return r.bodyBytes ? { status: r.status, contentType: r.contentType, bodyBytes: r.bodyBytes } : { status: r.status, contentType: r.contentType, body: r.body };
}

export interface TransitionPatch {
  response?: ResponseToStore;
  settleResponse?: string;
  txHash?: string;
  facilitator?: string;
  failureCode?: string | null;
  failureDetail?: string | null;
  note?: string;
}

export type ReserveResult = { created: true; attempt: PaymentAttempt } | { created: false; attempt: PaymentAttempt | undefined };

export interface LedgerSummary {
  byState: Record<AttemptState, number>;
  /** Delivered = settled with a stored response. A 402, a failed or unresolved attempt is never counted. */
  paidDeliveries: number;
  settledAtomic: string;
}

export interface PayerDeliveries {
  payer: string;
  /** Sum of their amounts, atomic units, as a decimal string. */
  atomic: string;
  deliveries: number;
  /** `updatedAt` (ms) of the latest one. */
  lastSettledAt: number;
}

/**
 * What the operator's dashboard asks the ledger (`Ledger.dashboard`): one
 * bounded window of time and bounded lists, so one read costs the same on a
 * ledger of a hundred attempts or of millions.
 */
export interface DashboardQuery {
  /** The window (ms): settlements recorded, or attempts created, at or after `from` and before `to`. */
  from: number;
  to: number;
  /** Width (ms) of one delivery bucket; buckets start at multiples of it since the epoch (UTC). At most MAX_DASHBOARD_BUCKETS per window. */
  bucketMs: number;
  /** Payers that are not independent buyers (lower-case): counted apart in buckets and buyer facts. */
  excludePayers: readonly string[];
  /** Upper bounds (ms, ascending) of the settlement-time histogram; at most MAX_LATENCY_BOUNDS. */
  latencyBoundsMs: readonly number[];
  /** Longest lists returned: the last deliveries, the unresolved attempts, the top buyers. */
  recentLimit: number;
  unresolvedLimit: number;
  buyersLimit: number;
  /** Whether an unresolved attempt's lease is still held is judged at this time (ms). */
  now: number;
}

export const MAX_DASHBOARD_BUCKETS = 1000;
export const MAX_LATENCY_BOUNDS = 32;

/** Paid deliveries (settled with a stored result) of one resource settled in one bucket. */
export interface DeliveryBucket {
  /** The bucket's start (ms). */
  start: number;
  resource: string;
  deliveries: number;
  /** Sum of their amounts, atomic units, decimal string. */
  atomic: string;
  /** The same two figures without the excluded payers. */
  independentDeliveries: number;
  independentAtomic: string;
}

/** An attempt that is neither settled nor failed. */
export interface UnresolvedAttempt {
  id: string;
  state: AttemptState;
  resource: string;
  payer: string;
  amount: string;
  network: string;
  txHash: string | null;
  facilitator: string | null;
  failureCode: string | null;
  createdAt: number;
  updatedAt: number;
  /** held: a request (or the reconciler) drives it now; expired: its holder went away; free: nobody held it since. */
  lease: 'held' | 'expired' | 'free';
}

/** A paid delivery as the dashboard lists it. */
export interface Delivery {
  id: string;
  resource: string;
  payer: string;
  amount: string;
  asset: string;
  network: string;
  txHash: string | null;
  facilitator: string | null;
  createdAt: number;
  /** When `settled` was recorded (its `updatedAt`). */
  settledAt: number;
}

export interface LedgerDashboard {
  /** Deliveries settled in the window, by bucket then resource, oldest bucket first; empty buckets are absent. */
  deliveries: DeliveryBucket[];
  /** Attempts created in the window, by the state they are in now. */
  attemptsByState: Record<AttemptState, number>;
  /** Attempts created before `to`, of any age, neither settled nor failed: oldest first, at most `unresolvedLimit`. */
  unresolved: UnresolvedAttempt[];
  /** How many such attempts there are in all. */
  unresolvedTotal: number;
  /**
   * Time from reserve to `settled` recorded (`updatedAt − createdAt`) of the
   * deliveries settled in the window: `cumulative[i]` took at most
   * `latencyBoundsMs[i]`; `count` is all of them.
   */
  settlementMs: { cumulative: number[]; count: number; meanMs: number | null; maxMs: number | null };
  /** Buyers of the deliveries settled in the window, excluded payers apart. */
  buyers: {
    /** Distinct independent payers, and those with more than one delivery. */
    count: number;
    repeat: number;
    /** The independent payers with the most deliveries, at most `buyersLimit`. */
    top: Array<PayerDeliveries & { firstSettledAt: number }>;
    excluded: { payers: number; deliveries: number; atomic: string };
  };
  /** The last deliveries settled before `to`, newest first, at most `recentLimit`. */
  recent: Delivery[];
}

/** The named arguments of `advance` (LEDGER_METHODS). */
export interface AdvanceArgs {
  id: string;
  owner: string;
  steps: Array<{ to: AttemptState; patch: TransitionPatch }>;
  now: number;
  /**
   * false: atomic and immediately visible, and it survives a crash of this
   * process, but the commit is not flushed to disk before returning (an OS
   * crash or power loss, or a PostgreSQL server crash, may lose it; the next
   * durable write flushes it). Only for a write whose loss the chain repairs:
   * `settled` after a confirmed settle, where a lost row leaves the attempt
   * `settling` with its response stored, and a retry or the reconciler
   * records it from the chain. Ignored when a step stores a response.
   * Default true.
   */
  durable?: boolean;
}

/**
 * One ledger method beyond its argument and result: what it does to the
 * database, and whether it waits for the disk. Every method takes one
 * object of named arguments, or none, so the argument crosses to the
 * ledger's thread as it is and nothing reads an argument by position.
 */
export interface LedgerMethodSpec<Args, Result> {
  /**
   * read: changes nothing, so it leaves no WAL to checkpoint (ledger-thread.ts).
   * write: claims, leases or moves an attempt; a failed one makes the
   * service unready for a moment (write-outcomes.ts).
   * probe: readiness' own write (`ping`). close: ends the ledger.
   */
  does: 'read' | 'write' | 'probe' | 'close';
  /**
   * Whether its commit reaches the disk before it returns: decided here and
   * nowhere else. The ledger's transactions commit by it (sql-ledger.ts); a
   * write of one statement (`acquire`, `renew`, `release`) is always
   * flushed, so those say so.
   */
  flushes(args: Args): boolean;
  /** The states a call that returned `result` moved an attempt into (metrics). */
  enters?(args: Args, result: Result): readonly AttemptState[];
}

const method = <Args, Result>(spec: LedgerMethodSpec<Args, Result>) => spec;
const read = <Args, Result>() => method<Args, Result>({ does: 'read', flushes: () => false });

/**
 * The ledger's methods: the one list of them. The `Ledger` type, the
 * SQLite ledger's thread (its proxy, its messages, which calls arm a
 * checkpoint), readiness after failed writes and the metrics all derive
 * from it, so a new method is one entry here and its implementation in
 * sql-ledger.ts.
 */
export const LEDGER_METHODS = {
  /** Readiness: a durable write of one probe row (write-probe.ts), or a trivial read where the driver has no probe. */
  ping: method<void, void>({ does: 'probe', flushes: () => true }),
  /**
   * Record a new attempt holding the lease. Never a select-then-insert: the
   * insert itself is the claim (`ON CONFLICT DO NOTHING` + affected rows).
   * When the authorization or its payment key is already recorded, returns
   * the existing row instead. Atomic and visible at once, never flushed
   * before it returns: the durable write before any settle flushes it
   * (sql-ledger.ts says why that is enough).
   */
  reserve: method<{ attempt: NewAttempt; lease: Lease; now: number }, ReserveResult>({
    does: 'write',
    flushes: () => false,
    enters: (_, r) => (r.created ? [r.attempt.state] : []),
  }),
  /** Take the lease of an existing, unfinished attempt if nobody holds it. */
  acquire: method<{ id: string; lease: Lease; now: number }, boolean>({ does: 'write', flushes: () => true }),
  /** Move an attempt the caller holds the lease of; false when the lease was lost. */
  transition: method<{ id: string; owner: string; to: AttemptState; patch: TransitionPatch; now: number }, boolean>({
    does: 'write',
    flushes: () => true,
    enters: (a, moved) => (moved ? [a.to] : []),
  }),
  /**
   * Several transitions in one atomic write (one fsync instead of one per
   * state): e.g. verified → executed → settling once the result is ready.
   * All happen or none; false when the lease was lost.
   */
  advance: method<AdvanceArgs, boolean>({
    does: 'write',
    // A stored result is always flushed: a buyer's retry after any crash is served from it.
    flushes: (a) => a.durable !== false || a.steps.some((s) => s.patch.response !== undefined),
    enters: (a, moved) => (moved ? a.steps.map((s) => s.to) : []),
  }),
  /** Move an attempt nobody holds (used by the reconciler); false when someone holds it. */
  transitionUnleased: method<{ id: string; from: AttemptState; to: AttemptState; patch: TransitionPatch; now: number }, boolean>({
    does: 'write',
    flushes: () => true,
    enters: (a, moved) => (moved ? [a.to] : []),
  }),
  /** Extend a lease the caller holds (heartbeat while a request drives the attempt); false when it was lost. */
  renew: method<{ id: string; owner: string; until: number }, boolean>({ does: 'write', flushes: () => true }),
  release: method<{ id: string; owner: string }, void>({ does: 'write', flushes: () => true }),
  get: read<{ id: string }, PaymentAttempt | undefined>(),
  getByPaymentKey: read<{ key: string }, PaymentAttempt | undefined>(),
  /**
   * The attempt by `payer` on `network` for one request (its fingerprint
   * binds the resource and the body): the newest settled one, else the newest
   * in any state. What a sign-in by that payer may get again.
   */
  paidFor: read<{ payer: string; network: string; requestFingerprint: string }, PaymentAttempt | undefined>(),
  /**
   * Use a sign-in message once: records its nonce with the attempt it got
   * again, and the redelivery in that attempt's history; false when the nonce was
   * used before, by any instance. The insert is the check, like `reserve`'s.
   * Not flushed before it returns (atomic and visible at once): an OS crash
   * can lose the record of a nonce, which then works once more within its
   * five minutes, and only for the payer who signed it and the result it paid for.
   */
  spendSignIn: method<{ nonce: string; attemptId: string; signer: string; network: string; now: number; expiresAt: number }, boolean>({
    does: 'write',
    flushes: () => false,
  }),
  /** Attempts whose settlement may have happened but is not recorded, and whose lease is free. */
  listUnresolved: read<{ now: number; limit: number }, PaymentAttempt[]>(),
  history: read<{ id: string }, Array<{ at: number; state: AttemptState; note: string | null }>>(),
  summary: read<void, LedgerSummary>(),
  /** Paid deliveries (the rule of `LedgerSummary.paidDeliveries`) summed per payer, payer lower-cased. */
  paidDeliveriesByPayer: read<void, PayerDeliveries[]>(),
  /**
   * Changes whenever a settlement is recorded: the newest settled attempt's
   * time and how many share it (an index probe, cheap enough per request).
   */
  settlementWatermark: read<void, string>(),
  /** The operator's dashboard over one window (see DashboardQuery); rejects a query past its bounds. */
  dashboard: read<DashboardQuery, LedgerDashboard>(),
  close: method<void, void>({ does: 'close', flushes: () => false }),
};

export type LedgerMethodName = keyof typeof LEDGER_METHODS;
export const LEDGER_METHOD_NAMES = Object.keys(LEDGER_METHODS) as LedgerMethodName[];

/** The named arguments of method `M`. */
export type LedgerArgs<M extends LedgerMethodName> = (typeof LEDGER_METHODS)[M] extends LedgerMethodSpec<infer Args, unknown> ? Args : never;

/** The entry of `name` when the ledger has such a method (wrappers, which see every property). */
export function ledgerMethod(name: string | symbol): LedgerMethodSpec<unknown, unknown> | undefined {
  return typeof name === 'string' && Object.hasOwn(LEDGER_METHODS, name) ? LEDGER_METHODS[name as LedgerMethodName] : undefined;
}

type Signature<S> = S extends LedgerMethodSpec<infer Args, infer Result> ? ([Args] extends [void] ? () => Promise<Result> : (args: Args) => Promise<Result>) : never;
type LedgerMethods = { [M in keyof typeof LEDGER_METHODS]: Signature<(typeof LEDGER_METHODS)[M]> };

/** The payment ledger: the methods of LEDGER_METHODS, on one of two databases. */
export interface Ledger extends LedgerMethods {
  readonly kind: 'sqlite' | 'postgres';
}

export class LedgerUnavailableError extends Error {
  constructor(cause: unknown) {
    super(`ledger unavailable: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'LedgerUnavailableError';
  }
}
