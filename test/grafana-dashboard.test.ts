/**
 * ops/grafana/agent-pay-service.json queries only what the service exports:
 * every metric a panel's PromQL selects is in the service's own GET /metrics
 * (a `# TYPE` line; a histogram's _bucket, _sum and _count series under its
 * name), so a renamed metric fails here instead of leaving a blank panel.
 * The service is built as `npm start` builds it, with a stub facilitator and
 * no chain (nothing here pays).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FacilitatorClient } from '@x402/core/server';
import { loadConfig } from '../src/config.js';
import { ScriptedChain } from './support/scripted-rail.js';
import { startService } from '../src/service.js';
import { tempDir } from './support/harness.js';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const FILE = join(dirname(fileURLToPath(import.meta.url)), '..', 'ops', 'grafana', 'agent-pay-service.json');
const README = readFileSync(join(dirname(FILE), 'README.md'), 'utf8');
const dashboard = JSON.parse(readFileSync(FILE, 'utf8')) as Json;
const panels = (dashboard.panels as Json[]).filter((p) => p.type !== 'row');
const exprs = panels.flatMap((p) => (p.targets as Json[]).map((t) => ({ panel: p.title as string, expr: t.expr as string })));

/** Metric names a PromQL expression selects: an identifier followed by a label matcher or a range. */
function selected(expr: string): string[] {
  return [...expr.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)\s*[{[]/g)].map((m) => m[1]!);
}

async function exported(): Promise<Map<string, string>> {
  const network = 'eip155:84532';
  const facilitator = { getSupported: async () => ({ kinds: [{ x402Version: 2, scheme: 'exact', network }], extensions: [], signers: {} }) } as unknown as FacilitatorClient;
  const config = loadConfig({ X402_NETWORK: network, X402_PAY_TO: '0x1111111111111111111111111111111111111111', X402_FACILITATOR_URL: 'http://127.0.0.1:9', X402_RPC_URL: 'http://127.0.0.1:9', HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'silent', DATA_DIR: tempDir('grafana-') });
  const svc = await startService(config, { facilitator, chain: new ScriptedChain() });
  try {
    const res = await svc.app.request('/metrics');
    assert.equal(res.status, 200);
    const types = new Map<string, string>();
    for (const m of (await res.text()).matchAll(/^# TYPE (\S+) (\S+)$/gm)) types.set(m[1]!, m[2]!);
    return types;
  } finally {
    await svc.close();
  }
}

test('every metric the Grafana dashboard queries is in the service\'s /metrics', async () => {
  const types = await exported();
  assert.ok(exprs.length >= 10, 'the dashboard has its panels');
  const missing: string[] = [];
  for (const { panel, expr } of exprs) {
    const names = selected(expr);
    assert.ok(names.length > 0, `${panel}: ${expr} selects no metric`);
    for (const name of names) {
      const histogram = /^(.*)_(bucket|sum|count)$/.exec(name);
      const ok = types.has(name) || (histogram !== null && types.get(histogram[1]!) === 'histogram');
      if (!ok) missing.push(`${panel}: ${name}`);
    }
  }
  assert.deepEqual(missing, []);
});

test('every selection is scoped to the $job variable and every panel reads the $datasource variable', () => {
  for (const { panel, expr } of exprs) {
    const selectors = [...expr.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*\{([^}]*)\}/g)];
    assert.equal(selectors.length, selected(expr).length, `${panel}: every metric has a label matcher`);
    for (const s of selectors) assert.ok(s[1]!.includes('job=~"$job"'), `${panel}: ${s[0]}`);
  }
  for (const p of panels) assert.equal(p.datasource?.uid, '${datasource}', p.title);
  assert.deepEqual((dashboard.templating.list as Json[]).map((v) => v.name), ['datasource', 'job']);
  assert.equal(new Set((dashboard.panels as Json[]).map((p) => p.id)).size, dashboard.panels.length, 'panel ids are unique');
});

test('the README\'s Prometheus scrape targets use the service\'s default port', () => {
  // The default, as the service reads it with no PORT set.
  const port = loadConfig({}).port;
  const targets = /^\s*- targets: \[([^\]]*)\]$/m.exec(README);
  assert.ok(targets, 'a static_configs targets line');
  const hostPorts = [...targets[1]!.matchAll(/'([^']+)'/g)].map((m) => m[1]!);
  assert.ok(hostPorts.length > 0, targets[0]);
  for (const hp of hostPorts) assert.equal(new URL(`http://${hp}`).port, String(port), `${hp} in ops/grafana/README.md`);
  assert.ok(README.includes(`\`PORT\` is ${port} unless set`), 'the README states the default port');
});
