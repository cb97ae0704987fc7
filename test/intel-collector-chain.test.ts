/**
 * On-chain census on the devnet (anvil + DevUSDC): real EIP-3009 transfers
 * from several buyers, a self-paying operator wallet, a payee paying itself,
 * a circular pair and a dust transfer; counts, flags, the checkpoint, and
 * the market snapshot the census feeds.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createWalletClient, http, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { devUsdcAbi } from '../devnet/artifacts/abis.js';
import { devnetAccount, startDevnet, type Devnet, type DevnetAccount } from '../devnet/index.js';
import { classifyTransfers, collectChainCensus, EXCLUSION_RULE, type ChainCensusOptions } from '../src/intel/collectors/chain-census.js';
import type { CollectorContext } from '../src/intel/collectors/context.js';
import { collectDiscovery } from '../src/intel/collectors/discovery.js';
import { MarketMovementsSource } from '../src/intel/newswire.js';
import { authorizationTypedData } from '../src/payments/authorization.js';
import { fixtureLookup, startFixtureServer, type FixtureServer } from './support/collector-fixtures.js';
import { openTestStore, type TestStore } from './support/intel.js';

type Addr = `0x${string}`;
const lc = (a: string) => a.toLowerCase();

describe('on-chain census on the devnet', () => {
  let devnet: Devnet;
  let srv: FixtureServer;
  let ts: TestStore;
  let ctx: CollectorContext;
  let opts: ChainCensusOptions;
  const relayer = devnetAccount(0);
  const payee1 = () => devnet.payTo as Addr;
  const payee2 = devnetAccount(9);
  const operatorKey = generatePrivateKey();
  const operator = privateKeyToAccount(operatorKey);

  const wallet = (key: Hex) => createWalletClient({ account: privateKeyToAccount(key), chain: foundry, transport: http(devnet.rpcUrl) });
  async function mined(hash: Hex) {
    const { createPublicClient } = await import('viem');
    const r = await createPublicClient({ chain: foundry, transport: http(devnet.rpcUrl) }).waitForTransactionReceipt({ hash });
    assert.equal(r.status, 'success');
  }
  /** A plain ERC-20 transfer, sent by the holder itself. */
  async function plain(fromKey: Hex, to: Addr, value: bigint) {
    await mined(await wallet(fromKey).writeContract({ address: devnet.asset, abi: devUsdcAbi, functionName: 'transfer', args: [to, value] }));
  }
  /** An EIP-3009 transferWithAuthorization signed by the payer and relayed by anvil #0, as an x402 facilitator does. */
  async function eip3009(payerKey: Hex, to: Addr, value: bigint) {
    const payer = privateKeyToAccount(payerKey);
    const now = Math.floor(Date.now() / 1000);
    const auth = { from: payer.address, to, value: value.toString(), validAfter: String(now - 60), validBefore: String(now + 600), nonce: `0x${randomBytes(32).toString('hex')}` as Hex };
    const req = { scheme: 'exact', network: devnet.network, asset: devnet.asset, amount: value.toString(), payTo: to, maxTimeoutSeconds: 600, extra: { name: devnet.assetName, version: devnet.assetVersion } };
    const signature = await payer.signTypedData(authorizationTypedData(auth, req as never) as never);
    await mined(
      await wallet(relayer.privateKey).writeContract({
        address: devnet.asset,
        abi: devUsdcAbi,
        functionName: 'transferWithAuthorization',
        args: [auth.from, auth.to, BigInt(auth.value), BigInt(auth.validAfter), BigInt(auth.validBefore), auth.nonce, signature],
      }),
    );
  }

  before(async () => {
    devnet = await startDevnet();
    srv = await startFixtureServer();
    ts = await openTestStore('sqlite');
    ctx = { store: ts.store, now: Date.now, limits: { timeoutMs: 3000, maxBytes: 256 * 1024, lookup: fixtureLookup, allowPrivateAddresses: true } };
    // The payees come from the discovery collector, as in production: a Bazaar listing two resources.
    const listing = (resource: string, payTo: string, category: string) => ({
      resource,
      type: 'http',
      x402Version: 2,
      accepts: [{ scheme: 'exact', network: devnet.network, amount: '10000', asset: devnet.asset, payTo, maxTimeoutSeconds: 300 }],
      lastUpdated: new Date().toISOString(),
      metadata: { category },
    });
    srv.set('bazaar', '/discovery/resources', {
      body: JSON.stringify({ x402Version: 2, items: [listing('https://weather.fixture.test/forecast', payee1(), 'weather'), listing('https://data.fixture.test/prices', payee2.address, 'finance')], pagination: { limit: 100, offset: 0, total: 2 } }),
    });
    const d = await collectDiscovery(ctx, { bazaarUrls: [srv.url('bazaar', '/discovery/resources')], origins: [], openapiUrls: [] });
    assert.deepEqual(d.failures, []);
    opts = {
      rpcUrl: devnet.rpcUrl,
      asset: devnet.asset,
      network: devnet.network,
      sourceUrl: `https://explorer.fixture.test/token/${devnet.asset}`,
      operatorWallets: [operator.address],
      dustAtomic: 1000n,
      blockRange: 3n,
      maxBlocksPerRun: 10_000n,
      startBlock: 0n,
      timeoutMs: 5000,
      maxBytes: 1024 * 1024,
    };
  });
  after(async () => {
    await srv?.close();
    await ts?.close();
    await devnet?.stop();
  });

  test('several buyers count; self-payments, a circular pair and dust are flagged and excluded, with the rule stated', async () => {
    const [b0, b1, b2, b3] = devnet.buyers as [DevnetAccount, DevnetAccount, DevnetAccount, DevnetAccount];
    await eip3009(b0.privateKey, payee1(), 10_000n);
    await eip3009(b1.privateKey, payee1(), 10_000n);
    await eip3009(b2.privateKey, payee1(), 20_000n);
    await plain(b1.privateKey, payee1(), 1n); // dust from a real buyer
    await plain(b0.privateKey, operator.address, 50_000n); // funds the operator wallet (not a payment to a payee)
    await eip3009(operatorKey, payee1(), 10_000n); // the operator paying its own resource
    await plain(b3.privateKey, payee2.address, 50_000n); // circular pair: b3 pays payee2 …
    await plain(payee2.privateKey, b3.address, 50_000n); // … and payee2 sends it straight back
    await plain(payee2.privateKey, payee2.address, 0n); // … and pays itself

    const r = await collectChainCensus(ctx, opts);
    assert.deepEqual(r.failures, []);
    assert.deepEqual(r.records.rejected, [], JSON.stringify(r.records.rejected));
    const s = r.snapshot!;
    assert.ok(s, r.notes.join(' '));
    assert.equal(r.fromBlock, 0n);
    assert.equal(s.distinctPayers, 3, 'b0, b1, b2: the operator, the circular payer and the payee itself are not buyers');
    const calls = Object.fromEntries(s.resources.map((x) => [x.id, x.calls]));
    assert.deepEqual(calls, { [`${devnet.network}:${lc(payee1())}`]: 3, [`${devnet.network}:${lc(payee2.address)}`]: 0 });
    assert.deepEqual(s.exclusions, { rule: EXCLUSION_RULE, selfPayments: 2, circularTransfers: 1, dustTransfers: 1, excludedPayers: 3 });
    const item = await ts.store.getItem(`market-snapshot-${s.snapshotId}`);
    assert.ok(item);
    assert.equal(item.stored.item.type, 'market_snapshot');
    const md = item.stored.item.marketData as Record<string, unknown>;
    assert.equal(md.eip3009Payments, 3, 'the three buyer payments were EIP-3009 authorizations');
    assert.equal(item.stored.provenance?.[0]?.method, 'eth_getlogs');
  });

  test('a second run starts at the checkpoint, reads only new blocks, and the movement states the rule', async () => {
    const first = (await ts.store.latestCensus(1))[0]!;
    const firstTo = BigInt(first.snapshotId.split('-').at(-1)!);
    const [, , b2] = devnet.buyers as [DevnetAccount, DevnetAccount, DevnetAccount];
    await eip3009(b2.privateKey, payee2.address, 30_000n);
    const r = await collectChainCensus(ctx, opts);
    assert.deepEqual(r.failures, []);
    assert.equal(r.fromBlock, firstTo + 1n, 'resumes after the stored checkpoint');
    assert.equal(r.toBlock, firstTo + 1n, 'one new block (anvil mines one per transaction)');
    const s = r.snapshot!;
    assert.equal(s.distinctPayers, 1);
    assert.deepEqual(s.resources.map((x) => x.calls), lc(payee1()) < lc(payee2.address) ? [0, 1] : [1, 0]);
    const m = await new MarketMovementsSource(ts.store).current();
    assert.deepEqual(m.basis?.latest.snapshotId, s.snapshotId);
    assert.equal(m.callsDelta, 1 - 3);
    assert.equal(m.distinctPayersDelta, 1 - 3);
    assert.equal(m.topFamilyChanged, true, 'weather had the most calls, now finance');
    assert.ok(m.whatChanged.some((w) => w.includes(EXCLUSION_RULE)), m.whatChanged.join(' | '));
    const [b0, b1] = devnet.buyers as [DevnetAccount, DevnetAccount];
    await plain(b0.privateKey, b1.address, 5_000n); // a block with no payment to a payee
    const quiet = await collectChainCensus(ctx, opts);
    assert.ok(quiet.snapshot, 'the quiet window is stored');
    assert.equal(quiet.snapshot.distinctPayers, 0);
    assert.equal(await ts.store.getItem(`market-snapshot-${quiet.snapshot.snapshotId}`), undefined, 'but it is not news');
    const again = await collectChainCensus(ctx, opts);
    assert.equal(again.snapshot, undefined, 'no new blocks: no snapshot');
    assert.match(again.notes.join(' '), /No new blocks/);
  });

  test('an RPC answer over the size limit fails the run: nothing written, the checkpoint stays', async () => {
    const [b0] = devnet.buyers as [DevnetAccount];
    await eip3009(b0.privateKey, payee1(), 10_000n);
    const before = (await ts.store.latestCensusIds(1))[0];
    const tiny = await collectChainCensus(ctx, { ...opts, maxBytes: 200 });
    assert.equal(tiny.failures.length, 1, JSON.stringify(tiny.failures));
    assert.equal(tiny.failures[0]!.failure, 'rpc');
    assert.match(tiny.failures[0]!.detail, /over 200 bytes|limit is 200/);
    assert.equal(tiny.records.lines, 0);
    assert.equal((await ts.store.latestCensusIds(1))[0], before);
    const ok = await collectChainCensus(ctx, opts);
    assert.equal(ok.snapshot?.distinctPayers, 1, 'the same blocks are read on the next run');
  });

  test('classification rules on their own: a three-hop cycle is circular, an unrelated payment back is not', () => {
    const P = '0xp', A = '0xa', B = '0xb', C = '0xc';
    const t = (from: string, to: string, value = 5000n) => ({ from, to, value, txHash: `0x${from}${to}`, logIndex: 0, eip3009: false });
    const c = classifyTransfers([t(A, P), t(P, B), t(B, C), t(C, A), t(C, P)], new Set([P]), new Set(), 1000n);
    assert.deepEqual(c.classes, ['circular', 'other', 'other', 'other', 'circular']);
    const d = classifyTransfers([t(A, P), t(P, B)], new Set([P]), new Set(), 1000n);
    assert.deepEqual(d.classes, ['qualifying', 'other']);
    assert.deepEqual([...d.payers], [A]);
  });
});
