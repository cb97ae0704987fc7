/**
 * The gate with an MPP credential instead of an x402 payload, through the
 * scripted rail: the credential pays exactly as the x402 payment it maps to
 * (one bind, one verify, one settle), a refused one writes and sends
 * nothing, the same authorization over x402 needs x402's proof while over
 * MPP its challenge is the proof, and with MPP off a credential is refused.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { charge } from 'mppx/evm/client';
import { privateKeyToAccount } from 'viem/accounts';
import { openDatabase } from '../store/index.js';
import { PaymentGate, type GateOutcome, type PaidCall } from './gate.js';
import { MppCharge, credentialFromHeader, type MppCredential } from './mpp.js';
import type { PaymentPayload } from './rail.js';
import { ScriptedRail } from '../../test/support/scripted-rail.js';

const BUYER = privateKeyToAccount('0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a');
const PRICE = '1000';
const URL = 'http://127.0.0.1/x402/v1/contrast';
const SECRET = 'gate-mpp-unit-secret-0123456789abcdef';

async function rig(opts: { mpp?: boolean } = {}) {
  const { ledger } = await openDatabase({ dataDir: mkdtempSync(join(tmpdir(), 'gate-mpp-')) });
  const rail = new ScriptedRail();
  const clock = { t: Date.now() };
  rail.chain.blockTime = clock.t / 1000;
  const mpp = opts.mpp === false ? undefined : new MppCharge(SECRET, rail.payment, () => clock.t);
  const gate = new PaymentGate({ ledger, rail, leaseMs: 20_000, now: () => clock.t, mpp });
  return { gate, rail, ledger, mpp: mpp!, close: () => ledger.close() };
}

function call(overrides: Partial<PaidCall> = {}): PaidCall {
  return {
    resource: 'contrast',
    description: 'test',
    priceAtomic: PRICE,
    resourceUrl: URL,
    fingerprint: 'fp-1',
    payment: undefined,
    execute: () => ({ status: 200, contentType: 'application/json', body: '{"ok":true}' }),
    ...overrides,
  };
}

async function credentialFor(mpp: MppCharge): Promise<MppCredential> {
  const { challenge } = mpp.issue(URL, PRICE);
  const header = await charge({ account: BUYER, authorization: { name: 'USD Coin', version: '2' } }).createCredential({ challenge: challenge as never, context: {} });
  return credentialFromHeader(header)!;
}

function kindAndCode(o: GateOutcome): string {
  return o.kind === 'deliver' ? `deliver${o.replayed ? ' (replayed)' : ''}` : `${o.kind} ${o.code}`;
}

describe('gate: MPP credentials', () => {
  test('a credential pays like its x402 payment: one verify, one settle; presented again, its challenge proves the buyer', async () => {
    const r = await rig();
    try {
      const credential = await credentialFor(r.mpp);
      const first = await r.gate.handle(call({ mpp: credential }));
      assert.equal(kindAndCode(first), 'deliver');
      assert.equal(r.rail.verified.length, 1);
      assert.equal(r.rail.settled.length, 1);
      const p = credential.payload as { nonce: string };
      assert.equal((r.rail.settled[0]!.payload as { authorization: { nonce: string } }).authorization.nonce, p.nonce);
      const again = await r.gate.handle(call({ mpp: credential }));
      assert.equal(kindAndCode(again), 'deliver (replayed)');
      assert.equal(r.rail.settled.length, 1, 'never settled twice');
    } finally {
      await r.close();
    }
  });

  test('the same authorization as an x402 payload: redelivery_proof_required without x402\'s proof, whatever the body', async () => {
    const r = await rig();
    try {
      const credential = await credentialFor(r.mpp);
      assert.equal(kindAndCode(await r.gate.handle(call({ mpp: credential }))), 'deliver');
      const { from, to, value, validAfter, validBefore, nonce, signature } = credential.payload as Record<string, string>;
      const accepted = (await r.rail.requirements(PRICE))[0]!;
      const x402 = { x402Version: 2, accepted, payload: { signature, authorization: { from, to, value, validAfter, validBefore, nonce } } } as unknown as PaymentPayload;
      for (const fingerprint of ['fp-1', 'fp-2']) assert.equal(kindAndCode(await r.gate.handle(call({ payment: x402, fingerprint }))), 'challenge redelivery_proof_required');
      assert.equal(r.rail.settled.length, 1);
    } finally {
      await r.close();
    }
  });

  test('a credential that fails MPP\'s checks: the draft\'s problem, no ledger row, nothing sent', async () => {
    const r = await rig();
    try {
      const good = await credentialFor(r.mpp);
      const forged = { ...good, challenge: { ...good.challenge, id: 'C'.repeat(43) } };
      const o = await r.gate.handle(call({ mpp: forged }));
      assert.equal(kindAndCode(o), 'challenge payment_invalid');
      assert.equal(o.kind === 'challenge' && o.mppProblem, 'invalidChallenge');
      const otherPrice = await r.gate.handle(call({ mpp: good, priceAtomic: '2000' }));
      assert.equal(otherPrice.kind === 'challenge' && otherPrice.mppProblem, 'invalidChallenge');
      assert.equal(r.rail.verified.length, 0);
      assert.deepEqual(await r.ledger.summary().then((s) => s.paidDeliveries), 0);
    } finally {
      await r.close();
    }
  });

  test('MPP off: a credential is refused before any payment step', async () => {
    const r = await rig({ mpp: false });
    try {
      const credential = await credentialFor(new MppCharge(SECRET, r.rail.payment));
      assert.equal(kindAndCode(await r.gate.handle(call({ mpp: credential }))), 'refuse invalid_payment_header');
      assert.equal(r.rail.verified.length, 0);
    } finally {
      await r.close();
    }
  });
});
