/**
 * x402 v1 clients against this x402 v2 service, with the real v1 packages
 * (x402-fetch, x402-axios and their x402 core). v1 payments are not accepted
 * at all (the one gate takes x402 v2 only): a v1 payment (X-PAYMENT) gets a
 * 402 in v1's own response shape saying so, with the v2 challenge in
 * PAYMENT-REQUIRED, and is never decoded, verified, bound or settled. A v1
 * client that meets a v2 challenge stops at its own parse before signing
 * anything: nothing is paid.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import axios from 'axios';
import { createWalletClient, http, publicActions } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { createPaymentHeader } from 'x402/client';
import { x402ResponseSchema, type PaymentRequirements } from 'x402/types';
import { wrapFetchWithPayment } from 'x402-fetch';
import { withPaymentInterceptor } from 'x402-axios';
import { BLACK_ON_WHITE, CONTRAST, balanceOf, decodePaymentRequiredHeader, payingFetch, postJson, startRig, type Rig } from './support/harness.js';

describe('x402 v1 clients', () => {
  let rig: Rig;
  let url: string;
  let wallet: ReturnType<typeof walletFor>;
  const walletFor = (r: Rig) => createWalletClient({ account: privateKeyToAccount(r.devnet.buyer.privateKey), chain: foundry, transport: http(r.devnet.rpcUrl) }).extend(publicActions);
  before(async () => {
    rig = await startRig();
    url = rig.service.url + CONTRAST;
    wallet = walletFor(rig);
  });
  after(async () => rig?.close());

  /** What a v1 client that holds v1 requirements for this resource sends: an X-PAYMENT signed by the v1 package itself. */
  async function v1PaymentHeader(): Promise<string> {
    const requirements: PaymentRequirements = {
      scheme: 'exact',
      // v1 names networks; it has no name for this devnet, so the requirements a v1 listing would carry name a public one.
      network: 'base-sepolia',
      maxAmountRequired: '1000',
      resource: url,
      description: 'contrast',
      mimeType: 'application/json',
      payTo: rig.devnet.payTo,
      maxTimeoutSeconds: 300,
      asset: rig.devnet.asset,
      extra: { name: rig.devnet.assetName, version: rig.devnet.assetVersion },
    };
    return createPaymentHeader(wallet as never, 1, requirements);
  }

  test('a v1 payment (X-PAYMENT) gets 402 in the v1 response shape naming x402 v2, with the v2 challenge; nothing verified, bound or settled', async () => {
    const header = await v1PaymentHeader();
    const rows = await rig.service.ledger.summary();
    const calls = { ...rig.proxy.calls };
    const before = await balanceOf(rig.devnet, rig.devnet.payTo);
    const res = await postJson(url, BLACK_ON_WHITE, { 'X-PAYMENT': header });
    assert.equal(res.status, 402);
    const body = (await res.json()) as { x402Version: number; error: string; accepts: unknown[]; problem: { code: string; message: string } };
    const v1 = x402ResponseSchema.safeParse(body);
    assert.ok(v1.success, `v1's own response schema reads it: ${JSON.stringify(v1.error?.issues)}`);
    assert.equal(body.error, 'invalid_x402_version');
    assert.deepEqual(body.accepts, []);
    assert.equal(body.problem.code, 'payment_invalid');
    assert.match(body.problem.message, /speaks x402 v2 only/);
    const pr = decodePaymentRequiredHeader(res.headers.get('payment-required')!);
    assert.equal(pr.x402Version, 2);
    assert.equal(pr.accepts[0]!.amount, '1000');
    assert.deepEqual((await rig.service.ledger.summary()).byState, rows.byState, 'no ledger row');
    assert.deepEqual(rig.proxy.calls, calls, 'the facilitator was never asked');
    assert.equal(await balanceOf(rig.devnet, rig.devnet.payTo), before);
  });

  test('X-PAYMENT never stands in for a body or bypasses validation: no body → 400, an invalid body → 400', async () => {
    const header = await v1PaymentHeader();
    const none = await fetch(url, { method: 'POST', headers: { 'X-PAYMENT': header } });
    assert.equal(none.status, 400);
    const bad = await postJson(url, { foreground: 'red' }, { 'X-PAYMENT': header });
    assert.equal(bad.status, 400);
    assert.equal(((await bad.json()) as { error: { code: string } }).error.code, 'invalid_request');
  });

  test('the v1 clients meet a v2 challenge: each stops at its own parse of accepts (v1 has no name for a CAIP-2 network), before signing; nothing is paid', async () => {
    const before = await balanceOf(rig.devnet, rig.devnet.payTo);
    const rows = await rig.service.ledger.summary();
    const v1fetch = wrapFetchWithPayment(fetch, wallet as never);
    await assert.rejects(v1fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(BLACK_ON_WHITE) }), (e: Error) => /eip155:31337/.test(e.message));
    const v1axios = withPaymentInterceptor(axios.create(), wallet as never);
    await assert.rejects(v1axios.post(url, BLACK_ON_WHITE), (e: Error) => /eip155:31337/.test(e.message));
    assert.deepEqual((await rig.service.ledger.summary()).byState, rows.byState, 'no ledger row');
    assert.equal(await balanceOf(rig.devnet, rig.devnet.payTo), before, 'nothing was paid');
    // The same request with an x402 v2 client is served.
    const v2 = await payingFetch(rig.devnet)(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(BLACK_ON_WHITE) });
    assert.equal(v2.status, 200);
  });
});
