/**
 * Every transition of the gate's state machine, driven through the scripted
 * rail and chain against a real SQLite ledger (in process). Fast: no chain,
 * no network, no thread.
 * The end-to-end versions of the important ones run on the devnet (test/).
 */
import { describe, test, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { privateKeyToAccount } from 'viem/accounts';
import type { Hex } from 'viem';
import { ServiceError } from '../errors.js';
import { openDatabase, type SqlDriver } from '../store/index.js';
import { LedgerUnavailableError, type Ledger } from '../store/ledger.js';
import { authorizationTypedData, type Eip3009Authorization } from './authorization.js';
import { PaymentGate, SETTLE_MARGIN_SECONDS, type GateOutcome, type PaidCall } from './gate.js';
import { reconcileOnce } from './reconciler.js';
import type { PaymentPayload, PaymentRequirements } from './rail.js';
import { ScriptedRail } from '../../test/support/scripted-rail.js';

// anvil's well-known test keys (accounts #2 and #3).
const BUYER = privateKeyToAccount('0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a');
const OTHER = privateKeyToAccount('0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6');
const PRICE = '1000';

interface Rig {
  gate: PaymentGate;
  rail: ScriptedRail;
  ledger: Ledger;
  /** The database the ledger lives in (another connection): what another instance or an operator would change. */
  db: SqlDriver;
  clock: { t: number };
}

let rig: Rig;
let openLedgers: Ledger[] = [];

async function makeRig(opts: { leaseMs?: number; wrap?: (l: Ledger) => Ledger } = {}): Promise<Rig> {
  // In process (no ledger thread to start per test): the same SQL, transactions and durability (ledger conformance).
  const { ledger: real, db } = await openDatabase({ dataDir: mkdtempSync(join(tmpdir(), 'gate-unit-')), sqliteLedgerThread: false });
  openLedgers.push(real);
  const ledger = opts.wrap ? opts.wrap(real) : real;
  const rail = new ScriptedRail();
  const clock = { t: 1_800_000_000_000 };
  rail.chain.blockTime = clock.t / 1000;
  const gate = new PaymentGate({ ledger, rail, leaseMs: opts.leaseMs ?? 20_000, now: () => clock.t });
  return { gate, rail, ledger, db, clock };
}

beforeEach(async () => {
  rig = await makeRig();
});
afterEach(async () => {
  for (const l of openLedgers) await l.close().catch(() => {});
  openLedgers = [];
});

async function requirements(r: Rig = rig): Promise<PaymentRequirements> {
  return (await r.rail.requirements(PRICE))[0]!;
}

/** A payment as an honest buyer makes it: with a fresh payment-identifier (its redelivery proof) unless `paymentId: null`. */
async function sign(opts: { account?: typeof BUYER; auth?: Partial<Eip3009Authorization>; r?: Rig; paymentId?: string | null } = {}): Promise<PaymentPayload> {
  const r = opts.r ?? rig;
  const req = await requirements(r);
  const now = Math.floor(r.clock.t / 1000);
  const account = opts.account ?? BUYER;
  const auth: Eip3009Authorization = {
    from: account.address,
    to: req.payTo as Hex,
    value: req.amount,
    validAfter: String(now - 600),
    validBefore: String(now + 300),
    nonce: ('0x' + randomBytes(32).toString('hex')) as Hex,
    ...opts.auth,
  };
  const signature = await account.signTypedData(authorizationTypedData(auth, req));
  const id = opts.paymentId === undefined ? 'pay_' + randomBytes(16).toString('hex') : opts.paymentId;
  const extensions = id === null ? undefined : { 'payment-identifier': { info: { required: false, id } } };
  return { x402Version: 2, accepted: req, payload: { signature, authorization: auth }, ...(extensions && { extensions }) } as PaymentPayload;
}

function call(payment: PaymentPayload | undefined, overrides: Partial<PaidCall> = {}): PaidCall {
  return {
    resource: 'contrast',
    description: 'test',
    priceAtomic: PRICE,
    resourceUrl: 'http://127.0.0.1/x',
    fingerprint: 'fp-1',
    payment,
    execute: () => ({ status: 200, contentType: 'application/json', body: '{"ok":true}' }),
    ...overrides,
  };
}

function idOf(p: PaymentPayload, r: Rig = rig): Promise<string> {
  return import('../foundation/canonical-json.js').then(({ sha256Hex }) => {
    const a = (p.payload as { authorization: Eip3009Authorization }).authorization;
    return sha256Hex([r.rail.payment.network, r.rail.payment.asset.address.toLowerCase(), a.from.toLowerCase(), a.nonce.toLowerCase()].join('|'));
  });
}

async function stateOf(p: PaymentPayload, r: Rig = rig) {
  return (await r.ledger.get({ id: await idOf(p, r) }))?.state;
}

function expectCode(o: GateOutcome, kind: GateOutcome['kind'], code?: string) {
  assert.equal(o.kind, kind, JSON.stringify(o));
  if (code) assert.equal((o as { code: string }).code, code, JSON.stringify(o));
}

const pending = (p: PaymentPayload, tx = ('0x' + 'ab'.repeat(32)) as Hex) => ({
  kind: 'failed' as const,
  response: { success: false, errorReason: 'settlement_pending', transaction: tx, network: 'eip155:31337' as const, payer: String((p.payload as { authorization: { from: string } }).authorization.from) },
});

describe('challenge and admission', () => {
  test('no payment → 402 payment_required, built once per resource and price; each answer with a sign-in message of its own', async () => {
    type Plain = { template: unknown; signInStamp: { nonce: string }; paymentRequired: { extensions: Record<string, { info: { nonce: string } }> } };
    const a = (await rig.gate.handle(call(undefined))) as unknown as Plain;
    const b = (await rig.gate.handle(call(undefined))) as unknown as Plain;
    const c = rig.gate.cachedChallenge(call(undefined).resourceUrl, call(undefined).priceAtomic) as unknown as Plain | undefined;
    expectCode(a as never, 'challenge', 'payment_required');
    assert.equal(a.template, b.template, 'built once');
    assert.notEqual(a.signInStamp.nonce, b.signInStamp.nonce);
    assert.equal(a.paymentRequired.extensions['sign-in-with-x']!.info.nonce, a.signInStamp.nonce);
    assert.equal(c?.template, a.template, 'answered from the cache');
    assert.notEqual(c!.signInStamp.nonce, a.signInStamp.nonce);
  });

  test('the call\'s extensions are advertised whole, beside the gate\'s sign-in declaration (a transport with a size budget trims them: src/http/challenge-fit.ts)', async () => {
    const full = await rig.gate.handle(call(undefined, { resourceUrl: 'http://127.0.0.1/y', extensions: { big: 'x'.repeat(4000) } }));
    assert.deepEqual(Object.keys((full as { paymentRequired: { extensions: object } }).paymentRequired.extensions), ['big', 'sign-in-with-x']);
  });

  test('the plain-challenge cache is bounded (Host headers are caller-controlled)', async () => {
    for (let i = 0; i < 300; i++) expectCode(await rig.gate.handle(call(undefined, { resourceUrl: `http://h${i}/x` })), 'challenge', 'payment_required');
  });

  test('chain ids come from eip155 networks only', async () => {
    const { chainIdOf } = await import('./authorization.js');
    assert.equal(chainIdOf('eip155:8453'), 8453);
    assert.equal(chainIdOf('solana:mainnet'), 0);
  });

  test('the facilitator has not answered yet → 503 facilitator_unavailable', async () => {
    rig.rail.ready = false;
    expectCode(await rig.gate.handle(call(undefined)), 'refuse', 'facilitator_unavailable');
  });

  test('requirements cannot be built → 503 facilitator_unavailable', async () => {
    rig.rail.requirementsFailure = new Error('no');
    expectCode(await rig.gate.handle(call(undefined)), 'refuse', 'facilitator_unavailable');
  });

  const refusedLocally: Array<[string, (p: PaymentPayload) => void, string]> = [
    ['x402 v1', (p) => ((p as { x402Version: number }).x402Version = 1), 'payment_invalid'],
    ['another amount accepted', (p) => ((p.accepted as { amount: string }).amount = '1'), 'payment_invalid'],
    ['no authorization', (p) => ((p.payload as Record<string, unknown>).authorization = undefined), 'payment_invalid'],
    ['a non-hex signature', (p) => ((p.payload as Record<string, unknown>).signature = 'zz'), 'payment_invalid'],
    ['an oversized signature', (p) => ((p.payload as Record<string, unknown>).signature = '0x' + 'ab'.repeat(5000)), 'payment_invalid'],
    ['a short signature', (p) => ((p.payload as Record<string, unknown>).signature = '0x' + 'ab'.repeat(64)), 'payment_invalid'],
    ['a signature with an invalid v', (p) => {
      const inner = p.payload as { signature: string };
      inner.signature = inner.signature.slice(0, 130) + '05';
    }, 'payment_invalid'],
    ['a zero s', (p) => {
      const inner = p.payload as { signature: string };
      inner.signature = inner.signature.slice(0, 66) + '0'.repeat(64) + inner.signature.slice(130);
    }, 'payment_invalid'],
    ['an unrecoverable signature', (p) => {
      const inner = p.payload as { signature: string };
      inner.signature = '0x' + 'f'.repeat(64) + '1'.padStart(64, '0') + '1b';
    }, 'payment_invalid'],
    ['a bad address', (p) => ((p.payload as { authorization: Record<string, unknown> }).authorization.from = '0x12'), 'payment_invalid'],
    ['a bad nonce', (p) => ((p.payload as { authorization: Record<string, unknown> }).authorization.nonce = '0x12'), 'payment_invalid'],
    ['a non-numeric value', (p) => ((p.payload as { authorization: Record<string, unknown> }).authorization.value = 'ten'), 'payment_invalid'],
    ['another payee', (p) => ((p.payload as { authorization: Record<string, unknown> }).authorization.to = OTHER.address), 'payment_invalid'],
    ['a signature by someone else', (p) => ((p.payload as { authorization: Record<string, unknown> }).authorization.from = OTHER.address), 'payment_invalid'],
  ];
  for (const [name, edit, code] of refusedLocally) {
    test(`${name} → 402 ${code}; nothing written, nothing sent`, async () => {
      const p = await sign();
      edit(p);
      expectCode(await rig.gate.handle(call(p)), 'challenge', code);
      assert.equal(rig.rail.verified.length + rig.rail.settled.length, 0);
      assert.deepEqual((await rig.ledger.summary()).byState.reserved, 0);
    });
  }

  test('numeric fields given as JSON numbers are accepted', async () => {
    const p = await sign();
    const a = (p.payload as { authorization: Record<string, unknown> }).authorization;
    const signed = await sign({ auth: { nonce: a.nonce as Hex } });
    const sa = (signed.payload as { authorization: Record<string, unknown> }).authorization;
    sa.validAfter = Number(sa.validAfter);
    expectCode(await rig.gate.handle(call(signed)), 'deliver');
  });

  test('a window that opens in the future, closes too soon or lasts too long is refused', async () => {
    const now = Math.floor(rig.clock.t / 1000);
    expectCode(await rig.gate.handle(call(await sign({ auth: { validAfter: String(now + 3600) } }))), 'challenge', 'payment_invalid');
    expectCode(await rig.gate.handle(call(await sign({ auth: { validBefore: String(now + SETTLE_MARGIN_SECONDS - 1) } }))), 'challenge', 'payment_expired');
    expectCode(await rig.gate.handle(call(await sign({ auth: { validBefore: String(now + 86_400) } }))), 'challenge', 'payment_invalid');
  });

  test('a smart-wallet signature is checked by the chain before anything is written', async () => {
    const p = await sign();
    (p.payload as { signature: string }).signature = '0x' + 'cd'.repeat(200);
    rig.rail.chain.smartWalletAnswer = false;
    expectCode(await rig.gate.handle(call(p)), 'challenge', 'payment_invalid');
    rig.rail.chain.smartWalletAnswer = new Error('rpc down');
    expectCode(await rig.gate.handle(call(p)), 'refuse', 'service_unavailable');
    assert.equal(rig.rail.verified.length, 0);
    rig.rail.chain.smartWalletAnswer = true;
    expectCode(await rig.gate.handle(call(p)), 'deliver');
  });

  test('unsigned extras are not stored; the payment-identifier is', async () => {
    const p = await sign();
    p.extensions = { junk: 'x'.repeat(10_000), 'payment-identifier': { info: { required: false, id: 'pay_' + 'c'.repeat(28) } } };
    expectCode(await rig.gate.handle(call(p)), 'deliver');
    const stored = (await rig.ledger.get({ id: await idOf(p) }))!;
    assert.ok(stored.payload.length < 2048);
    assert.ok(JSON.parse(stored.payload).extensions['payment-identifier']);
    assert.ok(stored.paymentKey);
  });
});

describe('the happy path and replays', () => {
  test('reserved → verified → executed → settling → settled, one durable write before settle', async () => {
    const p = await sign();
    const o = await rig.gate.handle(call(p));
    expectCode(o, 'deliver');
    assert.equal((o as { replayed: boolean }).replayed, false);
    const id = await idOf(p);
    assert.deepEqual((await rig.ledger.history({ id })).map((h) => h.state).sort(), ['executed', 'reserved', 'settled', 'settling', 'verified']);
    assert.equal(rig.rail.settled.length, 1);
  });

  test('the same payment again: the stored bytes, replayed, no second verify or settle', async () => {
    const p = await sign();
    const first = await rig.gate.handle(call(p));
    const again = await rig.gate.handle(call(structuredClone(p)));
    expectCode(again, 'deliver');
    assert.equal((again as { replayed: boolean }).replayed, true);
    assert.deepEqual((again as { response: unknown }).response, (first as { response: unknown }).response);
    assert.equal(rig.rail.verified.length, 1);
    assert.equal(rig.rail.settled.length, 1);
  });

  test('a result that arrives as its UTF-8 bytes is stored and redelivered as its text without the text being made here', async () => {
    const p = await sign();
    const text = JSON.stringify({ ok: true, note: 'é — 😀' });
    const bytes = new TextEncoder().encode(text);
    const o = await rig.gate.handle(
      call(p, {
        execute: () => ({
          status: 200,
          contentType: 'application/json',
          get body(): string {
            throw new Error('the text of a pool result was made on the event loop');
          },
          bodyBytes: bytes,
        }),
      }),
    );
    assert.equal(o.kind, 'deliver');
    const again = await rig.gate.handle(call(structuredClone(p)));
    expectCode(again, 'deliver');
    assert.equal((again as { response: { body: string } }).response.body, text);
  });

  test('a paid result stays fetchable with the same payment after its validBefore has passed', async () => {
    const p = await sign();
    expectCode(await rig.gate.handle(call(p)), 'deliver');
    rig.clock.t += 3_600_000;
    const again = await rig.gate.handle(call(p));
    expectCode(again, 'deliver');
    assert.equal((again as { replayed: boolean }).replayed, true);
  });

  test('an expired authorization that was never bound starts nothing: 402 payment_expired, no row', async () => {
    const p = await sign();
    rig.clock.t += 3_600_000;
    expectCode(await rig.gate.handle(call(p)), 'challenge', 'payment_expired');
    assert.equal(await stateOf(p), undefined);
  });

  test('a settled attempt whose stored result is incomplete is not delivered', async () => {
    const p = await sign();
    await rig.gate.handle(call(p));
    const id = await idOf(p);
    await rig.db.run('UPDATE payment_attempts SET settle_response = NULL WHERE id = ?', [id]);
    expectCode(await rig.gate.handle(call(p)), 'refuse', 'service_unavailable');
  });

  test('the same payer and nonce with another signed authorization gets no result', async () => {
    const p = await sign();
    await rig.gate.handle(call(p));
    const nonce = (p.payload as { authorization: { nonce: Hex } }).authorization.nonce;
    const other = await sign({ auth: { nonce, validBefore: String(Math.floor(rig.clock.t / 1000) + 200) } });
    expectCode(await rig.gate.handle(call(other)), 'challenge', 'payment_invalid');
  });

  test('the same payment for another request → 409 payment_bound_to_other_request', async () => {
    const p = await sign();
    await rig.gate.handle(call(p));
    expectCode(await rig.gate.handle(call(p, { fingerprint: 'fp-2' })), 'refuse', 'payment_bound_to_other_request');
  });

  test('a concurrent duplicate → 409 payment_in_progress with Retry-After, one settlement', async () => {
    const p = await sign();
    let release!: () => void;
    const gateOpen = new Promise<void>((r) => (release = r));
    rig.rail.settleAnswers.push(async (payload) => {
      await gateOpen;
      return rig.rail.mine(payload);
    });
    const first = rig.gate.handle(call(p));
    await new Promise((r) => setTimeout(r, 20));
    const dup = await rig.gate.handle(call(p));
    expectCode(dup, 'refuse', 'payment_in_progress');
    assert.ok((dup as { retryAfterSeconds: number }).retryAfterSeconds >= 1);
    release();
    expectCode(await first, 'deliver');
    assert.equal(rig.rail.settled.length, 1);
  });

  test('the lease is renewed while a slow settle is in flight: a duplicate never takes over', async () => {
    // Real time, so the lease would lapse twice over during the settle without renewal.
    const leaseMs = 1200;
    const r = await makeRig({ leaseMs });
    r.clock.t = Date.now();
    r.rail.chain.blockTime = r.clock.t / 1000;
    const p = await sign({ r });
    const gate = new PaymentGate({ ledger: r.ledger, rail: r.rail, leaseMs, now: () => Date.now() });
    r.rail.settleAnswers.push(async (payload) => {
      await new Promise((res) => setTimeout(res, 3 * leaseMs));
      return r.rail.mine(payload);
    });
    const first = gate.handle(call(p));
    const dups: GateOutcome[] = [];
    for (let i = 0; i < 5; i++) {
      await new Promise((res) => setTimeout(res, leaseMs / 2));
      dups.push(await gate.handle(call(p)));
    }
    expectCode(await first, 'deliver');
    for (const d of dups) expectCode(d, 'refuse', 'payment_in_progress');
    assert.equal(r.rail.settled.length, 1, 'one settle only');
  });

  test('a renewal that fails is logged, not fatal', async () => {
    const warnings: string[] = [];
    const r = await makeRig({
      leaseMs: 150,
      wrap: (l) => Object.assign(Object.create(Object.getPrototypeOf(l)), l, { renew: () => Promise.reject(new Error('db gone')) }) as Ledger,
    });
    const gate = new PaymentGate({ ledger: r.ledger, rail: r.rail, leaseMs: 150, now: () => Date.now(), log: { warn: (_o, m) => warnings.push(m), error() {}, info() {} } });
    r.rail.settleAnswers.push(async (payload) => {
      await new Promise((res) => setTimeout(res, 200));
      return r.rail.mine(payload);
    });
    r.rail.chain.blockTime = Date.now() / 1000;
    r.clock.t = Date.now();
    expectCode(await gate.handle(call(await sign({ r }))), 'deliver');
    assert.ok(warnings.includes('lease renewal failed'));
  });
});

describe('faults before settlement', () => {
  test('verify: facilitator unavailable → 503, still reserved and free; the retry proceeds', async () => {
    const p = await sign();
    rig.rail.verifyAnswers.push({ kind: 'unavailable', message: 'down' });
    const o = await rig.gate.handle(call(p));
    expectCode(o, 'refuse', 'facilitator_unavailable');
    assert.equal(await stateOf(p), 'reserved');
    assert.equal((await rig.ledger.get({ id: await idOf(p) }))!.leaseOwner, null);
    expectCode(await rig.gate.handle(call(p)), 'deliver');
  });

  test('verify: refused by the facilitator → failed for good (nothing was broadcast)', async () => {
    const p = await sign();
    rig.rail.verifyAnswers.push({ kind: 'invalid', reason: 'insufficient_funds', message: 'no money' });
    expectCode(await rig.gate.handle(call(p)), 'challenge', 'payment_invalid');
    assert.equal(await stateOf(p), 'failed');
    expectCode(await rig.gate.handle(call(p)), 'challenge', 'payment_invalid');
    assert.equal(rig.rail.verified.length, 1);
  });

  test('the handler throws → failed handler_failed, never settled', async () => {
    const p = await sign();
    const o = await rig.gate.handle(call(p, { execute: () => { throw new Error('boom'); } }));
    expectCode(o, 'refuse', 'handler_failed');
    assert.equal(await stateOf(p), 'failed');
    assert.equal(rig.rail.settled.length, 0);
  });

  test('the handler throws a non-Error → the same', async () => {
    const p = await sign();
    expectCode(await rig.gate.handle(call(p, { execute: () => { throw 'nope'; } })), 'refuse', 'handler_failed');
  });

  test('the handler is stopped over its budget (worker pool) → failed handler_over_budget, never settled', async () => {
    const p = await sign();
    const o = await rig.gate.handle(call(p, { execute: () => { throw new ServiceError('handler_over_budget', 'over budget'); } }));
    expectCode(o, 'refuse', 'handler_over_budget');
    assert.equal(await stateOf(p), 'failed');
    assert.equal(rig.rail.settled.length, 0);
  });

  test('the authorization nears expiry between verify and settle → 402 payment_expired, settle never sent; failed only once the chain shows it dead', async () => {
    const p = await sign();
    const o = await rig.gate.handle(call(p, { execute: () => {
      rig.clock.t += 295_000;
      return { status: 200, contentType: 'application/json', body: '{}' };
    } }));
    expectCode(o, 'challenge', 'payment_expired');
    assert.equal(rig.rail.settled.length, 0);
    assert.equal(await stateOf(p), 'executed', 'not final: the chain has not spoken');
    // A retry still within the margin gets the same answer.
    expectCode(await rig.gate.handle(call(p)), 'challenge', 'payment_expired');
    // The reconciler leaves a still-valid executed attempt alone, then fails it once the chain is past validBefore.
    assert.equal((await reconcileOnce(rig.ledger, (n) => rig.rail.chainFor(n), () => rig.clock.t)).expired, 0);
    rig.clock.t += 60_000;
    rig.rail.chain.blockTime = rig.clock.t / 1000;
    assert.equal((await reconcileOnce(rig.ledger, (n) => rig.rail.chainFor(n), () => rig.clock.t)).expired, 1);
    assert.equal(await stateOf(p), 'failed');
    expectCode(await rig.gate.handle(call(p)), 'challenge', 'payment_expired');
  });

  test('settle provably not sent (facilitator unreachable) → executed, 503; the retry settles', async () => {
    const p = await sign();
    rig.rail.settleAnswers.push({ kind: 'not-sent', message: 'ECONNREFUSED' });
    expectCode(await rig.gate.handle(call(p)), 'refuse', 'facilitator_unavailable');
    assert.equal(await stateOf(p), 'executed');
    expectCode(await rig.gate.handle(call(p)), 'deliver');
    assert.equal(rig.rail.settled.length, 2);
  });

  test('the ledger is unavailable → 503 ledger_unavailable, nothing sent', async () => {
    const r = await makeRig({ wrap: (l) => new Proxy(l, { get: (t, k, rcv) => (k === 'reserve' ? () => Promise.reject(new LedgerUnavailableError(new Error('gone'))) : Reflect.get(t, k, rcv)) }) });
    expectCode(await r.gate.handle(call(await sign({ r }))), 'refuse', 'ledger_unavailable');
    assert.equal(r.rail.verified.length, 0);
  });

  test('other errors are not swallowed', async () => {
    const r = await makeRig({ wrap: (l) => new Proxy(l, { get: (t, k, rcv) => (k === 'reserve' ? () => Promise.reject(new TypeError('bug')) : Reflect.get(t, k, rcv)) }) });
    await assert.rejects(r.gate.handle(call(await sign({ r }))), TypeError);
  });

  test('a reserved row that cannot be read back → 503 service_unavailable', async () => {
    const r = await makeRig({ wrap: (l) => new Proxy(l, { get: (t, k, rcv) => (k === 'reserve' ? async () => ({ created: false, attempt: undefined }) : Reflect.get(t, k, rcv)) }) });
    expectCode(await r.gate.handle(call(await sign({ r }))), 'refuse', 'service_unavailable');
  });

  test('storing the result fails → 503 ledger_unavailable, never settled', async () => {
    const r = await makeRig({ wrap: (l) => new Proxy(l, { get: (t, k, rcv) => (k === 'advance' ? () => Promise.reject(new LedgerUnavailableError(new Error('gone'))) : Reflect.get(t, k, rcv)) }) });
    expectCode(await r.gate.handle(call(await sign({ r }))), 'refuse', 'ledger_unavailable');
    assert.equal(r.rail.settled.length, 0);
  });
});

describe('after settle is sent', () => {
  test('settled on chain but the ledger write fails → delivered; the reconciler records it', async () => {
    let failSettledWrite = true;
    const r = await makeRig({
      wrap: (l) =>
        new Proxy(l, {
          get: (t, k, rcv) => {
            const v = Reflect.get(t, k, rcv);
            if (k !== 'advance') return typeof v === 'function' ? v.bind(t) : v;
            return (args: Parameters<Ledger['advance']>[0]) =>
              failSettledWrite && args.steps.some((s) => s.to === 'settled') ? Promise.reject(new LedgerUnavailableError(new Error('gone'))) : t.advance(args);
          },
        }),
    });
    const p = await sign({ r });
    const o = await r.gate.handle(call(p));
    expectCode(o, 'deliver');
    assert.equal(await stateOf(p, r), 'settling');
    failSettledWrite = false;
    await r.ledger.release({ id: await idOf(p, r), owner: r.gate.instanceId });
    const report = await reconcileOnce(r.ledger, (n) => r.rail.chainFor(n), () => r.clock.t);
    assert.equal(report.settled, 1);
    assert.equal(await stateOf(p, r), 'settled');
    assert.match((await r.ledger.get({ id: await idOf(p, r) }))!.txHash!, /^0x/);
  });

  test('settle outcome unknown → unknown, 503; the retry finds it used on chain and delivers without settling again', async () => {
    const p = await sign();
    rig.rail.settleAnswers.push((payload) => {
      rig.rail.mine(payload);
      return { kind: 'unknown', message: 'timeout' };
    });
    expectCode(await rig.gate.handle(call(p)), 'refuse', 'settlement_unknown');
    assert.equal(await stateOf(p), 'unknown');
    const o = await rig.gate.handle(call(p));
    expectCode(o, 'deliver');
    assert.equal((o as { replayed: boolean }).replayed, true);
    assert.match((o as { paymentResponse: { transaction: string } }).paymentResponse.transaction, /^0x/);
    assert.equal(rig.rail.settled.length, 1);
  });

  test('settle outcome unknown, not on chain, still valid → the retry settles the bound payload again', async () => {
    const p = await sign();
    rig.rail.settleAnswers.push({ kind: 'unknown', message: '5xx' });
    await rig.gate.handle(call(p));
    const retry = structuredClone(p);
    retry.extensions = { ...retry.extensions, tampered: true };
    expectCode(await rig.gate.handle(call(retry)), 'deliver');
    assert.equal(rig.rail.settled.length, 2);
    assert.deepEqual(rig.rail.settled[1], rig.rail.settled[0], 'the bound payload, not the caller\'s copy');
    assert.deepEqual(Object.keys(rig.rail.settled[1]!.extensions ?? {}), ['payment-identifier']);
  });

  test('settlement_pending (refused, transfer broadcast): unknown, 503 Retry-After; mined later → the retry delivers', async () => {
    const p = await sign();
    rig.rail.settleAnswers.push(pending(p));
    const o = await rig.gate.handle(call(p));
    expectCode(o, 'refuse', 'settlement_unknown');
    assert.ok((o as { retryAfterSeconds: number }).retryAfterSeconds >= 1);
    assert.equal(await stateOf(p), 'unknown');
    rig.rail.chain.used.set(rig.rail.nonce(p), ('0x' + 'ab'.repeat(32)) as Hex);
    const later = await rig.gate.handle(call(p));
    expectCode(later, 'deliver');
    assert.equal((later as { paymentResponse: { transaction: string } }).paymentResponse.transaction, '0x' + 'ab'.repeat(32));
  });

  test('settle refused, then found used on chain in the same request → delivered as a fresh delivery', async () => {
    const p = await sign();
    rig.rail.settleAnswers.push((payload) => {
      rig.rail.mine(payload);
      return pending(payload);
    });
    const o = await rig.gate.handle(call(p));
    expectCode(o, 'deliver');
    assert.equal((o as { replayed: boolean }).replayed, false);
  });

  test('settle refused and the chain shows it dead (unused past validBefore) → failed settlement_failed with the refusal', async () => {
    const p = await sign();
    rig.rail.settleAnswers.push(pending(p));
    rig.rail.chain.blockTime = rig.clock.t / 1000 + 10_000;
    const o = await rig.gate.handle(call(p));
    expectCode(o, 'challenge', 'settlement_failed');
    assert.equal((o as { paymentResponse: { success: boolean } }).paymentResponse.success, false);
    assert.equal(await stateOf(p), 'failed');
    expectCode(await rig.gate.handle(call(p)), 'challenge', 'settlement_failed');
  });

  test('settle refused and the chain unreadable → unknown, 503', async () => {
    const p = await sign();
    rig.rail.settleAnswers.push(pending(p));
    rig.rail.chain.failure = new Error('rpc down');
    expectCode(await rig.gate.handle(call(p)), 'refuse', 'settlement_unknown');
    assert.equal(await stateOf(p), 'unknown');
  });

  test('an unknown attempt whose chain is unreadable on retry stays unknown', async () => {
    const p = await sign();
    rig.rail.settleAnswers.push({ kind: 'unknown', message: 'x' });
    await rig.gate.handle(call(p));
    rig.rail.chain.failure = new Error('rpc down');
    expectCode(await rig.gate.handle(call(p)), 'refuse', 'settlement_unknown');
    assert.equal(rig.rail.settled.length, 1);
  });

  test('used on chain but the transaction cannot be found → no receipt without a transaction: 503, still unknown', async () => {
    const p = await sign();
    rig.rail.settleAnswers.push({ kind: 'unknown', message: 'x' });
    await rig.gate.handle(call(p));
    rig.rail.chain.used.set(rig.rail.nonce(p), undefined);
    expectCode(await rig.gate.handle(call(p)), 'refuse', 'settlement_unknown');
    assert.equal(await stateOf(p), 'unknown');
    const report = await reconcileOnce(rig.ledger, (n) => rig.rail.chainFor(n), () => rig.clock.t);
    assert.equal(report.stillUnknown, 1);
  });

  test('an unknown attempt too close to validBefore is not settled again: 503 until the chain decides', async () => {
    const p = await sign();
    rig.rail.settleAnswers.push({ kind: 'unknown', message: 'x' });
    await rig.gate.handle(call(p));
    rig.clock.t += 295_000;
    expectCode(await rig.gate.handle(call(p)), 'refuse', 'settlement_unknown');
    assert.equal(rig.rail.settled.length, 1);
    rig.clock.t += 60_000;
    rig.rail.chain.blockTime = rig.clock.t / 1000;
    const o = await rig.gate.handle(call(p));
    expectCode(o, 'challenge', 'payment_expired');
    assert.equal(await stateOf(p), 'failed');
  });

  test('a crash after `settling` was written: the retry asks the chain, then settles the bound payload', async () => {
    const p = await sign();
    rig.rail.settleAnswers.push(() => new Promise(() => {})); // the process "dies" while settle is in flight
    void rig.gate.handle(call(p));
    await new Promise((r) => setTimeout(r, 30));
    assert.equal(await stateOf(p), 'settling');
    const restarted = new PaymentGate({ ledger: rig.ledger, rail: rig.rail, leaseMs: 20_000, now: () => rig.clock.t });
    await rig.ledger.release({ id: await idOf(p), owner: rig.gate.instanceId });
    const reads = rig.rail.chain.reads;
    expectCode(await restarted.handle(call(p)), 'deliver');
    assert.equal(rig.rail.chain.reads, reads + 1, 'the chain was asked first');
  });

  test('lease lost mid-flight (another instance took over) → 409, never a second delivery path', async () => {
    const p = await sign();
    const id = await idOf(p);
    rig.rail.settleAnswers.push(async (payload) => {
      await rig.db.run('UPDATE payment_attempts SET lease_owner = ?, lease_until = ? WHERE id = ?', ['someone-else', rig.clock.t + 60_000, id]);
      return { kind: 'unknown', message: 'x' };
    });
    const o = await rig.gate.handle(call(p));
    expectCode(o, 'refuse', 'settlement_unknown');
    expectCode(await rig.gate.handle(call(p)), 'refuse', 'payment_in_progress');
  });

  test('another instance settled it while this request was settling → the stored result, not a second delivery path', async () => {
    const p = await sign();
    const id = await idOf(p);
    rig.rail.settleAnswers.push(async () => {
      await rig.db.run("UPDATE payment_attempts SET state = 'settled', settle_response = ?, lease_owner = NULL WHERE id = ?", [JSON.stringify({ success: true, transaction: '0x' + '01'.repeat(32), network: 'eip155:31337' }), id]);
      return { kind: 'unknown', message: 'x' };
    });
    const o = await rig.gate.handle(call(p));
    expectCode(o, 'refuse', 'settlement_unknown');
    const again = await rig.gate.handle(call(p));
    expectCode(again, 'deliver');
    assert.equal((again as { replayed: boolean }).replayed, true);
  });

  test('answers without a payer are completed with the authorization\'s from', async () => {
    const p = await sign();
    rig.rail.verifyAnswers.push({ kind: 'valid', response: { isValid: true } });
    rig.rail.settleAnswers.push((payload) => {
      const r = rig.rail.mine(payload) as { kind: 'settled'; response: { payer?: string } };
      delete r.response.payer;
      return r as never;
    });
    const o = await rig.gate.handle(call(p));
    expectCode(o, 'deliver');
    assert.equal((o as { paymentResponse: { payer: string } }).paymentResponse.payer, BUYER.address);
  });

  test('lease lost before settle → nothing sent, 409', async () => {
    const p = await sign();
    const id = await idOf(p);
    const o = await rig.gate.handle(call(p, { execute: async () => {
      await rig.db.run('UPDATE payment_attempts SET lease_owner = ? WHERE id = ?', ['someone-else', id]);
      return { status: 200, contentType: 'application/json', body: '{}' };
    } }));
    expectCode(o, 'refuse', 'payment_in_progress');
    assert.equal(rig.rail.settled.length, 0);
  });
});

describe('payment-identifier', () => {
  const ext = (id: string) => ({ 'payment-identifier': { info: { required: false, id } } });

  test('a new authorization under a settled id and the same request → the cached result, verified, never settled', async () => {
    const id = 'pay_' + 'd'.repeat(28);
    const p1 = await sign();
    p1.extensions = ext(id);
    const first = await rig.gate.handle(call(p1));
    const p2 = await sign();
    p2.extensions = ext(id);
    const second = await rig.gate.handle(call(p2));
    expectCode(second, 'deliver');
    assert.deepEqual((second as { response: unknown }).response, (first as { response: unknown }).response);
    assert.equal(rig.rail.settled.length, 1);
    assert.equal(rig.rail.verified.length, 2);
  });

  test('verify refuses or is unavailable → 402 / 503, no result', async () => {
    const id = 'pay_' + 'e'.repeat(28);
    const p1 = await sign();
    p1.extensions = ext(id);
    await rig.gate.handle(call(p1));
    const p2 = await sign();
    p2.extensions = ext(id);
    rig.rail.verifyAnswers.push({ kind: 'invalid', reason: 'nonce_used', message: 'used' }, { kind: 'unavailable', message: 'down' });
    expectCode(await rig.gate.handle(call(p2)), 'challenge', 'payment_invalid');
    expectCode(await rig.gate.handle(call(p2)), 'refuse', 'facilitator_unavailable');
  });

  test('another request, a failed or an unfinished earlier payment → conflict or in progress', async () => {
    const id = 'pay_' + 'f'.repeat(28);
    const p1 = await sign();
    p1.extensions = ext(id);
    rig.rail.settleAnswers.push({ kind: 'unknown', message: 'x' });
    await rig.gate.handle(call(p1));
    const p2 = await sign();
    p2.extensions = ext(id);
    expectCode(await rig.gate.handle(call(p2)), 'refuse', 'payment_in_progress');
    expectCode(await rig.gate.handle(call(p2, { fingerprint: 'fp-other' })), 'refuse', 'payment_identifier_conflict');

    const id2 = 'pay_' + 'g'.repeat(28);
    const p3 = await sign();
    p3.extensions = ext(id2);
    rig.rail.verifyAnswers.push({ kind: 'invalid', reason: 'x', message: 'x' });
    await rig.gate.handle(call(p3));
    const p4 = await sign();
    p4.extensions = ext(id2);
    expectCode(await rig.gate.handle(call(p4)), 'refuse', 'payment_identifier_conflict');
  });
});

describe('reconciler', () => {
  test('leaves alive attempts alone and counts an unreadable chain', async () => {
    const p = await sign();
    rig.rail.settleAnswers.push({ kind: 'unknown', message: 'x' });
    await rig.gate.handle(call(p));
    assert.deepEqual(await reconcileOnce(rig.ledger, (n) => rig.rail.chainFor(n), () => rig.clock.t), { examined: 1, settled: 0, expired: 0, stillUnknown: 1 });
    rig.rail.chain.failure = new Error('down');
    assert.deepEqual(await reconcileOnce(rig.ledger, (n) => rig.rail.chainFor(n), () => rig.clock.t), { examined: 1, settled: 0, expired: 0, stillUnknown: 1 });
  });

  test('an unknown attempt never refused, dead on chain → failed payment_expired; a refused one → settlement_failed', async () => {
    const p = await sign();
    rig.rail.settleAnswers.push({ kind: 'unknown', message: 'x' });
    await rig.gate.handle(call(p));
    const q = await sign();
    rig.rail.settleAnswers.push(pending(q), pending(q));
    await rig.gate.handle(call(q));
    rig.clock.t += 400_000;
    rig.rail.chain.blockTime = rig.clock.t / 1000;
    const report = await reconcileOnce(rig.ledger, (n) => rig.rail.chainFor(n), () => rig.clock.t);
    assert.equal(report.expired, 2);
    assert.equal((await rig.ledger.get({ id: await idOf(p) }))!.failureCode, 'payment_expired');
    assert.equal((await rig.ledger.get({ id: await idOf(q) }))!.failureCode, 'settlement_failed');
  });
});
