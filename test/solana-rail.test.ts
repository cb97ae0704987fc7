/**
 * The Solana rail end to end: the service beside the embedded devnet (anvil
 * and a litesvm Solana runtime, one facilitator built on the SDK's exact
 * schemes for both), paid by the official clients, with the faults
 * production produces on Solana: a broadcast that has not landed when the
 * facilitator answers, one that lands later, one whose blockhash expires
 * unlanded, a lost answer after the money moved, a facilitator that is down,
 * and the settled transaction copied from the chain by someone else.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createKeyPairSignerFromBytes } from '@solana/kit';
import { wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { ExactSvmScheme } from '@x402/svm/exact/client';
import { generatePaymentId } from '@x402/extensions/payment-identifier';
import { pino } from 'pino';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  BLACK_ON_WHITE,
  CONTRAST,
  balanceOf,
  decodePaymentRequiredHeader,
  decodePaymentResponseHeader,
  encodePaymentSignatureHeader,
  payingFetch,
  postJson,
  startRig,
  type PaymentPayload,
  type PaymentRequired,
  type Rig,
} from './support/harness.js';
import type { SvmDevnet, SvmDevnetAccount } from '../devnet/index.js';

const SOLANA = 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1';

async function solanaClient(svm: SvmDevnet, buyer: SvmDevnetAccount = svm.buyers[0]!): Promise<x402Client> {
  const signer = await createKeyPairSignerFromBytes(buyer.secretKey);
  return new x402Client().register('solana:*', new ExactSvmScheme(signer, { rpcUrl: svm.rpcUrl }));
}

describe('Solana beside Base: one 402, both paid by the official clients', () => {
  let rig: Rig;
  let svm: SvmDevnet;
  let url: string;
  before(async () => {
    rig = await startRig();
    svm = rig.devnet.svm!;
    url = rig.service.url + CONTRAST;
  });
  after(async () => rig?.close());

  /** A Solana payment for exactly this request, as the official client signs it, with a payment-identifier. */
  async function signSolana(body: object, buyer?: SvmDevnetAccount): Promise<{ header: string; payload: PaymentPayload; required: PaymentRequired }> {
    const res = await postJson(url, body);
    assert.equal(res.status, 402);
    const required = decodePaymentRequiredHeader(res.headers.get('payment-required')!);
    const onlySolana = { ...required, accepts: required.accepts.filter((a) => a.network === SOLANA) };
    const payload = await (await solanaClient(svm, buyer)).createPaymentPayload(onlySolana);
    payload.extensions = { ...(payload.extensions ?? {}), 'payment-identifier': { info: { required: false, id: generatePaymentId() } } };
    return { header: encodePaymentSignatureHeader(payload), payload, required };
  }

  test('every paid 402 offers Base and Solana at the same price', async () => {
    const res = await postJson(url, BLACK_ON_WHITE);
    assert.equal(res.status, 402);
    const required = decodePaymentRequiredHeader(res.headers.get('payment-required')!);
    assert.deepEqual(required.accepts.map((a) => a.network), [rig.devnet.network, SOLANA]);
    assert.equal(required.accepts[0]!.amount, required.accepts[1]!.amount);
    assert.equal(required.accepts[1]!.payTo, svm.payTo);
    assert.equal(required.accepts[1]!.asset, svm.mint);
    assert.ok((required.accepts[1]!.extra as { feePayer?: string }).feePayer, 'the facilitator\'s fee payer is named for the buyer\'s transaction');
  });

  test('MCP: the paid tool hands back both rails, and a Solana payment in _meta buys the result', async () => {
    const client = new Client({ name: 'solana-rail-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(rig.service.url + '/mcp')));
    try {
      const args = { ...BLACK_ON_WHITE, foreground: '#606060' };
      const challenge = await client.callTool({ name: 'accessibility-contrast-calculator', arguments: args });
      const required = challenge.structuredContent as PaymentRequired;
      assert.deepEqual(required.accepts.map((a) => a.network), [rig.devnet.network, SOLANA]);
      const payload = await (await solanaClient(svm)).createPaymentPayload({ ...required, accepts: required.accepts.filter((a) => a.network === SOLANA) });
      const paid = await client.callTool({ name: 'accessibility-contrast-calculator', arguments: args, _meta: { 'x402/payment': payload } });
      assert.equal(paid.isError ?? false, false, JSON.stringify(paid));
      assert.equal(typeof (paid.structuredContent as { contrast_ratio?: unknown }).contrast_ratio, 'number');
    } finally {
      await client.close();
    }
  });

  test('the discovery documents name both rails', async () => {
    const index = (await (await fetch(rig.service.url + '/', { headers: { accept: 'application/json' } })).json()) as { payment: { rails: Array<{ network: string; pay_to: string }> } };
    assert.deepEqual(index.payment.rails.map((r) => r.network), [rig.devnet.network, SOLANA]);
    assert.equal(index.payment.rails[1]!.pay_to, svm.payTo);
    const llms = await (await fetch(rig.service.url + '/llms.txt')).text();
    assert.match(llms, new RegExp(`network ${SOLANA}, asset ${svm.mint}`));
    const page = await (await fetch(rig.service.url + '/', { headers: { accept: 'text/html' } })).text();
    assert.match(page, /paid on the local EVM chain or the local Solana runtime/);
    assert.match(page, new RegExp(`Network ${SOLANA} · asset ${svm.mint}`));
  });

  test('@x402/fetch pays one call on each chain; each chain moves exactly the price once', async () => {
    const evmBefore = await balanceOf(rig.devnet, rig.devnet.payTo);
    const solBefore = svm.tokenBalance(svm.payTo);
    const evmRes = await payingFetch(rig.devnet)(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(BLACK_ON_WHITE) });
    assert.equal(evmRes.status, 200, await evmRes.clone().text());
    assert.equal(decodePaymentResponseHeader(evmRes.headers.get('payment-response')!).network, rig.devnet.network);
    const solRes = await wrapFetchWithPayment(fetch, await solanaClient(svm))(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(BLACK_ON_WHITE) });
    assert.equal(solRes.status, 200, await solRes.clone().text());
    const receipt = decodePaymentResponseHeader(solRes.headers.get('payment-response')!);
    assert.equal(receipt.network, SOLANA);
    assert.equal(receipt.payer, svm.buyers[0]!.address);
    assert.deepEqual(await solRes.json(), await evmRes.json(), 'the same request buys the same result on either chain');
    assert.equal((await balanceOf(rig.devnet, rig.devnet.payTo)) - evmBefore, 1000n);
    assert.equal(svm.tokenBalance(svm.payTo) - solBefore, 1000n);
  });

  test('the settled transaction copied from the chain gets no result; the buyer\'s own retry does', async () => {
    const body = { ...BLACK_ON_WHITE, foreground: '#101010' };
    const { header, payload } = await signSolana(body);
    const paid = await postJson(url, body, { 'PAYMENT-SIGNATURE': header });
    assert.equal(paid.status, 200);
    const tx = decodePaymentResponseHeader(paid.headers.get('payment-response')!).transaction;
    // What anyone reading the chain has: the landed transaction, both signatures in it.
    const onChain = (await (await fetch(svm.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getTransaction', params: [tx, { encoding: 'base64', maxSupportedTransactionVersion: 0 }] }) })).json()) as { result: { transaction: [string, string] } };
    const copied = { x402Version: 2, accepted: payload.accepted, payload: { transaction: onChain.result.transaction[0] } };
    const stolen = await postJson(url, body, { 'PAYMENT-SIGNATURE': encodePaymentSignatureHeader(copied as PaymentPayload) });
    assert.equal(stolen.status, 402);
    assert.equal(((await stolen.json()) as { problem: { code: string } }).problem.code, 'redelivery_proof_required');
    const again = await postJson(url, body, { 'PAYMENT-SIGNATURE': header });
    assert.equal(again.status, 200);
    assert.equal(decodePaymentResponseHeader(again.headers.get('payment-response')!).transaction, tx);
  });

  test('broadcast but not landed when the facilitator answers: nothing delivered; once it lands, the retry delivers it, charged once', async () => {
    const body = { ...BLACK_ON_WHITE, foreground: '#202020' };
    const before = svm.tokenBalance(svm.payTo);
    const { header } = await signSolana(body);
    svm.faults.hold();
    try {
      const pending = await postJson(url, body, { 'PAYMENT-SIGNATURE': header });
      assert.equal(pending.status, 503, await pending.clone().text());
      assert.equal(((await pending.json()) as { error: { code: string } }).error.code, 'settlement_unknown');
      assert.equal(svm.tokenBalance(svm.payTo), before);
      assert.equal(svm.faults.landHeld().length, 1);
    } finally {
      svm.faults.release();
    }
    const res = await postJson(url, body, { 'PAYMENT-SIGNATURE': header });
    assert.equal(res.status, 200, await res.clone().text());
    assert.equal(svm.tokenBalance(svm.payTo) - before, 1000n);
  });

  test('broadcast, never landed, blockhash expired: failed, nothing charged, nothing delivered', async () => {
    const body = { ...BLACK_ON_WHITE, foreground: '#303030' };
    const before = svm.tokenBalance(svm.payTo);
    const { header } = await signSolana(body);
    svm.faults.hold();
    try {
      const pending = await postJson(url, body, { 'PAYMENT-SIGNATURE': header });
      assert.equal(pending.status, 503);
      // Still pending while the blockhash lives: the chain has not said no.
      const stillPending = await postJson(url, body, { 'PAYMENT-SIGNATURE': header });
      assert.equal(stillPending.status, 503);
      svm.faults.dropHeld();
      svm.faults.expireBlockhashes();
    } finally {
      svm.faults.release();
    }
    const res = await postJson(url, body, { 'PAYMENT-SIGNATURE': header });
    assert.equal(res.status, 402, await res.clone().text());
    assert.match(((await res.json()) as { problem: { code: string } }).problem.code, /^(settlement_failed|payment_expired)$/);
    assert.equal(svm.tokenBalance(svm.payTo), before);
  });

  test('the money moved but the answer was lost: the retry finds the transaction on chain and delivers, never settling again', async () => {
    const body = { ...BLACK_ON_WHITE, foreground: '#404040' };
    const before = svm.tokenBalance(svm.payTo);
    const { header } = await signSolana(body);
    rig.proxy.resetCalls();
    rig.proxy.setMode({ settle: 'hang-after-forward' });
    try {
      const lost = await postJson(url, body, { 'PAYMENT-SIGNATURE': header });
      assert.equal(lost.status, 503);
      await rig.proxy.waitForUpstream('settle', 1);
    } finally {
      rig.proxy.setMode('pass');
    }
    assert.equal(svm.tokenBalance(svm.payTo) - before, 1000n, 'the transfer happened');
    const res = await postJson(url, body, { 'PAYMENT-SIGNATURE': header });
    assert.equal(res.status, 200, await res.clone().text());
    assert.equal(rig.proxy.forwarded.settle, 1, 'found on chain, not settled again');
    assert.equal(svm.tokenBalance(svm.payTo) - before, 1000n);
  });

  test('a busy buyer: the lost answer\'s transaction is found on chain behind 60 later payments, after its blockhash expired (never failed for want of looking)', async () => {
    const body = { ...BLACK_ON_WHITE, foreground: '#707070' };
    const buyer = svm.buyers[1]!;
    const { header } = await signSolana(body, buyer);
    rig.proxy.resetCalls();
    rig.proxy.setMode({ settle: 'hang-after-forward' });
    try {
      assert.equal((await postJson(url, body, { 'PAYMENT-SIGNATURE': header })).status, 503);
      await rig.proxy.waitForUpstream('settle', 1);
    } finally {
      rig.proxy.setMode('pass');
    }
    // The same buyer keeps paying: its token account's history grows past any fixed window.
    for (let i = 0; i < 60; i++) {
      const more = { ...BLACK_ON_WHITE, foreground: '#' + (0x800000 + i).toString(16) };
      const { header: h } = await signSolana(more, buyer);
      assert.equal((await postJson(url, more, { 'PAYMENT-SIGNATURE': h })).status, 200);
    }
    svm.faults.expireBlockhashes();
    const res = await postJson(url, body, { 'PAYMENT-SIGNATURE': header });
    assert.equal(res.status, 200, await res.clone().text());
    assert.equal(rig.proxy.forwarded.settle, 61, 'the first payment was never settled again');
  });

  test('facilitator down: a clean 503, nothing charged; the same payment later pays once', async () => {
    const body = { ...BLACK_ON_WHITE, foreground: '#505050' };
    const before = svm.tokenBalance(svm.payTo);
    const { header } = await signSolana(body);
    rig.proxy.setMode('down');
    try {
      const res = await postJson(url, body, { 'PAYMENT-SIGNATURE': header });
      assert.equal(res.status, 503);
    } finally {
      rig.proxy.setMode('pass');
    }
    assert.equal(svm.tokenBalance(svm.payTo), before);
    const res = await postJson(url, body, { 'PAYMENT-SIGNATURE': header });
    assert.equal(res.status, 200, await res.clone().text());
    assert.equal(svm.tokenBalance(svm.payTo) - before, 1000n);
  });
});

describe('Solana configured, but the facilitator does not settle it', () => {
  test('the service starts and sells on the EVM chain; the 402s leave Solana out, and start-up says why in one warning', async () => {
    const lines: string[] = [];
    const log = pino({ level: 'warn' }, { write: (s: string) => void lines.push(s) });
    const rig = await startRig({
      devnet: { svm: false },
      env: { X402_SVM_NETWORK: SOLANA, X402_SVM_PAY_TO: 'CBWSDFwN7FnPmEjSgCFSz1Lzw3pGRj72iXcZWk9dEXHQ' },
      service: { log },
    });
    try {
      const url = rig.service.url + CONTRAST;
      const res = await postJson(url, BLACK_ON_WHITE);
      assert.equal(res.status, 402);
      assert.deepEqual(decodePaymentRequiredHeader(res.headers.get('payment-required')!).accepts.map((a) => a.network), [rig.devnet.network]);
      const paid = await payingFetch(rig.devnet)(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(BLACK_ON_WHITE) });
      assert.equal(paid.status, 200);
      const warning = lines.map((l) => JSON.parse(l) as { msg: string; network?: string }).find((l) => l.network === SOLANA);
      assert.ok(warning, lines.join('\n'));
      assert.match(warning.msg, new RegExp(`does not settle "exact" payments on ${SOLANA} .*: the 402s offer ${rig.devnet.network} only`));
    } finally {
      await rig.close();
    }
  });
});
