/**
 * The router's routes are described by its OpenAPI hook and tools: with the
 * discovery and MCP modules the document stays valid, the router's routes are
 * described (the composite only when the switch is on; that every served
 * route is described is route-coverage.test.ts), x402scan's validator has no
 * warnings, and the MCP endpoint offers the free router tools.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Validator } from '@seriousme/openapi-schema-validator';
import { discoveryModule } from '../src/discovery/module.js';
import { mcpModule } from '../src/mcp/module.js';
import { routerModule } from '../src/router/module.js';
import { startRig } from './support/harness.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

for (const composite of [false, true]) {
  test(`router in the discovery documents, composite ${composite ? 'on' : 'off'}`, async () => {
    const rig = await startRig({ env: { OUTCOME_ROUTER_COMPOSITE: composite ? '1' : '0' }, service: { modules: [discoveryModule, mcpModule, routerModule] } });
    try {
      const base = rig.service.url;
      const openapi = (await (await fetch(base + '/openapi.json')).json()) as any;
      const v = await new Validator().validate(openapi);
      assert.equal(v.valid, true, JSON.stringify(v.errors)?.slice(0, 2000));
      assert.ok(openapi.paths['/v1/router'].get);
      assert.ok(openapi.paths['/v1/router/quote'].post);
      assert.equal(Boolean(openapi.paths['/x402/v1/outcome-router']), composite);

      const manifest = (await (await fetch(base + '/.well-known/x402')).json()) as { resources: string[] };
      assert.equal(manifest.resources.includes(base + '/x402/v1/outcome-router'), composite);

      const bin = join(ROOT, 'node_modules/@agentcash/discovery/bin/discovery.js');
      const r = await promisify(execFile)(process.execPath, [bin, 'discover', base, '--json'], { encoding: 'utf8', timeout: 60_000 });
      const d = JSON.parse(r.stdout);
      assert.equal(d.ok, true);
      assert.deepEqual(d.warnings.filter((w: { severity: string }) => w.severity !== 'info'), []);

      const list = await fetch(base + '/mcp', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      const tools = await list.text();
      assert.match(tools, /router-quote/);
      assert.match(tools, /router-contract/);
    } finally {
      await rig.close();
    }
  });
}
