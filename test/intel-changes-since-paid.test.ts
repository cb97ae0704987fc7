/**
 * The paid changes-since end to end on the devnet with the official x402
 * client: 402 until paid, exactly the price settled, material deltas after
 * the cursor, a cursor chain that covers the corpus once, an empty answer
 * when caught up, and the payments showing up as independent revenue unless
 * they come from an operator wallet, the payee or a published test wallet
 * (the devnet's own buyers, without any configuration).
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { newIndependentBuyer } from '../devnet/index.js';
import { createIntelModule } from '../src/intel/module.js';
import { CHANGES_SINCE_OUTPUT_SCHEMA } from '../src/intel/schemas.js';
import { balanceOf, decodePaymentRequiredHeader, decodePaymentResponseHeader, payingFetch, postJson, startRig, type Rig } from './support/harness.js';
import { schemaErrors } from './support/intel.js';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const PATH = '/v1/intelligence/changes-since';

describe('paid changes-since on the devnet', () => {
  let rig: Rig;
  let url: string;
  const pay = async (body: unknown) => {
    const res = await payingFetch(rig.devnet)(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    assert.equal(res.status, 200, await res.clone().text());
    return { res, body: (await res.json()) as Json };
  };

  before(async () => {
    rig = await startRig({ service: { modules: [createIntelModule()] }, env: { OPERATOR_WALLETS: '0x00000000000000000000000000000000000000aa' } });
    url = rig.service.url + PATH;
  });
  after(async () => rig?.close());

  test('unpaid: 402 with the exact scheme and 10000 atomic units; invalid bodies are 400 before any payment', async () => {
    const res = await postJson(url, { include_high_resolution: false });
    assert.equal(res.status, 402);
    const pr = decodePaymentRequiredHeader(res.headers.get('payment-required')!);
    assert.equal(pr.accepts[0]!.scheme, 'exact');
    assert.equal(pr.accepts[0]!.amount, '10000');
    assert.equal(((await res.json()) as Json).problem.price.amount_atomic, '10000');
    for (const bad of [
      { max_items: 0 },
      { maxItems: 501 },
      { maxItems: 5, max_items: 6 },
      { cursor: 'yesterday' },
      { cursor: 'c1.bm90LWEtY3Vyc29y' },
      { event_since: 'soon' },
      { include_high_resolution: 'yes' },
      { cursor: '2026-01-01T00:00:00Z', since: '2026-01-02T00:00:00Z' },
      { extra: 1 },
    ]) {
      const r = await postJson(url, bad);
      assert.equal(r.status, 400, JSON.stringify(bad));
      assert.equal(((await r.json()) as Json).error.code, 'invalid_request');
    }
  });

  test('the official client pays; the payee gains exactly the price; a cursor chain covers every change once; caught up is an empty answer', async () => {
    const before = await balanceOf(rig.devnet, rig.devnet.payTo);
    const first = await pay({ maxItems: 5, include_high_resolution: true });
    assert.equal((await balanceOf(rig.devnet, rig.devnet.payTo)) - before, 10000n);
    const receipt = decodePaymentResponseHeader(first.res.headers.get('payment-response')!);
    assert.equal(receipt.success, true);
    const a = first.body;
    assert.equal(schemaErrors(CHANGES_SINCE_OUTPUT_SCHEMA, a), undefined);
    assert.equal(a.count, 5);
    assert.equal(a.truncated, true);
    assert.equal(a.highResolution, true);
    assert.equal(a.priceAtomic, '10000');
    // The original service's field names (issue 13).
    assert.deepEqual(Object.keys(a).sort(), ['count', 'generatedAt', 'highResolution', 'items', 'marketMovements', 'nextCursor', 'priceAtomic', 'product', 'schema', 'schemaVersion', 'since', 'truncated', 'usageRights']);
    assert.equal(a.since, '1970-01-01T00:00:00.000000Z');
    assert.match(a.nextCursor, /^c1\./, 'truncated: an opaque cursor naming the last delta');
    for (const d of a.items) {
      assert.equal(d.change, 'NEW');
      assert.ok(d.evidence.length >= 1 && d.evidence[0].url === d.sourceUrl);
      assert.ok(d.corroborationCount >= 1);
      assert.ok(Array.isArray(d.changedFields));
    }

    const second = (await pay({ cursor: a.nextCursor, max_items: 500 })).body;
    assert.equal(schemaErrors(CHANGES_SINCE_OUTPUT_SCHEMA, second), undefined);
    assert.equal(second.since, a.items[4].changedAt);
    assert.equal(second.highResolution, false);
    assert.equal(second.items[0].evidence, undefined, 'compact by default');
    assert.equal(second.truncated, false);
    assert.equal(second.nextCursor, second.generatedAt);
    const ids = [...a.items, ...second.items].map((d: Json) => d.eventId);
    // Material deltas only: the starter corpus has 60 items, 10 of them signals, analysis seeds, snapshots or digests.
    assert.equal(ids.length, 50);
    assert.equal(new Set(ids).size, 50);
    for (const d of [...a.items, ...second.items]) assert.ok(!['unmet_need', 'analysis_seed', 'community_signal', 'market_snapshot', 'daily_digest'].includes(d.type), d.type);

    const third = (await pay({ since: second.nextCursor })).body;
    assert.equal(third.count, 0);
    assert.deepEqual(third.items, []);
    assert.equal(third.nextCursor, second.nextCursor);

    const revenue = async () => ((await (await fetch(rig.service.url + '/v1/newswire?limit=1')).json()) as Json).independentRevenueUsd;
    assert.equal(await revenue(), 0, "three settled deliveries, but from the devnet's own buyer (a published test key)");

    // A buyer nobody configured and no test mnemonic knows: its payments are independent revenue.
    const stranger = await newIndependentBuyer(rig.devnet, 1_000_000n);
    for (let i = 0; i < 2; i++) {
      const res = await payingFetch(rig.devnet, stranger)(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ since: third.nextCursor }) });
      assert.equal(res.status, 200, await res.text());
    }
    assert.equal(await revenue(), 0.02, 'two settled, delivered payments from an independent wallet');
  });
});

describe('payments from an operator wallet are not independent revenue', () => {
  // A wallet no test mnemonic knows, named in OPERATOR_WALLETS before it ever pays.
  const operatorKey = generatePrivateKey();
  const OPERATOR = privateKeyToAccount(operatorKey).address;
  let rig: Rig;
  before(async () => {
    rig = await startRig({ service: { modules: [createIntelModule()] }, env: { OPERATOR_WALLETS: OPERATOR } });
  });
  after(async () => rig?.close());

  test('OPERATOR_WALLETS holding the buyer: the paid call settles and is delivered, revenue stays 0', async () => {
    const operator = await newIndependentBuyer(rig.devnet, 1_000_000n, operatorKey);
    const res = await payingFetch(rig.devnet, operator)(rig.service.url + PATH, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    assert.equal(res.status, 200);
    assert.equal((await rig.service.ledger.summary()).paidDeliveries, 1);
    const feed = (await (await fetch(rig.service.url + '/v1/newswire?limit=1')).json()) as Json;
    assert.equal(feed.independentRevenueUsd, 0);
  });
});
