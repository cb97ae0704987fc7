import type { LedgerMethodName } from '../ledger.js';

/**
 * What the thread answers: the ledger's methods (LEDGER_METHODS), and
 * `checkpoint`, which copies the WAL into the database file.
 */
export type LedgerMethod = LedgerMethodName | 'checkpoint';

/** The ledger thread's name for the operating system (foundation/this-thread.ts). */
export const LEDGER_THREAD_NAME = 'ledger';

/** What the parent gives the ledger thread at start. */
export interface LedgerThreadData {
  file: string;
  timeoutMs: number;
}

export interface LedgerCall {
  seq: number;
  method: LedgerMethod;
  /** The method's one object of named arguments (undefined for a method that takes none). */
  args: unknown;
}

export type LedgerThreadReply =
  | { ready: true }
  | { startError: string }
  | { seq: number; ok: true; value: unknown }
  /** `unavailable`: the database refused or failed (the gate's fail-closed 503); otherwise a defect. */
  | { seq: number; ok: false; unavailable: boolean; message: string };
