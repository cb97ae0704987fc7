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
import { canonicalJson, sha256Hex } from '../payments/canonical-json.js';
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
