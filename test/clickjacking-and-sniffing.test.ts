/**
 * Clickjacking and MIME sniffing: every answer the service sends over a
 * socket carries `X-Content-Type-Options: nosniff` (every route the app
 * registers, every status: 402 challenges, paid results, 404, 405, 413
 * written before the body is read, 400 from the app, from
 * @hono/node-server and from Node's parser, 431, 503), and every HTML
 * page refuses to be framed: one Content-Security-Policy ending in
 * `frame-ancestors 'none'`, and `X-Frame-Options: DENY`. The front door, the
 * newswire, the graph and the API reference could be framed by any site, and
 * the front door, the reference and the JSON APIs could be sniffed.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { generatePrivateKey } from 'viem/accounts';
import { BLACK_ON_WHITE, CONTRAST, signFor, startRig, type Rig } from './support/harness.js';
import { headerOf, rawExchange, rawRequest, type RawAnswer } from './support/raw-http.js';

/** Checks one answer; returns whether it was a page. */
function checkAnswer(a: RawAnswer, where: string): boolean {
  const label = `${where} → ${a.status}`;
  assert.deepEqual(a.headers.get('x-content-type-options'), ['nosniff'], `${label}: X-Content-Type-Options`);
  if (!/^text\/html/i.test(headerOf(a, 'content-type') ?? '')) return false;
  const csp = a.headers.get('content-security-policy') ?? [];
  assert.equal(csp.length, 1, `${label}: one Content-Security-Policy, got ${JSON.stringify(csp)}`);
  assert.match(csp[0]!, /(^|;)\s*frame-ancestors 'none'\s*(;|$)/, `${label}: CSP refuses framing`);
  assert.deepEqual(a.headers.get('x-frame-options'), ['DENY'], `${label}: X-Frame-Options`);
  return true;
}

/** A sample value for a route parameter: real where one is easy, else something that is answered 404 or 400. */
const SAMPLE_PARAMS: Record<string, string> = { asset: 'swagger-ui.css' };
const concrete = (path: string) => path.replace(/:([A-Za-z0-9_]+)(\{[^}]*\})?/g, (_, name: string) => SAMPLE_PARAMS[name] ?? 'x');

describe('every answer carries nosniff, and every page refuses framing', () => {
  let rig: Rig;
  let port: number;
  const send = (lines: string[], body?: string | Buffer) => rawExchange(port, rawRequest([...lines.slice(0, 1), `Host: 127.0.0.1:${port}`, ...lines.slice(1)], body));

  before(async () => {
    // Every optional route on, so the walk meets them all.
    rig = await startRig({ env: { ADMIN_TOKEN: 'clickjacking-admin-token', OUTCOME_ROUTER_COMPOSITE: '1', X402_SIGNING_KEY: generatePrivateKey(), MPP_SECRET_KEY: randomBytes(32).toString('hex') } });
    port = Number(new URL(rig.service.url).port);
  });
  after(async () => {
    await rig?.close();
  });

  test('the front door, the newswire, the graph and the API reference are pages that refuse framing', async () => {
    for (const path of ['/', '/newswire', '/graph', '/docs']) {
      const a = await send([`GET ${path} HTTP/1.1`, 'Accept: text/html']);
      assert.equal(a.status, 200, path);
      assert.equal(checkAnswer(a, `GET ${path}`), true, `${path} is a page`);
    }
  });

  test('every route the app registers, with every method it has (and a page where one is offered)', async () => {
    const routes = rig.service.app.routes.filter((r) => r.method !== 'ALL');
    assert.ok(routes.length > 40, `the walk covers the route table (${routes.length} routes)`);
    let pages = 0;
    for (const r of routes) {
      const path = concrete(r.path);
      if (r.method === 'GET' || r.method === 'HEAD') {
        for (const accept of ['text/html', 'application/json']) pages += Number(checkAnswer(await send([`${r.method} ${path} HTTP/1.1`, `Accept: ${accept}`]), `${r.method} ${path} (${accept})`));
      } else {
        checkAnswer(await send([`${r.method} ${path} HTTP/1.1`, 'Content-Type: application/json'], '{}'), `${r.method} ${path}`);
      }
      checkAnswer(await send([`OPTIONS ${path} HTTP/1.1`, 'Origin: https://agent.example', `Access-Control-Request-Method: ${r.method}`]), `preflight ${path}`);
    }
    assert.ok(pages >= 5, `pages were met (${pages})`);
  });

  test('error paths: 404, 405, 400, 402, 413 written early, and what Node and the adapter refuse', async () => {
    const cases: Array<[string, number, Promise<RawAnswer>]> = [
      ['unknown path', 404, send(['GET /no/such/thing HTTP/1.1'])],
      ['unknown path, as a browser', 404, send(['GET /no/such/thing HTTP/1.1', 'Accept: text/html'])],
      ['paid path, wrong method', 405, send([`GET ${CONTRAST} HTTP/1.1`])],
      ['free path, wrong method', 405, send(['PUT /v1/router/quote HTTP/1.1', 'Content-Type: application/json'], '{}')],
      ['paid route, not JSON', 400, send([`POST ${CONTRAST} HTTP/1.1`, 'Content-Type: application/json'], '{"foreground":')],
      ['paid route, unreadable PAYMENT-SIGNATURE', 400, send([`POST ${CONTRAST} HTTP/1.1`, 'Content-Type: application/json', 'PAYMENT-SIGNATURE: not-base64-json'], JSON.stringify(BLACK_ON_WHITE))],
      ['paid route, unpaid', 402, send([`POST ${CONTRAST} HTTP/1.1`, 'Content-Type: application/json'], JSON.stringify(BLACK_ON_WHITE))],
      ['paid route, discovery probe', 402, send([`POST ${CONTRAST} HTTP/1.1`])],
      ['paid route, an x402 v1 payment', 402, send([`POST ${CONTRAST} HTTP/1.1`, 'Content-Type: application/json', 'X-PAYMENT: e30='], JSON.stringify(BLACK_ON_WHITE))],
      ['paid route, malformed MPP credential', 402, send([`POST ${CONTRAST} HTTP/1.1`, 'Content-Type: application/json', 'Authorization: Payment not-a-credential'], JSON.stringify(BLACK_ON_WHITE))],
      ['paid route, body far over its limit (answered before it is read)', 413, send([`POST ${CONTRAST} HTTP/1.1`, 'Content-Type: application/json', 'Content-Length: 900000000'])],
      ['free route, body far over its limit', 413, send(['POST /v1/router/quote HTTP/1.1', 'Content-Type: application/json', 'Content-Length: 900000000'])],
      ['a host that is not ours', 402, rawExchange(port, rawRequest([`POST ${CONTRAST} HTTP/1.1`, 'Host: evil.example', 'Content-Type: application/json'], JSON.stringify(BLACK_ON_WHITE)))],
      ['a Host no URL can carry (the adapter refuses it)', 400, rawExchange(port, rawRequest(['GET /healthz HTTP/1.1', 'Host: evil example']))],
      ['a request line Node cannot parse', 400, rawExchange(port, Buffer.from('GET /healthz HTTP/1.1 extra\r\nHost: 127.0.0.1\r\n\r\n'))],
      ['a head over Node\'s limit', 431, send(['GET /healthz HTTP/1.1', `X-Padding: ${'a'.repeat(20_000)}`])],
    ];
    for (const [label, status, answer] of cases) {
      const a = await answer;
      assert.equal(a.status, status, `${label}: ${a.body.toString('utf8').slice(0, 200)}`);
      checkAnswer(a, label);
    }
  });

  test('paid answers: the result, and a 503 when no facilitator answers', async () => {
    const url = rig.service.url + CONTRAST;
    const body = { foreground: '#202020', background: '#fafafa', large_text: false };
    const paid = await signFor(url, body, rig.devnet);
    const delivered = await send([`POST ${CONTRAST} HTTP/1.1`, 'Content-Type: application/json', `PAYMENT-SIGNATURE: ${paid.header}`], JSON.stringify(body));
    assert.equal(delivered.status, 200, delivered.body.toString('utf8'));
    checkAnswer(delivered, 'paid result');

    const other = { ...body, foreground: '#212121' };
    const unpaid = await signFor(url, other, rig.devnet);
    rig.proxy.setMode({ verify: 'down' });
    try {
      const down = await send([`POST ${CONTRAST} HTTP/1.1`, 'Content-Type: application/json', `PAYMENT-SIGNATURE: ${unpaid.header}`], JSON.stringify(other));
      assert.equal(down.status, 503, down.body.toString('utf8'));
      checkAnswer(down, 'facilitator down');
    } finally {
      rig.proxy.setMode('pass');
    }
  });
});
