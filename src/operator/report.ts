/**
 * The operator's dashboard as one document: the ledger's figures over a
 * window (Ledger.dashboard: the SQL stays in the ledger) and the
 * facilitators' health from this process's metrics, in dollars and with the
 * capabilities named. The page (page.ts) and its JSON twin are both this
 * document, so a script and a person read the same figures.
 *
 * Independent figures leave out the payers that are never independent buyers
 * (ModuleInit.ownWallets: the operator's wallets, the payee and the
 * published test wallets), the same list the newswire's independent revenue
 * excludes, so the two agree.
 */
import type { Capability } from '../catalog/capability.js';
import { atomicToDecimal } from '../catalog/price.js';
import type { PaymentConfig } from '../config.js';
import { facilitatorHealth, type FacilitatorHealth } from '../observability/facilitator-health.js';
import type { AttemptState, Ledger, UnresolvedAttempt } from '../store/ledger.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** The windows an operator picks from, each with its bucket width (a few dozen bars each). */
export const DASHBOARD_WINDOWS = {
  '24h': { ms: DAY, bucketMs: HOUR, label: 'last 24 hours', bucketLabel: 'hour' },
  '7d': { ms: 7 * DAY, bucketMs: 6 * HOUR, label: 'last 7 days', bucketLabel: '6 hours' },
  '30d': { ms: 30 * DAY, bucketMs: DAY, label: 'last 30 days', bucketLabel: 'day (UTC)' },
} as const;
export type DashboardWindowName = keyof typeof DASHBOARD_WINDOWS;
export const DEFAULT_WINDOW: DashboardWindowName = '7d';

/** Upper bounds (ms) of the reserve-to-settled histogram: a devnet settles in a second, a busy chain in tens. */
const SETTLEMENT_BOUNDS_MS = [250, 500, 1_000, 2_000, 5_000, 10_000, 30_000, 60_000, 300_000];

/** How many rows each list shows. */
const LIST_LIMITS = { recent: 20, unresolved: 50, buyers: 10 } as const;

export interface Money {
  atomic: string;
  /** The same amount in the asset's units (USDC: dollars), exact decimal. */
  usd: string;
}

export interface CapabilityFigures {
  resource: string;
  /** Its path and title in the catalog; null for a resource no longer offered. */
  path: string | null;
  title: string | null;
  paidCalls: number;
  revenue: Money;
  independentPaidCalls: number;
  independentRevenue: Money;
}

export interface DashboardReport {
  generatedAt: string;
  window: { name: DashboardWindowName; label: string; from: string; to: string; bucketSeconds: number; bucketLabel: string };
  asset: { symbol: string; decimals: number; network: string };
  /** Paid deliveries settled in the window (settled with a stored result). */
  totals: { paidCalls: number; revenue: Money; independentPaidCalls: number; independentRevenue: Money };
  capabilities: CapabilityFigures[];
  /** Every bucket start of the window, oldest first, and per capability its figures in each (same order). */
  series: { buckets: string[]; byCapability: Array<{ resource: string; paidCalls: number[]; revenueUsd: number[] }> };
  attempts: {
    /** Attempts created in the window, by the state they are in now. */
    byState: Record<AttemptState, number>;
    /** Neither settled nor failed, any age: how many, and the oldest of them. */
    unresolvedTotal: number;
    unresolved: Array<Omit<UnresolvedAttempt, 'createdAt' | 'updatedAt' | 'amount'> & { createdAt: string; updatedAt: string; ageSeconds: number; amount: Money }>;
  };
  /** Reserve to settled recorded, for the deliveries settled in the window. */
  settlement: { count: number; meanSeconds: number | null; maxSeconds: number | null; histogram: Array<{ atMostSeconds: number; count: number }> };
  /** Verify and settle as this process saw them since it started. */
  facilitators: FacilitatorHealth[];
  buyers: {
    /** Independent payers with a delivery in the window, those with more than one, and their share. */
    count: number;
    repeat: number;
    repeatShare: number | null;
    top: Array<{ payer: string; paidCalls: number; revenue: Money; firstSettledAt: string; lastSettledAt: string }>;
    /** The operator's and test wallets' deliveries, left out of every buyer and independent figure. */
    excluded: { payers: number; paidCalls: number; revenue: Money };
  };
  lastDeliveries: Array<{ id: string; settledAt: string; resource: string; payer: string; amount: Money; network: string; asset: string; txHash: string | null; facilitator: string | null; secondsToSettle: number }>;
}

/** What the operator's view asks the ledger: its dashboard. */
export type OperatorLedger = Pick<Ledger, 'dashboard'>;

export interface ReportDeps {
  ledger: OperatorLedger;
  catalog: readonly Capability[];
  payment: Pick<PaymentConfig, 'network' | 'asset'>;
  ownWallets: readonly string[];
  now: () => number;
  /** The facilitators' health (default: this process's metrics). */
  facilitators?: () => Promise<FacilitatorHealth[]>;
}

const iso = (ms: number) => new Date(ms).toISOString();

export async function dashboardReport(deps: ReportDeps, windowName: DashboardWindowName): Promise<DashboardReport> {
  const w = DASHBOARD_WINDOWS[windowName];
  const now = deps.now();
  // The window ends where the current bucket does, so every bar covers a whole bucket.
  const to = Math.ceil((now + 1) / w.bucketMs) * w.bucketMs;
  const from = to - w.ms;
  const [d, facilitators] = await Promise.all([
    deps.ledger.dashboard({
      from,
      to,
      bucketMs: w.bucketMs,
      excludePayers: deps.ownWallets,
      latencyBoundsMs: SETTLEMENT_BOUNDS_MS,
      recentLimit: LIST_LIMITS.recent,
      unresolvedLimit: LIST_LIMITS.unresolved,
      buyersLimit: LIST_LIMITS.buyers,
      now,
    }),
    (deps.facilitators ?? facilitatorHealth)(),
  ]);
  const decimals = deps.payment.asset.decimals;
  const money = (atomic: string | bigint): Money => ({ atomic: atomic.toString(), usd: atomicToDecimal(atomic, decimals) });
  const byId = new Map(deps.catalog.map((c) => [c.id, c]));

  const perResource = new Map<string, { n: number; atomic: bigint; indN: number; indAtomic: bigint }>();
  // Every offered capability is listed, with zeros when it sold nothing.
  for (const c of deps.catalog) perResource.set(c.id, { n: 0, atomic: 0n, indN: 0, indAtomic: 0n });
  const starts: number[] = [];
  for (let t = from; t < to; t += w.bucketMs) starts.push(t);
  const calls = new Map<string, number[]>();
  const usd = new Map<string, number[]>();
  for (const b of d.deliveries) {
    const r = perResource.get(b.resource) ?? { n: 0, atomic: 0n, indN: 0, indAtomic: 0n };
    r.n += b.deliveries;
    r.atomic += BigInt(b.atomic);
    r.indN += b.independentDeliveries;
    r.indAtomic += BigInt(b.independentAtomic);
    perResource.set(b.resource, r);
    const i = Math.round((b.start - from) / w.bucketMs);
    if (!calls.has(b.resource)) {
      calls.set(b.resource, starts.map(() => 0));
      usd.set(b.resource, starts.map(() => 0));
    }
    calls.get(b.resource)![i]! += b.deliveries;
    usd.get(b.resource)![i]! += Number(atomicToDecimal(b.atomic, decimals));
  }
  const capabilities: CapabilityFigures[] = [...perResource.entries()]
    .map(([resource, r]) => ({
      resource,
      path: byId.get(resource)?.path ?? null,
      title: byId.get(resource)?.title ?? null,
      paidCalls: r.n,
      revenue: money(r.atomic),
      independentPaidCalls: r.indN,
      independentRevenue: money(r.indAtomic),
    }))
    .sort((a, b) => Number(BigInt(b.revenue.atomic) - BigInt(a.revenue.atomic)) || b.paidCalls - a.paidCalls || a.resource.localeCompare(b.resource));
  const sum = (f: (c: CapabilityFigures) => bigint) => capabilities.reduce((n, c) => n + f(c), 0n);

  const { buyers } = d;
  return {
    generatedAt: iso(now),
    window: { name: windowName, label: w.label, from: iso(from), to: iso(to), bucketSeconds: w.bucketMs / 1000, bucketLabel: w.bucketLabel },
    asset: { symbol: deps.payment.asset.symbol, decimals, network: deps.payment.network },
    totals: {
      paidCalls: capabilities.reduce((n, c) => n + c.paidCalls, 0),
      revenue: money(sum((c) => BigInt(c.revenue.atomic))),
      independentPaidCalls: capabilities.reduce((n, c) => n + c.independentPaidCalls, 0),
      independentRevenue: money(sum((c) => BigInt(c.independentRevenue.atomic))),
    },
    capabilities,
    series: {
      buckets: starts.map(iso),
      byCapability: capabilities.filter((c) => calls.has(c.resource)).map((c) => ({ resource: c.resource, paidCalls: calls.get(c.resource)!, revenueUsd: usd.get(c.resource)! })),
    },
    attempts: {
      byState: d.attemptsByState,
      unresolvedTotal: d.unresolvedTotal,
      unresolved: d.unresolved.map((u) => ({ ...u, amount: money(u.amount), createdAt: iso(u.createdAt), updatedAt: iso(u.updatedAt), ageSeconds: Math.max(0, Math.round((now - u.createdAt) / 1000)) })),
    },
    settlement: {
      count: d.settlementMs.count,
      meanSeconds: d.settlementMs.meanMs === null ? null : d.settlementMs.meanMs / 1000,
      maxSeconds: d.settlementMs.maxMs === null ? null : d.settlementMs.maxMs / 1000,
      histogram: SETTLEMENT_BOUNDS_MS.map((b, i) => ({ atMostSeconds: b / 1000, count: d.settlementMs.cumulative[i] ?? 0 })),
    },
    facilitators,
    buyers: {
      count: buyers.count,
      repeat: buyers.repeat,
      repeatShare: buyers.count ? buyers.repeat / buyers.count : null,
      top: buyers.top.map((p) => ({ payer: p.payer, paidCalls: p.deliveries, revenue: money(p.atomic), firstSettledAt: iso(p.firstSettledAt), lastSettledAt: iso(p.lastSettledAt) })),
      excluded: { payers: buyers.excluded.payers, paidCalls: buyers.excluded.deliveries, revenue: money(buyers.excluded.atomic) },
    },
    lastDeliveries: d.recent.map((r) => ({
      id: r.id,
      settledAt: iso(r.settledAt),
      resource: r.resource,
      payer: r.payer,
      amount: money(r.amount),
      network: r.network,
      asset: r.asset,
      txHash: r.txHash,
      facilitator: r.facilitator,
      secondsToSettle: (r.settledAt - r.createdAt) / 1000,
    })),
  };
}
