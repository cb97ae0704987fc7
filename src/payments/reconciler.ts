/**
 * Resolves attempts whose settlement outcome was not recorded (a crash, a
 * timeout, a 5xx) from the chain's `authorizationState`. It never sends a
 * settlement itself: an unused, still-valid authorization is left for the
 * buyer's retry, which settles it and delivers the stored result.
 */
import type { Hex } from 'viem';
import type { Ledger, PaymentAttempt } from '../store/ledger.js';
import type { ChainReader } from './chain.js';
import type { SettleResponse } from './rail.js';

/** After validBefore passes (plus this grace for a pending transaction to be mined or dropped) an unused authorization is dead. */
const EXPIRY_GRACE_SECONDS = 60;

export interface ReconcileReport {
  examined: number;
  settled: number;
  expired: number;
  stillUnknown: number;
}

export async function reconcileOnce(ledger: Ledger, chain: ChainReader, now: () => number, limit = 100): Promise<ReconcileReport> {
  const report: ReconcileReport = { examined: 0, settled: 0, expired: 0, stillUnknown: 0 };
  for (const a of await ledger.listUnresolved(now(), limit)) {
    report.examined++;
    await reconcileAttempt(ledger, chain, a, now, report);
  }
  return report;
}

async function reconcileAttempt(ledger: Ledger, chain: ChainReader, a: PaymentAttempt, now: () => number, report: ReconcileReport): Promise<void> {
  const expired = a.validBefore + EXPIRY_GRACE_SECONDS < now() / 1000;
  if (a.state === 'executed') {
    // Settlement was never sent. Nothing to record unless the authorization has died.
    if (expired && (await ledger.transitionUnleased(a.id, 'executed', 'failed', { failureCode: 'payment_expired', failureDetail: 'expired before the buyer retried' }, now()))) {
      report.expired++;
    }
    return;
  }
  let used: boolean;
  try {
    used = await chain.authorizationUsed(a.asset as Hex, a.payer as Hex, a.nonce as Hex);
  } catch {
    report.stillUnknown++;
    return;
  }
  if (used) {
    const tx = await chain.authorizationTransaction(a.asset as Hex, a.payer as Hex, a.nonce as Hex).catch(() => undefined);
    const receipt: SettleResponse = { success: true, transaction: tx ?? '', network: a.network as `${string}:${string}`, payer: a.payer, amount: a.amount };
    if (await ledger.transitionUnleased(a.id, a.state, 'settled', { settleResponse: JSON.stringify(receipt), txHash: tx ?? '', note: 'reconciled from chain' }, now())) {
      report.settled++;
    }
    return;
  }
  if (expired) {
    if (await ledger.transitionUnleased(a.id, a.state, 'failed', { failureCode: 'payment_expired', failureDetail: 'not used on chain before validBefore' }, now())) report.expired++;
    return;
  }
  report.stillUnknown++;
}

/** Run `reconcileOnce` every `intervalMs` until stopped. */
export function startReconciler(ledger: Ledger, chain: ChainReader, intervalMs: number, onReport?: (r: ReconcileReport) => void): () => void {
  let running = false;
  const timer = setInterval(async () => {
    if (running) return;
    running = true;
    try {
      const r = await reconcileOnce(ledger, chain, Date.now);
      if (r.examined > 0) onReport?.(r);
    } catch {
      // Ledger down: try again next tick.
    } finally {
      running = false;
    }
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
