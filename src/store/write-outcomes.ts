/**
 * Readiness from the outcome of the ledger's real writes, not only from its
 * probe. Why: the probe is one small row; the writes of paid calls are
 * larger (a new attempt's rows, a stored result of megabytes) and may fail
 * where it succeeds (a disk with a little WAL space left, a lock or a stall
 * that hits them and not the probe). While the latest ledger write failed,
 * and for at most WRITE_FAULT_HOLD_MS after it, `ping` fails without asking
 * the database; a write that succeeds clears it at once. Past the hold the
 * probe decides again, so readiness recovers by itself once the database
 * does, even when no traffic comes (a load balancer stops sending to a
 * service that is not ready).
 */
import { ledgerMethod, LedgerUnavailableError, type Ledger } from './ledger.js';

export const WRITE_FAULT_HOLD_MS = 5_000;

export function watchWrites<L extends Ledger>(inner: L, now: () => number = Date.now): L {
  let fault: { at: number; message: string } | undefined;
  const wrapped = new Map<string, unknown>();
  const ping = async () => {
    if (fault) {
      const ago = now() - fault.at;
      if (ago < WRITE_FAULT_HOLD_MS) {
        throw new LedgerUnavailableError(new Error(`a ledger write failed ${ago} ms ago and none has succeeded since (${fault.message})`));
      }
    }
    await inner.ping();
  };
  return new Proxy(inner, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (prop === 'ping') return ping;
      if (typeof prop !== 'string' || typeof value !== 'function') return value;
      const method = value as (args: unknown) => Promise<unknown>;
      if (ledgerMethod(prop)?.does !== 'write') return method.bind(target);
      let fn = wrapped.get(prop);
      if (fn) return fn;
      fn = async (args: unknown) => {
        try {
          const out = await method.call(target, args);
          fault = undefined;
          return out;
        } catch (e) {
          // Only the database failing counts; a defect (a bad argument) says nothing about the disk.
          if (e instanceof LedgerUnavailableError) fault = { at: now(), message: e.message };
          throw e;
        }
      };
      wrapped.set(prop, fn);
      return fn;
    },
  });
}
