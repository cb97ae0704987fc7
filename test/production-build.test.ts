/**
 * The production build, as the container runs it: `npm run build` compiles
 * src/ and devnet/ to dist/, and `node dist/src/main.js` (no tsx) starts the
 * service on the devnet, answers /healthz and /readyz, and sells a paid call
 * whose handler runs on the worker pool (dist's worker.js, no TypeScript loader).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LARGE_INPUTS } from '../bench/inputs.js';
import { CATALOG } from '../src/capabilities/index.js';
import type { Devnet } from '../devnet/index.js';
import { buyerClient } from './support/harness.js';
import { wrapFetchWithPayment } from '@x402/fetch';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

test('npm run build, then npm run start:dist (node dist/src/main.js) serves and sells on the devnet without tsx', { timeout: 300_000 }, async () => {
  const build = spawnSync('npm', ['run', 'build'], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(build.status, 0, `npm run build failed:\n${build.stdout}\n${build.stderr}`);
  assert.ok(existsSync(join(ROOT, 'dist/src/main.js')));
  assert.ok(existsSync(join(ROOT, 'dist/src/store/migrations/0001_ledger_payment_attempts.sql')), 'run-time files are copied next to the JavaScript');

  const dataDir = mkdtempSync(join(tmpdir(), 'dist-service-'));
  // `npm run start:dist` execs plain node on dist/src/main.js, with no loader flags inherited from the test runner.
  const child = spawn('npm', ['run', 'start:dist'], {
    cwd: ROOT,
    env: { ...process.env, NODE_OPTIONS: '', DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`dist service did not start:\n${out}`)), 90_000);
      child.once('exit', (code) => reject(new Error(`dist service exited (${code}):\n${out}`)));
      child.stdout!.on('data', () => {
        const m = /"url":"(http:\/\/[^"]+)"/.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      });
    });
    assert.doesNotMatch(out.replace(/^> .*$/gm, ''), /tsx/);
    assert.equal((await fetch(url + '/healthz')).status, 200);
    assert.equal((await fetch(url + '/readyz')).status, 200);

    // A paid call with an input large enough to run on the worker pool.
    const facts = JSON.parse(readFileSync(join(dataDir, 'devnet.json'), 'utf8')) as Pick<Devnet, 'network' | 'asset' | 'buyer'>;
    const pay = wrapFetchWithPayment(fetch, buyerClient(facts as Devnet));
    const extractor = CATALOG.find((c) => c.id === 'catalog-offer-evidence-extractor')!;
    const input = LARGE_INPUTS[extractor.id]!(extractor)[0]!.input;
    const res = await pay(url + extractor.path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(input) });
    assert.equal(res.status, 200, (await res.clone().text()).slice(0, 500));
    assert.ok(res.headers.get('payment-response'));
    await res.arrayBuffer();

    child.kill('SIGTERM');
    assert.equal(await exited, 0, out);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
});
