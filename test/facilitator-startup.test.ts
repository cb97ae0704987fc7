/**
 * Facilitators at start-up and through outages: a facilitator whose
 * /supported lacks our network stops start-up with one line naming it; a
 * restart while every facilitator is unreachable still answers unpaid calls
 * with the normal 402 (from the last good /supported answer, saved in
 * DATA_DIR) and paid calls with 503, and takes payments again once one is
 * back; the x402 SDK's console lines come out as JSON log lines, without
 * secrets.
 */
import { describe, test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { startDevnet } from '../devnet/index.js';
import { loadConfig } from '../src/config.js';
import { startService } from '../src/service.js';
import { PROBE_RETRY_MS } from '../src/payments/facilitator-watch.js';
import { spawnService } from './support/child-service.js';
import { startFaultyFacilitator } from './support/faulty-facilitator.js';
import { CONTRAST, BLACK_ON_WHITE, decodePaymentRequiredHeader, devnetEnv, postJson, signFor, tempDir, transferLogs } from './support/harness.js';

const NETWORK = 'eip155:84532';

/** A facilitator that answers /supported (under any path) with `networks`, and nothing else; on `port` when given. */
async function fakeFacilitator(networks: string[], port = 0): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    if (req.url?.split('?')[0]?.endsWith('/supported')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ kinds: networks.map((network) => ({ x402Version: 2, scheme: 'exact', network })), extensions: [], signers: {} }));
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', () => r()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** A loopback port nothing listens on (for now): connections to it are refused. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

/** The service's JSON log lines so far. */
const logLines = (out: string) =>
  out
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { level: number; msg: string; source?: string });

/** An external rail (no devnet) pointing at `facilitators`; the chain is never needed before listening. */
const externalEnv = (facilitators: string) => ({
  X402_NETWORK: NETWORK,
  X402_PAY_TO: '0x' + '1'.repeat(40),
  X402_FACILITATOR_URL: facilitators,
  X402_RPC_URL: 'http://127.0.0.1:1',
  X402_FACILITATOR_TIMEOUT_MS: '2000',
  HOST: '127.0.0.1',
  PORT: '0',
  LOG_LEVEL: 'silent',
  DATA_DIR: tempDir('startup-'),
});

/** Run src/main.ts to its exit (the test's own servers keep answering meanwhile). */
function runMain(env: Record<string, string>, limitMs = 30_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`still running after ${limitMs} ms (start-up was not refused):\n${stdout}${stderr}`));
    }, limitMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('facilitators at start-up and through outages', () => {
  const servers: Server[] = [];
  after(() => {
    for (const s of servers) s.close();
  });

  test('a facilitator whose /supported lacks the configured network stops start-up with one line naming it', { timeout: 60_000 }, async () => {
    const good = await fakeFacilitator([NETWORK]);
    const wrong = await fakeFacilitator(['eip155:1', 'eip155:8453']);
    servers.push(good.server, wrong.server);
    const r = await runMain(externalEnv(`${good.url},${wrong.url}/x402`));
    assert.notEqual(r.code, 0);
    assert.equal(r.stdout, '');
    const lines = r.stderr.trim().split('\n');
    assert.equal(lines.length, 1, `one line expected, got:\n${r.stderr}`);
    assert.match(lines[0]!, new RegExp(`^config error: X402_FACILITATOR_URL: facilitator ${wrong.url}/x402 does not support x402Version 2 "exact" payments on ${NETWORK} \\(its /supported lists v2 exact on eip155:1, v2 exact on eip155:8453\\)$`));
  });

  test('restart while every facilitator is unreachable: unpaid calls get the normal 402 from the saved /supported answer, paid calls 503; payments resume once one is back', { timeout: 120_000 }, async () => {
    const devnet = await startDevnet();
    const proxy = await startFaultyFacilitator(devnet.facilitatorUrl);
    const dataDir = tempDir('last-good-');
    const env = devnetEnv(devnet, proxy.url, { DATA_DIR: dataDir, X402_FACILITATOR_TIMEOUT_MS: '1500' });
    try {
      const first = await startService(loadConfig(env));
      const healthy402 = await postJson(first.url + CONTRAST, BLACK_ON_WHITE);
      assert.equal(healthy402.status, 402);
      const accepts = decodePaymentRequiredHeader(healthy402.headers.get('payment-required')!).accepts;
      await first.close();
      assert.ok(existsSync(join(dataDir, 'facilitator-supported.json')), 'the last good answer is saved');

      proxy.setMode('down');
      const second = await startService(loadConfig(env));
      try {
        const unpaid = await postJson(second.url + CONTRAST, BLACK_ON_WHITE);
        assert.equal(unpaid.status, 402, await unpaid.clone().text());
        const body = (await unpaid.json()) as { problem: { code: string } };
        assert.equal(body.problem.code, 'payment_required');
        assert.deepEqual(decodePaymentRequiredHeader(unpaid.headers.get('payment-required')!).accepts, accepts, 'the same offer as before the outage');

        const { header } = await signFor(second.url + CONTRAST, BLACK_ON_WHITE, devnet);
        const transfers = (await transferLogs(devnet, { from: devnet.buyer.address })).length;
        const paid = await postJson(second.url + CONTRAST, BLACK_ON_WHITE, { 'PAYMENT-SIGNATURE': header });
        assert.equal(paid.status, 503);
        assert.equal(((await paid.json()) as { error: { code: string } }).error.code, 'facilitator_unavailable');
        assert.equal((await transferLogs(devnet, { from: devnet.buyer.address })).length, transfers, 'nothing charged');

        // The facilitator comes back: the background probe puts it in rotation and the same payment goes through.
        proxy.setMode('pass');
        let status = 0;
        for (let i = 0; i < 40 && status !== 200; i++) {
          await new Promise((r) => setTimeout(r, 500));
          const res = await postJson(second.url + CONTRAST, BLACK_ON_WHITE, { 'PAYMENT-SIGNATURE': header });
          status = res.status;
          await res.arrayBuffer();
        }
        assert.equal(status, 200);
        assert.equal((await transferLogs(devnet, { from: devnet.buyer.address })).length, transfers + 1);
      } finally {
        await second.close();
      }
    } finally {
      await proxy.close();
      await devnet.stop();
    }
  });

  test('the x402 SDK\'s console warnings come out as JSON log lines tagged x402-sdk, without secrets', { timeout: 60_000 }, async () => {
    // Nothing answers: a readiness probe has the SDK ask, and it warns "Failed to fetch supported kinds from facilitator".
    const svc = await spawnService({ ...externalEnv('http://127.0.0.1:1/?api_key=do-not-print-me'), LOG_LEVEL: 'info' });
    try {
      for (let i = 0; i < 40 && !svc.output().includes('x402-sdk'); i++) {
        assert.equal((await fetch(svc.url + '/readyz')).status, 503);
        await new Promise((r) => setTimeout(r, 500));
      }
      const lines = svc.output().split('\n').filter((l) => l.trim());
      const parsed = lines.map((l) => {
        try {
          return JSON.parse(l) as Record<string, unknown>;
        } catch {
          assert.fail(`a line that is not JSON: ${l}`);
        }
      });
      const sdk = parsed.filter((l) => l.source === 'x402-sdk');
      assert.ok(sdk.length > 0, `an x402-sdk line expected, got:\n${svc.output()}`);
      assert.equal(sdk[0]!.level, 40);
      assert.match(String(sdk[0]!.msg), /^Failed to fetch supported kinds from facilitator: /);
      assert.doesNotMatch(svc.output(), /do-not-print-me/);
    } finally {
      await svc.kill();
    }
  });

  test('offline: the unreachable facilitator is logged once, not at every probe, and its return once', { timeout: 90_000 }, async () => {
    const port = await closedPort();
    const svc = await spawnService(externalEnv(`http://127.0.0.1:${port}`));
    try {
      // Several probes' worth of an unreachable facilitator.
      await new Promise((r) => setTimeout(r, 2 * PROBE_RETRY_MS + 1_000));
      const offline = logLines(svc.output());
      const listening = offline.findIndex((l) => l.msg.startsWith('listening on '));
      assert.ok(listening > 0, svc.output());
      const about = (l: { msg: string; source?: string }) => /facilitator|\/supported/.test(l.msg) || l.source === 'x402-sdk';
      assert.deepEqual(
        offline.filter((l) => l.level >= 40 && about(l)).map((l) => l.msg),
        ['facilitator gave no answer: asked after the others for a while', 'no facilitator reachable yet and no saved /supported answer: paid routes answer 503 until one answers'],
        'the outage is told once, at start-up',
      );
      assert.deepEqual(offline.slice(listening + 1).filter((l) => l.level >= 40), [], 'nothing repeated while it lasts');

      // It answers: the next probe opens paid routes, said once.
      const facilitator = await fakeFacilitator([NETWORK], port);
      servers.push(facilitator.server);
      const open = (o: string) => logLines(o).filter((l) => l.msg === 'a facilitator answered /supported: paid routes open');
      for (let i = 0; i < 40 && open(svc.output()).length === 0; i++) await new Promise((r) => setTimeout(r, 250));
      assert.equal(open(svc.output()).length, 1, svc.output());
      assert.equal((await fetch(svc.url + '/readyz')).status, 200);
      await new Promise((r) => setTimeout(r, PROBE_RETRY_MS + 500));
      assert.equal(open(svc.output()).length, 1, 'said once');
      assert.deepEqual(logLines(svc.output()).slice(offline.length).filter((l) => l.level >= 40), [], 'no warning since');
    } finally {
      await svc.kill();
    }
  });
});
