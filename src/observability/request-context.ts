/**
 * The request a piece of work belongs to, carried through async calls, so that
 * log lines written deep in the payment code (verify, settle) name the
 * request id without every function passing it along.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

const storage = new AsyncLocalStorage<{ reqId: string }>();

/** Run `fn` (and everything it awaits) as part of request `reqId`. */
export function withRequestId<T>(reqId: string, fn: () => T): T {
  return storage.run({ reqId }, fn);
}

/** The current request's id, if the caller is serving a request. */
export function currentRequestId(): string | undefined {
  return storage.getStore()?.reqId;
}

/** Pino `mixin`: adds `reqId` to every line logged while serving a request. */
export function requestIdMixin(): Record<string, unknown> {
  const reqId = currentRequestId();
  return reqId === undefined ? {} : { reqId };
}
