/**
 * The network to PostgreSQL stalls (packets stop, nothing is reset) while the
 * service runs. Paid requests and /readyz must fail closed within a bound set
 * by LEDGER_TIMEOUT_MS, not for as long as the stall lasts; once the network
 * is back the driver replaces the connections it gave up on (even when they
 * never answer again), and the same payment succeeds, charged once, without
 * a restart.
 */
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CONTRAST, balanceOf, devnetEnv, signFor, startRig, tempDir, type Rig } from './support/harness.js';
import { timedFetch } from './support/harness.js';
import { spawnService } from './support/child-service.js';
import { freshPgUrl, pgConfigured, PG_SKIP_REASON } from './support/pg.js';
import { startTcpStallProxy, type TcpStallProxy } from './support/tcp-stall-proxy.js';

/** LEDGER_TIMEOUT_MS is 2 s; before the fix these calls waited for the stall to end. */
const BOUND_MS = 10_000;

/** Gives up instead of hanging the test: before the fix, database routes never answered. */
const timed = (url: string, init: RequestInit = {}) => timedFetch(url, init, BOUND_MS + 5000);

const paidPost = (url: string, body: unknown, header: string) =>
  timed(url, { method: 'POST', headers: { 'content-type': 'application/json', 'PAYMENT-SIGNATURE': header }, body: JSON.stringify(body) });

describe('PostgreSQL behind a stalled network', { skip: pgConfigured() ? undefined : PG_SKIP_REASON, timeout: 180_000 }, () => {
  let proxy: TcpStallProxy | undefined;
  let rig: Rig | undefined;
  let url = '';
  let base = '';
  let seq = 0;
  const freshBody = () => ({ foreground: '#' + (0x100000 + ++seq * 7919).toString(16).slice(-6), background: '#ffffff', large_text: false });
  const paid = () => balanceOf(rig!.devnet, rig!.devnet.payTo);
  const sign = async (body: unknown) => (await signFor(url, body, rig!.devnet)).header;

  let databaseUrl = '';

  before(async () => {
    const direct = new URL(await freshPgUrl());
    proxy = await startTcpStallProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
    const viaProxy = new URL(direct);
    viaProxy.hostname = proxy.host;
    viaProxy.port = String(proxy.port);
    databaseUrl = viaProxy.toString();
    rig = await startRig({ env: { DATABASE_URL: databaseUrl, LEDGER_TIMEOUT_MS: '2000' } });
    base = rig.service.url;
    url = base + CONTRAST;
  });
  // A failed test must not leave the next one stalled.
  afterEach(() => proxy?.resume());
  after(async () => {
    proxy?.resume();
    await rig?.close();
    await proxy?.close();
  });

  /** Live pooled connections when the stall begins, as in production: several requests at once. */
  async function warmUp() {
    const bodies = [freshBody(), freshBody(), freshBody()];
    const headers = await Promise.all(bodies.map(sign));
    const res = await Promise.all(bodies.map((b, i) => paidPost(url, b, headers[i]!)));
    assert.deepEqual(res.map((r) => r.status), [200, 200, 200]);
    // Concurrent readiness checks open more connections (each ping takes one): more than the stall uses up.
    const pings = await Promise.all(Array.from({ length: 8 }, () => timed(base + '/readyz')));
    assert.deepEqual([...new Set(pings.map((p) => p.status))], [200]);
  }

  /** While stalled: paid requests and /readyz fail closed within the bound; /healthz is unaffected. */
  async function failsClosed(header: string, body: unknown) {
    const first = await paidPost(url, body, header);
    assert.equal(first.status, 503);
    assert.equal(first.json().error.code, 'ledger_unavailable');
    assert.ok(first.ms < BOUND_MS, `503 took ${first.ms} ms`);
    const notReady = await timed(base + '/readyz');
    assert.equal(notReady.status, 503);
    assert.equal(notReady.json().checks.ledger, 'unavailable');
    assert.ok(notReady.ms < BOUND_MS, `/readyz took ${notReady.ms} ms`);
    const again = await paidPost(url, body, header);
    assert.equal(again.status, 503);
    assert.ok(again.ms < BOUND_MS, `second 503 took ${again.ms} ms`);
    const health = await timed(base + '/healthz');
    assert.equal(health.status, 200);
    return `503 after ${first.ms} ms and ${again.ms} ms, /readyz 503 after ${notReady.ms} ms, /healthz 200 after ${health.ms} ms`;
  }

  test('stall, then the network comes back: the same payment succeeds at once, charged once', async (t) => {
    await warmUp();
    const body = freshBody();
    const header = await sign(body);
    const beforeBalance = await paid();
    proxy!.stall();
    const stalled = await failsClosed(header, body);
    assert.equal(await paid(), beforeBalance, 'nothing charged during the stall');

    proxy!.resume();
    const t0 = Date.now();
    const ok = await paidPost(url, body, header);
    assert.equal(ok.status, 200, `after resume: ${ok.status} ${JSON.stringify(ok.json())}`);
    assert.ok(ok.headers.get('payment-response'));
    const took = Date.now() - t0;
    assert.equal((await timed(base + '/readyz')).status, 200);
    // The same payment again is the stored result, not a second charge.
    const replay = await paidPost(url, body, header);
    assert.equal(replay.status, 200);
    assert.equal(replay.headers.get('x-payment-replayed'), 'true');
    assert.equal((await paid()) - beforeBalance, 1000n, 'charged exactly once');
    t.diagnostic(`stalled: ${stalled}; after resume: 200 in ${took} ms`);
  });

  test('stall, then the old connections stay dead (no reset): the driver replaces them by itself', async (t) => {
    await warmUp();
    const body = freshBody();
    const header = await sign(body);
    const beforeBalance = await paid();
    const acceptedBefore = proxy!.accepted;
    proxy!.stall();
    const stalled = await failsClosed(header, body);

    proxy!.resume({ abandon: true });
    // Each request may still draw one dead pooled connection (and fail closed, within the bound)
    // until the pool has dropped them all; it must never draw the same one twice.
    const t0 = Date.now();
    const seen: string[] = [];
    let ok: Awaited<ReturnType<typeof paidPost>> | undefined;
    while (Date.now() - t0 < 60_000) {
      const r = await paidPost(url, body, header);
      assert.ok(r.ms < BOUND_MS, `request after resume took ${r.ms} ms`);
      seen.push(`${r.status}${r.status === 200 ? '' : ' ' + r.json().error.code} (${r.ms} ms)`);
      if (r.status === 200) {
        ok = r;
        break;
      }
      assert.ok(r.status === 503 || r.status === 409, seen.join(', '));
      // 409 payment_in_progress: a lease from a request cut off mid-way; wait as told.
      const wait = r.status === 409 ? Number(r.headers.get('retry-after') ?? 1) * 1000 : 100;
      await new Promise((res) => setTimeout(res, wait));
    }
    assert.ok(ok, `never recovered: ${seen.join(', ')}`);
    const took = Date.now() - t0;
    assert.ok(seen.length <= 11, `took ${seen.length} requests: ${seen.join(', ')}`);
    assert.ok(proxy!.accepted > acceptedBefore, 'new connections were opened');
    let ready = await timed(base + '/readyz');
    for (let i = 0; ready.status !== 200 && i < 10; i++) ready = await timed(base + '/readyz');
    assert.equal(ready.status, 200);
    assert.equal((await paid()) - beforeBalance, 1000n, 'charged exactly once');
    t.diagnostic(`stalled: ${stalled}; after resume with dead connections: ${seen.join(', ')}; 200 after ${took} ms`);
  });

  test('SIGTERM during the stall with a paid request in flight: it is answered 503 and the process exits cleanly', async (t) => {
    const child = await spawnService(devnetEnv(rig!.devnet, rig!.proxy.url, { DATA_DIR: tempDir('pg-stall-'), DATABASE_URL: databaseUrl, LEDGER_TIMEOUT_MS: '2000' }));
    try {
      const body = freshBody();
      assert.equal((await paidPost(child.url + CONTRAST, body, await sign(body))).status, 200);
      const body2 = freshBody();
      const header = await sign(body2);
      const exited = new Promise<number | null>((r) => child.child.once('exit', (code) => r(code)));
      proxy!.stall();
      const inFlight = paidPost(child.url + CONTRAST, body2, header).catch((e: Error) => e);
      await new Promise((r) => setTimeout(r, 300));
      const t0 = Date.now();
      child.child.kill('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      const code = await Promise.race([exited, new Promise<'hung'>((r) => (timer = setTimeout(() => r('hung'), 20_000)))]);
      clearTimeout(timer);
      const took = Date.now() - t0;
      assert.notEqual(code, 'hung', `still running 20 s after SIGTERM:\n${child.output().slice(-2000)}`);
      const res = await inFlight;
      assert.ok(!(res instanceof Error), `the request in flight got no answer: ${res instanceof Error ? res.message : ''}`);
      assert.equal(res.status, 503);
      // A clean close (0), not the forced exit after the grace period (1).
      assert.equal(code, 0, `exit code ${code} after ${took} ms:\n${child.output().slice(-2000)}`);
      assert.ok(took < 12_000, `exited ${took} ms after SIGTERM`);
      t.diagnostic(`in-flight request: ${res.status} after ${res.ms} ms; exited with ${code} ${took} ms after SIGTERM`);
    } finally {
      proxy!.resume();
      await child.kill('SIGKILL');
    }
  });
});
