/**
 * How collectors are run: `npm run intel -- collect [--source NAME]` against
 * the service's database, the INTEL_* configuration, and the service's
 * schedule (unref'd, never overlapping, stopped on shutdown).
 */
import { after, before, describe, mock, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { ConfigError, loadConfig, parseInterval } from '../src/config.js';
import { planFromConfig, startCollectorSchedule } from '../src/intel/collectors/runner.js';
import { createIntelModule } from '../src/intel/module.js';
import type { ModuleInit } from '../src/module.js';
import { fixtureLookup } from './support/collector-fixtures.js';
import { openTestStore } from './support/intel.js';
import pino from 'pino';
import dns from 'node:dns';
import { SqlContentStore } from '../src/intel/store.js';
import { openDatabase } from '../src/store/index.js';
import { fixture, startFixtureServer, type FixtureServer } from './support/collector-fixtures.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';

const ROOT = join(import.meta.dirname, '..');
const tempDir = (prefix: string) => mkdtempSync(join(tmpdir(), prefix));

function runCli(args: string[], env: Record<string, string>): Promise<{ status: number; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', '--import', join(ROOT, 'test/support/fixture-dns.ts'), join(ROOT, 'cli/intel.ts'), ...args],
      // The fixture servers are on loopback: these runs opt in to private sources, as an operator would.
      { cwd: ROOT, env: { ...process.env, LOG_LEVEL: 'silent', DATABASE_URL: '', INTEL_ALLOW_PRIVATE_SOURCES: '1', ...env }, encoding: 'utf8' },
      (err, stdout, stderr) => resolve({ status: err ? Number((err as { code?: number }).code ?? 1) : 0, out: stdout, err: stderr }),
    );
  });
}

describe('npm run intel -- collect', () => {
  let srv: FixtureServer;
  before(async () => {
    srv = await startFixtureServer();
    srv.set('registry', '/@x402%2fcore', { body: fixture('npm-x402-core.1.json') });
    srv.set('bazaar', '/discovery/resources', { body: fixture('bazaar-resources.1.json') });
  });
  after(async () => srv?.close());

  test('collects once into the service database, through the import validation; a second run changes nothing', async () => {
    const dir = tempDir('intel-collect-');
    const env = {
      DATA_DIR: join(dir, 'data'),
      INTEL_NPM_REGISTRY: srv.url('registry', ''),
      INTEL_NPM_PACKAGES: '@x402/core',
      INTEL_DISCOVERY_URLS: srv.url('bazaar', '/discovery/resources'),
    };
    const first = await runCli(['collect'], env);
    assert.equal(first.status, 0, first.out + first.err);
    assert.match(first.out, /^npm-releases: 1 created, 0 updated, 0 unchanged, 0 rejected; 0 source failures$/m);
    assert.match(first.out, /^discovery: \d+ created/m);
    assert.match(first.out, /^chain-census: off: INTEL_RPC_URL is not set$/m);
    const again = await runCli(['collect', '--source', 'npm-releases'], env);
    assert.equal(again.status, 0, again.out + again.err);
    assert.match(again.out, /^npm-releases: 0 created, 0 updated, 0 unchanged, 0 rejected; 0 source failures$/m);
    assert.doesNotMatch(again.out, /^discovery:/m, '--source runs only that collector');
    const database = await openDatabase({ dataDir: env.DATA_DIR, databaseUrl: undefined });
    try {
      const store = new SqlContentStore(database.db, Date.now);
      const events = await store.events({ limit: 50, type: 'version_update' });
      assert.equal(events.items.length, 1);
      assert.equal(events.items[0]!.evidence.provenance, 'collector:npm-releases');
    } finally {
      await database.close();
    }
  });

  test('an unreadable source exits 1 with the reason; an unknown --source exits 2', async () => {
    const dir = tempDir('intel-collect-');
    const bad = await runCli(['collect', '--source', 'npm-releases'], { DATA_DIR: join(dir, 'data'), INTEL_NPM_REGISTRY: srv.url('registry', ''), INTEL_NPM_PACKAGES: 'x402-nothing-here' });
    assert.equal(bad.status, 1, bad.out + bad.err);
    assert.match(bad.out, /x402-nothing-here: http_status: answered 404/);
    const unknown = await runCli(['collect', '--source', 'twitter'], { DATA_DIR: join(dir, 'data') });
    assert.equal(unknown.status, 2);
    assert.match(unknown.err, /unknown --source "twitter"/);
  });
});

describe('collector configuration', () => {
  test('INTEL_COLLECT_INTERVAL: seconds, units or ISO 8601 durations, between a minute and a week', () => {
    assert.equal(parseInterval('X', '900'), 900_000);
    assert.equal(parseInterval('X', '15m'), 900_000);
    assert.equal(parseInterval('X', '6h'), 21_600_000);
    assert.equal(parseInterval('X', 'PT1H30M'), 5_400_000);
    assert.equal(parseInterval('X', 'P1D'), 86_400_000);
    for (const bad of ['30', '5s', 'P8D', 'soon', 'PT', 'P', '-5m', '1.5h']) assert.throws(() => parseInterval('X', bad), ConfigError, bad);
    assert.equal(loadConfig({}).intel.collectIntervalMs, undefined);
    assert.throws(() => loadConfig({ INTEL_COLLECT_INTERVAL: '10s' }), /INTEL_COLLECT_INTERVAL: must be between 1 minute and 7 days/);
  });

  test('source lists and chain settings are validated at start-up, one line naming the variable', () => {
    assert.throws(() => loadConfig({ INTEL_DISCOVERY_URLS: 'https://ok.example/discovery/resources, ftp://x' }), /^ConfigError: INTEL_DISCOVERY_URLS: must be http or https/);
    assert.throws(() => loadConfig({ INTEL_NPM_PACKAGES: '@x402/core,Not A Name' }), /INTEL_NPM_PACKAGES: "Not A Name" is not an npm package name/);
    assert.throws(() => loadConfig({ INTEL_CHAIN_ASSET: '0x123' }), /INTEL_CHAIN_ASSET/);
    assert.throws(() => loadConfig({ INTEL_CHAIN_START_BLOCK: 'genesis' }), /INTEL_CHAIN_START_BLOCK/);
    const c = loadConfig({ INTEL_DISCOVERY_ORIGINS: 'https://a.example,https://b.example/', INTEL_NPM_PACKAGES: '@x402/core, x402-fetch' });
    assert.deepEqual(c.intel.discoveryOrigins, ['https://a.example', 'https://b.example']);
    assert.deepEqual(c.intel.npmPackages, ['@x402/core', 'x402-fetch']);
  });

  test('the on-chain census needs an RPC, an asset and a public source URL; Base gets its explorer by default', () => {
    const off = planFromConfig(loadConfig({}).intel, undefined, []);
    assert.equal(off.chain, undefined);
    assert.match(off.off['chain-census']!, /INTEL_RPC_URL/);
    const noSource = planFromConfig(loadConfig({ INTEL_RPC_URL: 'http://127.0.0.1:8545', INTEL_CHAIN_ASSET: '0x5FbDB2315678afecb367f032d93F642f64180aa3' }).intel, undefined, []);
    assert.match(noSource.off['chain-census']!, /INTEL_CHAIN_SOURCE_URL/);
    const base = planFromConfig(loadConfig({ INTEL_RPC_URL: 'https://mainnet.base.org' }).intel, { network: 'eip155:8453', asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913' }, ['0xabc']);
    assert.equal(base.chain?.sourceUrl, 'https://basescan.org/token/0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913');
    assert.deepEqual(base.chain?.operatorWallets, ['0xabc']);
  });
});

describe('the service schedule', () => {
  test('runs once per interval, never overlapping, and stop waits for the run in flight and ends the schedule', async () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      let runs = 0;
      let release!: () => void;
      const schedule = startCollectorSchedule(60_000, () => {
        runs++;
        return new Promise<void>((r) => (release = r));
      });
      assert.equal(runs, 0, 'nothing runs at start');
      mock.timers.tick(60_000);
      assert.equal(runs, 1);
      mock.timers.tick(600_000);
      assert.equal(runs, 1, 'the next run is armed only when this one ends');
      let stopped = false;
      const stopping = schedule.stop().then(() => (stopped = true));
      await Promise.resolve();
      assert.equal(stopped, false, 'stop waits for the run in flight');
      release();
      await stopping;
      mock.timers.tick(600_000);
      assert.equal(runs, 1, 'no run after stop');
    } finally {
      mock.timers.reset();
    }
  });
});

describe('the intelligence module schedules the collectors in the service', () => {
  test('with INTEL_COLLECT_INTERVAL the module runs them on its store, and stop waits for the run before the database closes', async () => {
    const srv = await startFixtureServer();
    srv.set('registry', '/@x402%2fcore', { body: fixture('npm-x402-core.1.json') });
    const ts = await openTestStore('sqlite');
    // The service resolves names with DNS; point *.fixture.test at the fixture server for this test.
    const realLookup = dns.lookup;
    dns.lookup = fixtureLookup as typeof dns.lookup;
    const { syncBuiltinESMExports } = await import('node:module');
    syncBuiltinESMExports();
    const config = loadConfig({ INTEL_COLLECT_INTERVAL: '60', INTEL_ALLOW_PRIVATE_SOURCES: '1', INTEL_NPM_REGISTRY: srv.url('registry', ''), INTEL_NPM_PACKAGES: '@x402/core', DATA_DIR: tempDir('intel-mod-') });
    const module = createIntelModule({ loadStarter: false });
    const init = {
      config,
      db: ts.db,
      ledger: ts.ledger,
      log: pino({ level: 'silent' }),
      now: Date.now,
      payment: { network: 'eip155:84532', asset: { address: '0x036CbD53842c5426634e7929541eC2318f3dCF7e' } },
      presence: [],
    } as unknown as ModuleInit;
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      await module.capabilities!(init);
      assert.equal(srv.seen.length, 0, 'nothing is fetched at start-up');
      mock.timers.tick(60_000);
    } finally {
      mock.timers.reset();
    }
    await module.stop!();
    assert.deepEqual(srv.seen, ['registry /@x402%2fcore'], 'one scheduled run read the registry');
    const events = await ts.store.events({ limit: 10, type: 'version_update' });
    assert.equal(events.items.length, 1, 'and its item is in the module\'s store before stop returned');
    dns.lookup = realLookup;
    syncBuiltinESMExports();
    await ts.close();
    await srv.close();
  });
});
