/**
 * Which devnet chain the ledger's devnet attempts belong to (migration 0016).
 *
 * A devnet's chain dies with its process, and the next one takes the same
 * network ids, token address and buyers: the chain the attempts were made on
 * can only be told by the identity recorded here. When the service starts on
 * a chain other than the recorded one, the attempts of the devnet's networks
 * that are not final are closed as failed in one transaction with the new
 * record, so nothing is ever driven, settled or expired on a chain it was not
 * made on; settled ones stay as they are (the ledger is the source of truth
 * for delivery) and are counted.
 */
import { NOT_FINAL } from './sql-ledger.js';
import type { SqlDriver } from './sql-driver.js';

export interface DevnetChainChange {
  /** The chain recorded before, or null when the ledger had none (new, or older than the record). */
  previous: string | null;
  /** Settled attempts on the devnet's networks: every one was made on a chain that no longer exists. */
  settled: number;
  /** Attempts on those networks that were not final, now failed with the given code. */
  closed: number;
}

export interface AdoptDevnetChain {
  /** The chain the service starts on (anvil's instanceId). */
  chain: string;
  /** The networks the devnet's chains serve: their attempts belong to the chain recorded before. */
  networks: readonly string[];
  /** failure_code and failure_detail of the attempts closed. */
  failureCode: string;
  failureDetail: string;
  now: number;
}

/**
 * Record `chain` as the one the ledger's devnet attempts are driven on.
 * undefined when it already is; otherwise what the ledger held from earlier
 * chains, with the attempts that were not final closed. Under the migration
 * lock, so instances starting together on one database record a new chain
 * (and close attempts) once.
 */
export function adoptDevnetChain(db: SqlDriver, a: AdoptDevnetChain): Promise<DevnetChainChange | undefined> {
  const on = `network IN (${a.networks.map(() => '?').join(', ')})`;
  return db.withMigrationLock(() =>
    db.transaction(async (tx) => {
      const [current] = await tx.all<{ chain: string }>('SELECT chain FROM devnet_chains ORDER BY adopted_at DESC, chain DESC LIMIT 1');
      if (current?.chain === a.chain) return undefined;
      const [counts] = await tx.all<{ settled: number | string | null }>(`SELECT COUNT(*) AS settled FROM payment_attempts WHERE ${on} AND state = 'settled'`, [...a.networks]);
      // The history first, while the rows still show which attempts are closed.
      await tx.run(
        `INSERT INTO payment_attempt_events (attempt_id, at, state, note) SELECT id, ?, 'failed', ? FROM payment_attempts WHERE ${on} AND state IN ${NOT_FINAL}`,
        [a.now, a.failureCode, ...a.networks],
      );
      const closed = await tx.run(
        `UPDATE payment_attempts SET state = 'failed', failure_code = ?, failure_detail = ?, lease_owner = NULL, lease_until = 0, updated_at = ?
         WHERE ${on} AND state IN ${NOT_FINAL}`,
        [a.failureCode, a.failureDetail, a.now, ...a.networks],
      );
      // A chain recorded before can be newest again only when two devnets took turns with one ledger: it is the current one from now on.
      await tx.run('INSERT INTO devnet_chains (chain, adopted_at) VALUES (?, ?) ON CONFLICT (chain) DO UPDATE SET adopted_at = excluded.adopted_at', [a.chain, a.now]);
      return { previous: current?.chain ?? null, settled: Number(counts?.settled ?? 0), closed };
    }),
  );
}
