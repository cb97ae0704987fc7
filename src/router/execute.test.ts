/**
 * The evidence figures of a composite execution are counted, not written
 * down: a handler that makes an outbound request shows up in network_fetches.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Capability } from '../catalog/capability.js';
import { CATALOG } from '../capabilities/index.js';
import { canonicalJson, sha256Hex } from '../foundation/canonical-json.js';
import type { TemplateDigestRequest } from '../foundation/json-template.js';
import { executePlan } from './execute.js';
import { OutcomeRouter } from './planner.js';

const payment = {
  network: 'eip155:31337',
  payTo: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' as const,
  asset: { address: '0x5FbDB2315678afecb367f032d93F642f64180aa3' as const, name: 'USD Coin', version: '2', decimals: 6, symbol: 'USDC' },
};

test('three pairs: three handler invocations, zero fetches, outputs equal the handler, output_sha256 of the canonical result', async () => {
  const router = new OutcomeRouter(CATALOG, payment);
  const planned = router.quote({ objective: '#000000 on #ffffff, #777777 on #ffffff and #ffffff on #0078d7' });
  assert.ok(planned.ok);
  const r = (await executePlan(planned.value, { executionId: 'exe_test', now: () => 0 })) as any;
  assert.equal(r.status, 'DELIVERED');
  assert.equal(r.evidence.handler_invocations, 3);
  assert.deepEqual([r.evidence.network_fetches, r.evidence.model_calls, r.evidence.supplier_payments], [0, 0, 0]);
  const contrast = CATALOG.find((c) => c.id === 'accessibility-contrast-calculator')!;
  assert.deepEqual(r.result.results[2].output, contrast.run({ foreground: '#ffffff', background: '#0078d7', large_text: false }));
  assert.equal(r.evidence.output_sha256, sha256Hex(canonicalJson(r.result)));
  assert.equal(r.evidence.generated_at, '1970-01-01T00:00:00.000Z');
  assert.deepEqual(r.evidence.contradictions, []);
});

test('a handler that fetches is counted by the meter (so a 0 means none happened)', async () => {
  const server = createServer((_, res) => res.end('{}')).listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const fetcher: Capability<{ n: number }> = {
    id: 'fetching-fixture',
    method: 'POST',
    path: '/x402/v1/fetching-fixture',
    priceAtomic: '1000',
    title: 'Fetching fixture',
    summary: 'A fixture.',
    description: 'Fetches twice (a test of the meter).',
    inputSchema: { type: 'object', required: ['n'], properties: { n: { type: 'integer' } } },
    outputSchema: { type: 'object' },
    examples: [],
    run: async (input) => {
      await (await fetch(url)).text();
      await (await fetch(url)).text();
      return { n: input.n };
    },
  };
  try {
    const router = new OutcomeRouter([fetcher], payment);
    const planned = router.quote({ objective: 'fetching-fixture', inputs: { n: 1 } });
    assert.ok(planned.ok, planned.ok ? '' : planned.error.message);
    const r = (await executePlan(planned.value, { executionId: 'x', now: Date.now })) as any;
    assert.equal(r.evidence.network_fetches, 2);
    // Outside an execution nothing is counted.
    await (await fetch(url)).text();
    assert.equal(r.evidence.network_fetches, 2);
  } finally {
    server.close();
  }
});

test('with heavy steps on the worker pool, the composed body is JSON.stringify of the inline result, byte for byte (mixed plan)', { timeout: 120_000 }, async () => {
  const { HandlerPool } = await import('../isolation/pool.js');
  const { executePlanOn } = await import('./execute.js');
  const { LARGE_INPUTS } = await import('../../bench/inputs.js');
  const extractor = CATALOG.find((c) => c.id === 'catalog-offer-evidence-extractor')!;
  const nft = CATALOG.find((c) => c.id === 'nft-metadata-uri-normalizer')!;
  const page = (LARGE_INPUTS[extractor.id]!(extractor)[0]!.input as { html: string }).html.slice(0, 64 * 1024);
  const router = new OutcomeRouter(CATALOG, payment);
  // Twenty small NFT URIs together carry more than the isolation threshold: each step moves though none is large alone.
  const uris = Array.from({ length: 20 }, (_, i) => `ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi/${'x'.repeat(900)}${i}.json`);
  const plans = [router.quote({ objective: 'Extract the product offers from this page', inputs: { html: page } }), router.quote({ objective: 'normalize these NFT metadata URIs', inputs: { items: uris.map((uri) => ({ uri })) } })];
  const pool = new HandlerPool({ size: 1 });
  try {
    await pool.ready();
    const executor = {
      offloadable: (cap: Capability) => cap === extractor || cap === nft,
      offloads: (cap: Capability, _body: unknown, heavy: boolean) => (cap === extractor || cap === nft) && heavy,
      step: (cap: Capability, body: unknown) => pool.step(cap.id, body, 60_000),
      compose: (h: Array<string | Uint8Array>, b: Array<string | Uint8Array | null>) => pool.compose(h, b, 60_000),
      parse: (ct: string | undefined, body: Uint8Array, limit: number) => pool.parse(ct, body, limit, 60_000),
      fingerprint: (resource: string, value: unknown) => pool.fingerprint(resource, value, 60_000),
      digest: (req: TemplateDigestRequest) => pool.digest(req, 60_000),
    };
    for (const planned of plans) {
      assert.ok(planned.ok, planned.ok ? '' : planned.error.message);
      const before = pool.stepsRun;
      const env = { executionId: 'exe_same', now: () => 0 };
      const pooled = (await executePlanOn(planned.value, env, executor)) as { body: string; bytes: Uint8Array; sha256: string };
      assert.equal(pool.stepsRun - before, planned.value.steps.length, 'every step ran on the pool');
      const inline = (await executePlan(planned.value, env)) as any;
      const got = JSON.parse(pooled.body);
      // Only the measured latency differs.
      got.latency_ms = inline.latency_ms;
      assert.equal(JSON.stringify(got), JSON.stringify(inline));
      assert.equal(got.evidence.output_sha256, sha256Hex(canonicalJson(inline.result)));
      assert.equal(pooled.sha256, sha256Hex(pooled.bytes));
      assert.equal(new TextDecoder().decode(pooled.bytes), pooled.body);
    }
  } finally {
    await pool.close();
  }
});
