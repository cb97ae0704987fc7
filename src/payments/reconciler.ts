/**
 * Resolves attempts whose settlement was not recorded (a crash, a timeout, a
 * 5xx, a refused settle that may still be mined) from the chain. It never
 * sends a settlement itself: an unused, still-valid authorization is left for
 * the buyer's retry, which settles it and delivers the stored result.
 *
 * The rule for `failed` is the gate's: only when the payment's chain says
 * no transfer can ever happen (chains/: EVM, unused at a block at or past
 * `validBefore`; Solana, the blockhash expired and the transaction not on chain).
 */
import type { Ledger, PaymentAttempt } from '../store/ledger.js';
import type { ChainFate, PaymentChain } from './chains/payment-chain.js';
import type { SettleResponse } from './rail.js';
import { metrics } from '../observability/metrics.js';

export interface ReconcileReport {
  examined: number;
  settled: number;
  expired: number;
  stillUnknown: number;
}

/** What the reconciler asks the ledger: the attempts left unresolved, and to resolve one nobody holds. */
export type ReconcilerLedger = Pick<Ledger, 'listUnresolved' | 'transitionUnleased'>;

/** The chain of a network attempts were made on (the rail's `chainFor`). */
export type ChainOf = (network: string) => PaymentChain | undefined;

export async function reconcileOnce(ledger: ReconcilerLedger, chainOf: ChainOf, now: () => number, limit = 100): Promise<ReconcileReport> {
  const report: ReconcileReport = { examined: 0, settled: 0, expired: 0, stillUnknown: 0 };
  for (const a of await ledger.listUnresolved({ now: now(), limit })) {
    report.examined++;
    await reconcileAttempt(ledger, chainOf, a, now, report);
  }
  return report;
}

async function reconcileAttempt(ledger: ReconcilerLedger, chainOf: ChainOf, a: PaymentAttempt, now: () => number, report: ReconcileReport): Promise<void> {
  // Settlement never sent: nothing to look up while the buyer may still retry.
  if (a.state === 'executed' && a.validBefore > now() / 1000) return;
  let fate: ChainFate;
  try {
    const chain = chainOf(a.network);
    // A network this instance does not take now: left for an instance that does.
    if (!chain) throw new Error(`no chain for ${a.network}`);
    fate = await chain.fate(a);
  } catch {
    report.stillUnknown++;
    return;
  }
  if (fate.kind === 'used') {
    // A receipt always carries its transaction: without it the attempt waits for the next round.
    const tx = fate.transaction;
    if (!tx || !a.response) {
      report.stillUnknown++;
      return;
    }
    const receipt: SettleResponse = { success: true, transaction: tx, network: a.network as `${string}:${string}`, payer: a.payer, amount: a.amount };
    const patch = { settleResponse: JSON.stringify(receipt), txHash: tx, note: 'reconciled from chain' };
    if (await ledger.transitionUnleased({ id: a.id, from: a.state, to: 'settled', patch, now: now() })) {
      report.settled++;
    }
    return;
  }
  if (fate.kind === 'dead') {
    // A refused settle left its answer in settle_response (see the gate's pendingOutcome).
    const patch = a.settleResponse
      ? { failureCode: 'settlement_failed', failureDetail: `not used on chain before it expired; ${a.failureDetail}` }
      : { failureCode: 'payment_expired', failureDetail: 'not used on chain before it expired' };
    if (await ledger.transitionUnleased({ id: a.id, from: a.state, to: 'failed', patch, now: now() })) report.expired++;
    return;
  }
  report.stillUnknown++;
}

export interface Reconciler {
  /** Look again within `intervalMs` (a paid call just ended: it may have left an attempt unfinished). */
  wake(): void;
  stop(): void;
}

/**
 * Run `reconcileOnce` `intervalMs` after start, then again `intervalMs`
 * after each round that found unresolved attempts or met a ledger that did
 * not answer, and after each `wake()`. A round that finds nothing ends the
 * loop until the next wake, so an idle service does not poll its ledger.
 * `steady`: a round every `intervalMs` regardless (a ledger shared with other
 * instances, whose unfinished attempts no wake of ours announces).
 */
export function startReconciler(
  ledger: ReconcilerLedger,
  chain: ChainOf,
  intervalMs: number,
  onReport?: (r: ReconcileReport) => void,
  opts: { steady?: boolean } = {},
): Reconciler {
  let timer: NodeJS.Timeout | undefined;
  let running = false;
  let stopped = false;
  /** Woken during a round: the round's result may predate what woke it. */
  let again = false;
  const arm = () => {
    if (timer || stopped) return;
    timer = setTimeout(round, intervalMs);
    timer.unref();
  };
  async function round(): Promise<void> {
    timer = undefined;
    running = true;
    again = false;
    let more = true;
    try {
      const r = await reconcileOnce(ledger, chain, Date.now);
      metrics.reconcilerRuns.inc({ outcome: 'ok' });
      metrics.reconciledAttempts.inc({ result: 'settled' }, r.settled);
      metrics.reconciledAttempts.inc({ result: 'expired' }, r.expired);
      metrics.reconciledAttempts.inc({ result: 'still_unknown' }, r.stillUnknown);
      if (r.examined > 0) onReport?.(r);
      more = r.examined > 0;
    } catch {
      // Ledger down: try again next round.
      metrics.reconcilerRuns.inc({ outcome: 'ledger_unavailable' });
    } finally {
      running = false;
    }
    if (more || again || opts.steady) arm();
  }
  arm();
  return {
    wake() {
      if (running) again = true;
      else arm();
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
      timer = undefined;
    },
  };
}
