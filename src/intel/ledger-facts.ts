/**
 * Ledger facts, read by intel in this one place. The newswire's
 * `independentRevenueUsd` needs this service's paid deliveries.
 *
 * The rule is the ledger's own (`LedgerSummary.paidDeliveries` in
 * src/store/ledger.ts): a paid delivery is an attempt in state `settled` with
 * a stored response. A 402 never reaches the ledger as a payment; reserved,
 * failed and unknown attempts are not deliveries. Intel adds one thing: the
 * operator's own wallets are excluded (they are not independent revenue).
 *
 * Everything is read through the Ledger interface; the SQL lives in the ledger.
 */
import { FreshRead } from './fresh-read.js';
import type { Ledger, LedgerSummary } from '../store/ledger.js';

/** What intel needs from the ledger. */
export interface PaidRevenueSource {
  /** Paid deliveries from payers not in `excludePayers` (addresses compared case-insensitively). */
  paidRevenue(excludePayers: readonly string[]): Promise<PaidRevenue>;
}

export interface PaidRevenue {
  /** Sum of their amounts, in the asset's atomic units. */
  atomic: bigint;
  deliveries: LedgerSummary['paidDeliveries'];
  /** The ledger's `updatedAt` (ms) of the latest one; null when there is none. */
  lastSettledAt: number | null;
}

/** What intel asks the ledger: revenue per payer, and whether a settlement was recorded since. */
export type IntelLedger = Pick<Ledger, 'paidDeliveriesByPayer' | 'settlementWatermark'>;

type ByPayer = Awaited<ReturnType<Ledger['paidDeliveriesByPayer']>>;

/** Revenue through the ledger's interface, re-summed only when a settlement may have been recorded. */
export class LedgerPaidRevenue implements PaidRevenueSource {
  private memo: { watermark: string; at: number; byPayer: ByPayer } | undefined;
  /** Read by every newswire request: concurrent requests share one fresh read (fresh-read.ts). */
  private readonly watermark: FreshRead<string>;

  /** `commitVersion`: of the database the ledger lives in (fresh-read.ts). */
  constructor(
    private readonly ledger: IntelLedger,
    private readonly now: () => number = Date.now,
    commitVersion?: () => string | undefined,
  ) {
    this.watermark = new FreshRead(() => this.ledger.settlementWatermark(), commitVersion);
  }

  async paidRevenue(excludePayers: readonly string[]): Promise<PaidRevenue> {
    const excluded = new Set(excludePayers.map((w) => w.toLowerCase()));
    const out: PaidRevenue = { atomic: 0n, deliveries: 0, lastSettledAt: null };
    for (const p of await this.byPayer()) {
      if (excluded.has(p.payer)) continue;
      out.atomic += BigInt(p.atomic);
      out.deliveries += p.deliveries;
      out.lastSettledAt = Math.max(out.lastSettledAt ?? 0, p.lastSettledAt);
    }
    return out;
  }

  private async byPayer(): Promise<ByPayer> {
    // Summing costs O(payments); the watermark (an index probe) tells whether
    // anything changed. A bounded age covers a settlement another instance
    // recorded with an older clock.
    const watermark = await this.watermark.get();
    const memo = this.memo;
    if (memo && memo.watermark === watermark && this.now() - memo.at < 60_000) return memo.byPayer;
    const byPayer = await this.ledger.paidDeliveriesByPayer();
    this.memo = { watermark, at: this.now(), byPayer };
    return byPayer;
  }
}
