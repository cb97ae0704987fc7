/**
 * The rail sorts every facilitator answer into the few outcomes the gate acts
 * on. The classification decides money: "failed" and "not-sent" let the gate
 * answer at once, "unknown" sends it to the chain. Driven through the SDK's
 * own resource server with a facilitator client that answers as scripted.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FacilitatorClient } from '@x402/core/server';
import { FacilitatorTimeoutError, SettleError, VerifyError } from '@x402/core/types';
import type { PaymentConfig } from '../config.js';
import { PaymentRail, type PaymentPayload } from './rail.js';
import { ScriptedChain, SCRIPTED_ASSET, SCRIPTED_PAY_TO } from '../../test/support/scripted-rail.js';

const NETWORK = 'eip155:31337';
const payment: PaymentConfig = {
  network: NETWORK,
  payTo: SCRIPTED_PAY_TO,
  asset: { address: SCRIPTED_ASSET, name: 'USD Coin', version: '2', decimals: 6, symbol: 'USDC' },
  facilitatorUrls: ['http://127.0.0.1:1'],
  facilitatorAuth: {},
  rpcUrl: 'http://127.0.0.1:1',
  facilitatorTimeoutMs: 1000,
  maxTimeoutSeconds: 300,
  attemptLeaseMs: 20_000,
};

type Answer = unknown | Error;

function railWith(answers: { verify?: Answer; settle?: Answer; supported?: Answer }) {
  const reply = async (a: Answer) => {
    if (a instanceof Error) throw a;
    return a;
  };
  const facilitator = {
    verify: () => reply(answers.verify ?? { isValid: true, payer: '0x1' }),
    settle: () => reply(answers.settle ?? { success: true, transaction: '0xabc', network: NETWORK }),
    getSupported: () => reply(answers.supported ?? { kinds: [{ x402Version: 2, scheme: 'exact', network: NETWORK }], extensions: [], signers: {} }),
  } as unknown as FacilitatorClient;
  return new PaymentRail({ payment, chain: new ScriptedChain(), facilitator });
}

async function ready(answers: Parameters<typeof railWith>[0] = {}) {
  const rail = railWith(answers);
  await rail.initialize();
  const [req] = await rail.requirements('1000');
  const payload = { x402Version: 2, accepted: req, payload: { signature: '0x', authorization: {} } } as unknown as PaymentPayload;
  return { rail, req: req!, payload };
}

const withCode = (code: string, nested = false) => {
  const e = new Error('fetch failed') as Error & { cause?: unknown; code?: string };
  if (nested) e.cause = Object.assign(new Error('inner'), { code });
  else e.code = code;
  return e;
};

describe('payment rail', () => {
  test('not ready until the facilitator has answered /supported; requirements are built once per price', async () => {
    const rail = railWith({});
    assert.equal(rail.ready, false);
    await rail.initialize();
    assert.equal(rail.ready, true);
    const a = await rail.requirements('1000');
    assert.equal(await rail.requirements('1000'), a);
    assert.equal(a[0]!.amount, '1000');
    assert.equal(a[0]!.payTo, SCRIPTED_PAY_TO);
    const pr = await rail.paymentRequired(a, { url: 'http://x', description: 'd', mimeType: 'application/json' });
    assert.ok(pr.extensions?.['payment-identifier']);
  });

  test('initialize throws when the facilitator is unreachable', async () => {
    await assert.rejects(railWith({ supported: withCode('ECONNREFUSED') }).initialize());
  });

  test('match: only a payload that accepted exactly these requirements', async () => {
    const { rail, req, payload } = await ready();
    assert.deepEqual(rail.match([req], payload), req);
    assert.equal(rail.match([req], { ...payload, accepted: { ...req, amount: '1' } } as PaymentPayload), undefined);
    assert.equal(rail.match([req], { x402Version: 2 } as unknown as PaymentPayload), undefined);
  });

  const verifyCases: Array<[string, Answer, string]> = [
    ['isValid true', { isValid: true, payer: '0x1' }, 'valid'],
    ['isValid false with a reason', { isValid: false, invalidReason: 'insufficient_funds', invalidMessage: 'no' }, 'invalid'],
    ['isValid false without a reason', { isValid: false }, 'invalid'],
    ['a 4xx VerifyError', new VerifyError(400, { isValid: false, invalidReason: 'invalid_payload' }), 'invalid'],
    ['a 5xx VerifyError', new VerifyError(500, { isValid: false, invalidReason: 'unexpected' }), 'unavailable'],
    ['a timeout', new FacilitatorTimeoutError('verify', 1000), 'unavailable'],
    ['a refused connection', withCode('ECONNREFUSED'), 'unavailable'],
  ];
  for (const [name, answer, kind] of verifyCases) {
    test(`verify: ${name} → ${kind}`, async () => {
      const { rail, req, payload } = await ready({ verify: answer });
      assert.equal((await rail.verify(payload, req)).kind, kind);
    });
  }

  const settleCases: Array<[string, Answer, string]> = [
    ['success with a transaction', { success: true, transaction: '0xabc', network: NETWORK }, 'settled'],
    ['success without a transaction', { success: true, transaction: '', network: NETWORK }, 'unknown'],
    ['success:false (e.g. settlement_pending)', { success: false, errorReason: 'settlement_pending', transaction: '0xabc', network: NETWORK }, 'failed'],
    ['a 4xx SettleError', new SettleError(400, { success: false, errorReason: 'invalid', transaction: '', network: NETWORK }), 'failed'],
    ['a 4xx SettleError without details', new SettleError(400, { success: false } as never), 'failed'],
    ['a 5xx SettleError', new SettleError(502, { success: false, errorReason: 'x', transaction: '', network: NETWORK }), 'unknown'],
    ['a timeout (the transfer may be on its way)', new FacilitatorTimeoutError('settle', 1000), 'unknown'],
    ['a refused connection (provably never sent)', withCode('ECONNREFUSED'), 'not-sent'],
    ['a refused connection in the cause chain', withCode('ECONNREFUSED', true), 'not-sent'],
    ['an unknown host', withCode('ENOTFOUND'), 'not-sent'],
    ['a reset mid-request (may have been sent)', withCode('ECONNRESET'), 'unknown'],
    ['a thrown string', 'x'.repeat(400) as unknown as Error, 'unknown'],
  ];
  for (const [name, answer, kind] of settleCases) {
    test(`settle: ${name} → ${kind}`, async () => {
      const { rail, req, payload } = await ready({ settle: typeof answer === 'string' ? undefined : answer });
      if (typeof answer === 'string') {
        (rail.facilitator as unknown as { settle: () => Promise<never> }).settle = () => Promise.reject(answer);
      }
      const out = await rail.settle(payload, req);
      assert.equal(out.kind, kind, JSON.stringify(out));
      if (out.kind === 'unknown') assert.ok(out.message.length <= 301);
    });
  }
});
