/**
 * Bazaar's service metadata (the service's name, the entry's tags, the icon)
 * on every paid route, judged by the SDK's own code: each 402 (the discovery
 * challenge and the payable one over HTTP, MCP's tool result, A2A's
 * x402.payment.required) is paid for by the official x402 client, and the
 * payload is read with `extractDiscoveryInfo`, what a facilitator runs to
 * catalogue a resource (it validates the bazaar extension against its schema
 * and keeps only the metadata that passes the spec's rules). The discovery
 * challenge, MCP and A2A carry all of it; a payable 402 what its 2 KB leave
 * (the name at least). /.well-known/x402 lists the same, and the icon is
 * served at the origin the metadata names. MPP is on: the discovery
 * challenge then has the least room.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { parsePaymentRequired } from '@x402/core/schemas';
import type { PaymentRequired } from '@x402/core/types';
import { extractDiscoveryInfo, sanitizeResourceServiceMetadata, validateDiscoveryExtension, validateDiscoveryExtensionSpec } from '@x402/extensions/bazaar';
import { buyerClient, decodePaymentRequiredHeader, postJson, startRig, type Rig } from './support/harness.js';
import { X402_URI } from './support/a2a-messages.js';
import { tagsOf } from '../src/discovery/bazaar.js';
import { ICON_PATH, SERVICE_NAME } from '../src/discovery/identity.js';
import type { Capability } from '../src/catalog/capability.js';

/** A public name: Bazaar drops an icon URL at an IP address or localhost, so the rig's own address would state none. */
const ORIGIN = 'https://api.example.test';
const ICON_URL = ORIGIN + ICON_PATH;
type Bazaar = Parameters<typeof validateDiscoveryExtension>[0];

describe('Bazaar service metadata on every paid route', () => {
  let rig: Rig;
  let mcp: Client;
  before(async () => {
    rig = await startRig({ env: { OUTCOME_ROUTER_COMPOSITE: '1', PUBLIC_BASE_URL: ORIGIN, MPP_SECRET_KEY: 'test-mpp-secret-0123456789abcdef0123456789' } });
    mcp = new Client({ name: 'test-agent', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(rig.service.url + '/mcp')));
  });
  after(async () => {
    await mcp?.close();
    await rig?.close();
  });

  const smallestInput = (cap: Capability) => [...cap.examples].sort((a, b) => JSON.stringify(a.input).length - JSON.stringify(b.input).length)[0]!.input;
  const everything = (cap: Capability) => ({ serviceName: SERVICE_NAME, tags: tagsOf(cap), iconUrl: ICON_URL });

  /**
   * What a facilitator catalogues from a payment for this 402: its bazaar
   * extension valid by the SDK, and the service metadata that survived its
   * rules, which must be all that was sent. Returns that metadata.
   */
  async function catalogued(pr: PaymentRequired, cap: Capability, what: string) {
    assert.ok(parsePaymentRequired(pr).success, `${what}: a valid x402 v2 PaymentRequired (@x402/core's schema, which bounds the metadata)`);
    const bazaar = pr.extensions?.bazaar as Bazaar | undefined;
    assert.ok(bazaar, `${what}: carries Bazaar`);
    assert.deepEqual(validateDiscoveryExtension(bazaar), { valid: true }, `${what}: bazaar against its own schema`);
    assert.deepEqual(validateDiscoveryExtensionSpec(bazaar as unknown as Record<string, unknown>), { valid: true }, `${what}: bazaar by the spec's rules`);
    const client = buyerClient(rig.devnet);
    client.setSpendControls(false);
    const payload = await client.createPaymentPayload(pr);
    const found = extractDiscoveryInfo(payload, payload.accepted);
    assert.ok(found, `${what}: the facilitator finds a discoverable resource`);
    assert.equal(found.resourceUrl, ORIGIN + cap.path, what);
    const { serviceName, tags, iconUrl } = pr.resource;
    const sent = { ...(serviceName !== undefined && { serviceName }), ...(tags !== undefined && { tags }), ...(iconUrl !== undefined && { iconUrl }) };
    const kept = { ...(found.serviceName !== undefined && { serviceName: found.serviceName }), ...(found.tags && { tags: found.tags }), ...(found.iconUrl && { iconUrl: found.iconUrl }) };
    assert.deepEqual(kept, sent, `${what}: every field sent is catalogued`);
    assert.deepEqual(sanitizeResourceServiceMetadata(pr.resource), sent, what);
    return kept;
  }

  test('the discovery challenge (no body) carries the name, the tags and the icon, and Bazaar, all catalogued; its body is its header', async () => {
    for (const cap of rig.service.catalog) {
      const res = await fetch(rig.service.url + cap.path, { method: 'POST' });
      assert.equal(res.status, 402, cap.id);
      const pr = decodePaymentRequiredHeader(res.headers.get('payment-required')!);
      assert.deepEqual(await catalogued(pr, cap, `${cap.id} discovery`), everything(cap), cap.id);
      assert.deepEqual(((await res.json()) as PaymentRequired).resource, pr.resource, `${cap.id}: the body's resource is the header's`);
    }
  });

  test('a payable 402 keeps the name and what else its 2 KB hold (the icon only with the tags), with Bazaar\'s input example, all catalogued', async () => {
    for (const cap of rig.service.catalog) {
      const res = await postJson(rig.service.url + cap.path, smallestInput(cap));
      assert.equal(res.status, 402, cap.id);
      const pr = decodePaymentRequiredHeader(res.headers.get('payment-required')!);
      const kept = await catalogued(pr, cap, `${cap.id} payable`);
      assert.equal(kept.serviceName, SERVICE_NAME, cap.id);
      if (kept.tags) assert.deepEqual(kept.tags, tagsOf(cap), cap.id);
      if (kept.iconUrl) assert.equal(kept.iconUrl, ICON_URL, cap.id);
      assert.ok(!kept.iconUrl || kept.tags, `${cap.id}: the icon goes before the tags`);
      assert.deepEqual((pr.extensions?.bazaar as { info: { input: { body: unknown } } }).info.input.body, smallestInput(cap), `${cap.id}: Bazaar keeps the example`);
    }
  });

  test('MCP: every paid tool\'s PaymentRequired carries all of it, catalogued', async () => {
    for (const cap of rig.service.catalog) {
      const result = await mcp.callTool({ name: cap.id, arguments: smallestInput(cap) as Record<string, unknown> });
      assert.equal(result.isError, true, cap.id);
      assert.deepEqual(await catalogued(result.structuredContent as PaymentRequired, cap, `${cap.id} MCP`), everything(cap), cap.id);
    }
  });

  test('A2A: every paid skill\'s x402.payment.required carries all of it, catalogued', async () => {
    let n = 0;
    for (const cap of rig.service.catalog) {
      const message = { messageId: `m${++n}`, role: 'ROLE_USER', parts: [{ data: smallestInput(cap) }], metadata: { skill: cap.id } };
      const res = await fetch(rig.service.url + '/a2a', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'A2A-Version': '1.0', 'A2A-Extensions': X402_URI },
        body: JSON.stringify({ jsonrpc: '2.0', id: n, method: 'SendMessage', params: { message } }),
      });
      const body = (await res.json()) as { result: { task: { status: { message: { metadata: Record<string, unknown> } } } } };
      const required = body.result.task.status.message.metadata['x402.payment.required'] as PaymentRequired;
      assert.deepEqual(await catalogued(required, cap, `${cap.id} A2A`), everything(cap), cap.id);
    }
  });

  test('/.well-known/x402 lists every paid resource with the same metadata and a Bazaar extension the SDK validates; resources stays a list of URLs', async () => {
    const manifest = (await (await fetch(rig.service.url + '/.well-known/x402')).json()) as { resources: string[]; items: Array<Record<string, unknown> & { resource: string; extensions: { bazaar: Bazaar } }> };
    assert.deepEqual(manifest.resources, rig.service.catalog.map((c) => ORIGIN + c.path));
    assert.deepEqual(manifest.items.map((i) => i.resource), manifest.resources);
    for (const cap of rig.service.catalog) {
      const item = manifest.items.find((i) => i.resource === ORIGIN + cap.path)!;
      const { serviceName, tags, iconUrl } = item;
      assert.deepEqual({ serviceName, tags, iconUrl }, everything(cap), cap.id);
      assert.deepEqual(sanitizeResourceServiceMetadata({ url: item.resource, ...everything(cap) }), everything(cap), cap.id);
      assert.deepEqual(validateDiscoveryExtension(item.extensions.bazaar), { valid: true }, cap.id);
      assert.deepEqual(validateDiscoveryExtensionSpec(item.extensions.bazaar as unknown as Record<string, unknown>), { valid: true }, cap.id);
      assert.equal((item.extensions.bazaar.info.input as { method?: string }).method, cap.method, cap.id);
    }
  });

  test('the icon URL is served by the service at that path: 200, an SVG image', async () => {
    const res = await fetch(rig.service.url + new URL(ICON_URL).pathname);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^image\/svg\+xml\b/);
    assert.match(await res.text(), /^<svg [^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  });
});
