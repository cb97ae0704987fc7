/**
 * Host header spoofing: a client chooses the Host (or the authority of an
 * absolute-form request target, or X-Forwarded-Host), and with
 * PUBLIC_BASE_URL unset the service used to put it in everything it states
 * and signs: the 402's resource URL, MPP's realm, the operator-signed
 * receipt after payment, the router's signed offers, MCP and A2A challenges,
 * the discovery documents. Here, over real sockets, no answer ever names a
 * host that is not the service's own: a request may pick among its names
 * (the listening address and its loopback names, ALLOWED_HOSTS), and any
 * other host is ignored, the answer naming the listening address;
 * PUBLIC_BASE_URL, when set, is named whatever the Host says. Real devnet,
 * real payments.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { PaymentRequired } from '@x402/core/types';
import { generatePrivateKey } from 'viem/accounts';
import { ConfigError, loadConfig } from '../src/config.js';
import { startService, type RunningService } from '../src/service.js';
import { BLACK_ON_WHITE, CONTRAST, buyerClient, decodePaymentRequiredHeader, decodePaymentResponseHeader, devnetEnv, encodePaymentSignatureHeader, startRig, tempDir, transferLogs, withPaymentId, type Rig } from './support/harness.js';
import { X402_URI } from './support/a2a-messages.js';
import { headerOf, rawExchange, rawRequest, type RawAnswer } from './support/raw-http.js';

const KEY = generatePrivateKey();
const MPP_SECRET = randomBytes(32).toString('hex');
/** What a foreign host looks like in any answer, in any spelling the variants use. */
const FOREIGN = /evil\.example|2001:db8/i;
const CONTRAST_ID = CONTRAST.slice(CONTRAST.lastIndexOf('/') + 1);

/** Every header value and the body, with each base64 or base64url token of a header that decodes to text beside it (PAYMENT-REQUIRED, PAYMENT-RESPONSE, MPP's request). */
function everythingSaid(a: RawAnswer): string {
  const parts: string[] = [a.body.toString('utf8')];
  for (const [name, values] of a.headers) {
    for (const v of values) {
      parts.push(`${name}: ${v}`);
      for (const token of v.match(/[A-Za-z0-9+/_-]{16,}={0,2}/g) ?? []) {
        const text = Buffer.from(token.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('utf8');
        if (/^[\x20-\x7e\s]*$/.test(text)) parts.push(text);
      }
    }
  }
  return parts.join('\n');
}

function assertNamesNoForeignHost(a: RawAnswer, where: string): void {
  const said = everythingSaid(a);
  const hit = FOREIGN.exec(said);
  assert.ok(!hit, `${where}: status ${a.status} names a foreign host: …${hit ? said.slice(Math.max(0, hit.index - 120), hit.index + 60) : ''}…`);
}

/** How a client makes the request name another host: the Host header, the request target, or a forwarding header. */
interface Spoof {
  label: string;
  /** The head's request line and Host line(s) for `method path`. */
  head(method: string, path: string, port: number): string[];
}

const SPOOFS: Spoof[] = [
  { label: 'Host: evil.example', head: (m, p) => [`${m} ${p} HTTP/1.1`, 'Host: evil.example'] },
  { label: 'Host in mixed case', head: (m, p) => [`${m} ${p} HTTP/1.1`, 'Host: EVIL.Example'] },
  { label: 'Host with a trailing dot', head: (m, p) => [`${m} ${p} HTTP/1.1`, 'Host: evil.example.'] },
  { label: 'Host with our port', head: (m, p, port) => [`${m} ${p} HTTP/1.1`, `Host: evil.example:${port}`] },
  { label: 'Host with another port', head: (m, p) => [`${m} ${p} HTTP/1.1`, 'Host: evil.example:8443'] },
  { label: 'Host an IPv6 literal', head: (m, p, port) => [`${m} ${p} HTTP/1.1`, `Host: [2001:db8::1]:${port}`] },
  { label: 'absolute-form target, our Host', head: (m, p, port) => [`${m} http://evil.example${p} HTTP/1.1`, `Host: 127.0.0.1:${port}`] },
  { label: 'absolute-form https target', head: (m, p, port) => [`${m} https://evil.example:${port}${p} HTTP/1.1`, `Host: 127.0.0.1:${port}`] },
  { label: 'X-Forwarded-Host without TRUST_PROXY', head: (m, p, port) => [`${m} ${p} HTTP/1.1`, `Host: 127.0.0.1:${port}`, 'X-Forwarded-Host: evil.example', 'X-Forwarded-Proto: https'] },
  { label: 'Forwarded: host= without TRUST_PROXY', head: (m, p, port) => [`${m} ${p} HTTP/1.1`, `Host: 127.0.0.1:${port}`, 'Forwarded: for=198.51.100.1;host=evil.example;proto=https'] },
  { label: 'HTTP/1.0 without Host', head: (m, p) => [`${m} ${p} HTTP/1.0`] },
];

const portOf = (svc: RunningService) => Number(new URL(svc.url).port);

/** One request with `spoof` for `method path` (a JSON body when given, extra head lines after the Host). */
function send(svc: RunningService, spoof: Spoof, method: string, path: string, body?: unknown, extra: string[] = []): Promise<RawAnswer> {
  const lines = [...spoof.head(method, path, portOf(svc)), ...extra, ...(body === undefined ? [] : ['Content-Type: application/json'])];
  return rawExchange(portOf(svc), rawRequest(lines, body === undefined ? undefined : JSON.stringify(body)));
}

/** The requests that make the service state an origin: paid 402s (with and without a body), MCP, A2A, the router's signed offers. */
const STATING: Array<{ label: string; method: string; path: string; body?: unknown; extra?: string[] }> = [
  { label: 'paid route, unpaid', method: 'POST', path: CONTRAST, body: BLACK_ON_WHITE },
  { label: 'paid route, no body (discovery probe)', method: 'POST', path: CONTRAST },
  { label: 'MCP tools/call of a paid tool', method: 'POST', path: '/mcp', body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: CONTRAST_ID, arguments: BLACK_ON_WHITE } }, extra: ['Accept: application/json, text/event-stream'] },
  {
    label: 'A2A message/send of a paid skill',
    method: 'POST',
    path: '/a2a',
    body: { jsonrpc: '2.0', id: 'r1', method: 'message/send', params: { message: { kind: 'message', messageId: 'm-host-1', role: 'user', parts: [{ kind: 'data', data: BLACK_ON_WHITE }], metadata: { skill: CONTRAST_ID } } } },
    extra: [`X-A2A-Extensions: ${X402_URI}`],
  },
  { label: 'router quote (signed offers)', method: 'POST', path: '/v1/router/quote', body: { objective: 'WCAG contrast of #000000 on #ffffff' } },
];

/** Every GET route the app registers at a literal path (discovery documents, pages, the MCP and A2A descriptions, …). */
function literalGets(svc: RunningService): string[] {
  return [...new Set(svc.app.routes.filter((r) => r.method === 'GET' && !/[:*]/.test(r.path)).map((r) => r.path))].sort();
}

const resourceUrlOf = (a: RawAnswer) => decodePaymentRequiredHeader(headerOf(a, 'payment-required')!).resource.url;

describe('a Host that is not ours is never named in what the service states or signs', () => {
  let rig: Rig;
  let svc: RunningService;
  let own: string;
  const others: RunningService[] = [];
  /** Another service on the same devnet, configured with `env`. */
  const another = async (env: Record<string, string>) => {
    const s = await startService(loadConfig(devnetEnv(rig.devnet, rig.devnet.facilitatorUrl, { DATA_DIR: tempDir('host-'), X402_SIGNING_KEY: KEY, MPP_SECRET_KEY: MPP_SECRET, ...env })));
    others.push(s);
    return s;
  };

  before(async () => {
    rig = await startRig({ env: { X402_SIGNING_KEY: KEY, MPP_SECRET_KEY: MPP_SECRET } });
    svc = rig.service;
    own = `127.0.0.1:${portOf(svc)}`;
    assert.equal(svc.config.publicBaseUrl, undefined, 'PUBLIC_BASE_URL is unset, as by default and in compose.yaml');
  });
  after(async () => {
    for (const s of others) await s.close();
    await rig?.close();
  });

  for (const spoof of SPOOFS) {
    test(`${spoof.label}: the 402, realm, MCP and A2A challenges, signed offers and documents name our origin, never that host`, async () => {
      for (const r of STATING) {
        const a = await send(svc, spoof, r.method, r.path, r.body, r.extra);
        assertNamesNoForeignHost(a, `${r.label} (${r.method} ${r.path})`);
        if (r.path === CONTRAST) {
          assert.equal(a.status, 402, `${r.label}: ${a.body.toString('utf8').slice(0, 200)}`);
          assert.equal(resourceUrlOf(a), svc.url + CONTRAST);
          assert.match(headerOf(a, 'www-authenticate') ?? '', new RegExp(`realm="${own.replace(/\./g, '\\.')}"`));
        } else {
          assert.equal(a.status, 200, `${r.label}: ${a.body.toString('utf8').slice(0, 200)}`);
          assert.ok(everythingSaid(a).includes(`http://${own}`), `${r.label} names the service's own origin`);
        }
      }
      for (const path of literalGets(svc)) {
        assertNamesNoForeignHost(await send(svc, spoof, 'GET', path, undefined, ['Accept: text/html']), `GET ${path} (page)`);
        assertNamesNoForeignHost(await send(svc, spoof, 'GET', path), `GET ${path}`);
      }
    });
  }

  test('a payment sent under a foreign Host: its signed receipt names our origin', async () => {
    const body = { foreground: '#121212', background: '#fefefe', large_text: false };
    for (const spoof of SPOOFS) {
      // The challenge exactly as the spoofed request gets it (before the fix: a 402 for the foreign URL).
      const asked = await send(svc, spoof, 'POST', CONTRAST, body);
      assert.equal(asked.status, 402, spoof.label);
      const pr: PaymentRequired = decodePaymentRequiredHeader(headerOf(asked, 'payment-required')!);
      const payload = withPaymentId(await buyerClient(rig.devnet).createPaymentPayload(pr));
      const paid = await send(svc, spoof, 'POST', CONTRAST, body, [`PAYMENT-SIGNATURE: ${encodePaymentSignatureHeader(payload)}`]);
      assertNamesNoForeignHost(paid, `paid call with ${spoof.label}`);
      assert.equal(paid.status, 200, `${spoof.label}: ${paid.body.toString('utf8').slice(0, 200)}`);
      const settled = decodePaymentResponseHeader(headerOf(paid, 'payment-response')!) as { extensions?: { 'offer-receipt'?: { info?: { receipt?: { payload?: { resourceUrl?: string } } } } } };
      assert.equal(settled.extensions?.['offer-receipt']?.info?.receipt?.payload?.resourceUrl, svc.url + CONTRAST, `${spoof.label}: the signed receipt's resource`);
    }
    const transfers = await transferLogs(rig.devnet, { from: rig.devnet.buyer.address });
    assert.equal(transfers.length, SPOOFS.length, 'each paid once');
  });

  test('our own names are served, each named in its one canonical spelling', async () => {
    const port = portOf(svc);
    for (const [host, origin] of [
      [`127.0.0.1:${port}`, `http://127.0.0.1:${port}`],
      [`localhost:${port}`, `http://localhost:${port}`],
      [`LOCALHOST:${port}`, `http://localhost:${port}`],
      [`localhost.:${port}`, `http://localhost:${port}`],
      [`[::1]:${port}`, `http://[::1]:${port}`],
    ] as const) {
      const a = await rawExchange(port, rawRequest([`POST ${CONTRAST} HTTP/1.1`, `Host: ${host}`, 'Content-Type: application/json'], JSON.stringify(BLACK_ON_WHITE)));
      assert.equal(a.status, 402, host);
      assert.equal(resourceUrlOf(a), origin + CONTRAST, host);
    }
  });

  test('ALLOWED_HOSTS adds names; behind a trusted proxy the forwarded host is one of them or ignored', async () => {
    const s = await another({ ALLOWED_HOSTS: 'pay.example.test, 10.1.2.3:8080', TRUST_PROXY: '1' });
    const port = portOf(s);
    const ask = (lines: string[]) => rawExchange(port, rawRequest([`POST ${CONTRAST} HTTP/1.1`, ...lines, 'Content-Type: application/json'], JSON.stringify(BLACK_ON_WHITE)));
    // A listed name without a port: any port; with one: that port only.
    assert.equal(resourceUrlOf(await ask(['Host: pay.example.test'])), 'http://pay.example.test' + CONTRAST);
    assert.equal(resourceUrlOf(await ask(['Host: Pay.Example.Test:9000'])), 'http://pay.example.test:9000' + CONTRAST);
    assert.equal(resourceUrlOf(await ask(['Host: 10.1.2.3:8080'])), 'http://10.1.2.3:8080' + CONTRAST);
    assert.equal(resourceUrlOf(await ask(['Host: 10.1.2.3:8081'])), s.url + CONTRAST);
    // Behind the trusted proxy: the forwarded host is taken only when it is ours.
    assert.equal(resourceUrlOf(await ask([`Host: 127.0.0.1:${port}`, 'X-Forwarded-Host: pay.example.test', 'X-Forwarded-Proto: https'])), 'https://pay.example.test' + CONTRAST);
    const spoofed = await ask([`Host: 127.0.0.1:${port}`, 'X-Forwarded-Host: evil.example', 'X-Forwarded-Proto: https']);
    assertNamesNoForeignHost(spoofed, 'X-Forwarded-Host behind TRUST_PROXY');
    assert.equal(resourceUrlOf(spoofed), s.url + CONTRAST);
  });

  test('with PUBLIC_BASE_URL set, that origin is named whatever the Host says', async () => {
    const s = await another({ PUBLIC_BASE_URL: 'https://pay.example.test' });
    for (const spoof of SPOOFS) {
      const a = await send(s, spoof, 'POST', CONTRAST, BLACK_ON_WHITE);
      assertNamesNoForeignHost(a, `${spoof.label} with PUBLIC_BASE_URL`);
      assert.equal(a.status, 402, spoof.label);
      assert.equal(resourceUrlOf(a), 'https://pay.example.test' + CONTRAST);
      assert.match(headerOf(a, 'www-authenticate') ?? '', /realm="pay\.example\.test"/);
    }
  });
});

test('ALLOWED_HOSTS: host[:port] entries, comma-separated; anything else stops start-up with one line naming it', () => {
  assert.deepEqual(loadConfig({}).allowedHosts, []);
  assert.deepEqual(loadConfig({ ALLOWED_HOSTS: ' Pay.Example.Test , 10.0.0.5:8402,[2001:DB8::1]:443, api.example.test. ' }).allowedHosts, [
    { hostname: 'pay.example.test', port: undefined },
    { hostname: '10.0.0.5', port: 8402 },
    { hostname: '[2001:db8::1]', port: 443 },
    { hostname: 'api.example.test', port: undefined },
  ]);
  for (const bad of ['*', '*.example.test', 'https://pay.example.test', 'pay.example.test/x', 'user@pay.example.test', 'pay.example.test:0', 'pay.example.test:99999', 'pay example', 'a,,b', '.example.test', '2001:db8::1']) {
    assert.throws(
      () => loadConfig({ ALLOWED_HOSTS: bad }),
      (e: unknown) => e instanceof ConfigError && e.variable === 'ALLOWED_HOSTS' && !e.message.includes('\n'),
      bad,
    );
  }
});
