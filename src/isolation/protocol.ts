/** Messages between the handler pool and its workers. */
export type WorkerTask =
  /** Run catalog entry `id` on `input`: the reply's value is a RunResult (the JSON string of its result and that string's SHA-256). */
  | { seq: number; kind: 'run'; id: string; input: unknown }
  /**
   * Read a request body for entry `id` (strict UTF-8, JSON, schema): the reply's value is a BodyRead,
   * the reader's verdict and, when asked (a paid request) and the input is valid, the call's fingerprint.
   */
  | { seq: number; kind: 'read'; id: string; contentType: string | undefined; body: Uint8Array; fingerprint: boolean };

export type WorkerReply = { ready: true } | { seq: number; ok: true; value: unknown } | { seq: number; ok: false; error: string };
