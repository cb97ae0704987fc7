/**
 * x402 v1 payments against this x402 v2 service. v1 payments are not accepted
 * at all (the one gate takes x402 v2 only): a v1 payment (X-PAYMENT) gets a
 * 402 in v1's own response shape saying so, with the v2 challenge in
 * PAYMENT-REQUIRED, and is never decoded, verified, bound or settled.
 *
 * The v1 payment is built here from the published v1 format (a base64 JSON
 * PaymentPayload with x402Version 1, a v1 network name and an EIP-3009
 * authorization signed by the buyer), as a v1 client sends it: the legacy v1
 * client packages are not installed for one test.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { privateKeyToAccount } from 'viem/accounts';
import { TRANSFER_WITH_AUTHORIZATION_TYPES } from '../src/payments/authorization.js';
import { BLACK_ON_WHITE, CONTRAST, balanceOf, decodePaymentRequiredHeader, payingFetch, postJson, startRig, type Rig } from './support/harness.js';

describe('x402 v1 clients', () => {
  let rig: Rig;
  let url: string;
  before(async () => {
    rig = await startRig();
    url = rig.service.url + CONTRAST;
  });
  after(async () => rig?.close());

  /**
   * What a v1 client that holds v1 requirements for this resource sends: X-PAYMENT,
   * base64 of a v1 PaymentPayload whose authorization the buyer really signed.
   * v1 names networks; it has no name for this devnet, so the requirements a v1
   * listing would carry name a public one (the domain still is this devnet's token).
   */
  async function v1PaymentHeader(): Promise<string> {
    const buyer = privateKeyToAccount(rig.devnet.buyer.privateKey);
    const now = Math.floor(Date.now() / 1000);
    const authorization = {
      from: buyer.address,
      to: rig.devnet.payTo,
      value: '1000',
      validAfter: String(now - 600),
      validBefore: String(now + 300),
      nonce: `0x${randomBytes(32).toString('hex')}` as const,
    };
    const signature = await buyer.signTypedData({
      domain: { name: rig.devnet.assetName, version: rig.devnet.assetVersion, chainId: 84532, verifyingContract: rig.devnet.asset },
      types: TRANSFER_WITH_AUTHORIZATION_TYPES,
      primaryType: 'TransferWithAuthorization',
      message: { ...authorization, value: BigInt(authorization.value), validAfter: BigInt(authorization.validAfter), validBefore: BigInt(authorization.validBefore) },
    });
    const payload = { x402Version: 1, scheme: 'exact', network: 'base-sepolia', payload: { signature, authorization } };
    return Buffer.from(JSON.stringify(payload)).toString('base64');
  }

  test('a v1 payment (X-PAYMENT) gets 402 in the v1 response shape naming x402 v2, with the v2 challenge; nothing verified, bound or settled', async () => {
    const header = await v1PaymentHeader();
    const rows = await rig.service.ledger.summary();
    const calls = { ...rig.proxy.calls };
    const before = await balanceOf(rig.devnet, rig.devnet.payTo);
    const res = await postJson(url, BLACK_ON_WHITE, { 'X-PAYMENT': header });
    assert.equal(res.status, 402);
    const body = (await res.json()) as { x402Version: number; error: string; accepts: unknown[]; problem: { code: string; message: string } };
    // v1's response shape: { x402Version: 1, error, accepts }.
    assert.equal(body.x402Version, 1);
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

  test('after a refused v1 payment the same request paid by an x402 v2 client is served', async () => {
    const refused = await postJson(url, BLACK_ON_WHITE, { 'X-PAYMENT': await v1PaymentHeader() });
    assert.equal(refused.status, 402);
    const v2 = await payingFetch(rig.devnet)(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(BLACK_ON_WHITE) });
    assert.equal(v2.status, 200);
  });
});
