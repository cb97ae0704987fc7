/**
 * The facilitator pool's routing and its money rules (facilitators.ts header),
 * with scripted facilitators: verify fails over on no answer; a settle goes to
 * the verifier and to another facilitator only after a provable not-sent; an
 * unknown settle is never sent elsewhere, not even by the SDK's pending retry.
 * The devnet versions are in test/facilitator-failover.test.ts.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FacilitatorClient } from '@x402/core/server';
import { FacilitatorTimeoutError, SettleError, VerifyError, type PaymentPayload, type PaymentRequirements, type SupportedResponse } from '@x402/core/types';
import type { PaymentConfig } from '../config.js';
import { FacilitatorPool, facilitatorName } from './facilitators.js';
import { PaymentRail } from './rail.js';
import { ScriptedChain, SCRIPTED_ASSET, SCRIPTED_PAY_TO } from '../../test/support/scripted-rail.js';

const NETWORK = 'eip155:31337';
const SUPPORTED: SupportedResponse = { kinds: [{ x402Version: 2, scheme: 'exact', network: NETWORK }], extensions: [], signers: {} };
const OTHER_NETWORK: SupportedResponse = { kinds: [{ x402Version: 2, scheme: 'exact', network: 'eip155:1' }], extensions: [], signers: {} };

const refused = () => Object.assign(new Error('fetch failed'), { cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) });
const reset = () => Object.assign(new Error('fetch failed'), { cause: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }) });

type Script = { verify?: () => unknown; settle?: () => unknown; supported?: () => unknown };

/** A facilitator that answers as scripted (a thrown value is thrown) and counts its calls. */
function scripted(script: Script = {}) {
  const calls = { verify: 0, settle: 0, supported: 0 };
  const run = async (f: (() => unknown) | undefined, dflt: unknown) => {
    const v = f ? f() : dflt;
    if (v instanceof Error) throw v;
    return v;
  };
  const client = {
    verify: () => (calls.verify++, run(script.verify, { isValid: true, payer: '0x1' })),
    settle: () => (calls.settle++, run(script.settle, { success: true, transaction: '0xabc', network: NETWORK })),
    getSupported: () => (calls.supported++, run(script.supported, SUPPORTED)),
  } as unknown as FacilitatorClient;
  return { client, calls, script };
}

function payload(n = 1): PaymentPayload {
  return { x402Version: 2, accepted: {} as PaymentRequirements, payload: { signature: `0xsig${n}`, authorization: { from: '0x1', nonce: `0x${n}` } } } as unknown as PaymentPayload;
}
const REQ = {} as PaymentRequirements;

async function poolOf(...facilitators: Array<ReturnType<typeof scripted>>) {
  let now = 1_000_000;
  const saved: string[] = [];
  const pool = new FacilitatorPool(
    facilitators.map((f, i) => ({ name: `http://f${i + 1}`, client: f.client })),
    { network: NETWORK, backoffMs: 30_000, now: () => now, onSupported: (_a, name) => saved.push(name) },
  );
  await pool.preflight();
  return { pool, saved, advance: (ms: number) => (now += ms) };
}

describe('facilitator pool', () => {
  test('a facilitator is named by origin and path, never credentials or query', () => {
    assert.equal(facilitatorName('https://user:secret@x402.example.com/facilitator/?key=abc#f'), 'https://x402.example.com/facilitator');
    assert.equal(facilitatorName('http://127.0.0.1:4021'), 'http://127.0.0.1:4021');
  });

  test('preflight: each facilitator judged on its own /supported', async () => {
    const a = scripted({ supported: refused });
    const b = scripted({ supported: () => OTHER_NETWORK });
    const c = scripted();
    const pool = new FacilitatorPool([a, b, c].map((f, i) => ({ name: `http://f${i + 1}`, client: f.client })), { network: NETWORK });
    assert.deepEqual((await pool.preflight()).map((v) => v.verdict), ['unreachable', 'unsupported', 'ok']);
    assert.equal(pool.hasUnchecked, true);
    // Only the one that passed gets payments.
    await pool.verify(payload(), REQ);
    assert.deepEqual([a.calls.verify, b.calls.verify, c.calls.verify], [0, 0, 1]);
  });

  test('verify without an answer (refused, timeout, 5xx) moves on; the failed one is asked only after the others during its back-off', async () => {
    for (const failure of [refused, () => new FacilitatorTimeoutError('verify', 1000), () => new VerifyError(502, { isValid: false, invalidReason: 'x' }), () => new Error('Facilitator verify failed (500): oops')]) {
      const a = scripted({ verify: failure });
      const b = scripted();
      const { pool, advance } = await poolOf(a, b);
      assert.equal((await pool.verify(payload(1), REQ)).isValid, true);
      assert.deepEqual([a.calls.verify, b.calls.verify], [1, 1]);
      await pool.verify(payload(2), REQ);
      assert.deepEqual([a.calls.verify, b.calls.verify], [1, 2], 'in back-off: not asked first');
      a.script.verify = undefined;
      advance(30_001);
      await pool.verify(payload(3), REQ);
      assert.deepEqual([a.calls.verify, b.calls.verify], [2, 2], 'back in first place after the back-off');
    }
  });

  test('a refusal is an answer: verify is not asked elsewhere', async () => {
    const a = scripted({ verify: () => new VerifyError(400, { isValid: false, invalidReason: 'invalid_signature' }) });
    const b = scripted();
    const { pool } = await poolOf(a, b);
    await assert.rejects(pool.verify(payload(), REQ), VerifyError);
    const c = scripted({ verify: () => ({ isValid: false, invalidReason: 'insufficient_funds' }) });
    const { pool: pool2 } = await poolOf(c, b);
    assert.equal((await pool2.verify(payload(), REQ)).isValid, false);
    assert.equal(b.calls.verify, 0);
  });

  test('every facilitator without an answer: verify throws (the rail answers unavailable)', async () => {
    const { pool } = await poolOf(scripted({ verify: refused }), scripted({ verify: () => new FacilitatorTimeoutError('verify', 1) }));
    await assert.rejects(pool.verify(payload(), REQ), FacilitatorTimeoutError);
    const none = new FacilitatorPool([{ name: 'http://f1', client: scripted({ supported: refused }).client }], { network: NETWORK });
    await none.preflight();
    await assert.rejects(none.verify(payload(), REQ), /no facilitator to verify/);
  });

  test('settle goes to the facilitator that verified the payment', async () => {
    const a = scripted({ verify: refused });
    const b = scripted();
    const { pool, advance } = await poolOf(a, b);
    await pool.verify(payload(), REQ);
    a.script.verify = undefined;
    advance(30_001); // a is healthy again and first in preference
    await pool.settle(payload(), REQ);
    assert.deepEqual([a.calls.settle, b.calls.settle], [0, 1]);
    assert.equal(pool.takeSettleTarget(payload()), 'http://f2');
    assert.equal(pool.takeSettleTarget(payload()), undefined, 'taken once');
  });

  test('rule (a): a settle provably never received (connection refused) goes to the next facilitator', async () => {
    const a = scripted({ settle: refused });
    const b = scripted();
    const { pool } = await poolOf(a, b);
    await pool.verify(payload(), REQ);
    assert.equal((await pool.settle(payload(), REQ)).success, true);
    assert.deepEqual([a.calls.settle, b.calls.settle], [1, 1]);
    assert.equal(pool.takeSettleTarget(payload()), 'http://f2');
  });

  test('rule (b): a settle whose outcome is unknown (timeout, 5xx, reset, garbled) is never sent to another facilitator', async () => {
    const unknowns = [
      () => new FacilitatorTimeoutError('settle', 1000),
      () => new SettleError(502, { success: false, errorReason: 'x', transaction: '', network: NETWORK }),
      () => new Error('Facilitator settle failed (500): oops'),
      reset,
      () => new Error('Facilitator settle returned invalid JSON: <html>'),
    ];
    for (const failure of unknowns) {
      const a = scripted({ settle: failure });
      const b = scripted();
      const { pool } = await poolOf(a, b);
      await pool.verify(payload(), REQ);
      await assert.rejects(pool.settle(payload(), REQ));
      assert.deepEqual([a.calls.settle, b.calls.settle], [1, 0], String(failure()));
      assert.equal(pool.takeSettleTarget(payload()), 'http://f1', 'recorded where it may have gone');
    }
  });

  test('rule (b): within one settle (the SDK re-sending "settlement pending") only the facilitator that received it is asked, even if it is then unreachable', async () => {
    const a = scripted({ settle: () => ({ success: false, errorReason: 'settlement_pending', transaction: '0xabc', network: NETWORK }) });
    const b = scripted();
    const { pool } = await poolOf(a, b);
    await pool.verify(payload(), REQ);
    assert.equal((await pool.settle(payload(), REQ)).success, false);
    a.script.settle = refused;
    await assert.rejects(pool.settle(payload(), REQ));
    assert.deepEqual([a.calls.settle, b.calls.settle], [2, 0]);
  });

  test('the next settle of that authorization (the gate sends one only after the chain shows it unused) may go to another facilitator', async () => {
    const a = scripted({ settle: () => new FacilitatorTimeoutError('settle', 1000) });
    const b = scripted();
    const { pool } = await poolOf(a, b);
    await pool.verify(payload(), REQ);
    await assert.rejects(pool.settle(payload(), REQ));
    assert.equal(pool.takeSettleTarget(payload()), 'http://f1');
    // a is in back-off after its timeout: the re-settle goes to b.
    assert.equal((await pool.settle(payload(), REQ)).success, true);
    assert.deepEqual([a.calls.settle, b.calls.settle], [1, 1]);
    assert.equal(pool.takeSettleTarget(payload()), 'http://f2');
  });

  test('getSupported: the first good answer; a facilitator without our kind is left out of rotation; good answers are handed on for saving', async () => {
    const a = scripted({ supported: refused });
    const b = scripted();
    const { pool, saved } = await poolOf(a, b);
    assert.deepEqual(saved, ['http://f2']);
    a.script.supported = () => OTHER_NETWORK;
    // a was in back-off (refused at preflight): b answers first.
    assert.deepEqual(await pool.getSupported(), SUPPORTED);
    const c = scripted({ supported: () => OTHER_NETWORK });
    const only = new FacilitatorPool([{ name: 'http://c', client: c.client }], { network: NETWORK });
    await assert.rejects(only.getSupported(), /no facilitator answered \/supported with exact on eip155:31337 \(http:\/\/c: lists v2 exact on eip155:1\)/);
    await assert.rejects(only.verify(payload(), REQ), /no facilitator to verify/);
  });

  test('the rail reports which facilitator a settle went to, and none when it was never sent', async () => {
    const payment: PaymentConfig = {
      network: NETWORK,
      payTo: SCRIPTED_PAY_TO,
      asset: { address: SCRIPTED_ASSET, name: 'USD Coin', version: '2', decimals: 6, symbol: 'USDC' },
      facilitatorUrls: ['http://f1', 'http://f2'],
      facilitatorAuth: {},
      rpcUrl: 'http://127.0.0.1:1',
      facilitatorTimeoutMs: 1000,
      maxTimeoutSeconds: 300,
      attemptLeaseMs: 20_000,
    };
    const a = scripted({ settle: refused });
    const b = scripted({ settle: () => new FacilitatorTimeoutError('settle', 1000) });
    const { pool } = await poolOf(a, b);
    const rail = new PaymentRail({ payment, chain: new ScriptedChain(), facilitator: pool });
    await rail.initialize();
    const [req] = await rail.requirements('1000');
    const p = { ...payload(7), accepted: req } as PaymentPayload;
    const unknown = await rail.settle(p, req!);
    assert.equal(unknown.kind, 'unknown');
    assert.equal(unknown.kind === 'unknown' && unknown.facilitator, 'http://f2');
    b.script.settle = refused;
    const out = await rail.settle({ ...payload(8), accepted: req } as PaymentPayload, req!);
    assert.equal(out.kind, 'not-sent');
    assert.equal('facilitator' in out, false);
  });
});
