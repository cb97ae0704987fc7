/**
 * The reconciler's loop (startReconciler), on a ledger and a chain that
 * answer in memory: a ledger that throws does not stop it, and stop() does.
 * What one round decides (settled, expired, still unknown) is tested on the
 * gate's rig in gate.test.ts ("reconciler").
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Hex } from 'viem';
import type { PaymentAttempt } from '../store/ledger.js';
import type { ChainReader } from './chain.js';
import { EvmChain } from './chains/evm.js';
import { startReconciler, type ReconcileReport, type Reconciler, type ReconcilerLedger } from './reconciler.js';

const TX = `0x${'ab'.repeat(32)}` as Hex;

/** An attempt whose settle was sent and never answered: `unknown`, its result stored. */
function unknownAttempt(): PaymentAttempt {
  return {
    id: 'a1',
    network: 'eip155:31337',
    asset: `0x${'11'.repeat(20)}`,
    payer: `0x${'22'.repeat(20)}`,
    nonce: `0x${'33'.repeat(32)}`,
    amount: '1000',
    state: 'unknown',
    validBefore: Math.floor(Date.now() / 1000) + 3600,
    response: { status: 200, contentType: 'application/json', body: '{}' },
    settleResponse: null,
    failureDetail: null,
  } as unknown as PaymentAttempt;
}

/** The chain shows every authorization used, by TX. */
const usedOnChain: ChainReader = {
  authorizationState: async () => ({ used: true, blockTime: Math.floor(Date.now() / 1000) }),
  authorizationTransaction: async () => TX,
  verifyTypedData: async () => true,
};
const onChain = (network: string) => new EvmChain(network, usedOnChain);

/** A ledger whose listUnresolved throws `failures` times, then lists `attempt` while it is unresolved. */
function flakyLedger(failures: number, attempt: PaymentAttempt) {
  const state = { failed: 0, settled: undefined as { to: string; txHash?: string } | undefined, lists: 0 };
  const ledger: ReconcilerLedger = {
    listUnresolved: async () => {
      state.lists++;
      if (state.failed < failures) {
        state.failed++;
        throw new Error('ledger down');
      }
      return state.settled ? [] : [attempt];
    },
    transitionUnleased: async ({ id, from, to, patch }) => {
      assert.equal(id, attempt.id);
      assert.equal(from, 'unknown');
      state.settled = { to, txHash: patch.txHash };
      return true;
    },
  };
  return { ledger, state };
}

/**
 * The first report of a reconciler started with `start`, and its stop. Its
 * timer is unref'd, so the test holds the event loop open, for a bounded
 * while: a reconciler that never reports leaves the test pending, which fails it.
 */
async function firstReport(start: (onReport: (r: ReconcileReport) => void) => Reconciler): Promise<{ report: ReconcileReport; stop: () => void }> {
  const hold = setTimeout(() => {}, 10_000);
  let stop: () => void = () => {};
  try {
    const report = await new Promise<ReconcileReport>((resolve) => {
      const r = start(resolve);
      stop = () => r.stop();
    });
    return { report, stop };
  } finally {
    clearTimeout(hold);
  }
}

test('startReconciler survives a ledger that throws: once the ledger answers, the next round records the settlement from the chain', async () => {
  const { ledger, state } = flakyLedger(3, unknownAttempt());
  const { report, stop } = await firstReport((onReport) => startReconciler(ledger, onChain, 5, onReport));
  stop();
  assert.equal(state.failed, 3, 'the rounds that met a throwing ledger ran, and the loop went on');
  assert.deepEqual(report, { examined: 1, settled: 1, expired: 0, stillUnknown: 0 });
  assert.deepEqual(state.settled, { to: 'settled', txHash: TX });
});

test('startReconciler stops: after stop() no round asks the ledger again', async () => {
  const { ledger, state } = flakyLedger(0, unknownAttempt());
  const { stop } = await firstReport((onReport) => startReconciler(ledger, onChain, 5, onReport));
  stop();
  const lists = state.lists;
  // Several intervals' worth of turns: a live timer would have listed again.
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 5));
  assert.equal(state.lists, lists);
});

/** Wait `rounds` intervals of `ms`, holding the event loop open (the reconciler's timers are unref'd). */
async function intervals(rounds: number, ms: number): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise((r) => setTimeout(r, ms));
}

test('an idle reconciler does not poll: a round that finds nothing ends the loop until a paid call wakes it', async () => {
  const { ledger, state } = flakyLedger(0, unknownAttempt());
  const reports: ReconcileReport[] = [];
  const r = startReconciler(ledger, onChain, 5, (x) => reports.push(x));
  try {
    await intervals(8, 5);
    // Round one settles the attempt, round two finds nothing: then it stops asking.
    assert.equal(state.lists, 2, 'a round after the one that found nothing would have listed again');
    assert.deepEqual(reports, [{ examined: 1, settled: 1, expired: 0, stillUnknown: 0 }]);
    await intervals(8, 5);
    assert.equal(state.lists, 2, 'idle: the ledger is not asked again');
    r.wake();
    await intervals(4, 5);
    assert.equal(state.lists, 3, 'a wake makes one round');
    r.wake();
    r.wake();
    await intervals(4, 5);
    assert.equal(state.lists, 4, 'wakes before the round collapse into one');
  } finally {
    r.stop();
  }
});

test('a steady reconciler (a ledger shared with other instances) sweeps every interval even when it finds nothing', async () => {
  const { ledger, state } = flakyLedger(0, unknownAttempt());
  const r = startReconciler(ledger, onChain, 5, undefined, { steady: true });
  try {
    await intervals(10, 5);
    assert.ok(state.lists >= 4, `listed ${state.lists} times`);
  } finally {
    r.stop();
  }
});
