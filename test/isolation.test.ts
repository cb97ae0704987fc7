/**
 * Handler isolation (issue 15): heavy capability calls run on the worker pool,
 * so the event loop keeps answering while they work, and a call over its
 * budget is refused before settlement with `handler_over_budget`.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { join } from 'node:path';
import { LARGE_INPUTS } from '../bench/inputs.js';
import { CATALOG } from '../src/capabilities/index.js';
import { makeInputReader } from '../src/catalog/input-reader.js';
import { defaultHandlerWorkers, sharedHandlerPool } from '../src/isolation/pool.js';
import { callFingerprint } from '../src/payments/paid-flow.js';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { verifyReceipt } from '../src/commitments/verify.js';
import { balanceOf, decodePaymentResponseHeader, postJson, signFor, startRig, tempDir, type Rig } from './support/harness.js';

/** GET /healthz on a fresh connection (no keep-alive socket the server may be closing): its status. */
function healthz(base: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpGet(base + '/healthz', { agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
  });
}

/** Posts every job of the file concurrently; prints status and SHA-256 of each answer. */
const CLIENT = `
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
const jobs = JSON.parse(readFileSync(process.argv[1], 'utf8'));
const out = await Promise.all(jobs.map(async (j) => {
  const res = await fetch(j.url, { method: 'POST', headers: { 'content-type': 'application/json', 'PAYMENT-SIGNATURE': j.header }, body: j.body });
  const text = await res.text();
  return { status: res.status, sha256: createHash('sha256').update(text).digest('hex'), head: text.slice(0, 300), paymentResponse: res.headers.get('payment-response') };
}));
process.stdout.write(JSON.stringify(out));
`;

const KEY = generatePrivateKey();
const EXTRACTOR = CATALOG.find((c) => c.id === 'catalog-offer-evidence-extractor')!;
const PATH = EXTRACTOR.path;
/** A ~2 MiB category page with one Product JSON-LD script per card; `n` varies the bytes so each call is a new request. */
function page(n: number) {
  const input = LARGE_INPUTS[EXTRACTOR.id]!(EXTRACTOR)[0]!.input as { html: string; base_url: string };
  return { ...input, base_url: `${input.base_url}?n=${n}` };
}

test('the default pool leaves one core to the event loop (at least one worker)', () => {
  assert.equal(defaultHandlerWorkers(1), 1);
  assert.equal(defaultHandlerWorkers(2), 1);
  assert.equal(defaultHandlerWorkers(8), 7);
});

describe('isolation: 4 concurrent 2 MiB extractor calls', () => {
  let rig: Rig;
  before(async () => {
    rig = await startRig({ env: { X402_SIGNING_KEY: KEY } });
  });
  after(async () => {
    await rig?.close();
  });

  test('the heavy calls run on the worker pool while /healthz keeps answering, and every paid result is byte-identical to inline', { timeout: 120_000 }, async () => {
    const url = rig.service.url + PATH;
    const bodies = [1, 2, 3, 4].map(page);
    const signed: Array<{ header: string }> = [];
    for (const b of bodies) signed.push(await signFor(url, b, rig.devnet));
    const expected = bodies.map((b) => JSON.stringify(EXTRACTOR.run(b)));
    const pool = sharedHandlerPool();
    assert.ok(pool, 'the service runs a handler pool');
    const before = pool.completed;
    const readsBefore = pool.bodiesRead;

    // The four paying clients run in another process, as real clients would: their
    // own work (sending 2 MiB, reading ~7 MiB answers) is not on the service's event loop.
    const dir = tempDir('iso-');
    const jobs = join(dir, 'jobs.json');
    writeFileSync(jobs, JSON.stringify(bodies.map((b, i) => ({ url, body: JSON.stringify(b), header: signed[i]!.header }))));
    const client = spawn(process.execPath, ['--input-type=module', '-e', CLIENT, jobs], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    client.stdout.on('data', (d: Buffer) => (out += d));
    const tStart = performance.now();
    let windowMs = 0;
    let done = false;
    const exited = new Promise<number | null>((r) => client.on('exit', (code) => r(code))).finally(() => (done = true));
    const health: number[] = [];
    while (!done) {
      const t0 = performance.now();
      assert.equal(await healthz(rig.service.url), 200);
      health.push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, 20));
    }
    windowMs = performance.now() - tStart;
    assert.equal(await exited, 0);
    const results = JSON.parse(out) as Array<{ status: number; sha256: string; head: string; paymentResponse: string | null }>;
    for (const [i, r] of results.entries()) {
      assert.equal(r.status, 200, r.head);
      assert.equal(r.sha256, createHash('sha256').update(expected[i]!).digest('hex'), `result ${i} differs from inline execution`);
      // The receipt's response hash was computed on the pool, beside the result: it must be the hash of the bytes delivered.
      const check = await verifyReceipt({
        paymentResponse: decodePaymentResponseHeader(r.paymentResponse!),
        responseBody: expected[i]!,
        request: { resource: EXTRACTOR.id, input: bodies[i]! },
        signer: privateKeyToAccount(KEY).address,
      });
      assert.deepEqual(check.problems, [], `result ${i}: the signed receipt does not verify`);
    }
    // Behaviour, not timing: the four handler runs happened in workers (the main thread only read bodies and
    // stored results), and the event loop kept answering throughout. How long it was blocked is measured by
    // `npm run bench` (bench/isolation.ts: p99 under this load against idle).
    assert.equal(pool.completed - before, 4, 'each heavy call ran on the pool');
    assert.equal(pool.bodiesRead - readsBefore, 4, 'each 2 MiB body was decoded, parsed and validated on the pool');
    assert.ok(health.length >= 5, `only ${health.length} /healthz answers during the load`);
  });

  test('a paid 2 MiB body is fingerprinted on the pool to exactly the inline fingerprint; an unpaid one is not fingerprinted', async () => {
    const bytes = new TextEncoder().encode(JSON.stringify(page(6)));
    const inline = makeInputReader(EXTRACTOR).fromBody('application/json', bytes);
    assert.ok(inline.ok);
    const paid = await rig.service.flow.executor.readBody(EXTRACTOR, 'application/json', bytes, true);
    assert.ok(paid?.verdict.ok, 'read on the pool');
    assert.equal(paid.fingerprint, callFingerprint(EXTRACTOR, inline.input));
    assert.deepEqual(paid.verdict.input, inline.input);
    const unpaid = await rig.service.flow.executor.readBody(EXTRACTOR, 'application/json', bytes, false);
    assert.ok(unpaid?.verdict.ok);
    assert.equal(unpaid.fingerprint, undefined);
  });

  test('large bytes cross threads in shared memory: a body read into it is read on the pool as inline, and a result made there comes back in it', async () => {
    const text = JSON.stringify(page(7));
    const shared = new Uint8Array(new SharedArrayBuffer(Buffer.byteLength(text)));
    new TextEncoder().encodeInto(text, shared);
    const inline = makeInputReader(EXTRACTOR).fromBody('application/json', new TextEncoder().encode(text));
    assert.ok(inline.ok);
    const read = await rig.service.flow.executor.readBody(EXTRACTOR, 'application/json', shared, true);
    assert.ok(read?.verdict.ok, 'read on the pool');
    assert.deepEqual(read.verdict.input, inline.input);
    assert.equal(read.fingerprint, callFingerprint(EXTRACTOR, inline.input));
    const out = (await rig.service.flow.executor.run(EXTRACTOR, inline.input)) as { bytes?: Uint8Array; body: string; sha256?: string };
    assert.ok(out.bytes && out.bytes.buffer instanceof SharedArrayBuffer, 'the result is in shared memory: posting it to the ledger thread does not copy it');
    assert.equal(out.body, JSON.stringify(await EXTRACTOR.run(inline.input)), 'the same bytes as inline');
    assert.equal(out.sha256, createHash('sha256').update(out.body).digest('hex'));
  });

  test('a large invalid body is refused on the pool with exactly the inline 400, before any payment step', async () => {
    const pool = sharedHandlerPool()!;
    const readsBefore = pool.completed + pool.bodiesRead;
    const bad = { ...page(5), base_url: 42 };
    const text = JSON.stringify(bad);
    const inline = makeInputReader(EXTRACTOR).fromBody('application/json', new TextEncoder().encode(text));
    assert.equal(inline.ok, false);
    const res = await postJson(rig.service.url + PATH, bad);
    assert.equal(res.status, (inline as { status: number }).status);
    assert.deepEqual(await res.json(), (inline as { body: unknown }).body);
    assert.equal(res.headers.get('payment-required'), null, 'no challenge for an invalid body');
    assert.equal(pool.completed + pool.bodiesRead - readsBefore, 1, 'read on the pool, nothing run');
  });
});

describe('isolation: a call over its budget', () => {
  let rig: Rig;
  before(async () => {
    rig = await startRig({ env: { HANDLER_BUDGET_MS: '20' } });
  });
  after(async () => {
    await rig?.close();
  });

  test('is refused with 503 handler_over_budget before settlement: nothing charged; small inputs still run inline', { timeout: 60_000 }, async () => {
    const url = rig.service.url + PATH;
    const body = page(5);
    const { header } = await signFor(url, body, rig.devnet);
    const payTo = rig.devnet.payTo;
    const buyer = rig.devnet.buyer.address;
    const [payToBefore, buyerBefore] = [await balanceOf(rig.devnet, payTo), await balanceOf(rig.devnet, buyer)];
    const settles = rig.proxy.calls.settle;
    const res = await postJson(url, body, { 'PAYMENT-SIGNATURE': header });
    assert.equal(res.status, 503);
    const err = (await res.json()) as { error: { code: string; message: string } };
    assert.equal(err.error.code, 'handler_over_budget');
    assert.match(err.error.message, /nothing was charged/);
    assert.equal(rig.proxy.calls.settle, settles, 'settle never sent');
    assert.equal(await balanceOf(rig.devnet, payTo), payToBefore);
    assert.equal(await balanceOf(rig.devnet, buyer), buyerBefore);
    // A retry with the same payment is not run again: the attempt is failed, final.
    const retry = await postJson(url, body, { 'PAYMENT-SIGNATURE': header });
    assert.notEqual(retry.status, 200);
    assert.equal(await balanceOf(rig.devnet, payTo), payToBefore);

    // The pool replaced the stopped worker; a small example (inline, no budget) is still sold.
    const ex = EXTRACTOR.examples[0]!.input;
    const signed = await signFor(url, ex, rig.devnet);
    const ok = await postJson(url, ex, { 'PAYMENT-SIGNATURE': signed.header });
    assert.equal(ok.status, 200, await ok.clone().text());
    assert.equal(await ok.text(), JSON.stringify(EXTRACTOR.run(ex)));
  });
});
