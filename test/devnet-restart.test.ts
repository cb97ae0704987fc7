/**
 * A restarted devnet never silently disagrees with the ledger
 * (src/payments/devnet-chain.ts), from outside: the real service as a
 * process on one DATA_DIR, paid, stopped and started again.
 *
 * A devnet's new chain has the old one's network id, token address and
 * funded buyers, so an authorization signed on the old chain is valid on the
 * new one. Before the fix, the buyer's retry of a payment left unfinished on
 * the old chain was verified and settled on the new one (200, the payee paid
 * again on a chain the attempt was never made on); now the start-up line
 * says what the ledger holds from the earlier chain, the attempt is closed,
 * the retry gets 402 and nothing reaches the new chain. A settled payment is
 * still served again from the ledger. A restart on the same chain (the
 * devnet run apart) changes nothing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDevnet } from '../devnet/index.js';
import { startFaultyFacilitator } from './support/faulty-facilitator.js';
import { spawnService, type ChildService } from './support/child-service.js';
import { BLACK_ON_WHITE, CONTRAST, anvilRpc, balanceOf, decodePaymentResponseHeader, devnetEnv, postJson, signFor, tempDir, type Devnet } from './support/harness.js';

/** The JSON log line whose message starts with `prefix`, if any. */
function lineStarting(svc: ChildService, prefix: string): Record<string, unknown> | undefined {
  for (const l of svc.output().split('\n')) {
    if (!l.startsWith('{')) continue;
    const o = JSON.parse(l) as Record<string, unknown>;
    if (typeof o.msg === 'string' && o.msg.startsWith(prefix)) return o;
  }
  return undefined;
}

const RESTARTED = 'devnet restarted: ';

/** The stable code of a refusal: a 402's `problem.code`, another answer's `error.code`. */
function codeOf(text: string): string | undefined {
  const json = JSON.parse(text) as { problem?: { code?: string }; error?: { code?: string } };
  return json.problem?.code ?? json.error?.code;
}

test('npm start twice on one DATA_DIR: the second devnet is a new chain; one line says so, the unfinished payment is never settled on it, the settled one is served from the ledger', { timeout: 300_000 }, async () => {
  const dataDir = tempDir('devnet-restart-');
  // What `npm start` runs: no X402_NETWORK, the embedded devnet; a short facilitator timeout for the stalled verify below.
  const env = { DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: '0', RATE_LIMIT_PER_MINUTE: '0', X402_FACILITATOR_TIMEOUT_MS: '3000' };
  const body2 = { ...BLACK_ON_WHITE, foreground: '#222222' };
  let svc = await spawnService(env, 120_000);
  try {
    const first = JSON.parse(readFileSync(join(dataDir, 'devnet.json'), 'utf8')) as Devnet;
    assert.equal(lineStarting(svc, RESTARTED), undefined, 'a new ledger has nothing from an earlier chain');
    // One paid call, settled on the first chain.
    const paid = await signFor(svc.url + CONTRAST, BLACK_ON_WHITE, first);
    const res1 = await postJson(svc.url + CONTRAST, BLACK_ON_WHITE, { 'PAYMENT-SIGNATURE': paid.header });
    assert.equal(res1.status, 200, await res1.clone().text());
    const body1 = await res1.text();
    const tx1 = decodePaymentResponseHeader(res1.headers.get('payment-response')!).transaction;
    // One left unfinished: the chain stops answering while the facilitator verifies (anvil stopped from outside), so the attempt stays reserved.
    const unfinished = await signFor(svc.url + CONTRAST, body2, first);
    const anvilPid = Number(/anvil pid (\d+)/.exec(svc.output())?.[1]);
    assert.ok(anvilPid > 0, 'the service logs its anvil');
    process.kill(anvilPid, 'SIGSTOP');
    let stalled;
    try {
      stalled = await postJson(svc.url + CONTRAST, body2, { 'PAYMENT-SIGNATURE': unfinished.header });
    } finally {
      process.kill(anvilPid, 'SIGCONT');
    }
    assert.deepEqual([stalled.status, (await stalled.json()).error.code], [503, 'facilitator_unavailable']);
    await svc.kill();

    // npm start again: a new devnet.
    svc = await spawnService(env, 120_000);
    const second = JSON.parse(readFileSync(join(dataDir, 'devnet.json'), 'utf8')) as Devnet;
    assert.notEqual(second.chainInstance, first.chainInstance, 'a new chain');
    assert.equal(second.asset, first.asset, 'under the same token address: the old authorization is valid on it');
    const line = lineStarting(svc, RESTARTED);
    assert.ok(line, `the start-up line:\n${svc.output()}`);
    assert.deepEqual([line.level, line.settled, line.closed, line.chain], [40, 1, 1, second.chainInstance]);
    assert.match(String(line.msg), /1 settled attempt\(s\) name transactions this chain does not have; 1 unfinished attempt\(s\) from it were closed as failed \(devnet_chain_gone\) and will never be settled on this chain\. For a ledger that matches the chain, start on an empty DATA_DIR/);

    // The buyer retries the unfinished payment, still within its validity: refused, nothing moves on the new chain.
    const payee = await balanceOf(second, second.payTo);
    const retry = await postJson(svc.url + CONTRAST, body2, { 'PAYMENT-SIGNATURE': unfinished.header });
    const refusal = await retry.text();
    assert.equal(retry.status, 402, refusal);
    assert.equal(codeOf(refusal), 'payment_invalid', refusal);
    assert.match(refusal, /devnet_chain_gone: made on a devnet chain that no longer exists/);
    assert.equal(await balanceOf(second, second.payTo), payee, 'the new chain was not paid');

    // The settled one is served again from the ledger, its receipt naming the old chain's transaction, which the new chain does not have.
    const again = await postJson(svc.url + CONTRAST, BLACK_ON_WHITE, { 'PAYMENT-SIGNATURE': paid.header });
    assert.deepEqual([again.status, again.headers.get('x-payment-replayed'), await again.text()], [200, 'true', body1]);
    assert.equal(decodePaymentResponseHeader(again.headers.get('payment-response')!).transaction, tx1);
    assert.equal(await anvilRpc(second, 'eth_getTransactionReceipt', [tx1]), null);

    // New payments settle on the new chain as usual.
    const fresh = await signFor(svc.url + CONTRAST, { ...BLACK_ON_WHITE, foreground: '#333333' }, second);
    const res3 = await postJson(svc.url + CONTRAST, { ...BLACK_ON_WHITE, foreground: '#333333' }, { 'PAYMENT-SIGNATURE': fresh.header });
    assert.equal(res3.status, 200);
    assert.equal((await balanceOf(second, second.payTo)) - payee, 1000n);
  } finally {
    await svc.kill();
  }
});

test('a devnet run apart: restarting the service on it changes nothing; on a new devnet, the payment whose settlement was unknown is closed, never settled there', { timeout: 300_000 }, async () => {
  const dataDir = tempDir('devnet-apart-');
  let devnet = await startDevnet({ svm: false });
  let proxy = await startFaultyFacilitator(devnet.facilitatorUrl);
  // The reconciler waits: the restart on the same chain must find the unknown attempt as it was left.
  const envFor = () => devnetEnv(devnet, proxy.url, { DATA_DIR: dataDir, RECONCILE_INTERVAL_MS: '3600000' });
  let svc = await spawnService(envFor());
  try {
    const paid = await signFor(svc.url + CONTRAST, BLACK_ON_WHITE, devnet);
    assert.equal((await postJson(svc.url + CONTRAST, BLACK_ON_WHITE, { 'PAYMENT-SIGNATURE': paid.header })).status, 200);
    // The settlement lands on the chain but its answer never comes back: unknown.
    const body2 = { ...BLACK_ON_WHITE, foreground: '#444444' };
    const lost = await signFor(svc.url + CONTRAST, body2, devnet);
    proxy.setMode({ settle: 'hang-after-forward' });
    const unknown = await postJson(svc.url + CONTRAST, body2, { 'PAYMENT-SIGNATURE': lost.header });
    assert.deepEqual([unknown.status, (await unknown.json()).error.code], [503, 'settlement_unknown']);
    await proxy.waitForUpstream('settle', 2, 20_000);

    // The same devnet: no line, nothing closed.
    await svc.kill();
    svc = await spawnService(envFor());
    assert.equal(lineStarting(svc, RESTARTED), undefined, svc.output());
    assert.equal(lineStarting(svc, 'cannot tell which devnet chain'), undefined);

    // A new devnet (as after stopping and starting `npm run devnet` again), the instance restarted with its environment.
    await svc.kill();
    await proxy.close();
    await devnet.stop();
    devnet = await startDevnet({ svm: false });
    proxy = await startFaultyFacilitator(devnet.facilitatorUrl);
    svc = await spawnService(envFor());
    const line = lineStarting(svc, RESTARTED);
    assert.ok(line, svc.output());
    assert.deepEqual([line.settled, line.closed], [1, 1]);

    // Before the fix: the new chain showed the authorization unused and still valid, so the retry settled it there (200).
    const payee = await balanceOf(devnet, devnet.payTo);
    proxy.resetCalls();
    const retry = await postJson(svc.url + CONTRAST, body2, { 'PAYMENT-SIGNATURE': lost.header });
    const refusal = await retry.text();
    assert.equal(retry.status, 402, refusal);
    assert.equal(codeOf(refusal), 'payment_invalid', refusal);
    assert.deepEqual([proxy.calls.verify, proxy.calls.settle], [0, 0], 'nothing was sent to the new chain\'s facilitator');
    assert.equal(await balanceOf(devnet, devnet.payTo), payee);
    // The settled one is still served from the ledger.
    const again = await postJson(svc.url + CONTRAST, BLACK_ON_WHITE, { 'PAYMENT-SIGNATURE': paid.header });
    assert.deepEqual([again.status, again.headers.get('x-payment-replayed')], [200, 'true']);
  } finally {
    await svc.kill();
    await proxy.close();
    await devnet.stop();
  }
});
