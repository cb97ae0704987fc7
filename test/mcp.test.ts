/**
 * The MCP endpoint with the official MCP SDK client: tools, free calls, the
 * x402 challenge handed back, payment through _meta, one transfer on chain.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { PaymentRequired } from '@x402/core/types';
import { balanceOf, buyerClient, withPaymentId, startRig, transferLogs, type Rig } from './support/harness.js';

async function connect(url: string) {
  const client = new Client({ name: 'test-agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url + '/mcp')));
  return client;
}

describe('MCP challenge-handoff endpoint', () => {
  let rig: Rig;
  let client: Client;
  before(async () => {
    rig = await startRig();
    client = await connect(rig.service.url);
  });
  after(async () => {
    await client?.close();
    await rig?.close();
  });

  const args = { foreground: '#333333', background: '#fafafa', large_text: false };

  test('lists one tool per paid capability with the HTTP input schema, plus free tools', async () => {
    const { tools } = await client.listTools();
    for (const cap of rig.service.catalog) {
      const t = tools.find((x) => x.name === cap.id);
      assert.ok(t, cap.id);
      assert.deepEqual(t.inputSchema, cap.inputSchema);
    }
    assert.ok(tools.some((t) => t.name === 'list-services'));
    const s = await rig.service.ledger.summary();
    assert.equal(s.byState.reserved + s.byState.settled, 0, 'listing tools touches no payment');
  });

  test('a free tool answers without payment', async () => {
    const r = await client.callTool({ name: 'list-services', arguments: {} });
    assert.notEqual(r.isError, true);
    const services = (r.structuredContent as { services: Array<{ id: string; mcp_tool: string | null }> }).services;
    assert.ok(services.some((s) => s.id === 'accessibility-contrast-calculator' && s.mcp_tool === 'accessibility-contrast-calculator'));
  });

  test('a paid tool without payment hands back the x402 challenge in structuredContent and text', async () => {
    const r = await client.callTool({ name: 'accessibility-contrast-calculator', arguments: args });
    assert.equal(r.isError, true);
    const pr = r.structuredContent as PaymentRequired;
    assert.equal(pr.x402Version, 2);
    assert.equal(pr.accepts[0]!.amount, '1000');
    assert.deepEqual(JSON.parse((r.content as Array<{ text: string }>)[0]!.text), pr);
  });

  test('invalid arguments are refused before any payment step', async () => {
    const r = await client.callTool({ name: 'accessibility-contrast-calculator', arguments: { foreground: 'red' } });
    assert.equal(r.isError, true);
    assert.equal(JSON.parse((r.content as Array<{ text: string }>)[0]!.text).error.code, 'invalid_request');
  });

  test('paying through _meta["x402/payment"] returns the result and the receipt; exactly one transfer; a replay is free', async () => {
    const challenge = await client.callTool({ name: 'accessibility-contrast-calculator', arguments: args });
    const payload = withPaymentId(await buyerClient(rig.devnet).createPaymentPayload(challenge.structuredContent as PaymentRequired));
    const before = await balanceOf(rig.devnet, rig.devnet.payTo);
    const r = await client.callTool({ name: 'accessibility-contrast-calculator', arguments: args, _meta: { 'x402/payment': payload } });
    assert.notEqual(r.isError, true);
    const contrast = rig.service.catalog.find((c) => c.id === 'accessibility-contrast-calculator')!;
    assert.deepEqual(r.structuredContent, JSON.parse(JSON.stringify(await contrast.run(args))), "the capability's own result for these arguments");
    const receipt = r._meta?.['x402/payment-response'] as { success: boolean; transaction: string };
    assert.equal(receipt.success, true);
    assert.equal((await balanceOf(rig.devnet, rig.devnet.payTo)) - before, 1000n);
    const logs = (await transferLogs(rig.devnet, { to: rig.devnet.payTo })).filter((l) => l.txHash === receipt.transaction);
    assert.equal(logs.length, 1);
    const again = await client.callTool({ name: 'accessibility-contrast-calculator', arguments: args, _meta: { 'x402/payment': payload } });
    assert.deepEqual(again.structuredContent, r.structuredContent);
    assert.deepEqual(again._meta?.['x402/payment-response'], receipt);
    assert.equal((await balanceOf(rig.devnet, rig.devnet.payTo)) - before, 1000n, 'the replay is not charged');
  });

  test('a settlement the facilitator refuses after the tool ran returns only an error, never the content; the retry with the same payment delivers once', async () => {
    const a = { ...args, large_text: true };
    const challenge = await client.callTool({ name: 'accessibility-contrast-calculator', arguments: a });
    const payload = withPaymentId(await buyerClient(rig.devnet).createPaymentPayload(challenge.structuredContent as PaymentRequired));
    rig.proxy.setMode({ settle: 'settle-false' });
    try {
      const r = await client.callTool({ name: 'accessibility-contrast-calculator', arguments: a, _meta: { 'x402/payment': payload } });
      assert.equal(r.isError, true);
      assert.doesNotMatch(JSON.stringify(r), /contrast_ratio/);
      // The refused transfer may still be mined: not a 402, a "retry later".
      assert.match(JSON.stringify(r.content), /settlement_unknown/);
    } finally {
      rig.proxy.setMode('pass');
    }
    const retry = await client.callTool({ name: 'accessibility-contrast-calculator', arguments: a, _meta: { 'x402/payment': payload } });
    assert.notEqual(retry.isError, true);
    assert.match(JSON.stringify(retry.structuredContent), /contrast_ratio/);
    assert.equal((retry._meta?.['x402/payment-response'] as { success: boolean }).success, true);
  });

  test('GET /mcp without an event-stream Accept describes the endpoint', async () => {
    const res = await fetch(rig.service.url + '/mcp', { headers: { accept: 'application/json' } });
    assert.equal(res.status, 200);
    const d = await res.json();
    assert.match(d.transport, /Streamable HTTP/);
    assert.ok(d.tools.some((t: { name: string; paid: boolean }) => t.name === 'accessibility-contrast-calculator' && t.paid));
  });
});

describe('MCP free tools and the per-client limit of free routes', () => {
  let rig: Rig;
  before(async () => {
    rig = await startRig({ env: { RATE_LIMIT_PER_MINUTE: '6', TRUST_PROXY: '1' } });
  });
  after(async () => {
    await rig?.close();
  });

  test("a free tool's in-process call counts against its caller, not one client shared by every MCP caller", async () => {
    // Each client connects (a few requests to /mcp), makes one tools/call and the tool's inner request:
    // within its own 6. Were the inner requests counted as one shared client, the seventh caller's would be refused.
    for (let i = 1; i <= 8; i++) {
      const address = `10.0.0.${i}`;
      const client = new Client({ name: 'test-agent', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(rig.service.url + '/mcp'), { requestInit: { headers: { 'X-Forwarded-For': address } } }));
      const r = (await client.callTool({ name: 'list-services', arguments: {} })) as { isError?: boolean; content: Array<{ text: string }> };
      assert.ok(!r.isError, `${address} gets its answer, got ${r.content[0]?.text.slice(0, 200)}`);
      await client.close();
    }
  });
});
