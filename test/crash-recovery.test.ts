/**
 * SIGKILL between settlement and response: the chain has the transfer, the
 * buyer has nothing. After a restart, the same PAYMENT-SIGNATURE must get the
 * paid result, and the chain must show exactly one transfer.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startDevnet } from '../devnet/index.js';
import { startFaultyFacilitator } from './support/faulty-facilitator.js';
import { BLACK_ON_WHITE, CONTRAST, balanceOf, decodePaymentResponseHeader, devnetEnv, postJson, signFor, tempDir, transferLogs } from './support/harness.js';
import { spawnService } from './support/child-service.js';

test('SIGKILL after the transfer, before the response: the retry after restart gets the result; one transfer on chain', async () => {
  const devnet = await startDevnet();
  const proxy = await startFaultyFacilitator(devnet.facilitatorUrl);
  const dataDir = tempDir('crash-');
  const env = devnetEnv(devnet, proxy.url, { DATA_DIR: dataDir, X402_FACILITATOR_TIMEOUT_MS: '60000' });
  let svc = await spawnService(env);
  try {
    const url = svc.url + CONTRAST;
    const { header } = await signFor(url, BLACK_ON_WHITE, devnet);
    const before = await balanceOf(devnet, devnet.payTo);
    proxy.setMode({ settle: 'hang-after-forward' });
    const pending = postJson(url, BLACK_ON_WHITE, { 'PAYMENT-SIGNATURE': header }).catch((e: Error) => e);
    const [settled] = await proxy.waitForUpstream('settle', 1, 20_000);
    const tx = (settled!.body as { transaction: string }).transaction;
    assert.match(tx, /^0x[0-9a-f]{64}$/);
    await svc.kill('SIGKILL');
    const lost = await pending;
    assert.ok(lost instanceof Error, 'the buyer got no response');
    assert.equal((await balanceOf(devnet, devnet.payTo)) - before, 1000n);

    proxy.setMode('pass');
    svc = await spawnService({ ...env, PORT: String(new URL(svc.url).port) });
    const settlesBefore = proxy.calls.settle;
    const retry = await postJson(svc.url + CONTRAST, BLACK_ON_WHITE, { 'PAYMENT-SIGNATURE': header });
    assert.equal(retry.status, 200, await retry.clone().text());
    assert.equal((await retry.json()).contrast_ratio, 21);
    assert.equal(decodePaymentResponseHeader(retry.headers.get('payment-response')!).transaction, tx);
    assert.equal(proxy.calls.settle, settlesBefore, 'no second settlement was sent');
    const toPayee = (await transferLogs(devnet, { to: devnet.payTo })).filter((l) => l.txHash === tx);
    assert.equal(toPayee.length, 1);
    assert.equal((await balanceOf(devnet, devnet.payTo)) - before, 1000n, 'exactly one transfer');
    const again = await postJson(svc.url + CONTRAST, BLACK_ON_WHITE, { 'PAYMENT-SIGNATURE': header });
    assert.equal(await again.text(), JSON.stringify((await postJson(svc.url + CONTRAST, BLACK_ON_WHITE, { 'PAYMENT-SIGNATURE': header }).then((r) => r.json()))));
  } finally {
    await svc.kill('SIGKILL').catch(() => {});
    await proxy.close();
    await devnet.stop();
  }
});

test('bad configuration stops start-up with one line naming the variable', async () => {
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ X402_NETWORK: 'eip155:8453', X402_FACILITATOR_URL: 'http://127.0.0.1:1' }, /^config error: X402_PAY_TO: is required/],
    [{ X402_NETWORK: 'eip155:8453', X402_PAY_TO: '0x1234', X402_FACILITATOR_URL: 'http://127.0.0.1:1' }, /^config error: X402_PAY_TO: is not a 0x-prefixed 20-byte hex address/],
    [{ X402_NETWORK: 'solana:mainnet', X402_PAY_TO: '0x' + '1'.repeat(40), X402_FACILITATOR_URL: 'http://127.0.0.1:1' }, /^config error: X402_NETWORK:/],
    [{ X402_NETWORK: 'eip155:999', X402_PAY_TO: '0x' + '1'.repeat(40), X402_FACILITATOR_URL: 'http://127.0.0.1:1' }, /^config error: X402_NETWORK: "eip155:999" is not a known network/],
    [{ X402_NETWORK: 'eip155:8453', X402_PAY_TO: '0x' + '1'.repeat(40), X402_FACILITATOR_URL: 'not a url' }, /^config error: X402_FACILITATOR_URL:/],
    [{ X402_NETWORK: 'eip155:8453', X402_PAY_TO: '0x' + '1'.repeat(40), X402_FACILITATOR_URL: 'http://127.0.0.1:1', DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none' }, /^config error: DATABASE_URL: cannot connect/],
    [{ PORT: 'eighty' }, /^config error: PORT:/],
    // A lease shorter than one facilitator call would let a duplicate take over a settlement in flight.
    [{ X402_ATTEMPT_LEASE_MS: '5000' }, /^config error: X402_ATTEMPT_LEASE_MS: must be at least X402_FACILITATOR_TIMEOUT_MS \+ 5000 \(20000\)/],
    [{ X402_ATTEMPT_LEASE_MS: '10000', X402_FACILITATOR_TIMEOUT_MS: '9000' }, /^config error: X402_ATTEMPT_LEASE_MS:/],
  ];
  for (const [env, expected] of cases) {
    const { spawnSync } = await import('node:child_process');
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      env: { PATH: process.env.PATH, DATA_DIR: tempDir('cfg-'), ...env },
      encoding: 'utf8',
      timeout: 30_000,
    });
    assert.equal(r.status, 1, `${JSON.stringify(env)} → ${r.stdout}${r.stderr}`);
    const lines = r.stderr.trim().split('\n');
    assert.equal(lines.length, 1, `one line expected, got:\n${r.stderr}`);
    assert.match(lines[0]!, expected);
    assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
  }
});
