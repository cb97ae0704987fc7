/**
 * Each request's time inside the process that serves it, from Node's own
 * HTTP server diagnostics channels (request headers parsed → response
 * finished): what Server-Timing cannot cover (body read, parse, validation,
 * fingerprint, response encoding, routing). Only requests whose
 * `x-request-id` starts with `prefix` are kept, so a bench can match them to
 * its own calls.
 */
import diagnostics from 'node:diagnostics_channel';
import type { IncomingMessage } from 'node:http';
import { performance } from 'node:perf_hooks';

interface ServerChannelMessage {
  request: IncomingMessage;
}

export function recordRequestTimes(prefix: string): { times: Map<string, number>; stop(): void } {
  const starts = new Map<string, number>();
  const times = new Map<string, number>();
  const idOf = (m: ServerChannelMessage): string | undefined => {
    const id = m.request.headers['x-request-id'];
    return typeof id === 'string' && id.startsWith(prefix) ? id : undefined;
  };
  const onStart = (msg: unknown) => {
    const id = idOf(msg as ServerChannelMessage);
    if (id) starts.set(id, performance.now());
  };
  const onFinish = (msg: unknown) => {
    const id = idOf(msg as ServerChannelMessage);
    const t0 = id ? starts.get(id) : undefined;
    if (id && t0 !== undefined) {
      times.set(id, performance.now() - t0);
      starts.delete(id);
    }
  };
  diagnostics.subscribe('http.server.request.start', onStart);
  diagnostics.subscribe('http.server.response.finish', onFinish);
  return {
    times,
    stop() {
      diagnostics.unsubscribe('http.server.request.start', onStart);
      diagnostics.unsubscribe('http.server.response.finish', onFinish);
    },
  };
}
