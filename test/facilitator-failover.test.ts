/**
 * Several facilitators (X402_FACILITATOR_URL, in order of preference) on the
 * real devnet, each behind its own fault proxy. The money rules of
 * src/payments/facilitators.ts against real faults: verify fails over; a
 * settle is sent to another facilitator only when the first provably never
 * got it; a settle whose answer was lost after it went on chain is resolved
 * from the chain, never re-sent; the ledger records who settled.
 */
import { describe, test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { startDevnet, type Devnet } from '../devnet/index.js';
import { loadConfig } from '../src/config.js';
import { startService, type RunningService } from '../src/service.js';
import { facilitatorName } from '../src/payments/facilitators.js';
import { sha256Hex } from '../src/foundation/canonical-json.js';
import { startFaultyFacilitator, type FaultyFacilitator } from './support/faulty-facilitator.js';
import { CONTRAST, decodePaymentResponseHeader, devnetEnv, postJson, signFor, tempDir, transferLogs } from './support/harness.js';

/** A loopback port nothing listens on: connecting is refused. */
async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as { port: number };
  await new Promise<void>((r) => server.close(() => r()));
  return `http://127.0.0.1:${port}`;
}

describe('several facilitators: failover and its money rules (real devnet)', () => {
  let devnet: Devnet;
  let first: FaultyFacilitator;
  let second: FaultyFacilitator;
  const services: RunningService[] = [];
  before(async () => {
    devnet = await startDevnet();
    first = await startFaultyFacilitator(devnet.facilitatorUrl);
    second = await startFaultyFacilitator(devnet.facilitatorUrl);
  });
  after(async () => {
    for (const s of services) await s.close().catch(() => {});
    await first?.close();
    await second?.close();
    await devnet?.stop();
  });
  beforeEach(() => {
    for (const f of [first, second]) {
      f.setMode('pass');
      f.resetCalls();
    }
  });

  async function serviceWith(urls: string[]): Promise<RunningService> {
    const env = devnetEnv(devnet, urls.join(','), { DATA_DIR: tempDir('failover-'), X402_FACILITATOR_TIMEOUT_MS: '1500', RECONCILE_INTERVAL_MS: '3600000' });
    const svc = await startService(loadConfig(env));
    services.push(svc);
    return svc;
  }

  let seq = 0;
  const freshBody = () => ({ foreground: '#' + (0x200000 + ++seq * 7919).toString(16).slice(-6), background: '#ffffff', large_text: false });

  /** The ledger row of a signed payment (the gate's attempt id). */
  function attemptId(payload: { payload: unknown }): string {
    const auth = (payload.payload as { authorization: { from: string; nonce: string } }).authorization;
    return sha256Hex([devnet.network, devnet.asset.toLowerCase(), auth.from.toLowerCase(), auth.nonce].join('|'));
  }

  /** Transfers on chain from the buyer, by transaction. */
  async function buyerTransfers(): Promise<string[]> {
    return (await transferLogs(devnet, { from: devnet.buyer.address })).map((l) => l.txHash);
  }

  /** Pay for `body` once; the delivery, its receipt's transaction and the ledger row. */
  async function payOnce(svc: RunningService) {
    const url = svc.url + CONTRAST;
    const body = freshBody();
    const { header, payload } = await signFor(url, body, devnet);
    const res = await postJson(url, body, { 'PAYMENT-SIGNATURE': header });
    const text = await res.text();
    assert.equal(res.status, 200, text);
    const tx = decodePaymentResponseHeader(res.headers.get('payment-response')!).transaction;
    return { tx, attempt: await svc.ledger.get({ id: attemptId(payload) }) };
  }

  test('the first facilitator refuses connections: every paid call settles exactly once through the second, which the ledger records', async () => {
    const svc = await serviceWith([await closedPortUrl(), second.url]);
    const before = await buyerTransfers();
    const txs: string[] = [];
    for (let i = 0; i < 3; i++) {
      const { tx, attempt } = await payOnce(svc);
      txs.push(tx);
      assert.equal(attempt?.state, 'settled');
      assert.equal(attempt?.facilitator, facilitatorName(second.url));
    }
    const after = (await buyerTransfers()).slice(before.length);
    assert.deepEqual(after, txs, 'one transfer per call, each the one its receipt names');
    assert.equal(second.calls.settle, 3);
  });

  for (const mode of ['slow', 'error500'] as const) {
    test(`the first facilitator accepts the connection then ${mode === 'slow' ? 'times out' : 'answers 500'} at verify: the second verifies and settles, once per call`, async () => {
      first.setMode({ verify: mode }, { slowMs: 5000 });
      const svc = await serviceWith([first.url, second.url]);
      const before = await buyerTransfers();
      const txs: string[] = [];
      for (let i = 0; i < 2; i++) {
        const { tx, attempt } = await payOnce(svc);
        txs.push(tx);
        assert.equal(attempt?.facilitator, facilitatorName(second.url));
      }
      assert.deepEqual((await buyerTransfers()).slice(before.length), txs);
      assert.equal(first.forwarded.settle + first.calls.settle, 0, 'nothing settled through the first');
      assert.equal(second.calls.settle, 2);
    });
  }

  test('a settle that times out at the first facilitator after it went on chain is never re-sent to the second: one transfer, resolved from the chain', async () => {
    const svc = await serviceWith([first.url, second.url]);
    const url = svc.url + CONTRAST;
    const body = freshBody();
    const { header, payload } = await signFor(url, body, devnet);
    const before = await buyerTransfers();
    first.setMode({ settle: 'hang-after-forward' });
    const res = await postJson(url, body, { 'PAYMENT-SIGNATURE': header });
    assert.equal(res.status, 503);
    assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'settlement_unknown');
    const [upstream] = await first.waitForUpstream('settle', 1, 10_000);
    const tx = (upstream!.body as { transaction: string }).transaction;
    assert.equal(second.calls.settle, 0, 'the unknown settle was not sent to the second facilitator');
    const pending = await svc.ledger.get({ id: attemptId(payload) });
    assert.equal(pending?.state, 'unknown');
    assert.equal(pending?.facilitator, facilitatorName(first.url), 'the ledger says where the settle may have gone');

    // The buyer's retry: the chain shows the authorization used, so nothing is settled again.
    const retry = await postJson(url, body, { 'PAYMENT-SIGNATURE': header });
    assert.equal(retry.status, 200, await retry.clone().text());
    assert.equal(decodePaymentResponseHeader(retry.headers.get('payment-response')!).transaction, tx);
    assert.equal(first.calls.settle, 1);
    assert.equal(second.calls.settle, 0);
    assert.deepEqual((await buyerTransfers()).slice(before.length), [tx], 'exactly one transfer');
    const settled = await svc.ledger.get({ id: attemptId(payload) });
    assert.equal(settled?.state, 'settled');
    assert.equal(settled?.txHash, tx);
    assert.equal(settled?.facilitator, facilitatorName(first.url));
  });

  test('a settle answered 500 (nothing broadcast) is sent again only on the retry, after the chain shows the authorization unused, and then to the second facilitator', async () => {
    const svc = await serviceWith([first.url, second.url]);
    const url = svc.url + CONTRAST;
    const body = freshBody();
    const { header, payload } = await signFor(url, body, devnet);
    const before = await buyerTransfers();
    first.setMode({ settle: 'error500' });
    const res = await postJson(url, body, { 'PAYMENT-SIGNATURE': header });
    assert.equal(res.status, 503);
    assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'settlement_unknown');
    assert.equal(second.calls.settle, 0, 'an unknown outcome is not re-sent within the request');
    assert.equal((await svc.ledger.get({ id: attemptId(payload) }))?.facilitator, facilitatorName(first.url));

    const retry = await postJson(url, body, { 'PAYMENT-SIGNATURE': header });
    assert.equal(retry.status, 200, await retry.clone().text());
    const tx = decodePaymentResponseHeader(retry.headers.get('payment-response')!).transaction;
    assert.equal(second.calls.settle, 1);
    assert.deepEqual((await buyerTransfers()).slice(before.length), [tx]);
    const settled = await svc.ledger.get({ id: attemptId(payload) });
    assert.equal(settled?.state, 'settled');
    assert.equal(settled?.facilitator, facilitatorName(second.url));
  });

  test('/metrics: per-facilitator health and latency', async () => {
    const down = await closedPortUrl();
    const svc = await serviceWith([down, second.url]);
    await payOnce(svc);
    const text = await (await fetch(svc.url + '/metrics')).text();
    assert.match(text, new RegExp(`facilitator_up\\{facilitator="${second.url}"\\} 1`));
    assert.match(text, new RegExp(`facilitator_up\\{facilitator="${down}"\\} 0`));
    assert.match(text, new RegExp(`settlements_total\\{facilitator="${second.url}",outcome="success"\\} [1-9]`));
    assert.match(text, new RegExp(`facilitator_request_duration_seconds_count\\{facilitator="${second.url}",operation="verify",outcome="valid"\\} [1-9]`));
  });
});
