import type { TemplateDigestRequest } from '../foundation/json-template.js';

/** A handler worker's name for the operating system (foundation/this-thread.ts). */
export const HANDLER_THREAD_NAME = 'handler-pool';

/** Messages between the handler pool and its workers. */
export type WorkerTask =
  /** Run catalog entry `id` on `input`: the reply's value is the UTF-8 bytes of its result's JSON (moved) and their SHA-256, from which pool.ts makes an EncodedResult. */
  | { seq: number; kind: 'run'; id: string; input: unknown }
  /**
   * Read a request body for entry `id` (strict UTF-8, JSON, schema): the reply's value is a BodyRead,
   * the reader's verdict and, when asked (a paid request) and the input is valid, the call's fingerprint.
   */
  | { seq: number; kind: 'read'; id: string; contentType: string | undefined; body: Uint8Array; fingerprint: boolean }
  /**
   * One step of a composed entry (the router's composite): validate `body` with entry `id`'s own reader, run
   * it, and reply a StepRun (the result's JSON bytes, its canonical JSON bytes and the hashes of both sides).
   */
  | { seq: number; kind: 'step'; id: string; body: unknown }
  /**
   * A composed response: `hashParts` concatenated are hashed (SHA-256, hex); `bodyParts` concatenated, with
   * that digest as a JSON string at each `null`, are the body. The reply's value is a RunResult.
   */
  | { seq: number; kind: 'compose'; hashParts: Array<string | Uint8Array>; bodyParts: Array<string | Uint8Array | null> }
  /**
   * A JSON body read as any JSON value (strict UTF-8, bounded nesting, `limit` bytes, JSON media types only): a
   * BodyVerdict. With `maxValues` (a free surface's JSON-RPC or quote message, whose size and media type the
   * surface has checked): `parseJsonBody(body, { maxValues })`'s verdict, in the same BodyVerdict form.
   */
  | { seq: number; kind: 'parse'; contentType: string | undefined; body: Uint8Array; limit: number; maxValues?: number }
  /** The paid flow's `callFingerprint` of `value` as resource `resource`: the reply's value is the hex string. */
  | { seq: number; kind: 'fingerprint'; resource: string; value: unknown }
  /**
   * The canonical-JSON sizes and hashes a router quote names (foundation/json-template.ts): each large value the
   * caller sent crosses once, as a source, and each body is a small template it is placed into. The reply's value
   * is a TemplateDigests.
   */
  | ({ seq: number; kind: 'digest' } & TemplateDigestRequest);

export type WorkerReply = { ready: true } | { seq: number; ok: true; value: unknown } | { seq: number; ok: false; error: string };
