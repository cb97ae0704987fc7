import {
  ATTEMPT_STATES,
  LedgerUnavailableError,
  type AttemptState,
  type DashboardQuery,
  type Delivery,
  type DeliveryBucket,
  LEDGER_METHODS,
  type LedgerArgs,
  type LedgerDashboard,
  MAX_DASHBOARD_BUCKETS,
  MAX_LATENCY_BOUNDS,
  type UnresolvedAttempt,
  type Ledger,
  type PayerDeliveries,
  type LedgerSummary,
  type PaymentAttempt,
  type ReserveResult,
  type ResponseToStore,
  type StoredResponse,
  type TransitionPatch,
} from './ledger.js';
import { migrate } from './migrate.js';
import type { SqlDriver } from './sql-driver.js';

/** A stored response's bytes as its text: the producer encoded valid UTF-8, so this is the text it encoded. */
const UTF8 = new TextDecoder();

interface Row {
  id: string;
  network: string;
  asset: string;
  payer: string;
  nonce: string;
  pay_to: string;
  amount: string;
  resource: string;
  request_fingerprint: string;
  payment_key: string | null;
  state: AttemptState;
  valid_before: number;
  payload: string;
  requirements: string;
  response_status: number | null;
  response_type: string | null;
  response_body: string | null;
  settle_response: string | null;
  tx_hash: string | null;
  facilitator: string | null;
  failure_code: string | null;
  failure_detail: string | null;
  lease_owner: string | null;
  lease_until: number;
  created_at: number;
  updated_at: number;
}

function fromRow(r: Row): PaymentAttempt {
  return {
    id: r.id,
    network: r.network,
    asset: r.asset,
    payer: r.payer,
    nonce: r.nonce,
    payTo: r.pay_to,
    amount: r.amount,
    resource: r.resource,
    requestFingerprint: r.request_fingerprint,
    paymentKey: r.payment_key,
    state: r.state,
    validBefore: Number(r.valid_before),
    payload: r.payload,
    requirements: r.requirements,
    response:
      r.response_status === null || r.response_body === null
        ? null
        : { status: Number(r.response_status), contentType: r.response_type ?? 'application/json', body: r.response_body },
    settleResponse: r.settle_response,
    txHash: r.tx_hash,
    facilitator: r.facilitator ?? null,
    failureCode: r.failure_code,
    failureDetail: r.failure_detail,
    leaseOwner: r.lease_owner,
    leaseUntil: Number(r.lease_until),
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
  };
}

/** An attempt with its stored result, if any (kept apart: migration 0012). */
const SELECT_ATTEMPT = `SELECT a.*, r.status AS response_status, r.content_type AS response_type, r.body AS response_body
  FROM payment_attempts a LEFT JOIN payment_responses r ON r.attempt_id = a.id`;

/** A paid delivery has a stored result (the rule of `LedgerSummary.paidDeliveries`). */
const DELIVERED = 'EXISTS (SELECT 1 FROM payment_responses r WHERE r.attempt_id = a.id)';

/** States an attempt is still in until it is settled or failed. */
export const NOT_FINAL = "('reserved', 'verified', 'executed', 'settling', 'unknown')";

/** A dashboard query inside its bounds (a defect in the caller otherwise, never the database's fault). */
function checkDashboardQuery(q: DashboardQuery): void {
  const whole = (n: number) => Number.isSafeInteger(n) && n >= 0;
  if (![q.from, q.to, q.now].every(whole) || q.to <= q.from) throw new RangeError('dashboard: the window must be whole milliseconds with from < to');
  if (!whole(q.bucketMs) || q.bucketMs === 0 || (q.to - q.from) / q.bucketMs > MAX_DASHBOARD_BUCKETS) {
    throw new RangeError(`dashboard: at most ${MAX_DASHBOARD_BUCKETS} buckets of a positive whole number of milliseconds per window`);
  }
  const b = q.latencyBoundsMs;
  if (b.length > MAX_LATENCY_BOUNDS || !b.every(whole) || b.some((x, i) => i > 0 && x <= b[i - 1]!)) {
    throw new RangeError(`dashboard: at most ${MAX_LATENCY_BOUNDS} ascending latency bounds`);
  }
  if (![q.recentLimit, q.unresolvedLimit, q.buyersLimit].every((n) => whole(n) && n <= 1000)) throw new RangeError('dashboard: list limits are 0 to 1000');
}

class LeaseLost extends Error {}

/** States an attempt never leaves. */
const FINAL: ReadonlySet<AttemptState> = new Set(['settled', 'failed']);

/**
 * The ledger over either database. Every method turns a database failure
 * into `LedgerUnavailableError`, which the gate answers with a fail-closed 503.
 */
export class SqlLedger implements Ledger {
  readonly kind: 'sqlite' | 'postgres';
  constructor(private readonly db: SqlDriver) {
    this.kind = db.kind;
  }

  static async open(db: SqlDriver): Promise<SqlLedger> {
    await migrate(db);
    return new SqlLedger(db);
  }

  private async guard<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      if (e instanceof LedgerUnavailableError) throw e;
      throw new LedgerUnavailableError(e);
    }
  }

  async ping(): Promise<void> {
    await this.guard(async () => {
      if (this.db.probeWrite) await this.db.probeWrite();
      else await this.db.all('SELECT 1 AS ok');
    });
  }

  async reserve(args: LedgerArgs<'reserve'>): Promise<ReserveResult> {
    const { attempt: a, lease, now } = args;
    return this.guard(async () => {
      // The insert is the claim; its history row commits with it. The claim is
      // atomic and visible to every other request at once, but not flushed
      // before it returns: nothing irreversible follows it directly (verify
      // moves no money), and the write that precedes a settle (`settling`,
      // carrying the stored response) is durable, which flushes this one too
      // (SQLite's WAL and PostgreSQL's WAL are each one stream, flushed in
      // order). Losing it to an OS or server crash loses an attempt nothing
      // was sent for; the buyer's retry binds the authorization again.
      const created = await this.db.transaction(async (tx) => {
        const changed = await tx.run(
          `INSERT INTO payment_attempts (id, network, asset, payer, nonce, pay_to, amount, resource, request_fingerprint,
             payment_key, state, valid_before, payload, requirements, lease_owner, lease_until, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'reserved', ?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT DO NOTHING`,
          [
            a.id, a.network, a.asset, a.payer, a.nonce, a.payTo, a.amount, a.resource, a.requestFingerprint,
            a.paymentKey, a.validBefore, a.payload, a.requirements, lease.owner, lease.until, now, now,
          ],
        );
        if (changed === 1) await this.event(tx, a.id, 'reserved', null, now);
        return changed === 1;
      }, { durable: LEDGER_METHODS.reserve.flushes(args) });
      if (created) {
        const attempt: PaymentAttempt = {
          ...a,
          state: 'reserved',
          response: null,
          settleResponse: null,
          txHash: null,
          facilitator: null,
          failureCode: null,
          failureDetail: null,
          leaseOwner: lease.owner,
          leaseUntil: lease.until,
          createdAt: now,
          updatedAt: now,
        };
        return { created: true as const, attempt };
      }
      const existing = (await this.get({ id: a.id })) ?? (a.paymentKey ? await this.getByPaymentKey({ key: a.paymentKey }) : undefined);
      return { created: false as const, attempt: existing };
    });
  }

  async acquire({ id, lease, now }: LedgerArgs<'acquire'>): Promise<boolean> {
    return this.guard(async () => {
      const changed = await this.db.run(
        `UPDATE payment_attempts SET lease_owner = ?, lease_until = ?, updated_at = ?
         WHERE id = ? AND state NOT IN ('settled', 'failed') AND (lease_owner IS NULL OR lease_until < ?)`,
        [lease.owner, lease.until, now, id, now],
      );
      return changed === 1;
    });
  }

  async transition({ id, owner, to, patch, now }: LedgerArgs<'transition'>): Promise<boolean> {
    return this.advance({ id, owner, steps: [{ to, patch }], now });
  }

  async advance(args: LedgerArgs<'advance'>): Promise<boolean> {
    const { id, owner, steps, now } = args;
    return this.guard(() =>
      this.db
        .transaction(async (tx) => {
          for (const { to, patch } of steps) {
            const { sets, params } = this.patchSql(to, patch, now);
            const releaseLease = FINAL.has(to) ? ', lease_owner = NULL, lease_until = 0' : '';
            const changed = await tx.run(
              `UPDATE payment_attempts SET ${sets}${releaseLease} WHERE id = ? AND lease_owner = ? AND state NOT IN ('settled', 'failed')`,
              [...params, id, owner],
            );
            if (changed !== 1) throw new LeaseLost();
            if (patch.response) await this.storeResponse(tx, id, patch.response);
            await this.event(tx, id, to, patch.note ?? patch.failureCode ?? null, now);
          }
          return true;
        }, { durable: LEDGER_METHODS.advance.flushes(args) })
        .catch((e) => {
          if (e instanceof LeaseLost) return false;
          throw e;
        }),
    );
  }

  async transitionUnleased(args: LedgerArgs<'transitionUnleased'>): Promise<boolean> {
    const { id, from, to, patch, now } = args;
    return this.guard(() =>
      this.db.transaction(async (tx) => {
        const { sets, params } = this.patchSql(to, patch, now);
        const changed = await tx.run(
          `UPDATE payment_attempts SET ${sets}, lease_owner = NULL, lease_until = 0
           WHERE id = ? AND state = ? AND (lease_owner IS NULL OR lease_until < ?)`,
          [...params, id, from, now],
        );
        if (changed !== 1) return false;
        if (patch.response) await this.storeResponse(tx, id, patch.response);
        await this.event(tx, id, to, patch.note ?? patch.failureCode ?? 'reconciled', now);
        return true;
      }, { durable: LEDGER_METHODS.transitionUnleased.flushes(args) }),
    );
  }

  private patchSql(to: AttemptState, patch: TransitionPatch, now: number): { sets: string; params: unknown[] } {
    const sets = ['state = ?', 'updated_at = ?'];
    const params: unknown[] = [to, now];
    if (patch.settleResponse !== undefined) {
      sets.push('settle_response = ?');
      params.push(patch.settleResponse);
    }
    if (patch.txHash !== undefined) {
      sets.push('tx_hash = ?');
      params.push(patch.txHash);
    }
    if (patch.facilitator !== undefined) {
      sets.push('facilitator = ?');
      params.push(patch.facilitator);
    }
    if (patch.failureCode !== undefined) {
      sets.push('failure_code = ?');
      params.push(patch.failureCode);
    }
    if (patch.failureDetail !== undefined) {
      sets.push('failure_detail = ?');
      params.push(patch.failureDetail?.slice(0, 500) ?? null);
    }
    return { sets: sets.join(', '), params };
  }

  async renew({ id, owner, until }: LedgerArgs<'renew'>): Promise<boolean> {
    return this.guard(async () => {
      const changed = await this.db.run(
        `UPDATE payment_attempts SET lease_until = ? WHERE id = ? AND lease_owner = ? AND state NOT IN ('settled', 'failed')`,
        [until, id, owner],
      );
      return changed === 1;
    });
  }

  async release({ id, owner }: LedgerArgs<'release'>): Promise<void> {
    await this.guard(() =>
      this.db.run('UPDATE payment_attempts SET lease_owner = NULL, lease_until = 0 WHERE id = ? AND lease_owner = ?', [id, owner]),
    );
  }

  async get({ id }: LedgerArgs<'get'>): Promise<PaymentAttempt | undefined> {
    return this.guard(async () => {
      const rows = await this.db.all<Row>(`${SELECT_ATTEMPT} WHERE a.id = ?`, [id]);
      return rows[0] ? fromRow(rows[0]) : undefined;
    });
  }

  async getByPaymentKey({ key }: LedgerArgs<'getByPaymentKey'>): Promise<PaymentAttempt | undefined> {
    return this.guard(async () => {
      const rows = await this.db.all<Row>(`${SELECT_ATTEMPT} WHERE a.payment_key = ?`, [key]);
      return rows[0] ? fromRow(rows[0]) : undefined;
    });
  }

  async paidFor({ payer, network, requestFingerprint }: LedgerArgs<'paidFor'>): Promise<PaymentAttempt | undefined> {
    return this.guard(async () => {
      const rows = await this.db.all<Row>(
        // A settled one first: what the payer may get again, when it paid for the same request more than once.
        `${SELECT_ATTEMPT} WHERE a.request_fingerprint = ? AND a.payer = ? AND a.network = ? ORDER BY CASE WHEN a.state = 'settled' THEN 0 ELSE 1 END, a.created_at DESC LIMIT 1`,
        [requestFingerprint, payer, network],
      );
      return rows[0] ? fromRow(rows[0]) : undefined;
    });
  }

  async spendSignIn(args: LedgerArgs<'spendSignIn'>): Promise<boolean> {
    const { nonce, attemptId, signer, network, now, expiresAt } = args;
    return this.guard(() =>
      this.db.transaction(
        async (tx) => {
          const changed = await tx.run(
            'INSERT INTO sign_ins (nonce, attempt_id, signer, network, used_at, expires_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING',
            [nonce, attemptId, signer, network, now, expiresAt],
          );
          // The attempt's history shows the redelivery beside its delivery.
          if (changed === 1) await this.event(tx, attemptId, 'settled', `redelivered to a sign-in by ${signer}`, now);
          return changed === 1;
        },
        { durable: LEDGER_METHODS.spendSignIn.flushes(args) },
      ),
    );
  }

  async listUnresolved({ now, limit }: LedgerArgs<'listUnresolved'>): Promise<PaymentAttempt[]> {
    return this.guard(async () => {
      const rows = await this.db.all<Row>(
        `${SELECT_ATTEMPT}
         WHERE a.state IN ('executed', 'settling', 'unknown') AND (a.lease_owner IS NULL OR a.lease_until < ?)
         ORDER BY a.updated_at LIMIT ?`,
        [now, limit],
      );
      return rows.map(fromRow);
    });
  }

  async history({ id }: LedgerArgs<'history'>) {
    return this.guard(async () => {
      const rows = await this.db.all<{ at: number; state: AttemptState; note: string | null }>(
        'SELECT at, state, note FROM payment_attempt_events WHERE attempt_id = ? ORDER BY at, state',
        [id],
      );
      return rows.map((r) => ({ at: Number(r.at), state: r.state, note: r.note }));
    });
  }

  async summary(): Promise<LedgerSummary> {
    return this.guard(async () => {
      const byState = Object.fromEntries(ATTEMPT_STATES.map((s) => [s, 0])) as Record<AttemptState, number>;
      for (const r of await this.db.all<{ state: AttemptState; n: number | string }>(
        'SELECT state, COUNT(*) AS n FROM payment_attempts GROUP BY state',
      )) {
        byState[r.state] = Number(r.n);
      }
      const settled = await this.db.all<{ amount: string }>(
        `SELECT amount FROM payment_attempts a WHERE state = 'settled' AND ${DELIVERED}`,
      );
      let total = 0n;
      for (const r of settled) total += BigInt(r.amount);
      return { byState, paidDeliveries: settled.length, settledAtomic: total.toString() };
    });
  }

  async paidDeliveriesByPayer(): Promise<PayerDeliveries[]> {
    return this.guard(async () => {
      const cast = this.db.kind === 'postgres' ? 'NUMERIC' : 'INTEGER';
      const rows = await this.db.all<{ payer: string; total: string | null; n: number | string; last: number | string }>(
        `SELECT lower(payer) AS payer, CAST(SUM(CAST(amount AS ${cast})) AS TEXT) AS total, COUNT(*) AS n, MAX(updated_at) AS last FROM payment_attempts a
         WHERE state = 'settled' AND ${DELIVERED} GROUP BY lower(payer)`,
      );
      return rows.map((r) => ({ payer: r.payer, atomic: r.total ?? '0', deliveries: Number(r.n), lastSettledAt: Number(r.last) }));
    });
  }

  async settlementWatermark(): Promise<string> {
    return this.guard(async () => {
      const row = (
        await this.db.all<{ m: number | string | null; n: number | string }>(
          `SELECT MAX(updated_at) AS m, COUNT(*) AS n FROM payment_attempts
           WHERE state = 'settled' AND updated_at >= (SELECT COALESCE(MAX(updated_at), 0) FROM payment_attempts WHERE state = 'settled')`,
        )
      )[0];
      return `${row?.m ?? 0}:${row?.n ?? 0}`;
    });
  }

  async dashboard(q: DashboardQuery): Promise<LedgerDashboard> {
    checkDashboardQuery(q);
    return this.guard(async () => {
      const num = this.db.kind === 'postgres' ? 'NUMERIC' : 'INTEGER';
      const amount = `CAST(a.amount AS ${num})`;
      // An empty list would be `IN ()`, which neither database accepts.
      const own = q.excludePayers.length ? `lower(a.payer) IN (${q.excludePayers.map(() => '?').join(', ')})` : '0 = 1';
      const ownParams = [...q.excludePayers];
      const settledIn = `a.state = 'settled' AND a.updated_at >= ? AND a.updated_at < ? AND ${DELIVERED}`;
      const window = [q.from, q.to];

      const buckets = await this.db.all<{ b: number | string; resource: string; n: number | string; total: string | null; ind_n: number | string | null; ind_total: string | null }>(
        `SELECT CAST(a.updated_at / ? AS BIGINT) AS b, a.resource AS resource, COUNT(*) AS n, CAST(SUM(${amount}) AS TEXT) AS total,
                SUM(CASE WHEN ${own} THEN 0 ELSE 1 END) AS ind_n, CAST(SUM(CASE WHEN ${own} THEN 0 ELSE ${amount} END) AS TEXT) AS ind_total
           FROM payment_attempts a WHERE ${settledIn} GROUP BY 1, 2 ORDER BY 1, 2`,
        [q.bucketMs, ...ownParams, ...ownParams, ...window],
      );
      const deliveries: DeliveryBucket[] = buckets.map((r) => ({
        start: Number(r.b) * q.bucketMs,
        resource: r.resource,
        deliveries: Number(r.n),
        atomic: r.total ?? '0',
        independentDeliveries: Number(r.ind_n ?? 0),
        independentAtomic: r.ind_total ?? '0',
      }));

      const attemptsByState = Object.fromEntries(ATTEMPT_STATES.map((s) => [s, 0])) as Record<AttemptState, number>;
      for (const r of await this.db.all<{ state: AttemptState; n: number | string }>(
        'SELECT state, COUNT(*) AS n FROM payment_attempts WHERE created_at >= ? AND created_at < ? GROUP BY state',
        window,
      )) {
        attemptsByState[r.state] = Number(r.n);
      }

      const open = await this.db.all<Row>(
        `SELECT * FROM payment_attempts a WHERE a.state IN ${NOT_FINAL} AND a.created_at < ? ORDER BY a.created_at, a.id LIMIT ?`,
        [q.to, q.unresolvedLimit],
      );
      const unresolved: UnresolvedAttempt[] = open.map((r) => ({
        id: r.id,
        state: r.state,
        resource: r.resource,
        payer: r.payer,
        amount: r.amount,
        network: r.network,
        txHash: r.tx_hash,
        facilitator: r.facilitator ?? null,
        failureCode: r.failure_code,
        createdAt: Number(r.created_at),
        updatedAt: Number(r.updated_at),
        lease: r.lease_owner === null ? 'free' : Number(r.lease_until) >= q.now ? 'held' : 'expired',
      }));
      const openCount = await this.db.all<{ n: number | string }>(`SELECT COUNT(*) AS n FROM payment_attempts a WHERE a.state IN ${NOT_FINAL} AND a.created_at < ?`, [q.to]);

      // Cumulative counts per bound, one pass over the window's deliveries.
      const bounds = q.latencyBoundsMs.map((_, i) => `SUM(CASE WHEN a.updated_at - a.created_at <= ? THEN 1 ELSE 0 END) AS le${i}`);
      const latency = (
        await this.db.all<Record<string, number | string | null>>(
          `SELECT COUNT(*) AS n, AVG(a.updated_at - a.created_at) AS mean_ms, MAX(a.updated_at - a.created_at) AS max_ms${bounds.length ? ', ' + bounds.join(', ') : ''}
             FROM payment_attempts a WHERE ${settledIn}`,
          [...q.latencyBoundsMs, ...window],
        )
      )[0]!;
      const settled = Number(latency.n ?? 0);
      const settlementMs = {
        cumulative: q.latencyBoundsMs.map((_, i) => Number(latency[`le${i}`] ?? 0)),
        count: settled,
        meanMs: settled ? Number(latency.mean_ms) : null,
        maxMs: settled ? Number(latency.max_ms) : null,
      };

      const perPayer = `SELECT lower(a.payer) AS payer, COUNT(*) AS n, CAST(SUM(${amount}) AS TEXT) AS total, MIN(a.updated_at) AS first_at, MAX(a.updated_at) AS last_at
                          FROM payment_attempts a WHERE ${settledIn} AND NOT (${own}) GROUP BY lower(a.payer)`;
      const counts = (
        await this.db.all<{ buyers: number | string; repeat_buyers: number | string | null }>(
          `SELECT COUNT(*) AS buyers, SUM(CASE WHEN t.n > 1 THEN 1 ELSE 0 END) AS repeat_buyers FROM (${perPayer}) t`,
          [...window, ...ownParams],
        )
      )[0]!;
      const top = await this.db.all<{ payer: string; n: number | string; total: string | null; first_at: number | string; last_at: number | string }>(
        `SELECT * FROM (${perPayer}) t ORDER BY t.n DESC, t.last_at DESC, t.payer LIMIT ?`,
        [...window, ...ownParams, q.buyersLimit],
      );
      const excluded = (
        await this.db.all<{ payers: number | string; n: number | string; total: string | null }>(
          `SELECT COUNT(DISTINCT lower(a.payer)) AS payers, COUNT(*) AS n, CAST(SUM(${amount}) AS TEXT) AS total FROM payment_attempts a WHERE ${settledIn} AND ${own}`,
          [...window, ...ownParams],
        )
      )[0]!;

      const last = await this.db.all<Row>(
        `SELECT * FROM payment_attempts a WHERE a.state = 'settled' AND a.updated_at < ? AND ${DELIVERED} ORDER BY a.updated_at DESC, a.id DESC LIMIT ?`,
        [q.to, q.recentLimit],
      );
      const recent: Delivery[] = last.map((r) => ({
        id: r.id,
        resource: r.resource,
        payer: r.payer,
        amount: r.amount,
        asset: r.asset,
        network: r.network,
        txHash: r.tx_hash,
        facilitator: r.facilitator ?? null,
        createdAt: Number(r.created_at),
        settledAt: Number(r.updated_at),
      }));

      return {
        deliveries,
        attemptsByState,
        unresolved,
        unresolvedTotal: Number(openCount[0]?.n ?? 0),
        settlementMs,
        buyers: {
          count: Number(counts.buyers),
          repeat: Number(counts.repeat_buyers ?? 0),
          top: top.map((r) => ({ payer: r.payer, deliveries: Number(r.n), atomic: r.total ?? '0', firstSettledAt: Number(r.first_at), lastSettledAt: Number(r.last_at) })),
          excluded: { payers: Number(excluded.payers), deliveries: Number(excluded.n), atomic: excluded.total ?? '0' },
        },
        recent,
      };
    });
  }

  /**
   * The result is written once, in its own table (migration 0012): the
   * first stored result of an attempt stands, and the attempt row, which
   * every later step rewrites, stays small.
   */
  private async storeResponse(db: Pick<SqlDriver, 'run'>, id: string, r: ResponseToStore): Promise<void> {
    const body = 'bodyBytes' in r ? UTF8.decode(r.bodyBytes) : r.body;
    await db.run(
      'INSERT INTO payment_responses (attempt_id, status, content_type, body) VALUES (?, ?, ?, ?) ON CONFLICT (attempt_id) DO NOTHING',
      [id, r.status, r.contentType, body],
    );
  }

  private async event(db: Pick<SqlDriver, 'run'>, id: string, state: AttemptState, note: string | null, now: number): Promise<void> {
    await db.run('INSERT INTO payment_attempt_events (attempt_id, at, state, note) VALUES (?, ?, ?, ?)', [id, now, state, note]);
  }

  async close(): Promise<void> {
    await this.db.close();
  }
}
