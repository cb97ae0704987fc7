/**
 * Helpers for the intelligence tests: a content store on a fresh SQLite file
 * or PostgreSQL schema (migrations applied exactly as the service does),
 * record builders, and schema validation of live responses.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newAjv } from '../../src/catalog/ajv.js';
import type { JsonSchema } from '../../src/catalog/capability.js';
import { SqlContentStore } from '../../src/intel/store.js';
import { openPostgres } from '../../src/store/postgres/driver.js';
import { SqlLedger } from '../../src/store/sql-ledger.js';
import type { SqlDriver } from '../../src/store/sql-driver.js';
import { openSqlite } from '../../src/store/sqlite/driver.js';
import { freshPgUrl } from './pg.js';

export interface TestStore {
  store: SqlContentStore;
  db: SqlDriver;
  ledger: SqlLedger;
  close(): Promise<void>;
}

/** A store over a fresh database; `now` defaults to the real clock. */
export async function openTestStore(kind: 'sqlite' | 'postgres', now: () => number = Date.now, url?: string): Promise<TestStore> {
  const db = kind === 'sqlite' ? openSqlite(join(mkdtempSync(join(tmpdir(), 'intel-')), 'c.sqlite')) : await openPostgres(url ?? (await freshPgUrl()));
  const ledger = await SqlLedger.open(db);
  return { store: new SqlContentStore(db, now), db, ledger, close: () => ledger.close() };
}

export const SRC = 'https://github.com/coinbase/x402/commit/bb6174a213b1abb3031862d530b374871cabe4a2';

/** Entities the test items name. */
export const TEST_ENTITIES = [
  { kind: 'entity', id: 'x402', type: 'PROTOCOL', name: 'x402', sourceUrl: 'https://github.com/coinbase/x402' },
  { kind: 'entity', id: 'mcp', type: 'PROTOCOL', name: 'Model Context Protocol (MCP)', sourceUrl: 'https://github.com/modelcontextprotocol/modelcontextprotocol' },
  { kind: 'entity', id: 'coinbase', type: 'ORGANIZATION', name: 'Coinbase', sourceUrl: 'https://github.com/coinbase/x402' },
] as const;

let seq = 0;
export function itemRecord(over: Record<string, unknown> = {}): Record<string, unknown> {
  seq++;
  return {
    kind: 'item',
    eventId: `test-item-${seq}`,
    eventDate: '2026-03-04',
    type: 'protocol_release',
    headline: `Test headline ${seq}`,
    summary: 'A test summary.',
    whyItMatters: 'A test reason.',
    entities: ['x402'],
    protocols: ['x402'],
    topics: ['payments'],
    sources: [{ url: SRC, sourceType: 'github_maintainer' }],
    evidenceTier: 'TIER_A',
    ...over,
  };
}

const ajv = newAjv();
/** Validate a value against one of the module's response schemas; returns ajv's errors as text, or undefined. */
export function schemaErrors(schema: JsonSchema, value: unknown): string | undefined {
  const v = ajv.compile(schema);
  return v(value) ? undefined : ajv.errorsText(v.errors, { separator: '\n' });
}

/** Insert a payment attempt row as the ledger would leave it (for revenue tests). */
export async function insertAttempt(db: SqlDriver, a: { id: string; payer: string; amount: string; state: string; delivered: boolean }): Promise<void> {
  await db.run(
    `INSERT INTO payment_attempts (id, network, asset, payer, nonce, pay_to, amount, resource, request_fingerprint, payment_key, state, valid_before,
       payload, requirements, lease_until, created_at, updated_at)
     VALUES (?, 'eip155:31337', '0xasset', ?, ?, '0xpayto', ?, 'intelligence-changes-since', 'fp', NULL, ?, 2000000000, '{}', '{}', 0, 1, 1)`,
    [a.id, a.payer, '0x' + a.id.padStart(64, '0'), a.amount, a.state],
  );
  if (a.delivered) {
    await db.run("INSERT INTO payment_responses (attempt_id, status, content_type, body) VALUES (?, 200, 'application/json', '{}')", [a.id]);
  }
}
