/**
 * PostgreSQL for tests. `TEST_DATABASE_URL` selects the server; each call
 * makes a fresh schema so suites never see each other's rows. Without the
 * variable the caller skips with a visible reason; `.ci/run` always sets it
 * and fails if the server is unreachable, so CI never skips.
 */
import pg from 'pg';
import { randomBytes } from 'node:crypto';

export const PG_SKIP_REASON = 'TEST_DATABASE_URL is not set: PostgreSQL tests skipped (set it, e.g. postgres://postgres@127.0.0.1:5432/test)';

export function pgConfigured(): boolean {
  if (!process.env.TEST_DATABASE_URL && process.env.CI === 'true') {
    throw new Error('CI=true but TEST_DATABASE_URL is not set: PostgreSQL tests must run in CI');
  }
  return !!process.env.TEST_DATABASE_URL;
}

export async function freshPgUrl(): Promise<string> {
  const base = process.env.TEST_DATABASE_URL;
  if (!base) throw new Error(PG_SKIP_REASON);
  const schema = 't_' + randomBytes(6).toString('hex');
  const c = new pg.Client({ connectionString: base });
  await c.connect();
  await c.query(`CREATE SCHEMA ${schema}`);
  await c.end();
  const u = new URL(base);
  u.searchParams.set('options', `-c search_path=${schema}`);
  return u.toString();
}
