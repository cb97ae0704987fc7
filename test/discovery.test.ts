/**
 * Discovery documents are generated from the catalog and stay true: a
 * maintained OpenAPI 3.1 validator accepts the description (that it describes
 * exactly the served routes is route-coverage.test.ts), the manifest's
 * resources answer 402, the agent card round-trips through the A2A SDK, and
 * x402scan's validator (@agentcash/discovery) reports no errors against the
 * running server.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Validator } from '@seriousme/openapi-schema-validator';
import { AgentCard } from '@a2a-js/sdk';
import { postJson, startRig, type Rig } from './support/harness.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** protobuf JSON omits default values; drop them from the card before comparing. */
function withoutDefaults(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutDefaults);
  if (!v || typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    if (x === '' || x === false || (Array.isArray(x) && x.length === 0) || (x && typeof x === 'object' && !Array.isArray(x) && Object.keys(x).length === 0)) continue;
    out[k] = withoutDefaults(x);
  }
  return out;
}

describe('discovery documents', () => {
  let rig: Rig;
  let base: string;
  let openapi: Record<string, any>;
  before(async () => {
    rig = await startRig();
    base = rig.service.url;
    openapi = await (await fetch(base + '/openapi.json')).json();
  });
  after(async () => rig?.close());

  test('/openapi.json is a valid OpenAPI 3.1.0 document, version 1.0.0', async () => {
    assert.equal(openapi.openapi, '3.1.0');
    assert.equal(openapi.info.version, '1.0.0');
    const v = new Validator();
    const r = await v.validate(openapi);
    assert.equal(r.valid, true, JSON.stringify(r.errors, null, 1)?.slice(0, 2000));
  });

  test('paid operations carry x-payment-info, the validating schemas and a 402 response', () => {
    for (const cap of rig.service.catalog) {
      const op = openapi.paths[cap.path][cap.method.toLowerCase()];
      const info = op['x-payment-info'];
      assert.equal(info.amount_atomic, cap.priceAtomic);
      assert.equal(info.protocol, 'x402');
      assert.equal(info.scheme, 'exact');
      assert.equal(info.network, 'eip155:31337');
      assert.equal(info.payTo, rig.devnet.payTo);
      assert.equal(info.asset, rig.devnet.asset);
      assert.equal(info.price.mode, 'fixed');
      assert.ok(op.responses['402'] && op.responses['400'] && op.responses['503']);
      const inSchema = op.requestBody.content['application/json'].schema;
      if (!JSON.stringify(cap.inputSchema).includes('$defs')) assert.deepEqual(inSchema, cap.inputSchema);
    }
    assert.ok(openapi.components.schemas.ErrorCode.enum.includes('payment_in_progress'));
  });

  test('/.well-known/x402 lists every paid resource, and each answers 402 unpaid', async () => {
    const m = await (await fetch(base + '/.well-known/x402')).json();
    assert.equal(m.version, 1);
    assert.equal(m.resources.length, rig.service.catalog.length);
    for (const url of m.resources as string[]) {
      const cap = rig.service.catalog.find((c) => base + c.path === url)!;
      assert.ok(cap, url);
      const res = await postJson(url, cap.examples[0]!.input);
      assert.equal(res.status, 402, url);
    }
    assert.match(m.instructions, /PAYMENT-SIGNATURE/);
  });

  test('the agent card round-trips through the A2A SDK and has a skill per capability', async () => {
    const card = await (await fetch(base + '/.well-known/agent-card.json')).json();
    const parsed = AgentCard.fromJSON(card);
    assert.deepEqual(withoutDefaults(AgentCard.toJSON(parsed)), withoutDefaults(card), 'every field is an A2A AgentCard field with the right type');
    for (const cap of rig.service.catalog) assert.ok(parsed.skills.some((s) => s.id === cap.id), cap.id);
    assert.ok(parsed.skills.some((s) => s.id === 'list-services'), 'free skills are the free agent tools');
  });

  test('/v1/services and /llms.txt name every paid resource with its price', async () => {
    const s = await (await fetch(base + '/v1/services')).json();
    const txt = await (await fetch(base + '/llms.txt')).text();
    for (const cap of rig.service.catalog) {
      const e = s.services.find((x: { id: string }) => x.id === cap.id);
      assert.equal(e.price_atomic, cap.priceAtomic);
      assert.equal(e.mcp_tool, cap.id);
      assert.ok(txt.includes(`${base}${cap.path} — ${cap.priceAtomic} atomic`), cap.id);
    }
    assert.equal(s.payment.pay_to, rig.devnet.payTo);
  });

  test("x402scan's validator (@agentcash/discovery) reports no errors or warnings against the running server", async () => {
    const bin = join(ROOT, 'node_modules/@agentcash/discovery/bin/discovery.js');
    // Asynchronously: the server under test runs in this process.
    const run = async (...args: string[]) => {
      const r = await promisify(execFile)(process.execPath, [bin, ...args, '--json'], { encoding: 'utf8', timeout: 60_000 });
      return JSON.parse(r.stdout);
    };
    const d = await run('discover', base);
    assert.equal(d.ok, true);
    assert.equal(d.resources.filter((r: { authHint: string }) => r.authHint === 'paid').length, rig.service.catalog.length);
    const bad = (d.warnings as Array<{ severity: string; code: string }>).filter((w) => w.severity !== 'info');
    assert.deepEqual(bad, []);
    for (const cap of rig.service.catalog) {
      const c = await run('check', base + cap.path);
      assert.equal(c.found, true, cap.id);
      assert.deepEqual(c.warnings.filter((w: { severity: string }) => w.severity !== 'info'), [], cap.id);
      assert.equal(c.advisories.find((a: { method: string }) => a.method === cap.method).authMode, 'paid');
    }
  });
});

test('PUBLIC_BASE_URL is used for absolute URLs', async () => {
  const rig = await startRig({ env: { PUBLIC_BASE_URL: 'https://api.example.test' } });
  try {
    const m = await (await fetch(rig.service.url + '/.well-known/x402')).json();
    assert.deepEqual([...m.resources].sort(), rig.service.catalog.map((c) => 'https://api.example.test' + c.path).sort(), 'every paid resource, at PUBLIC_BASE_URL');
    const o = await (await fetch(rig.service.url + '/openapi.json')).json();
    assert.equal(o.servers[0].url, 'https://api.example.test');
  } finally {
    await rig.close();
  }
});
