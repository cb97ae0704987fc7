/**
 * Ledger facts, read by intel in this one place. The newswire's
 * `independentRevenueUsd` needs this service's paid deliveries; nothing else
 * in src/intel touches the ledger's tables.
 *
 * The rule is the ledger's own (`LedgerSummary.paidDeliveries` in
 * src/store/ledger.ts): a paid delivery is an attempt in state `settled` with
 * a stored response. A 402 never reaches the ledger as a payment; reserved,
 * failed and unknown attempts are not deliveries. Intel adds one thing: the
 * operator's own wallets are excluded (they are not independent revenue).
 *
 * The query reads `payment_attempts` directly only because the Ledger
 * interface has no per-payer total yet; when it has, `SqlPaidRevenue` goes
 * and intel keeps depending on `PaidRevenueSource` alone.
 */
import type { AttemptState, LedgerSummary } from '../store/ledger.js';
import type { SqlDriver } from '../store/sql-driver.js';

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

const SETTLED: AttemptState = 'settled';

interface PayerTotal {
  payer: string;
  atomic: bigint;
  deliveries: number;
  lastSettledAt: number;
}

export class SqlPaidRevenue implements PaidRevenueSource {
  private memo: { probe: string; at: number; byPayer: PayerTotal[] } | undefined;

  constructor(
    private readonly db: SqlDriver,
    private readonly now: () => number = Date.now,
  ) {}

  async paidRevenue(excludePayers: readonly string[]): Promise<PaidRevenue> {
    const excluded = new Set(excludePayers.map((w) => w.toLowerCase()));
    const out: PaidRevenue = { atomic: 0n, deliveries: 0, lastSettledAt: null };
    for (const p of await this.byPayer()) {
      if (excluded.has(p.payer)) continue;
      out.atomic += p.atomic;
      out.deliveries += p.deliveries;
      out.lastSettledAt = Math.max(out.lastSettledAt ?? 0, p.lastSettledAt);
    }
    return out;
  }

  /** Paid deliveries per payer (lower-cased), re-summed only when a settlement may have been recorded. */
  private async byPayer(): Promise<PayerTotal[]> {
    // Summing costs O(payments); the newest settlement (an index lookup) tells
    // whether anything changed since the last sum. A bounded age covers a
    // settlement recorded with an older clock by another instance.
    const probeRow = (
      await this.db.all<{ m: number | string | null; n: number | string }>(
        'SELECT MAX(updated_at) AS m, COUNT(*) AS n FROM payment_attempts WHERE state = ? AND updated_at >= (SELECT COALESCE(MAX(updated_at), 0) FROM payment_attempts WHERE state = ?)',
        [SETTLED, SETTLED],
      )
    )[0];
    const probe = `${probeRow?.m ?? 0}:${probeRow?.n ?? 0}`;
    const memo = this.memo;
    if (memo && memo.probe === probe && this.now() - memo.at < 60_000) return memo.byPayer;
    const cast = this.db.kind === 'postgres' ? 'NUMERIC' : 'INTEGER';
    const rows = await this.db.all<{ payer: string; total: string | null; n: number | string; last: number | string }>(
      `SELECT lower(payer) AS payer, CAST(SUM(CAST(amount AS ${cast})) AS TEXT) AS total, COUNT(*) AS n, MAX(updated_at) AS last FROM payment_attempts
       WHERE state = ? AND response_body IS NOT NULL GROUP BY lower(payer)`,
      [SETTLED],
    );
    const byPayer = rows.map((r) => ({ payer: r.payer, atomic: BigInt(r.total ?? '0'), deliveries: Number(r.n), lastSettledAt: Number(r.last) }));
    this.memo = { probe, at: this.now(), byPayer };
    return byPayer;
  }
}
