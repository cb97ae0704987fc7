/**
 * Two service processes sharing one PostgreSQL ledger, sent the same
 * authorization concurrently: exactly one settlement and one delivery.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startDevnet } from '../devnet/index.js';
import { startFaultyFacilitator } from './support/faulty-facilitator.js';
import { BLACK_ON_WHITE, CONTRAST, balanceOf, devnetEnv, postJson, signFor, tempDir } from './support/harness.js';
import { spawnService } from './support/child-service.js';
import { freshPgUrl, pgConfigured, PG_SKIP_REASON } from './support/pg.js';

test('two processes on one PostgreSQL ledger: one authorization, one settlement, one delivery', { skip: pgConfigured() ? undefined : PG_SKIP_REASON }, async () => {
  const devnet = await startDevnet();
  const proxy = await startFaultyFacilitator(devnet.facilitatorUrl);
  const databaseUrl = await freshPgUrl();
  const a = await spawnService(devnetEnv(devnet, proxy.url, { DATA_DIR: tempDir('pg-a-'), DATABASE_URL: databaseUrl }));
  const b = await spawnService(devnetEnv(devnet, proxy.url, { DATA_DIR: tempDir('pg-b-'), DATABASE_URL: databaseUrl }));
  try {
    for (let round = 0; round < 3; round++) {
      const body = { ...BLACK_ON_WHITE, large_text: round % 2 === 0, foreground: `#00000${round}` };
      const { header } = await signFor(a.url + CONTRAST, body, devnet);
      const before = await balanceOf(devnet, devnet.payTo);
      proxy.resetCalls();
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, i) => postJson((i % 2 ? b.url : a.url) + CONTRAST, body, { 'PAYMENT-SIGNATURE': header })),
      );
      const fresh = results.filter((r) => r.status === 200 && r.headers.get('x-payment-replayed') === 'false');
      assert.equal(fresh.length, 1, results.map((r) => r.status).join(','));
      // The others overlap the first (409 payment_in_progress) or follow it (200, the stored result replayed).
      for (const r of results.filter((r) => r !== fresh[0])) {
        if (r.status === 409) assert.equal((await r.clone().json()).error.code, 'payment_in_progress');
        else assert.deepEqual([r.status, r.headers.get('x-payment-replayed')], [200, 'true']);
      }
      assert.equal(proxy.forwarded.settle, 1, 'exactly one settlement sent');
      assert.equal((await balanceOf(devnet, devnet.payTo)) - before, 1000n, 'exactly one transfer');
      const bodies = new Set(await Promise.all(results.filter((r) => r.status === 200).map((r) => r.text())));
      assert.equal(bodies.size, 1, 'every delivery is the same stored result');
      // The other instance serves the stored result afterwards.
      const late = await postJson(b.url + CONTRAST, body, { 'PAYMENT-SIGNATURE': header });
      assert.equal(late.status, 200);
    }
  } finally {
    await a.kill();
    await b.kill();
    await proxy.close();
    await devnet.stop();
  }
});

test('an instance killed mid-settlement: its lease lapses within seconds (heartbeat), and the other instance delivers from the chain', { skip: pgConfigured() ? undefined : PG_SKIP_REASON }, async () => {
  const devnet = await startDevnet();
  const proxy = await startFaultyFacilitator(devnet.facilitatorUrl);
  const databaseUrl = await freshPgUrl();
  // Default lease: X402_ATTEMPT_LEASE_MS unset, so max(20 s, facilitator timeout + 5 s) = 20 s, renewed while held.
  const env = (dir: string) => devnetEnv(devnet, proxy.url, { DATA_DIR: tempDir(dir), DATABASE_URL: databaseUrl, X402_FACILITATOR_TIMEOUT_MS: '10000', RECONCILE_INTERVAL_MS: '3600000' });
  const a = await spawnService(env('pg-crash-a-'));
  const b = await spawnService(env('pg-crash-b-'));
  try {
    const body = { ...BLACK_ON_WHITE, foreground: '#0c0c0c' };
    const { header } = await signFor(a.url + CONTRAST, body, devnet);
    const before = await balanceOf(devnet, devnet.payTo);
    proxy.setMode({ settle: 'hang-after-forward' });
    const lost = postJson(a.url + CONTRAST, body, { 'PAYMENT-SIGNATURE': header }).catch((e: Error) => e);
    await proxy.waitForUpstream('settle', 1, 20_000);
    await a.kill('SIGKILL');
    assert.ok((await lost) instanceof Error);
    proxy.setMode('pass');
    const killedAt = Date.now();
    const first = await postJson(b.url + CONTRAST, body, { 'PAYMENT-SIGNATURE': header });
    assert.equal(first.status, 409, 'the dead instance still holds the lease for a moment');
    let res = first;
    while (res.status === 409 && Date.now() - killedAt < 35_000) {
      await new Promise((r) => setTimeout(r, 1000));
      res = await postJson(b.url + CONTRAST, body, { 'PAYMENT-SIGNATURE': header });
    }
    assert.equal(res.status, 200, `still ${res.status} after ${Date.now() - killedAt} ms`);
    assert.ok(Date.now() - killedAt < 30_000, 'the lease lapsed in seconds, not minutes');
    assert.equal(proxy.forwarded.settle, 1, 'the other instance asked the chain instead of settling again');
    assert.equal((await balanceOf(devnet, devnet.payTo)) - before, 1000n);
  } finally {
    await a.kill().catch(() => {});
    await b.kill();
    await proxy.close();
    await devnet.stop();
  }
});
