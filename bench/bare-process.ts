/**
 * The framework's own limit, alone in its own process: bare Hono routes that
 * answer captured responses byte for byte and do nothing else. Configured by
 * one JSON value in BENCH_BARE (`BareRoute[]`); sends `{url}` over IPC when it
 * listens and stops with its parent.
 */
import { Hono } from 'hono';
import { listen } from './http.js';

export interface BareRoute {
  method: 'GET' | 'POST';
  path: string;
  status: number;
  headers: Record<string, string>;
  bodyBase64: string;
}

const routes = JSON.parse(process.env.BENCH_BARE ?? '[]') as BareRoute[];
const app = new Hono();
for (const r of routes) {
  const body = Buffer.from(r.bodyBase64, 'base64');
  const answer = () => new Response(body, { status: r.status, headers: r.headers });
  if (r.method === 'GET') app.get(r.path, answer);
  else app.post(r.path, answer);
}
const server = await listen(app);
process.send!({ url: server.url });
const stop = () => void server.close().finally(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('disconnect', stop);
