/**
 * The gate's promises on the Solana rail, driven through the scripted rail
 * (real local checks of real signed Solana transactions, a scripted
 * facilitator and chain) against a real SQLite ledger. The same table of
 * steps as the EVM rail (gate.test.ts); what differs is the chain: an
 * authorization is a buyer-signed transaction, and it is dead only when its
 * blockhash has expired and it is not on chain.
 */
import { describe, test, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KeyPairSigner } from '@solana/kit';
import { openDatabase } from '../store/index.js';
import type { Ledger } from '../store/ledger.js';
import { sha256Hex } from '../foundation/canonical-json.js';
import { PaymentGate, type GateOutcome, type PaidCall } from './gate.js';
import { reconcileOnce } from './reconciler.js';
import type { PaymentPayload, PaymentRequirements } from './rail.js';
import { buyerSignatureOf, ScriptedRail, ScriptedSvmReader } from '../../test/support/scripted-rail.js';
import { readTransaction } from './chains/svm-transaction.js';
import { createSIWxPayload, encodeSIWxHeader } from '@x402/extensions/sign-in-with-x';
import { forgeSignature, solDrain, someBlockhash, svmKey, svmPayment, type SvmPaymentOptions } from '../../test/support/svm-payment.js';

const NETWORK = 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1';
const MINT = '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU';
const PRICE = '1000';

let buyer: KeyPairSigner;
let payee: KeyPairSigner;
let feePayer: KeyPairSigner;
let stranger: KeyPairSigner;

interface Rig {
  gate: PaymentGate;
  rail: ScriptedRail;
  reader: ScriptedSvmReader;
  ledger: Ledger;
  clock: { t: number };
}
let rig: Rig;
let ledgers: Ledger[] = [];

beforeEach(async () => {
  buyer ??= await svmKey('buyer');
  payee ??= await svmKey('payee');
  feePayer ??= await svmKey('fee payer');
  stranger ??= await svmKey('stranger');
  const { ledger } = await openDatabase({ dataDir: mkdtempSync(join(tmpdir(), 'gate-svm-')), sqliteLedgerThread: false });
  ledgers.push(ledger);
  const reader = new ScriptedSvmReader();
  const rail = new ScriptedRail().withSolana({ network: NETWORK, payTo: payee.address, mint: MINT, feePayer: feePayer.address, reader });
  const clock = { t: 1_800_000_000_000 };
  rail.chain.blockTime = clock.t / 1000;
  rig = { gate: new PaymentGate({ ledger, rail, leaseMs: 20_000, now: () => clock.t }), rail, reader, ledger, clock };
});
afterEach(async () => {
  for (const l of ledgers) await l.close().catch(() => {});
  ledgers = [];
});

async function solanaRequirements(): Promise<PaymentRequirements> {
  const all = await rig.rail.requirements(PRICE);
  return all.find((r) => r.network === NETWORK)!;
}

async function pay(o: Partial<SvmPaymentOptions> = {}): Promise<PaymentPayload> {
  return svmPayment({ buyer, requirements: await solanaRequirements(), ...o });
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

function expectCode(o: GateOutcome, kind: GateOutcome['kind'], code?: string) {
  assert.equal(o.kind, kind, JSON.stringify(o));
  if (code) assert.equal((o as { code: string }).code, code, JSON.stringify(o));
}

/** The ledger id of a Solana payment: network, mint, buyer, hash of the signed message. */
function idOf(p: PaymentPayload): string {
  const tx = readTransaction(new Uint8Array(Buffer.from((p.payload as { transaction: string }).transaction, 'base64')));
  if (typeof tx === 'string') throw new Error(tx);
  return sha256Hex([NETWORK, MINT, buyer.address, sha256Hex(tx.messageBytes)].join('|'));
}

async function rowOf(p: PaymentPayload) {
  return rig.ledger.get({ id: idOf(p) });
}

describe('Solana beside Base in one 402', () => {
  test('an unpaid call lists both rails at the same price; the price sentence names both payees', async () => {
    const o = await rig.gate.handle(call(undefined));
    expectCode(o, 'challenge', 'payment_required');
    const accepts = (o as { paymentRequired: { accepts: PaymentRequirements[] } }).paymentRequired.accepts;
    assert.deepEqual(accepts.map((a) => [a.network, a.amount]), [['eip155:31337', PRICE], [NETWORK, PRICE]]);
    assert.equal(accepts[1]!.payTo, payee.address);
    assert.equal((accepts[1]!.extra as { feePayer: string }).feePayer, feePayer.address);
    const price = (o as { price: string }).price;
    assert.match(price, new RegExp(`on ${NETWORK} to ${payee.address}`));
    assert.match(price, /on eip155:31337 to 0x/);
  });

  test('an honest payment is delivered once and settled once; the ledger keys it by buyer and signed message', async () => {
    const p = await pay();
    const o = await rig.gate.handle(call(p));
    expectCode(o, 'deliver');
    const d = o as Extract<GateOutcome, { kind: 'deliver' }>;
    assert.equal(d.paymentResponse.network, NETWORK);
    assert.equal(d.paymentResponse.payer, buyer.address, 'the receipt names the buyer, base58 as it is');
    const row = await rowOf(p);
    assert.equal(row?.state, 'settled');
    assert.equal(row?.payer, buyer.address);
    assert.equal(row?.asset, MINT, 'base58 is case-sensitive: stored as it is');
    assert.equal(rig.rail.settled.length, 1);
    // Only what the facilitator needs was stored and settled: the transaction and the payment identifier.
    assert.deepEqual(Object.keys(rig.rail.settled[0]!.payload), ['transaction']);
  });
});

describe('Solana: Prefer, and the Solana payer\'s sign-in', () => {
  const firstNetwork = (o: GateOutcome | undefined) => (o as { paymentRequired: { accepts: PaymentRequirements[] } }).paymentRequired.accepts[0]!.network;

  test('Prefer: network=solana (or its CAIP-2 id) lists Solana first, answered from its own cache entry; a chain not offered, or the first, changes nothing', async () => {
    for (const prefer of ['solana', NETWORK]) assert.equal(firstNetwork(await rig.gate.handle(call(undefined, { preferNetwork: prefer }))), NETWORK, prefer);
    assert.equal(firstNetwork(rig.gate.cachedChallenge('http://127.0.0.1/x', PRICE, 'solana')), NETWORK);
    for (const prefer of ['bitcoin', 'eip155', undefined]) {
      assert.equal(firstNetwork(await rig.gate.handle(call(undefined, { preferNetwork: prefer }))), 'eip155:31337', String(prefer));
      assert.equal(firstNetwork(rig.gate.cachedChallenge('http://127.0.0.1/x', PRICE, prefer)), 'eip155:31337', String(prefer));
    }
  });

  test('the Solana payer signs in (ed25519) without the payment and gets its result, once; another Solana wallet gets the 402', async () => {
    const first = await rig.gate.handle(call(await pay()));
    expectCode(first, 'deliver');
    const signIn = async (signer: KeyPairSigner) => {
      const declared = (await rig.gate.handle(call(undefined))) as { paymentRequired: { extensions: Record<string, { info: Record<string, string> }> } };
      const info = { ...declared.paymentRequired.extensions['sign-in-with-x']!.info, chainId: NETWORK, type: 'ed25519' };
      return encodeSIWxHeader(await createSIWxPayload(info as never, signer as never, 'http://127.0.0.1/x'));
    };
    const header = await signIn(buyer);
    const again = await rig.gate.handle(call(undefined, { signIn: header }));
    expectCode(again, 'deliver');
    assert.deepEqual((again as { paymentResponse: unknown }).paymentResponse, (first as { paymentResponse: unknown }).paymentResponse);
    expectCode(await rig.gate.handle(call(undefined, { signIn: header })), 'challenge', 'payment_required');
    expectCode(await rig.gate.handle(call(undefined, { signIn: await signIn(stranger) })), 'challenge', 'payment_required');
    assert.equal(rig.rail.settled.length, 1);
  });
});

describe('Solana: local checks before anything is written or sent', () => {
  const cases: Array<[string, () => Promise<PaymentPayload>, RegExp]> = [
    ['pays less than the price', () => pay({ amount: 999n }), /amount/],
    ['pays someone else', async () => pay({ payTo: stranger.address }), /associated token account/],
    ['pays in another mint', async () => pay({ mint: stranger.address }), /mint/],
    ['names another fee payer', async () => pay({ feePayer: stranger.address }), /fee payer/],
    ['also moves SOL out of the buyer\'s wallet', async () => pay({ extra: solDrain(stranger.address) }), /only the compute budget, token and memo programs/],
    ['carries a second token transfer', async () => {
      return pay({ extra: async (b) => {
        const { getTransferCheckedInstruction, findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } = await import('@solana-program/token');
        const { address } = await import('@solana/kit');
        const [src] = await findAssociatedTokenPda({ mint: address(MINT), owner: b.address, tokenProgram: TOKEN_PROGRAM_ADDRESS });
        const [dst] = await findAssociatedTokenPda({ mint: address(MINT), owner: stranger.address, tokenProgram: TOKEN_PROGRAM_ADDRESS });
        return [getTransferCheckedInstruction({ source: src, mint: address(MINT), destination: dst, authority: b, amount: 5_000_000n, decimals: 6 })];
      } });
    }, /exactly one token transfer/],
    ['carries a forged buyer signature', async () => forgeSignature(await pay()), /signature/],
    ['has the facilitator\'s fee payer as the transfer\'s authority', async () => svmPayment({ buyer: feePayer, requirements: await solanaRequirements() }), /fee payer|two signers/],
    ['is not a transaction', async () => ({ ...(await pay()), payload: { transaction: 'bm90IGEgdHJhbnNhY3Rpb24=' } }) as PaymentPayload, /not acceptable/],
    ['is larger than a packet', async () => ({ ...(await pay()), payload: { transaction: 'A'.repeat(4000) } }) as PaymentPayload, /at most 1232 bytes/],
  ];
  for (const [what, make, why] of cases) {
    test(`a transaction that ${what} is refused: no ledger row, nothing verified or settled`, async () => {
      const p = await make();
      const o = await rig.gate.handle(call(p));
      expectCode(o, 'challenge', 'payment_invalid');
      assert.match((o as { message: string }).message, why);
      assert.equal(rig.rail.verified.length, 0);
      assert.equal(rig.rail.settled.length, 0);
      assert.deepEqual(await rig.ledger.listUnresolved({ now: rig.clock.t + 3_600_000, limit: 10 }), []);
    });
  }
});

describe('Solana: one delivery per authorization, redelivery only with proof', () => {
  test('the same payment again: without its identifier no result; with it the stored result, never settled twice', async () => {
    const p = await pay();
    expectCode(await rig.gate.handle(call(p)), 'deliver');
    const bare = { ...p, extensions: undefined } as PaymentPayload;
    expectCode(await rig.gate.handle(call(bare)), 'challenge', 'redelivery_proof_required');
    const again = await rig.gate.handle(call(p));
    expectCode(again, 'deliver');
    assert.equal((again as { replayed: boolean }).replayed, true);
    assert.equal(rig.rail.settled.length, 1);
  });

  test('the transaction as the chain shows it (fee payer\'s signature filled in) proves nothing', async () => {
    const p = await pay();
    expectCode(await rig.gate.handle(call(p)), 'deliver');
    const wire = Buffer.from((p.payload as { transaction: string }).transaction, 'base64');
    wire.fill(7, 1, 65); // the fee payer's signature slot, as anyone reading the chain has it
    const copied = { x402Version: 2, accepted: p.accepted, payload: { transaction: wire.toString('base64') } } as PaymentPayload;
    const o = await rig.gate.handle(call(copied));
    expectCode(o, 'challenge', 'redelivery_proof_required');
    assert.equal(rig.rail.settled.length, 1);
  });

  test('bound to one request: the same payment for another body is refused', async () => {
    const p = await pay();
    expectCode(await rig.gate.handle(call(p)), 'deliver');
    expectCode(await rig.gate.handle(call(p, { fingerprint: 'fp-2' })), 'refuse', 'payment_bound_to_other_request');
  });
});

describe('Solana: faults at settlement, resolved from the chain', () => {
  test('facilitator unreachable at settle: nothing delivered; the retry settles and delivers', async () => {
    const p = await pay();
    rig.rail.settleAnswers.push({ kind: 'not-sent', message: 'ECONNREFUSED' });
    expectCode(await rig.gate.handle(call(p)), 'refuse', 'facilitator_unavailable');
    expectCode(await rig.gate.handle(call(p)), 'deliver');
    assert.equal(rig.rail.settled.length, 2);
  });

  test('answer lost after broadcast, transaction landed: the retry delivers with the chain\'s transaction, not settling again', async () => {
    const p = await pay();
    rig.rail.settleAnswers.push((payload) => {
      rig.reader.landed.set(buyerSignatureOf(payload), { signature: 'LandedTx1111', failed: false });
      return { kind: 'unknown', message: 'socket hang up' };
    });
    expectCode(await rig.gate.handle(call(p)), 'refuse', 'settlement_unknown');
    const o = await rig.gate.handle(call(p));
    expectCode(o, 'deliver');
    assert.equal((o as { paymentResponse: { transaction: string } }).paymentResponse.transaction, 'LandedTx1111');
    assert.equal(rig.rail.settled.length, 1);
  });

  test('settlement pending: unknown while the blockhash lives; failed only once it expired and the transaction is not on chain', async () => {
    const blockhash = someBlockhash();
    const p = await pay({ blockhash });
    rig.rail.settleAnswers.push({ kind: 'failed', response: { success: false, errorReason: 'settlement_pending', transaction: '', network: NETWORK } });
    expectCode(await rig.gate.handle(call(p)), 'refuse', 'settlement_unknown');
    // Past the estimate of its lifetime, but the chain says the blockhash still lives: not failed.
    rig.clock.t += 120_000;
    assert.deepEqual(await reconcileOnce(rig.ledger, (n) => rig.rail.chainFor(n), () => rig.clock.t), { examined: 1, settled: 0, expired: 0, stillUnknown: 1 });
    rig.reader.expired.add(blockhash);
    assert.deepEqual(await reconcileOnce(rig.ledger, (n) => rig.rail.chainFor(n), () => rig.clock.t), { examined: 1, settled: 0, expired: 1, stillUnknown: 0 });
    const row = await rowOf(p);
    assert.equal(row?.state, 'failed');
    assert.equal(row?.failureCode, 'settlement_failed');
  });

  test('settlement pending, then the transaction lands late: the reconciler records it and the retry delivers', async () => {
    const p = await pay();
    rig.rail.settleAnswers.push({ kind: 'failed', response: { success: false, errorReason: 'settlement_pending', transaction: '', network: NETWORK } });
    expectCode(await rig.gate.handle(call(p)), 'refuse', 'settlement_unknown');
    rig.reader.landed.set(buyerSignatureOf(p), { signature: 'LateTx2222', failed: false });
    assert.equal((await reconcileOnce(rig.ledger, (n) => rig.rail.chainFor(n), () => rig.clock.t)).settled, 1);
    const o = await rig.gate.handle(call(p));
    expectCode(o, 'deliver');
    assert.equal((o as { paymentResponse: { transaction: string } }).paymentResponse.transaction, 'LateTx2222');
  });

  test('landed but failed on chain (its transfer did not happen): failed, nothing delivered', async () => {
    const p = await pay();
    rig.rail.settleAnswers.push((payload) => {
      rig.reader.landed.set(buyerSignatureOf(payload), { signature: 'FailedTx3333', failed: true });
      return { kind: 'failed', response: { success: false, errorReason: 'transaction_failed', transaction: 'FailedTx3333', network: NETWORK } };
    });
    const o = await rig.gate.handle(call(p));
    expectCode(o, 'challenge', 'settlement_failed');
    assert.equal((await rowOf(p))?.state, 'failed');
  });

  test('crash after settle (the settled record never written): delivered, then the reconciler records it from the chain with its transaction', async () => {
    const p = await pay();
    // This instance's ledger loses the write that records the settlement, as a crash right after settle would.
    const dying = new Proxy(rig.ledger, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver) as unknown;
        if (typeof value !== 'function') return value;
        if (prop !== 'advance') return value.bind(target);
        return async (args: Parameters<Ledger['advance']>[0]) => {
          if (args.steps.some((step) => step.to === 'settled')) throw new Error('the process died before this write');
          return (value as Ledger['advance']).call(target, args);
        };
      },
    });
    const gate = new PaymentGate({ ledger: dying, rail: rig.rail, leaseMs: 20_000, now: () => rig.clock.t });
    const o = await gate.handle(call(p));
    expectCode(o, 'deliver');
    const tx = (o as { paymentResponse: { transaction: string } }).paymentResponse.transaction;
    assert.equal((await rowOf(p))?.state, 'settling');
    assert.equal((await reconcileOnce(rig.ledger, (n) => rig.rail.chainFor(n), () => rig.clock.t + 60_000)).settled, 1);
    const row = await rowOf(p);
    assert.equal(row?.state, 'settled');
    assert.equal(row?.txHash, tx);
    assert.equal(rig.rail.settled.length, 1, 'never settled again');
  });

  test('chain unreadable while unknown: stays unknown (never failed on a guess)', async () => {
    const p = await pay();
    rig.rail.settleAnswers.push({ kind: 'unknown', message: 'timeout' });
    expectCode(await rig.gate.handle(call(p)), 'refuse', 'settlement_unknown');
    rig.reader.failure = new Error('rpc down');
    expectCode(await rig.gate.handle(call(p)), 'refuse', 'settlement_unknown');
    rig.clock.t += 3_600_000;
    assert.equal((await reconcileOnce(rig.ledger, (n) => rig.rail.chainFor(n), () => rig.clock.t)).stillUnknown, 1);
    assert.equal((await rowOf(p))?.state, 'unknown');
  });

  test('verify refused (an expired blockhash fails simulation): failed, nothing sent to settle', async () => {
    const p = await pay();
    rig.rail.verifyAnswers.push({ kind: 'invalid', reason: 'transaction_simulation_failed', message: 'Blockhash not found' });
    expectCode(await rig.gate.handle(call(p)), 'challenge', 'payment_invalid');
    assert.equal(rig.rail.settled.length, 0);
    assert.equal((await rowOf(p))?.state, 'failed');
  });
});
