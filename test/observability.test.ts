/**
 * /metrics after a real paid call on the devnet: the request, payment-state,
 * settlement, facilitator-latency (per facilitator), facilitator health,
 * ledger-latency and reconciler series move.
 * The verify/settle log lines carry the caller's request id. /readyz does not
 * ask the facilitator on every probe. METRICS_TOKEN guards /metrics.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { createLogger } from '../src/service.js';
import { startRig, payingFetch, CONTRAST, BLACK_ON_WHITE, type Rig } from './support/harness.js';

const TOKEN = 'metrics-token-for-tests-0123456789';
const lines: Array<Record<string, unknown>> = [];
const capture = new Writable({
  write(chunk, _enc, done) {
    for (const l of String(chunk).split('\n')) if (l.trim()) lines.push(JSON.parse(l) as Record<string, unknown>);
    done();
  },
});

let rig: Rig;
before(async () => {
  rig = await startRig({
    env: { METRICS_TOKEN: TOKEN, RECONCILE_INTERVAL_MS: '200' },
    // The service's own logger (JSON, request-id mixin), writing where the test can read it.
    service: { log: createLogger('info', capture as unknown as NodeJS.WriteStream) },
  });
});
after(async () => rig?.close());

/** Prometheus text → `name{labels}` → value (labels as printed, sorted by the client). */
async function scrape(): Promise<Map<string, number>> {
  const res = await fetch(rig.service.url + '/metrics', { headers: { Authorization: `Bearer ${TOKEN}` } });
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
  const series = new Map<string, number>();
  for (const line of (await res.text()).split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    series.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return series;
}
const value = (m: Map<string, number>, key: string) => m.get(key) ?? 0;
/** Sum of every series of `name` whose labels contain all of `parts`. */
function sum(m: Map<string, number>, name: string, ...parts: string[]): number {
  let total = 0;
  for (const [k, v] of m) if ((k === name || k.startsWith(name + '{')) && parts.every((p) => k.includes(p))) total += v;
  return total;
}

test('/metrics needs the bearer token when METRICS_TOKEN is set', async () => {
  const res = await fetch(rig.service.url + '/metrics');
  assert.equal(res.status, 401);
  assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'unauthorized');
});

test('a paid call moves the request, payment, settlement, facilitator, ledger and reconciler metrics; its log lines carry the request id', async () => {
  const before = await scrape();
  const reqId = 'obs-paid-call-1';
  const res = await payingFetch(rig.devnet)(rig.service.url + CONTRAST, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-request-id': reqId },
    body: JSON.stringify(BLACK_ON_WHITE),
  });
  assert.equal(res.status, 200, await res.clone().text());
  assert.equal(res.headers.get('x-request-id'), reqId);
  // Where the time went (Hono's timing helper): every phase of the paid call, and only on a delivery.
  const phases = Object.fromEntries((res.headers.get('server-timing') ?? '').split(',').map((p) => /^\s*(\w+);dur=([0-9.]+)$/.exec(p)).filter((m) => m !== null).map((m) => [m[1], Number(m[2])]));
  assert.deepEqual(Object.keys(phases).sort(), ['chain', 'handler', 'ledger', 'settle', 'verify']);
  assert.ok(phases.settle! > 0 && phases.verify! > 0, JSON.stringify(phases));
  await res.arrayBuffer();
  const challenge = await fetch(rig.service.url + CONTRAST, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(BLACK_ON_WHITE) });
  assert.equal(challenge.status, 402);
  assert.equal(challenge.headers.get('server-timing'), null);
  await challenge.arrayBuffer();
  const after = await scrape();

  const route = `route="${CONTRAST}"`;
  assert.equal(sum(after, 'http_requests_total', route, 'status="200"') - sum(before, 'http_requests_total', route, 'status="200"'), 1);
  assert.equal(sum(after, 'http_requests_total', route, 'status="402"') - sum(before, 'http_requests_total', route, 'status="402"'), 2, 'the client\'s 402 and ours');
  for (const state of ['reserved', 'verified', 'settled']) {
    assert.equal(sum(after, 'payment_attempts_total', `state="${state}"`) - sum(before, 'payment_attempts_total', `state="${state}"`), 1, state);
  }
  // Per facilitator: labelled with its URL's origin and path, and its health.
  const facilitator = `facilitator="${rig.proxy.url}"`;
  assert.equal(sum(after, 'settlements_total', facilitator, 'outcome="success"') - sum(before, 'settlements_total', facilitator, 'outcome="success"'), 1);
  assert.equal(sum(after, 'facilitator_request_duration_seconds_count', facilitator, 'operation="verify"', 'outcome="valid"') - sum(before, 'facilitator_request_duration_seconds_count', facilitator, 'operation="verify"', 'outcome="valid"'), 1);
  assert.equal(sum(after, 'facilitator_request_duration_seconds_count', facilitator, 'operation="settle"', 'outcome="success"') - sum(before, 'facilitator_request_duration_seconds_count', facilitator, 'operation="settle"', 'outcome="success"'), 1);
  assert.equal(value(after, `facilitator_up{${facilitator}}`), 1);
  assert.ok(sum(after, 'ledger_operation_duration_seconds_count', 'operation="reserve"') > sum(before, 'ledger_operation_duration_seconds_count', 'operation="reserve"'));

  for (const msg of ['facilitator verify', 'facilitator settle']) {
    const line = lines.find((l) => l.msg === msg && l.reqId === reqId);
    assert.ok(line, `a "${msg}" line with reqId ${reqId}; got ${JSON.stringify(lines.filter((l) => l.msg === msg))}`);
  }

  // The reconciler runs on its interval (200 ms here); wait for its counter to move, bounded.
  const runs = sum(after, 'reconciler_runs_total');
  for (let i = 0; i < 50 && sum(await scrape(), 'reconciler_runs_total') <= runs; i++) await new Promise((r) => setTimeout(r, 100));
  assert.ok(sum(await scrape(), 'reconciler_runs_total', 'outcome="ok"') > runs);
});

test('/readyz answers from a cached facilitator check instead of asking /supported on every probe', async () => {
  rig.proxy.resetCalls();
  for (let i = 0; i < 5; i++) {
    const res = await fetch(rig.service.url + '/readyz');
    assert.equal(res.status, 200);
    await res.arrayBuffer();
  }
  assert.ok(rig.proxy.calls.supported <= 1, `/supported was asked ${rig.proxy.calls.supported} times for 5 probes`);
});
