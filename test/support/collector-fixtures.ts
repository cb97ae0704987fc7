/**
 * Local HTTP servers that serve recorded responses to the collectors, under
 * public-looking host names (`*.fixture.test`) resolved to 127.0.0.1 by the
 * lookup the collectors are given: the requests are real HTTP over loopback,
 * and the URLs they record pass the content store's public-URL rule.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, LookupFunction } from 'node:net';
import { join } from 'node:path';

export const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'collectors');

export function fixture(name: string): string {
  return readFileSync(join(FIXTURES, name), 'utf8');
}

/** One recorded answer. `hugeBytes` streams that many bytes of JSON-ish filler; `delayMs` waits before answering. */
export interface Answer {
  status?: number;
  contentType?: string;
  body?: string;
  hugeBytes?: number;
  delayMs?: number;
  /** Omit Content-Length (chunked), so only the streaming limit can catch a huge body. */
  chunked?: boolean;
}

export interface FixtureServer {
  port: number;
  /** `http://{host}.fixture.test:{port}{path}` */
  url(host: string, path: string): string;
  /** Set or replace the answer for a host + path. */
  set(host: string, path: string, a: Answer): void;
  /** Requests seen, as "host path". */
  seen: string[];
  close(): Promise<void>;
}

/** Resolve every *.fixture.test name to loopback; anything else fails (tests never reach the network). */
export const fixtureLookup: LookupFunction = ((hostname: string, options: unknown, cb: (...args: unknown[]) => void) => {
  const callback = typeof options === 'function' ? (options as typeof cb) : cb;
  const all = typeof options === 'object' && options !== null && (options as { all?: boolean }).all;
  if (!hostname.endsWith('.fixture.test')) return callback(Object.assign(new Error(`no such host ${hostname}`), { code: 'ENOTFOUND' }));
  if (all) return callback(null, [{ address: '127.0.0.1', family: 4 }]);
  return callback(null, '127.0.0.1', 4);
}) as LookupFunction;

export async function startFixtureServer(): Promise<FixtureServer> {
  const answers = new Map<string, Answer>();
  const seen: string[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const server: Server = createServer((req, res) => {
    const host = String(req.headers.host ?? '').replace(/\.fixture\.test(:\d+)?$/, '');
    const key = `${host} ${req.url}`;
    seen.push(key);
    const a = answers.get(key);
    if (!a) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
      return;
    }
    const send = () => {
      const type = a.contentType ?? 'application/json';
      if (a.hugeBytes !== undefined) {
        const headers: Record<string, string | number> = { 'content-type': type };
        if (!a.chunked) headers['content-length'] = a.hugeBytes;
        res.writeHead(a.status ?? 200, headers);
        const chunk = Buffer.alloc(64 * 1024, 0x20);
        let left = a.hugeBytes;
        const pump = () => {
          while (left > 0) {
            const n = Math.min(left, chunk.length);
            left -= n;
            if (!res.write(chunk.subarray(0, n))) return res.once('drain', pump);
          }
          res.end();
        };
        res.on('error', () => undefined);
        pump();
        return;
      }
      const body = Buffer.from(a.body ?? '');
      const headers: Record<string, string | number> = { 'content-type': type };
      if (!a.chunked) headers['content-length'] = body.length;
      res.writeHead(a.status ?? 200, headers).end(body);
    };
    if (a.delayMs) {
      const t = setTimeout(() => {
        timers.delete(t);
        if (!res.destroyed) send();
      }, a.delayMs);
      timers.add(t);
      res.on('close', () => clearTimeout(t));
    } else send();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: (host, path) => `http://${host}.fixture.test:${port}${path}`,
    set: (host, path, a) => void answers.set(`${host} ${path}`, a),
    seen,
    close: () =>
      new Promise<void>((r) => {
        for (const t of timers) clearTimeout(t);
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
