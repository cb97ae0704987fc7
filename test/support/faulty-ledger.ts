/**
 * Wraps a real ledger so chosen calls fail the way a database that is gone
 * or stalled makes them fail: LedgerUnavailableError, after an optional delay.
 */
import { LedgerUnavailableError, type Ledger } from '../../src/store/ledger.js';

/** `fault(method, args)` decides per call (`args`: the call's named arguments); returning true makes that call fail. */
export function faultyLedger(inner: Ledger, fault: (method: string, args: unknown) => boolean, delayMs = 0): Ledger {
  return new Proxy(inner, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver);
      if (typeof v !== 'function') return v;
      return (args?: unknown) => {
        if (!fault(String(prop), args)) return v.call(target, args);
        const err = new LedgerUnavailableError(new Error('injected: database unavailable'));
        return delayMs ? new Promise((_, reject) => setTimeout(() => reject(err), delayMs)) : Promise.reject(err);
      };
    },
  });
}
