/**
 * `npm run intel -- import FILE.ndjson`: validates every line, reports each
 * rejected line with its reason, applies the rest, and is idempotent.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SqlContentStore } from '../src/intel/store.js';
import { openDatabase } from '../src/store/index.js';
import { tempDir } from './support/harness.js';
import { itemRecord } from './support/intel.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

function runCli(args: string[], dataDir: string, viaNpm = false) {
  const env = { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent', DATABASE_URL: '' };
  const r = viaNpm
    ? spawnSync('npm', ['run', '--silent', 'intel', '--', ...args], { cwd: ROOT, env, encoding: 'utf8' })
    : spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'cli/intel.ts'), ...args], { cwd: ROOT, env, encoding: 'utf8' });
  return { status: r.status, out: r.stdout, err: r.stderr };
}

const ENTITY = { kind: 'entity', id: 'x402', type: 'PROTOCOL', name: 'x402', sourceUrl: 'https://github.com/coinbase/x402' };

describe('intel import CLI', () => {
  test('good lines land, each bad line is reported with its reason, a second run changes nothing', async () => {
    const dir = tempDir('intel-cli-');
    const file = join(dir, 'content.ndjson');
    const good = itemRecord({ entities: ['x402'], protocols: ['x402'] });
    const lines = [
      JSON.stringify(ENTITY), // 1
      JSON.stringify(good), // 2
      '', // 3 (blank: skipped)
      '{"kind": "item", "eventId": ', // 4 not JSON
      JSON.stringify(itemRecord({ sources: [{ url: 'http://localhost/x', sourceType: 'github_maintainer' }] })), // 5 URL
      JSON.stringify(itemRecord({ eventDate: '2099-01-01' })), // 6 future date
      JSON.stringify(itemRecord({ evidenceTier: 'TIER_A', sources: [{ url: 'https://example.org/thread', sourceType: 'public_forum' }] })), // 7 tier
      JSON.stringify(itemRecord({ entities: ['nobody'] })), // 8 unknown entity
      JSON.stringify({ ...itemRecord(), headline: undefined }), // 9 schema
      JSON.stringify({ kind: 'retraction', eventId: good.eventId, reason: 'Imported retraction.' }), // 10
    ];
    writeFileSync(file, lines.join('\n') + '\n');

    const first = runCli(['import', file], join(dir, 'data'));
    assert.equal(first.status, 1, first.out + first.err);
    const rejected = first.out.split('\n').filter((l) => l.includes(': rejected ('));
    assert.deepEqual(
      rejected.map((l) => Number(/:(\d+): rejected/.exec(l)![1])),
      [4, 5, 6, 7, 8, 9],
    );
    assert.match(rejected[0]!, /\(invalid_json\): not valid JSON/);
    assert.match(rejected[1]!, /\/sources\/0\/url must name a public host/);
    assert.match(rejected[2]!, /\/eventDate.*(after today|future)/);
    assert.match(rejected[3]!, /tier-ceiling|stronger than these source types support/);
    assert.match(rejected[4]!, /\(unknown_reference\).*no entity with id "nobody"/);
    assert.match(rejected[5]!, /\(invalid_request\).*\/headline/);
    assert.match(first.out, /9 records: 2 created, 1 updated, 0 unchanged, 6 rejected/);

    const second = runCli(['import', file], join(dir, 'data'));
    assert.equal(second.status, 1);
    assert.match(second.out, /9 records: 0 created, 0 updated, 3 unchanged, 6 rejected/);

    const db = await openDatabase({ dataDir: join(dir, 'data') });
    try {
      const store = new SqlContentStore(db.db, Date.now);
      const got = await store.getItem(good.eventId as string);
      assert.equal(got?.state, 'RETRACTED');
      assert.deepEqual((await store.itemVersions(good.eventId as string)).map((v) => v.changeKind), ['NEW', 'RETRACTED']);
      assert.equal(await store.itemCount(), 1);
    } finally {
      await db.close();
    }
  });

  test('npm run intel -- import exits 0 when every line is accepted', () => {
    const dir = tempDir('intel-cli-');
    const file = join(dir, 'ok.ndjson');
    writeFileSync(file, JSON.stringify(ENTITY) + '\n');
    const r = runCli(['import', file], join(dir, 'data'), true);
    assert.equal(r.status, 0, r.out + r.err);
    assert.match(r.out, /1 records: 1 created/);
  });

  test('usage and unreadable files are errors (exit 2)', () => {
    const dir = tempDir('intel-cli-');
    assert.equal(runCli([], join(dir, 'data')).status, 2);
    assert.equal(runCli(['export', 'x'], join(dir, 'data')).status, 2);
    const missing = runCli(['import', join(dir, 'missing.ndjson')], join(dir, 'data'));
    assert.equal(missing.status, 2);
    assert.match(missing.err, /cannot read/);
  });
});
