/**
 * The OpenAPI document describes exactly the routes the app serves: every
 * served (method, path) is described and every described one is served. The
 * service is built the way `npm start` builds it (startService, every default
 * module) but with no chain: an external network whose facilitator is a stub
 * that answers /supported, a scripted chain reader and a SQLite ledger in a
 * temp dir. Checked with every optional route switched on (ADMIN_TOKEN,
 * OUTCOME_ROUTER_COMPOSITE=1) and with all of them off; in both the document
 * is valid OpenAPI 3.1.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FacilitatorClient } from '@x402/core/server';
import { Validator } from '@seriousme/openapi-schema-validator';
import { loadConfig } from '../src/config.js';
import { ScriptedChain } from './support/scripted-rail.js';
import { startService, type RunningService } from '../src/service.js';
import { tempDir } from './support/harness.js';

const NETWORK = 'eip155:84532';

/** Answers what the rail asks at start-up; a paid call would have nothing to verify against, and none is made here. */
const facilitator = {
  getSupported: async () => ({ kinds: [{ x402Version: 2, scheme: 'exact', network: NETWORK }], extensions: [], signers: {} }),
  verify: async () => {
    throw new Error('route-coverage: no payment is verified here');
  },
  settle: async () => {
    throw new Error('route-coverage: no payment is settled here');
  },
} as unknown as FacilitatorClient;

async function start(env: Record<string, string>): Promise<RunningService> {
  const config = loadConfig({
    X402_NETWORK: NETWORK,
    X402_PAY_TO: '0x1111111111111111111111111111111111111111',
    // Nothing listens on port 9: the stub above is the facilitator, the scripted reader the chain.
    X402_FACILITATOR_URL: 'http://127.0.0.1:9',
    X402_RPC_URL: 'http://127.0.0.1:9',
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'silent',
    DATA_DIR: tempDir('route-coverage-'),
    ...env,
  });
  return startService(config, { facilitator, chain: new ScriptedChain() });
}

/** Hono `:name` or `:name{regex}` → OpenAPI `{name}`. */
const openApiPath = (path: string) => path.replace(/:([A-Za-z0-9_]+)(\{[^}]*\})?/g, '{$1}');

/**
 * The app's route table as "METHOD /path". `ALL` entries are middleware
 * (paths ending in `*`) or the 405 answer on a path that has its own methods;
 * an `ALL` route alone at its path would answer every method and cannot be
 * described, so it is reported rather than skipped.
 */
function served(svc: RunningService): { routes: Set<string>; undescribable: string[] } {
  const routes = new Set<string>();
  const all: string[] = [];
  for (const r of svc.app.routes) {
    if (r.method === 'ALL') all.push(r.path);
    else routes.add(`${r.method} ${openApiPath(r.path)}`);
  }
  const withMethods = new Set([...routes].map((r) => r.slice(r.indexOf(' ') + 1)));
  const undescribable = all.filter((p) => !p.endsWith('*') && !withMethods.has(openApiPath(p)));
  return { routes, undescribable };
}

/** The document's operations as "METHOD /path", once it has passed a maintained OpenAPI 3.1 validator. */
async function described(svc: RunningService): Promise<Set<string>> {
  const res = await svc.app.request('/openapi.json');
  assert.equal(res.status, 200);
  const doc = (await res.json()) as { paths: Record<string, Record<string, unknown>> };
  const valid = await new Validator().validate(doc);
  assert.equal(valid.valid, true, JSON.stringify(valid.errors)?.slice(0, 2000));
  const out = new Set<string>();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of Object.keys(item)) out.add(`${method.toUpperCase()} ${path}`);
  }
  return out;
}

const OPTIONAL = [/^POST \/x402\/v1\/outcome-router$/, /^(GET|POST|PUT|PATCH|DELETE) \/admin\/v1\//, /^GET \/admin\/dashboard(\.json)?$/, /^POST \/admin\/log(in|out)$/];

describe('OpenAPI describes every served route, and every described route is served', () => {
  for (const [label, env] of [
    ['every optional route on (ADMIN_TOKEN, OUTCOME_ROUTER_COMPOSITE=1)', { ADMIN_TOKEN: 'route-coverage-admin-token', OUTCOME_ROUTER_COMPOSITE: '1' }],
    ['every optional route off', { OUTCOME_ROUTER_COMPOSITE: '0' }],
  ] as const) {
    test(label, async () => {
      const svc = await start(env);
      try {
        const { routes, undescribable } = served(svc);
        const doc = await described(svc);
        assert.deepEqual(undescribable, [], 'paths served only by app.all (not middleware, not a 405 beside real methods)');
        assert.deepEqual([...routes].filter((r) => !doc.has(r)).sort(), [], 'served but not described');
        assert.deepEqual([...doc].filter((r) => !routes.has(r)).sort(), [], 'described but not served');
        const on = 'ADMIN_TOKEN' in env;
        for (const optional of OPTIONAL) {
          assert.equal([...routes].some((r) => optional.test(r)), on, `${optional} is served only when switched on`);
        }
      } finally {
        await svc.close();
      }
    });
  }
});
