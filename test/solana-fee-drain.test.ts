/**
 * Solana fee drain: the buyer signs a transaction whose fee the facilitator's
 * fee payer pays, and the buyer chooses its compute-unit limit and price. A
 * transaction the official client built, re-signed by its buyer with the
 * runtime's largest limit and the facilitator's largest price, made the fee
 * payer spend 701 times the official transaction's fee on every call.
 *
 * Driven from outside: the real service on the embedded devnet (litesvm and
 * the SDK's facilitator behind the fault proxy, which counts what reaches the
 * facilitator), paid over HTTP, the fee payer's lamports read over JSON-RPC.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createKeyPairSignerFromBytes, type KeyPairSigner } from '@solana/kit';
import { x402Client } from '@x402/fetch';
import { ExactSvmScheme } from '@x402/svm/exact/client';
import { generatePaymentId } from '@x402/extensions/payment-identifier';
import { BLACK_ON_WHITE, CONTRAST, decodePaymentRequiredHeader, encodePaymentSignatureHeader, postJson, startRig, type PaymentPayload, type Rig } from './support/harness.js';
import type { PaymentRequirements } from '../src/payments/rail.js';
import { resignComputeBudget, svmPayment } from './support/svm-payment.js';
import type { SvmDevnet } from '../devnet/index.js';

const SOLANA = 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1';
/** What the official client's transaction costs the fee payer: two signatures at 5,000, and 20,000 units at 1 micro-lamport (rounded up to 1). */
const SDK_FEE = 10_001n;
/** The most any payment may cost it. */
const FEE_BOUND = 20_000n;

interface Outcome {
  status: number;
  code: string | undefined;
  /** Lamports the facilitator's fee payers spent on this call, read from the chain. */
  spent: bigint;
  /** Requests that reached the facilitator. */
  facilitatorCalls: number;
  text: string;
}

describe('Solana fee drain: a buyer cannot make the facilitator\'s fee payer spend more than the service allows', () => {
  let rig: Rig;
  let svm: SvmDevnet;
  let url: string;
  let buyer: KeyPairSigner;
  let n = 0;

  before(async () => {
    rig = await startRig();
    svm = rig.devnet.svm!;
    url = rig.service.url + CONTRAST;
    buyer = await createKeyPairSignerFromBytes(svm.buyers[0]!.secretKey);
  });
  after(async () => rig?.close());

  async function rpc<T>(method: string, params: unknown[] = []): Promise<T> {
    const res = await fetch(svm.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
    return ((await res.json()) as { result: T }).result;
  }
  async function feePayerLamports(): Promise<bigint> {
    let total = 0n;
    for (const a of svm.feePayers) total += BigInt((await rpc<{ value: number }>('getBalance', [a])).value);
    return total;
  }

  /** A body no other call of this file uses, and the Solana requirements of its 402. */
  async function fresh(): Promise<{ body: object; requirements: PaymentRequirements }> {
    const body = { ...BLACK_ON_WHITE, foreground: '#' + (0x100000 + n++).toString(16) };
    const res = await postJson(url, body);
    assert.equal(res.status, 402);
    const required = decodePaymentRequiredHeader(res.headers.get('payment-required')!);
    return { body, requirements: required.accepts.find((a) => a.network === SOLANA)! };
  }

  /** The payment the official client builds for this body. */
  async function sdkPayment(requirements: PaymentRequirements): Promise<PaymentPayload> {
    const client = new x402Client().register('solana:*', new ExactSvmScheme(buyer, { rpcUrl: svm.rpcUrl }));
    const payload = await client.createPaymentPayload({ x402Version: 2, resource: { url, description: '', mimeType: 'application/json' }, accepts: [requirements] });
    payload.extensions = { 'payment-identifier': { info: { required: false, id: generatePaymentId() } } };
    return payload;
  }

  /** A payment laid out as the official client lays it out, with this compute budget (null: the instruction left out), on a live blockhash. */
  async function builtPayment(requirements: PaymentRequirements, limit: number | null, price: bigint | null): Promise<PaymentPayload> {
    const { value } = await rpc<{ value: { blockhash: string } }>('getLatestBlockhash');
    return svmPayment({ buyer, requirements, blockhash: value.blockhash, computeUnitLimit: limit, computeUnitPriceMicroLamports: price });
  }

  async function pay(body: object, payload: PaymentPayload): Promise<Outcome> {
    rig.proxy.resetCalls();
    const before = await feePayerLamports();
    const res = await postJson(url, body, { 'PAYMENT-SIGNATURE': encodePaymentSignatureHeader(payload) });
    const text = await res.text();
    const spent = before - (await feePayerLamports());
    const parsed = JSON.parse(text) as { problem?: { code?: string }; error?: { code?: string } };
    const facilitatorCalls = rig.proxy.calls.verify + rig.proxy.calls.settle;
    return { status: res.status, code: parsed.problem?.code ?? parsed.error?.code, spent, facilitatorCalls, text };
  }

  function assertRefused(o: Outcome, what: string): void {
    assert.equal(o.status, 402, `${what}: ${o.status}, the fee payer spent ${o.spent} lamports; ${o.text.slice(0, 300)}`);
    assert.equal(o.code, 'payment_fee_too_high', `${what}: ${o.text.slice(0, 300)}`);
    assert.equal(o.facilitatorCalls, 0, `${what}: refused before any facilitator call`);
    assert.equal(o.spent, 0n, `${what}: the fee payer spent nothing`);
  }

  test('the official client\'s own transaction is accepted, settles, and costs the fee payer its base fee and one lamport', async () => {
    const { body, requirements } = await fresh();
    const paidBefore = svm.tokenBalance(svm.payTo);
    const o = await pay(body, await sdkPayment(requirements));
    assert.equal(o.status, 200, o.text);
    assert.equal(svm.tokenBalance(svm.payTo) - paidBefore, BigInt(requirements.amount));
    assert.equal(o.spent, SDK_FEE);
  });

  test('the official client\'s transaction re-signed by its buyer with the largest limit and price is refused before any facilitator call', async () => {
    const { body, requirements } = await fresh();
    const inflated = await resignComputeBudget(await sdkPayment(requirements), buyer, { limit: 1_400_000, priceMicroLamports: 5_000_000n });
    const o = await pay(body, inflated);
    assertRefused(o, '1,400,000 units at 5,000,000 micro-lamports');
    assert.match(o.text, /fee payer/);
    // And again: nothing is spent however often it is tried.
    assertRefused(await pay(body, inflated), 'the same payment again');
  });

  test('the bound is on the product: each factor within its own maximum, their product over the bound, is refused', async () => {
    const cases: Array<[string, { limit?: number; priceMicroLamports?: bigint }]> = [
      ['the official limit at a price one micro-lamport past the bound', { priceMicroLamports: 500_001n }],
      ['200,000 units at 60,000 micro-lamports', { limit: 200_000, priceMicroLamports: 60_000n }],
      ['the runtime\'s largest limit at 10,000 micro-lamports', { limit: 1_400_000, priceMicroLamports: 10_000n }],
      ['one unit at a price above the facilitator\'s maximum', { limit: 1, priceMicroLamports: 5_000_001n }],
    ];
    for (const [what, budget] of cases) {
      const { body, requirements } = await fresh();
      assertRefused(await pay(body, await resignComputeBudget(await sdkPayment(requirements), buyer, budget)), what);
    }
  });

  test('without a compute unit limit the runtime\'s default per instruction counts: a price the official limit would allow is refused', async () => {
    // 30,000 micro-lamports: 600 lamports at the official 20,000 units, 6,000 at 200,000. Without a
    // limit the runtime grants 200,000 units per program instruction and 3,000 per builtin one: this
    // transaction (price, transfer, memo) gets 403,000 on the devnet, 12,090 lamports, over the bound.
    for (const price of [30_000n, 5_000_000n]) {
      const { body, requirements } = await fresh();
      assertRefused(await pay(body, await builtPayment(requirements, null, price)), `no limit, ${price} micro-lamports`);
    }
  });

  test('a payment at the bound is accepted and settles, and costs the fee payer exactly the bound', async () => {
    const { body, requirements } = await fresh();
    const atBound = await resignComputeBudget(await sdkPayment(requirements), buyer, { priceMicroLamports: 500_000n });
    const o = await pay(body, atBound);
    assert.equal(o.status, 200, o.text);
    assert.equal(o.spent, FEE_BOUND);
  });

  test('a zero price, or no price at all, costs only the base fee and is never refused for its fee', async () => {
    const { body, requirements } = await fresh();
    const o = await pay(body, await resignComputeBudget(await sdkPayment(requirements), buyer, { limit: 1_400_000, priceMicroLamports: 0n }));
    assert.equal(o.status, 200, o.text);
    assert.equal(o.spent, 10_000n);
    for (const [limit, price] of [[null, null], [1_400_000, null], [0, 5_000_000n]] as const) {
      const next = await fresh();
      const r = await pay(next.body, await builtPayment(next.requirements, limit, price));
      // The SDK's facilitator wants both instructions, first; whatever it says, the fee is not why.
      assert.notEqual(r.code, 'payment_fee_too_high', `limit ${limit}, price ${price}: ${r.text.slice(0, 300)}`);
      assert.ok(r.spent <= 10_000n, `limit ${limit}, price ${price}: spent ${r.spent}`);
    }
  });
});
