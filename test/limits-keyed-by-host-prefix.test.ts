/**
 * Attack (issue 41, row 5): one host multiplies its budgets by rotating the
 * addresses it holds. Every limit was keyed by the address verbatim, so
 * 127.0.0.2…6 (one machine: Linux routes the whole of 127/8 to lo) each got
 * a fresh free-route rate limit, 127.0.0.10 a fresh A2A task budget, and the
 * holder of an IPv6 /64 (the smallest prefix a site is given) had 2^64 of
 * each. Reproduced with real sockets bound to several loopback addresses
 * against the real service (@hono/node-server on the devnet), and with
 * X-Forwarded-For behind a trusted proxy for IPv6 prefixes: one host, one
 * budget; different hosts, their own.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { networkInterfaces } from 'node:os';
import { startDevnet, type Devnet } from '../devnet/index.js';
import { loadConfig } from '../src/config.js';
import { startService, type RunningService } from '../src/service.js';
import { devnetEnv, tempDir } from './support/harness.js';

const X402_URI = 'https://github.com/google-agentic-commerce/a2a-x402/blob/main/spec/v0.2';
const CONTRAST = 'accessibility-contrast-calculator';
const PER_MINUTE = 5;
/** The task store's per-client budget (DEFAULT_TASK_STORE_LIMITS.perClientTasks). */
const TASKS_PER_CLIENT = 64;

interface Answer {
  status: number;
  body: string;
}

/** One request on its own connection, from `localAddress` when given (the socket peer the service sees). */
function send(port: number, path: string, opts: { host?: string; localAddress?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: opts.host ?? '127.0.0.1', port, path, method: opts.body === undefined ? 'GET' : 'POST', localAddress: opts.localAddress, agent: false, headers: { ...opts.headers, ...(opts.body === undefined ? {} : { 'content-type': 'application/json' }) } },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** Rate-limit windows are whole minutes: start a count at least 15 s before the next one begins. */
async function awayFromWindowEdge(): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 15_000) await new Promise((r) => setTimeout(r, left + 50));
}

/** A non-loopback address of this machine (another host, as far as keys go), if it has one of `family`. */
function interfaceAddress(family: 'IPv4' | 'IPv6'): string | undefined {
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) if (!a.internal && a.family === family && !a.address.startsWith('fe80:')) return a.address;
  }
  return undefined;
}

let n = 0;
/** An A2A v1.0 SendMessage naming the paid contrast skill: opens a task waiting for payment, or is refused -32029. */
async function openTask(port: number, from: { localAddress?: string; host?: string; forwardedFor?: string }): Promise<'opened' | 'refused'> {
  n++;
  const message = { messageId: `m${n}`, role: 'ROLE_USER', parts: [{ data: { foreground: '#000000', background: '#ffffff', large_text: false } }], metadata: { skill: CONTRAST } };
  const res = await send(port, '/a2a', {
    host: from.host,
    localAddress: from.localAddress,
    headers: { 'A2A-Version': '1.0', 'A2A-Extensions': X402_URI, ...(from.forwardedFor ? { 'X-Forwarded-For': from.forwardedFor } : {}) },
    body: JSON.stringify({ jsonrpc: '2.0', id: n, method: 'SendMessage', params: { message } }),
  });
  assert.equal(res.status, 200, res.body.slice(0, 300));
  const answer = JSON.parse(res.body) as { result?: { task?: { status?: { state?: string } } }; error?: { code: number; message: string } };
  if (answer.error) {
    assert.equal(answer.error.code, -32029, res.body.slice(0, 300));
    assert.match(answer.error.message, /^rate_limited/);
    return 'refused';
  }
  assert.equal(answer.result?.task?.status?.state, 'TASK_STATE_INPUT_REQUIRED', res.body.slice(0, 300));
  return 'opened';
}

describe('one host cannot multiply its budgets by rotating the addresses of its own prefix', () => {
  let devnet: Devnet;
  const services: RunningService[] = [];
  /** Listening on `::`: IPv4 peers arrive as `::ffff:127.0.0.x`, as on a dual-stack production host. */
  let direct: number;
  /** The same, without a rate limit, for the A2A task budget; TRUST_PROXY=1 so a prefix can also be shown through X-Forwarded-For. */
  let a2a: number;
  /** Behind a trusted proxy: the last X-Forwarded-For hop is the client. */
  let proxied: number;

  const start = async (env: Record<string, string>): Promise<number> => {
    const service = await startService(loadConfig(devnetEnv(devnet, devnet.facilitatorUrl, { DATA_DIR: tempDir(), ...env })));
    services.push(service);
    return Number(new URL(service.url).port);
  };

  before(async () => {
    devnet = await startDevnet({ svm: false });
    direct = await start({ HOST: '::', RATE_LIMIT_PER_MINUTE: String(PER_MINUTE) });
    a2a = await start({ HOST: '::', RATE_LIMIT_PER_MINUTE: '0', TRUST_PROXY: '1' });
    proxied = await start({ TRUST_PROXY: '1', RATE_LIMIT_PER_MINUTE: String(PER_MINUTE) });
  });
  after(async () => {
    for (const s of services) await s.close().catch(() => {});
    await devnet?.stop().catch(() => {});
  });

  test('127.0.0.2…6 and ::1 share one free-route rate limit; another host keeps its own', { timeout: 60_000 }, async () => {
    await awayFromWindowEdge();
    const served: Record<string, number> = {};
    for (const localAddress of ['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5', '127.0.0.6']) {
      served[localAddress] = 0;
      for (let i = 0; i < PER_MINUTE + 1; i++) if ((await send(direct, '/v1/services', { localAddress })).status === 200) served[localAddress]!++;
    }
    const total = Object.values(served).reduce((a, b) => a + b, 0);
    assert.equal(total, PER_MINUTE, `one budget of ${PER_MINUTE} for the whole loopback block, served ${JSON.stringify(served)}`);
    const limited = await send(direct, '/v1/services', { localAddress: '127.0.0.10' });
    assert.equal(limited.status, 429, 'a sixth loopback address is the same host');
    assert.equal((JSON.parse(limited.body) as { error: { code: string } }).error.code, 'rate_limited');
    assert.equal((await send(direct, '/v1/services', { host: '::1' })).status, 429, '::1 is the same machine as 127/8');
    for (const family of ['IPv4', 'IPv6'] as const) {
      const other = interfaceAddress(family);
      if (other === undefined) continue;
      // This machine's own interface address, as a peer: keyed as any other host would be.
      assert.equal((await send(direct, '/v1/services', { host: other, localAddress: other })).status, 200, `${other} has its own budget`);
    }
  });

  test('127.0.0.2 fills the A2A task budget; 127.0.0.10 and ::1 get no fresh one', { timeout: 120_000 }, async () => {
    const opened: Record<string, number> = {};
    const count = async (label: string, from: Parameters<typeof openTask>[1], tries: number) => {
      opened[label] = 0;
      for (let i = 0; i < tries; i++) if ((await openTask(a2a, from)) === 'opened') opened[label]!++;
    };
    await count('127.0.0.2', { localAddress: '127.0.0.2' }, TASKS_PER_CLIENT + 1);
    await count('127.0.0.10', { localAddress: '127.0.0.10' }, 4);
    await count('::1', { host: '::1' }, 2);
    assert.deepEqual(opened, { '127.0.0.2': TASKS_PER_CLIENT, '127.0.0.10': 0, '::1': 0 }, `tasks opened per address: ${JSON.stringify(opened)}`);
    // Another host is not locked out by them.
    assert.equal(await openTask(a2a, { localAddress: '127.0.0.11', forwardedFor: '198.51.100.61' }), 'opened');
  });

  test('through a trusted proxy, the A2A task budget of an IPv6 client is its /64', { timeout: 120_000 }, async () => {
    let opened = 0;
    for (let i = 1; i <= TASKS_PER_CLIENT + 1; i++) if ((await openTask(a2a, { forwardedFor: `2001:db8:a2a:1::${i.toString(16)}` })) === 'opened') opened++;
    assert.equal(opened, TASKS_PER_CLIENT, `one budget for the /64, whichever of its addresses sends: ${opened} of ${TASKS_PER_CLIENT + 1} opened`);
    assert.equal(await openTask(a2a, { forwardedFor: '2001:db8:a2a:1:ffff:ffff:ffff:ffff' }), 'refused');
    assert.equal(await openTask(a2a, { forwardedFor: '2001:db8:a2a:2::1' }), 'opened', 'the next /64 is another client');
  });

  test('through a trusted proxy, the addresses of one IPv6 /64 (in any spelling) share one rate limit; other /64s have their own', { timeout: 60_000 }, async () => {
    await awayFromWindowEdge();
    const oneSlash64 = [
      '2001:db8:41:5::1',
      '2001:0db8:0041:0005:0000:0000:0000:0002',
      '2001:DB8:41:5:A:B:C:D',
      '[2001:db8:41:5::4]:44321',
      '10.1.1.1, 2001:db8:41:5:ffff:ffff:ffff:fffe',
      '2001:db8:41:5::6',
      '2001:db8:41:5:1234::7',
    ];
    const statuses: number[] = [];
    for (const hop of oneSlash64) statuses.push((await send(proxied, '/v1/services', { headers: { 'X-Forwarded-For': hop } })).status);
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429, 429], `one budget of ${PER_MINUTE} for the /64: ${oneSlash64.map((h, i) => `${h} → ${statuses[i]}`).join(', ')}`);
    for (const other of ['2001:db8:41:6::1', '2001:db8:41:7::1', '2001:db8:42:5::1', '2001:db9:41:5::1']) {
      assert.equal((await send(proxied, '/v1/services', { headers: { 'X-Forwarded-For': other } })).status, 200, `${other} is in another /64`);
    }
  });

  test('through a trusted proxy, an IPv4-mapped IPv6 address is its IPv4 address; another IPv4 address is another client', { timeout: 60_000 }, async () => {
    await awayFromWindowEdge();
    const forms = ['198.51.100.41', '::ffff:198.51.100.41', '::ffff:c633:6429', '[::ffff:198.51.100.41]:8080', '198.51.100.41:51000', '198.51.100.41'];
    const statuses: number[] = [];
    for (const hop of forms) statuses.push((await send(proxied, '/v1/services', { headers: { 'X-Forwarded-For': hop } })).status);
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429], forms.map((h, i) => `${h} → ${statuses[i]}`).join(', '));
    // IPv4 is keyed by the whole address: a neighbour behind the next address is not locked out.
    assert.equal((await send(proxied, '/v1/services', { headers: { 'X-Forwarded-For': '198.51.100.42' } })).status, 200);
  });
});
