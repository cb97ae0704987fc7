/**
 * The Node response under @hono/node-server, for the envelope's writes that
 * must reach the socket's answer itself: the answer headers merged into the
 * head (src/http/answer-headers.ts), a lingering close after a 413
 * (src/http/body-limit.ts), `Connection: close` while draining.
 */
import type { Context } from 'hono';
import { ServerResponse } from 'node:http';

/** The Node response under @hono/node-server (its `outgoing` binding), when it has not started sending. */
export function nodeOutgoing(c: Context): ServerResponse | undefined {
  const outgoing = (c.env as { outgoing?: unknown } | undefined)?.outgoing;
  return outgoing instanceof ServerResponse && !outgoing.headersSent ? outgoing : undefined;
}
