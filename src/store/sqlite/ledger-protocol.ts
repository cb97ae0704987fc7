import type { Ledger } from '../ledger.js';

/** The ledger methods the thread answers (everything but `kind` and `close`, which the parent handles). */
export type LedgerMethod = Exclude<keyof Ledger, 'kind' | 'close'> | 'close';

/** What the parent gives the ledger thread at start. */
export interface LedgerThreadData {
  file: string;
  timeoutMs: number;
}

export interface LedgerCall {
  seq: number;
  method: LedgerMethod;
  args: unknown[];
}

export type LedgerThreadReply =
  | { ready: true }
  | { startError: string }
  | { seq: number; ok: true; value: unknown }
  /** `unavailable`: the database refused or failed (the gate's fail-closed 503); otherwise a defect. */
  | { seq: number; ok: false; unavailable: boolean; message: string };
