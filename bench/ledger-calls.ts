/**
 * The ledger's share of a paid call, alone: the three writes a paid call
 * makes (the claim, the flushed `settling` write carrying a small result, the
 * unflushed `settled`), sequential, with a short pause between calls as a
 * facilitator round trip leaves, on the SQLite ledger as the service opens it
 * (its own thread) and in process (`sqliteLedgerThread: false`). Interleaved
 * rounds, so load on the machine falls on both alike.
 *
 * `npx tsx bench/ledger-calls.ts`; knobs LEDGER_BENCH_ROUNDS (default 5),
 * LEDGER_BENCH_CALLS (per round and setup, default 200). See
 * docs/decisions/0005-sqlite-ledger-on-its-own-thread.md (it does not show the
 * cost of waking a thread that slept through a facilitator round trip).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, type Database } from '../src/store/index.js';
import { fmt, markdownTable, summarize } from './stats.js';

const ROUNDS = Number(process.env.LEDGER_BENCH_ROUNDS ?? 5);
const CALLS = Number(process.env.LEDGER_BENCH_CALLS ?? 200);
const BODY = JSON.stringify({ ratio: 21, aa: true, aaa: true, note: 'x'.repeat(300) });

let n = 0;
async function paidCall(db: Database): Promise<number> {
  const { ledger } = db;
  const id = `bench-${++n}`;
  const lease = { owner: 'bench', until: Date.now() + 60_000 };
  const t = performance.now();
  await ledger.reserve({
    attempt: { id, network: 'eip155:31337', asset: '0xasset', payer: '0xpayer', nonce: id, payTo: '0xpayto', amount: '1000', resource: 'r', requestFingerprint: 'f', paymentKey: `k-${id}`, validBefore: 2e9, payload: '{"x":1}'.repeat(50), requirements: '{}' },
    lease,
    now: Date.now(),
  });
  await ledger.advance({ id, owner: 'bench', steps: [{ to: 'verified', patch: {} }, { to: 'executed', patch: { response: { status: 200, contentType: 'application/json', body: BODY } } }, { to: 'settling', patch: {} }], now: Date.now() });
  await ledger.advance({ id, owner: 'bench', steps: [{ to: 'settled', patch: { txHash: '0x1', settleResponse: '{"success":true}' } }], now: Date.now(), durable: false });
  return performance.now() - t;
}

const setups: Array<[string, boolean]> = [
  ['SQLite ledger on its own thread (the service)', true],
  ['SQLite ledger in process', false],
];
const dirs = setups.map(() => mkdtempSync(join(tmpdir(), 'ledger-bench-')));
const dbs = await Promise.all(setups.map(([, thread], i) => openDatabase({ dataDir: dirs[i]!, sqliteLedgerThread: thread })));
const samples: number[][] = setups.map(() => []);
try {
  for (const db of dbs) for (let i = 0; i < 20; i++) await paidCall(db);
  for (let r = 0; r < ROUNDS; r++) {
    for (let i = 0; i < dbs.length; i++) {
      for (let c = 0; c < CALLS; c++) {
        samples[i]!.push(await paidCall(dbs[i]!));
        await new Promise((res) => setTimeout(res, 2));
      }
    }
  }
} finally {
  for (const db of dbs) await db.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}
console.log(`### Ledger writes of one paid call (${ROUNDS} × ${CALLS} per setup, interleaved)`);
console.log(
  markdownTable(
    ['setup', 'p50 ms', 'p90 ms', 'p99 ms'],
    setups.map(([name], i) => {
      const s = summarize(samples[i]!);
      return [name, fmt(s.p50), fmt(s.p90), fmt(s.p99)];
    }),
    ['l', 'r', 'r', 'r'],
  ),
);
