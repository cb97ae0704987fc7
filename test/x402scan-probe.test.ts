/**
 * x402scan's discovery validator, run for real: @agentcash/discovery probes
 * every paid route with no body (checkEndpointSchema with probe on) and must
 * find each one, with input and output schemas, and report no error and no
 * warning; the 402 body is a valid x402 v2 PaymentRequired by @x402/core's
 * own schema and by the validator's. A request without a body and with a
 * payment is refused before any payment step.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import {
  checkEndpointSchema,
  checkL2ForOpenAPI,
  checkL4ForOpenAPI,
  discoverOriginSchema,
  getOpenAPI,
  getWarningsForL2,
  getWarningsForL3,
  getWarningsForL4,
  getWarningsForLegacyWellKnown,
  getWarningsForOpenAPI,
  probeLegacyWellKnown,
  validatePaymentRequiredDetailed,
} from '@agentcash/discovery';
import { parsePaymentRequired } from '@x402/core/schemas';
import { validateDiscoveryExtension } from '@x402/extensions/bazaar';
import { CONTRAST, BLACK_ON_WHITE, decodePaymentRequiredHeader, postJson, signFor, startRig, type Rig } from './support/harness.js';

type Issue = { severity: string; code: string; message: string };
/** Errors and warnings only: `info` is advice the validator itself does not count against a server. */
const problems = (issues: readonly Issue[]) => issues.filter((i) => i.severity === 'error' || i.severity === 'warn').map((i) => `${i.code}: ${i.message}`);

/** Bytes on a socket: a POST with neither Content-Length nor Transfer-Encoding, which no fetch client sends. */
function postWithoutLengthHeader(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(u.port), u.hostname, () => {
      const extra = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('');
      socket.end(`POST ${u.pathname} HTTP/1.1\r\nHost: ${u.host}\r\nConnection: close\r\n${extra}\r\n`);
    });
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (d) => (text += d));
    socket.on('error', reject);
    socket.on('end', () => {
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]);
      const rawBody = text.slice(text.indexOf('\r\n\r\n') + 4);
      // A chunked answer: keep only the chunk data.
      const body = /transfer-encoding: chunked/i.test(text.slice(0, text.indexOf('\r\n\r\n')))
        ? rawBody.split('\r\n').filter((_, i) => i % 2 === 1).join('')
        : rawBody;
      resolve({ status, body });
    });
  });
}

async function textOf(res: Promise<Response>): Promise<{ status: number; body: string }> {
  const r = await res;
  return { status: r.status, body: await r.text() };
}

describe('x402scan probe (@agentcash/discovery, probing on)', () => {
  let rig: Rig;
  let base: string;
  let paidPaths: string[];
  before(async () => {
    rig = await startRig({ env: { OUTCOME_ROUTER_COMPOSITE: '1' } });
    base = rig.service.url;
    paidPaths = rig.service.catalog.map((c) => c.path);
    assert.ok(paidPaths.includes('/v1/intelligence/changes-since') && paidPaths.includes('/x402/v1/outcome-router'), 'the catalog has the intelligence route and the composite');
  });
  after(async () => rig?.close());

  test('origin discovery: the OpenAPI document lists every paid route as paid, with no error or warning', async () => {
    const discovered = await discoverOriginSchema({ target: base });
    assert.equal(discovered.found, true);
    if (!discovered.found) return;
    for (const path of paidPaths) {
      const e: { authMode?: string } | undefined = (discovered.endpoints as Array<{ path: string; method: string; authMode?: string }>).find((x) => x.path === path && x.method === 'POST');
      assert.equal(e?.authMode, 'paid', path);
    }
    const openapi = await getOpenAPI(base);
    assert.ok(openapi.isOk());
    const raw = openapi._unsafeUnwrap() as never;
    assert.deepEqual(problems([...getWarningsForOpenAPI(raw), ...getWarningsForL2(checkL2ForOpenAPI(raw)), ...getWarningsForL4(checkL4ForOpenAPI(raw))]), []);
  });

  test('every paid POST route is found by probing, with input and output schemas, payment options, and no error or warning', async () => {
    for (const path of paidPaths) {
      const r = await checkEndpointSchema({ url: base + path, probe: true });
      assert.equal(r.found, true, path);
      if (!r.found) continue;
      const post = r.advisories.find((a) => a.method === 'POST');
      assert.ok(post, `${path}: POST probed`);
      assert.equal(post.authMode, 'paid', path);
      assert.ok(post.inputSchema, `${path}: input schema`);
      assert.ok(post.outputSchema, `${path}: output schema`);
      assert.ok(post.paymentOptions?.length, `${path}: payment options`);
      // The schemas come from the 402 itself, not from the OpenAPI fallback.
      const pr = post.paymentRequiredBody as Record<string, unknown>;
      const detailed = validatePaymentRequiredDetailed(pr);
      assert.equal(detailed.valid, true, `${path}: ${JSON.stringify(detailed.issues)}`);
      assert.deepEqual({ input: detailed.normalized?.hasInputSchema, output: detailed.normalized?.hasOutputSchema }, { input: true, output: true }, path);
      const bazaar = (pr.extensions as { bazaar: Parameters<typeof validateDiscoveryExtension>[0] }).bazaar;
      assert.deepEqual(validateDiscoveryExtension(bazaar), { valid: true }, `${path}: the bazaar extension validates against its own schema`);
      assert.deepEqual(problems(r.advisories.flatMap((a) => getWarningsForL3(a) as Issue[])), [], path);
    }
  });

  test('the 402 body is a valid x402 v2 PaymentRequired (@x402/core and the validator), with our explanation in problem', async () => {
    for (const [what, res] of [
      ['no body', await fetch(base + CONTRAST, { method: 'POST' })],
      ['a valid body', await postJson(base + CONTRAST, BLACK_ON_WHITE)],
    ] as const) {
      assert.equal(res.status, 402, what);
      const body = (await res.json()) as Record<string, any>;
      const parsed = parsePaymentRequired(body);
      assert.ok(parsed.success, `${what}: ${JSON.stringify(parsed.error?.issues)}`);
      assert.equal(typeof body.error, 'string', what);
      const detailed = validatePaymentRequiredDetailed(body);
      assert.equal(detailed.valid, true, what);
      assert.equal(detailed.normalized?.hasInputSchema, true, what);
      // The discovery challenge carries everything; a payable one is fitted to the 2 KB header budget and may carry the input shape only.
      if (what === 'no body') assert.deepEqual(problems(detailed.issues as Issue[]), [], what);
      const header = decodePaymentRequiredHeader(res.headers.get('payment-required')!);
      assert.deepEqual({ accepts: body.accepts, resource: body.resource, extensions: body.extensions }, { accepts: header.accepts, resource: header.resource, extensions: header.extensions }, `${what}: the body's PaymentRequired is the header's`);
      assert.equal(body.problem.code, 'payment_required', what);
      assert.equal(body.problem.message, body.error, what);
      assert.equal(body.problem.price.amount_atomic, '1000', what);
      assert.match(body.problem.how_to_pay, /PAYMENT-SIGNATURE/, what);
    }
  });

  test('no body, with Content-Length 0 or without it: the discovery challenge, whose bazaar extension carries the input schema and an example', async () => {
    for (const res of [await textOf(fetch(base + CONTRAST, { method: 'POST', headers: { 'content-length': '0' } })), await postWithoutLengthHeader(base + CONTRAST)]) {
      assert.equal(res.status, 402);
      const body = JSON.parse(res.body) as Record<string, any>;
      const bazaar = body.extensions.bazaar;
      assert.deepEqual(Object.keys(bazaar.schema.properties.input.properties.body.properties).sort(), ['background', 'foreground', 'large_text']);
      assert.deepEqual(Object.keys(bazaar.info.input.body).sort(), Object.keys(BLACK_ON_WHITE).sort(), 'an example input');
      assert.equal(bazaar.info.input.method, 'POST');
      assert.ok(bazaar.schema.properties.output.properties.example.properties.contrast_ratio, 'the output shape');
    }
  });

  test('a body that is present but invalid is still 400 before any payment step, paid or not', async () => {
    for (const body of ['{}', '{"foreground":"red"}', 'not json']) {
      const res = await fetch(base + CONTRAST, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      assert.equal(res.status, 400, body);
    }
  });

  test('no body with a payment attached: 400 invalid_request, nothing verified, bound or settled', async () => {
    const { header } = await signFor(base + CONTRAST, BLACK_ON_WHITE, rig.devnet);
    const rows = await rig.service.ledger.summary();
    const calls = { ...rig.proxy.calls };
    for (const res of [
      await textOf(fetch(base + CONTRAST, { method: 'POST', headers: { 'PAYMENT-SIGNATURE': header } })),
      await postWithoutLengthHeader(base + CONTRAST, { 'PAYMENT-SIGNATURE': header }),
    ]) {
      assert.equal(res.status, 400);
      const body = JSON.parse(res.body) as { error: { code: string; details: Array<{ rule: string }> } };
      assert.equal(body.error.code, 'invalid_request');
      assert.equal(body.error.details[0]!.rule, 'required');
    }
    assert.deepEqual((await rig.service.ledger.summary()).byState, rows.byState, 'no ledger row');
    assert.deepEqual(rig.proxy.calls, calls, 'the facilitator was never asked');
    // The same authorization still buys the request it was signed for.
    const paid = await postJson(base + CONTRAST, BLACK_ON_WHITE, { 'PAYMENT-SIGNATURE': header });
    assert.equal(paid.status, 200);
  });

  test('/.well-known/x402 stays for its existing clients; discovery is OpenAPI-first, so the validator never falls back to it', async () => {
    const manifest = (await (await fetch(base + '/.well-known/x402')).json()) as { resources: string[]; openapi: string };
    for (const path of paidPaths) assert.ok(manifest.resources.includes(base + path), path);
    assert.equal(manifest.openapi, base + '/openapi.json', 'the manifest points its readers at the OpenAPI document');
    assert.match(await (await fetch(base + '/llms.txt')).text(), /POST with no body at all answers the discovery challenge/);
    const discovered = await discoverOriginSchema({ target: base });
    assert.equal(discovered.found && discovered.source, 'openapi');
    // Asked directly, the legacy check is advice only (info): no error, no warning.
    const legacy = await probeLegacyWellKnown(base);
    assert.ok(legacy.isOk());
    assert.deepEqual(problems(getWarningsForLegacyWellKnown(legacy._unsafeUnwrap()) as Issue[]), []);
  });
});
