/**
 * Measurements around the two things the payment path waits on: the
 * facilitator (verify, settle) and the ledger. Wrappers, so the gate's
 * decisions stay free of metrics code; they change no result and no error.
 */
import type { FacilitatorClient } from '@x402/core/server';
import type { Logger } from 'pino';
import { metrics, secondsSince } from '../observability/metrics.js';
import { ledgerMethod, type Ledger } from '../store/ledger.js';

const errText = (e: unknown) => (e instanceof Error ? e.message : String(e));

/**
 * Times one facilitator's verify and settle and counts its settlements by
 * outcome, labelled with its name (origin and path of its URL:
 * facilitators.ts); a call that gets no answer is logged here, with that
 * name. The line per paid call, with its request id, is the gate's. No
 * payload or signature is logged.
 */
export function instrumentFacilitator(inner: FacilitatorClient, log: Logger, facilitator: string): FacilitatorClient {
  return {
    async verify(payload, requirements) {
      const start = performance.now();
      try {
        const r = await inner.verify(payload, requirements);
        const outcome = r.isValid ? 'valid' : 'invalid';
        metrics.facilitatorDuration.observe({ facilitator, operation: 'verify', outcome }, secondsSince(start));
        return r;
      } catch (e) {
        metrics.facilitatorDuration.observe({ facilitator, operation: 'verify', outcome: 'error' }, secondsSince(start));
        log.warn({ facilitator, op: 'verify', outcome: 'error', err: errText(e), ms: Math.round(performance.now() - start) }, 'facilitator verify');
        throw e;
      }
    },
    async settle(payload, requirements) {
      const start = performance.now();
      try {
        const r = await inner.settle(payload, requirements);
        const outcome = r.success ? 'success' : 'refused';
        metrics.facilitatorDuration.observe({ facilitator, operation: 'settle', outcome }, secondsSince(start));
        metrics.settlements.inc({ facilitator, outcome });
        return r;
      } catch (e) {
        metrics.facilitatorDuration.observe({ facilitator, operation: 'settle', outcome: 'error' }, secondsSince(start));
        metrics.settlements.inc({ facilitator, outcome: 'error' });
        log.warn({ facilitator, op: 'settle', outcome: 'error', err: errText(e), ms: Math.round(performance.now() - start) }, 'facilitator settle');
        throw e;
      }
    },
    getSupported: () => inner.getSupported(),
  };
}

/** Times every ledger operation and counts attempts entering each state. */
export function instrumentLedger(inner: Ledger): Ledger {
  // One wrapper per method, made on first use (the gate calls the ledger several times per paid call).
  const wrapped = new Map<string, unknown>();
  return new Proxy(inner, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      const spec = ledgerMethod(prop);
      // `kind`, and the close, which is not timed.
      if (typeof prop !== 'string' || !spec || spec.does === 'close') return typeof value === 'function' ? value.bind(target) : value;
      const known = wrapped.get(prop);
      if (known) return known;
      const fn = async (args: unknown) => {
        const start = performance.now();
        try {
          const result = await (value as (args: unknown) => Promise<unknown>).call(target, args);
          metrics.ledgerDuration.observe({ operation: prop, outcome: 'ok' }, secondsSince(start));
          for (const state of spec.enters?.(args, result) ?? []) metrics.paymentAttempts.inc({ state });
          return result;
        } catch (e) {
          metrics.ledgerDuration.observe({ operation: prop, outcome: 'error' }, secondsSince(start));
          throw e;
        }
      };
      wrapped.set(prop, fn);
      return fn;
    },
  });
}
