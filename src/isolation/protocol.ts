/** Messages between the handler pool and its workers. */
export interface WorkerTask {
  seq: number;
  /** Capability id in src/capabilities/index.ts CATALOG. */
  id: string;
  input: unknown;
}

export type WorkerReply = { ready: true } | { seq: number; ok: true; body: string } | { seq: number; ok: false; error: string };
