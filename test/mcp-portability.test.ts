/**
 * MCP tools as a real MCP SDK client sees them (listTools, callTool): every
 * tool schema passes the MCP Inspector's portability rules with no finding,
 * every tool name is kebab-case, tools take the canonical form (aliases stay
 * an HTTP convenience), and free tools answer with URLs at the origin the MCP
 * request reached, with PUBLIC_BASE_URL unset and a non-default port.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { lintSchema } from './support/mcp-schema-lint.js';
import { startRig, type Rig } from './support/harness.js';

const text = (r: unknown) => (r as { content: Array<{ text: string }> }).content[0]!.text;

describe('MCP tools: portable schemas, one naming convention, the caller\'s origin', () => {
  let rig: Rig;
  let client: Client;
  let origin: string;
  before(async () => {
    rig = await startRig({ env: { OUTCOME_ROUTER_COMPOSITE: '1' } });
    assert.equal(rig.service.config.publicBaseUrl, undefined, 'PUBLIC_BASE_URL is unset');
    const port = new URL(rig.service.url).port;
    assert.notEqual(port, '8402', 'not the default port');
    // Another spelling of the same host: answers must follow the request, not the listen address.
    origin = `http://localhost:${port}`;
    client = new Client({ name: 'portability-check', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(origin + '/mcp')));
  });
  after(async () => {
    await client?.close();
    await rig?.close();
  });

  test('every tool schema (input and output) passes the Inspector\'s portability rules with 0 findings', async () => {
    const { tools } = await client.listTools();
    assert.ok(tools.length >= rig.service.catalog.length + 5);
    const findings = tools.flatMap((t) => [...lintSchema(t.inputSchema, 'inputSchema'), ...(t.outputSchema ? lintSchema(t.outputSchema, 'outputSchema') : [])].map((f) => `${t.name} ${f.schema}${f.path} ${f.rule}`));
    assert.deepEqual(findings, []);
  });

  test('every tool name is kebab-case: a paid tool is its capability id, a free tool is named by its route', async () => {
    const { tools } = await client.listTools();
    for (const t of tools) assert.match(t.name, /^[a-z0-9]+(-[a-z0-9]+)*$/, t.name);
    for (const cap of rig.service.catalog) assert.ok(tools.some((t) => t.name === cap.id), cap.id);
  });

  test('the router tools take the canonical form: objective, no aliases; an alias is refused before anything runs', async () => {
    const { tools } = await client.listTools();
    for (const name of ['router-quote', 'outcome-router']) {
      const schema = tools.find((t) => t.name === name)!.inputSchema as { required?: string[]; properties: Record<string, unknown>; additionalProperties?: boolean };
      assert.deepEqual(schema.required, ['objective'], name);
      assert.equal(schema.additionalProperties, false, name);
      for (const alias of ['goal', 'task', 'fg', 'foreground']) assert.equal(schema.properties[alias], undefined, `${name}: ${alias}`);
    }
    const ok = await client.callTool({ name: 'router-quote', arguments: { objective: 'contrast of #777777 on #ffffff' } });
    assert.notEqual(ok.isError, true, text(ok));
    const rows = await rig.service.ledger.summary();
    for (const name of ['router-quote', 'outcome-router']) {
      const alias = await client.callTool({ name, arguments: { goal: 'contrast of #777777 on #ffffff' } });
      assert.equal(alias.isError, true, name);
      assert.equal(JSON.parse(text(alias)).error.code, 'invalid_request', name);
    }
    assert.deepEqual((await rig.service.ledger.summary()).byState, rows.byState, 'no payment step');
    // Over HTTP the aliases are still accepted.
    const http = await fetch(rig.service.url + '/v1/router/quote', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ goal: 'contrast of #777777 on #ffffff' }) });
    assert.equal(http.status, 200);
  });

  test('free tools answer with URLs at the origin of the MCP request (router quote, router contract, list-services, distribution)', async () => {
    const quote = JSON.parse(text(await client.callTool({ name: 'router-quote', arguments: { objective: 'contrast of #777777 on #ffffff' } })));
    assert.equal(quote.steps[0].execute_route.url, origin + quote.steps[0].execute_route.path);
    for (const name of ['router-contract', 'list-services', 'distribution']) {
      const body = text(await client.callTool({ name, arguments: {} }));
      const ours = [...body.matchAll(/https?:\/\/(?:localhost|127\.0\.0\.1)(?::\d+)?[^"\s]*/g)].map((m) => m[0]);
      assert.ok(ours.length > 0, `${name} names service URLs`);
      for (const u of ours) assert.ok(u.startsWith(origin + '/') || u === origin, `${name}: ${u}`);
    }
  });
});
