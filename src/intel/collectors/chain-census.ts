/**
 * On-chain census: payments to the payees of known x402 resources, read from
 * the asset's `Transfer` and `AuthorizationUsed` logs over an EVM JSON-RPC
 * endpoint, in bounded block ranges from a stored checkpoint, every RPC call
 * bounded in time and response size.
 *
 * Honesty rules (src/intel/README.md, "Collectors"), kept here in code:
 * - Only transfers count. A 402 answer, a request or a listing is never a
 *   payment (this collector sees nothing but mined transfers).
 * - A payer is a buyer only through a qualifying transfer. Left out of
 *   payers and calls, each transfer in exactly one class, in this order:
 *   self-payments (payer = payee, or payer in OPERATOR_WALLETS); circular
 *   flows (the payee, directly or through at most two more transfers in the
 *   same window, sent funds back to the payer); dust (below the dust
 *   threshold). The rule is stated in the snapshot's `exclusions` and so in
 *   `whatChanged`.
 * - One census snapshot per run, covering the blocks read in that run; a
 *   "resource" of this census is a payee address (resources sharing a payee
 *   are counted together); removed resources are payees no discovery source
 *   lists any more.
 * - The snapshot feeds market movements, and a `market_snapshot` item
 *   carries the numbers with the movement they make (only when the window
 *   had a transfer to a payee: a quiet window is stored, not news).
 */
import { createHash } from 'node:crypto';
import { createPublicClient, http, parseAbi, type Log } from 'viem';
import { canonicalJson } from '../../foundation/canonical-json.js';
import { computeMovements, zeroMovements } from '../census.js';
import type { CensusRecord, CensusResource } from '../types.js';
import { clip, idFragment, loadState, newReport, provenanceOf, saveState, slugFragment, utcDay, write, type CollectorContext, type CollectorReport, type SourceFailure } from './context.js';
import { isListed, loadDiscoveryState } from './discovery.js';
import { collectorFetch, PrivateAddressRefused, type FetchLimits } from './fetch.js';

export const CHAIN_COLLECTOR = 'chain-census';

const TOKEN_EVENTS = parseAbi([
  'event Transfer(address indexed from, address indexed to, uint256 value)',
  'event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)',
]);

export interface ChainCensusOptions {
  rpcUrl: string;
  /** The token (USDC) whose transfers are read. */
  asset: string;
  /** CAIP-2 network of the RPC, for resource ids and labels; asked of the RPC (eth_chainId) when not given. */
  network?: string;
  /** Public URL cited as the census source (e.g. the token's block-explorer page). */
  sourceUrl: string;
  operatorWallets: readonly string[];
  /** Transfers below this many atomic units are dust. */
  dustAtomic: bigint;
  /** Most blocks per eth_getLogs call. */
  blockRange: bigint;
  /** Most blocks read in one run. */
  maxBlocksPerRun: bigint;
  /** First block of the first run; default: the last maxBlocksPerRun blocks. */
  startBlock?: bigint;
  /** Per-request timeout of the RPC, ms. */
  timeoutMs: number;
  /** Largest RPC response body accepted, bytes. */
  maxBytes: number;
}

interface ChainState {
  /** Last block read (decimal string); absent before the first run. */
  checkpoint?: string;
}

export interface Transfer {
  from: string;
  to: string;
  value: bigint;
  txHash: string;
  logIndex: number;
  /** Sent with an EIP-3009 authorization (an AuthorizationUsed log of the payer in the same transaction). */
  eip3009: boolean;
}

/** `other`: a transfer read only as an edge of the flow graph (not to a payee). */
export type TransferClass = 'qualifying' | 'self' | 'circular' | 'dust' | 'other';

export const EXCLUSION_RULE =
  'Only mined token transfers to payees of known x402 resources count (a 402 is not revenue; traffic is not a buyer). Self-payments (payer = payee or an operator wallet), circular flows (the payee sent funds back to the payer within the same window, directly or via at most two hops) and dust are excluded from payers and calls.';

export interface Classified {
  classes: TransferClass[];
  calls: Map<string, number>;
  payers: Set<string>;
  excludedPayers: Set<string>;
}

/** Whether `from` can reach `to` along the window's transfers in at most `hops` steps. */
function reaches(edges: Map<string, Set<string>>, from: string, to: string, hops: number): boolean {
  let frontier = new Set([from]);
  const seen = new Set([from]);
  for (let i = 0; i < hops; i++) {
    const next = new Set<string>();
    for (const a of frontier) {
      for (const b of edges.get(a) ?? []) {
        if (b === to) return true;
        if (!seen.has(b)) {
          seen.add(b);
          next.add(b);
        }
      }
    }
    frontier = next;
  }
  return false;
}

/** Classify every transfer to a payee; pure, so the rules are tested without a chain. */
export function classifyTransfers(all: readonly Transfer[], payees: ReadonlySet<string>, operatorWallets: ReadonlySet<string>, dustAtomic: bigint): Classified {
  const edges = new Map<string, Set<string>>();
  for (const t of all) {
    if (!edges.has(t.from)) edges.set(t.from, new Set());
    edges.get(t.from)!.add(t.to);
  }
  const classes: TransferClass[] = [];
  const calls = new Map<string, number>();
  const payers = new Set<string>();
  const flagged = new Set<string>();
  for (const t of all) {
    if (!payees.has(t.to)) {
      classes.push('other');
      continue;
    }
    const c: TransferClass =
      t.from === t.to || operatorWallets.has(t.from) ? 'self' : reaches(edges, t.to, t.from, 3) ? 'circular' : t.value < dustAtomic ? 'dust' : 'qualifying';
    classes.push(c);
    if (c === 'qualifying') {
      calls.set(t.to, (calls.get(t.to) ?? 0) + 1);
      payers.add(t.from);
    } else flagged.add(t.from);
  }
  const excludedPayers = new Set([...flagged].filter((p) => !payers.has(p)));
  return { classes, calls, payers, excludedPayers };
}

interface PayeeInfo {
  resources: string[];
  family: string;
}

/** Payees of the resources discovery sources list now (EVM addresses only), with their most common family. */
async function knownPayees(ctx: CollectorContext): Promise<Map<string, PayeeInfo>> {
  const state = await loadDiscoveryState(ctx);
  const families = new Map<string, Map<string, number>>();
  const out = new Map<string, PayeeInfo>();
  for (const [url, r] of Object.entries(state.resources)) {
    if (!isListed(r) || !r.payTo || !/^0x[0-9a-f]{40}$/.test(r.payTo)) continue;
    const info = out.get(r.payTo) ?? { resources: [], family: r.family };
    info.resources.push(url);
    out.set(r.payTo, info);
    const f = families.get(r.payTo) ?? new Map<string, number>();
    f.set(r.family, (f.get(r.family) ?? 0) + 1);
    families.set(r.payTo, f);
  }
  for (const [payee, f] of families) {
    const best = [...f.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]!;
    out.get(payee)!.family = best[0];
  }
  return out;
}

/** The RPC client: bounded per request in time and in response size, on the collectors' client (so public addresses only, unless allowed). */
function rpcClient(limits: FetchLimits, opts: ChainCensusOptions) {
  return createPublicClient({ transport: http(opts.rpcUrl, { timeout: opts.timeoutMs, retryCount: 1, fetchFn: collectorFetch({ ...limits, timeoutMs: opts.timeoutMs, maxBytes: opts.maxBytes }) }) });
}

/** How a failed RPC read is reported: an internal address as the collectors' `private_address`, anything else as `rpc`. */
function rpcFailure(url: string, e: unknown): SourceFailure {
  for (let c: unknown = e; c instanceof Error; c = c.cause) {
    if (c instanceof PrivateAddressRefused) return { url, failure: 'private_address', detail: c.message };
  }
  return { url, failure: 'rpc', detail: rpcError(e) };
}

/** viem's errors say what failed in `shortMessage` and why in `details` (e.g. the size limit). */
function rpcError(e: unknown): string {
  const v = e as { shortMessage?: string; details?: string; message?: string };
  return clip(`${v.shortMessage ?? v.message ?? String(e)}${v.details ? ` (${v.details})` : ''}`, 300);
}

/** Topic OR-lists stay short: AuthorizationUsed is asked for these many authorizers at a time. */
const AUTHORIZER_BATCH = 200;

type TransferLog = Log<bigint, number, false, (typeof TOKEN_EVENTS)[0], true>;
type AuthLog = Log<bigint, number, false, (typeof TOKEN_EVENTS)[1], true>;

/** Every transfer to or from a payee, and the AuthorizationUsed logs, in [from, to], in chunks of blockRange. */
async function readLogs(limits: FetchLimits, opts: ChainCensusOptions, payees: `0x${string}`[], fromBlock: bigint, toBlock: bigint): Promise<Transfer[]> {
  const client = rpcClient(limits, opts);
  const address = opts.asset as `0x${string}`;
  const seen = new Map<string, Transfer>();
  const authorizers = new Set<string>();
  for (let start = fromBlock; start <= toBlock; start += opts.blockRange) {
    const end = start + opts.blockRange - 1n < toBlock ? start + opts.blockRange - 1n : toBlock;
    const range = { fromBlock: start, toBlock: end };
    const [toPayees, fromPayees] = await Promise.all([
      client.getLogs({ address, event: TOKEN_EVENTS[0], args: { to: payees }, strict: true, ...range }) as Promise<TransferLog[]>,
      client.getLogs({ address, event: TOKEN_EVENTS[0], args: { from: payees }, strict: true, ...range }) as Promise<TransferLog[]>,
    ]);
    // Only the payers of this range's payments can have authorized them: ask for their AuthorizationUsed logs, not every one of the token.
    const payers = [...new Set(toPayees.map((l) => l.args.from))];
    for (let i = 0; i < payers.length; i += AUTHORIZER_BATCH) {
      const batch = payers.slice(i, i + AUTHORIZER_BATCH);
      const auths = (await client.getLogs({ address, event: TOKEN_EVENTS[1], args: { authorizer: batch }, strict: true, ...range })) as AuthLog[];
      for (const a of auths) if (!a.removed) authorizers.add(`${a.transactionHash}:${a.args.authorizer.toLowerCase()}`);
    }
    for (const l of [...toPayees, ...fromPayees]) {
      if (l.removed) continue;
      const key = `${l.transactionHash}:${l.logIndex}`;
      const from = l.args.from.toLowerCase();
      seen.set(key, { from, to: l.args.to.toLowerCase(), value: l.args.value, txHash: l.transactionHash, logIndex: l.logIndex, eip3009: false });
    }
  }
  const out = [...seen.values()].sort((a, b) => (a.txHash < b.txHash ? -1 : a.txHash > b.txHash ? 1 : a.logIndex - b.logIndex));
  for (const t of out) t.eip3009 = authorizers.has(`${t.txHash}:${t.from}`);
  return out;
}

export interface ChainCensusReport extends CollectorReport {
  fromBlock?: bigint;
  toBlock?: bigint;
  snapshot?: CensusRecord;
}

type ResolvedOptions = ChainCensusOptions & { network: string };

export async function collectChainCensus(ctx: CollectorContext, given: ChainCensusOptions): Promise<ChainCensusReport> {
  const report: ChainCensusReport = newReport(CHAIN_COLLECTOR);
  const payees = await knownPayees(ctx);
  if (payees.size === 0) {
    report.notes.push('No payees of known x402 resources yet (run the discovery collector first); nothing read.');
    return report;
  }
  const state = await loadState<ChainState>(ctx, CHAIN_COLLECTOR, () => ({}));
  const client = rpcClient(ctx.limits, given);
  let head: bigint;
  let opts: ResolvedOptions;
  try {
    head = await client.getBlockNumber({ cacheTime: 0 });
    opts = { ...given, network: given.network ?? `eip155:${await client.getChainId()}` };
  } catch (e) {
    report.failures.push(rpcFailure(given.sourceUrl, e));
    return report;
  }
  const first = state.checkpoint !== undefined ? BigInt(state.checkpoint) + 1n : (opts.startBlock ?? (head >= opts.maxBlocksPerRun ? head - opts.maxBlocksPerRun + 1n : 0n));
  const last = first + opts.maxBlocksPerRun - 1n < head ? first + opts.maxBlocksPerRun - 1n : head;
  if (first > last) {
    report.notes.push(`No new blocks since block ${state.checkpoint}.`);
    return report;
  }
  let transfers: Transfer[];
  try {
    transfers = await readLogs(ctx.limits, opts, [...payees.keys()] as `0x${string}`[], first, last);
  } catch (e) {
    report.failures.push(rpcFailure(opts.sourceUrl, e));
    return report;
  }
  report.fromBlock = first;
  report.toBlock = last;
  const classified = classifyTransfers(transfers, new Set(payees.keys()), new Set(opts.operatorWallets.map((w) => w.toLowerCase())), opts.dustAtomic);
  const snapshot = snapshotOf(ctx, opts, payees, classified, first, last);
  const readHash = createHash('sha256').update(canonicalJson(transfers.map((t) => ({ ...t, value: t.value.toString() })))).digest('hex');
  if (!(await write(ctx, report, snapshot))) return report;
  report.snapshot = snapshot;
  // A window in which nobody paid a payee is stored (the movement needs it) but is not news.
  if (classified.classes.some((c) => c !== 'other')) await publishSnapshotItem(ctx, report, opts, snapshot, classified, transfers, readHash, first, last);
  else report.notes.push(`Blocks ${first}–${last}: no transfers to known payees; snapshot ${snapshot.snapshotId} stored, no market_snapshot item.`);
  state.checkpoint = last.toString();
  await saveState(ctx, CHAIN_COLLECTOR, state);
  return report;
}

function snapshotOf(ctx: CollectorContext, opts: ResolvedOptions, payees: Map<string, PayeeInfo>, c: Classified, first: bigint, last: bigint): CensusRecord {
  const resources: CensusResource[] = [...payees.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([payee, info]) => ({ id: `${opts.network}:${payee}`, family: info.family, calls: c.calls.get(payee) ?? 0 }));
  const count = (k: string) => c.classes.filter((x) => x === k).length;
  return {
    kind: 'census',
    snapshotId: `chain-${slugFragment(opts.network, 24)}-${idFragment(opts.asset, 6)}-${first}-${last}`,
    observedAt: new Date(ctx.now()).toISOString(),
    source: opts.sourceUrl,
    distinctPayers: c.payers.size,
    resources,
    exclusions: { rule: EXCLUSION_RULE, selfPayments: count('self'), circularTransfers: count('circular'), dustTransfers: count('dust'), excludedPayers: c.excludedPayers.size },
  };
}

async function publishSnapshotItem(
  ctx: CollectorContext,
  report: CollectorReport,
  opts: ResolvedOptions,
  s: CensusRecord,
  c: Classified,
  transfers: Transfer[],
  readHash: string,
  first: bigint,
  last: bigint,
): Promise<void> {
  const [latest, previous] = await ctx.store.latestCensus(2);
  const movements = latest && previous && latest.snapshotId === s.snapshotId ? computeMovements(previous, latest) : zeroMovements();
  const calls = s.resources.reduce((n, r) => n + r.calls, 0);
  const eip3009 = transfers.filter((t, i) => c.classes[i] === 'qualifying' && t.eip3009).length;
  const nowMs = ctx.now();
  await write(ctx, report, {
    kind: 'item',
    eventId: `market-snapshot-${s.snapshotId}`.slice(0, 128),
    eventDate: utcDay(nowMs),
    type: 'market_snapshot',
    headline: clip(`On-chain x402 census, blocks ${first}–${last}: ${s.distinctPayers} paying wallets, ${calls} payments to ${s.resources.length} payees`, 200),
    summary: clip(
      `${calls} qualifying ${opts.network} token transfers (${eip3009} by EIP-3009 authorization) from ${s.distinctPayers} distinct payers to ${s.resources.length} payees of known x402 resources. ${EXCLUSION_RULE} Excluded: ${s.exclusions!.selfPayments} self, ${s.exclusions!.circularTransfers} circular, ${s.exclusions!.dustTransfers} dust.`,
      2000,
    ),
    whyItMatters: 'Settled transfers to the payees of x402 resources are the one direct measure of paid machine-economy demand; requests and 402 answers are not.',
    entities: [],
    protocols: [],
    topics: ['census', 'on-chain'],
    sources: [{ url: opts.sourceUrl, sourceType: 'market_observation', supports: clip(`Transfer and AuthorizationUsed logs of ${opts.asset} in blocks ${first}–${last}.`, 2000) }],
    evidenceTier: 'TIER_C',
    observedAt: new Date(nowMs).toISOString(),
    marketData: {
      snapshotId: s.snapshotId,
      network: opts.network,
      asset: opts.asset,
      fromBlock: first.toString(),
      toBlock: last.toString(),
      distinctPayers: s.distinctPayers,
      calls,
      eip3009Payments: eip3009,
      exclusions: s.exclusions,
      movements,
    },
    provenance: [provenanceOf(CHAIN_COLLECTOR, opts.sourceUrl, readHash, nowMs, 'eth_getlogs')],
  });
}
