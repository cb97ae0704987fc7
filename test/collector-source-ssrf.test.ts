/**
 * Server-side request forgery through a configured collector source: a
 * source URL (or a name it resolves to) that points at loopback, the cloud
 * metadata service or any other internal address is refused at connect time,
 * after resolution, so no spelling of the address (decimal, hex, IPv4-mapped
 * IPv6, `localhost`, a name whose DNS answer is loopback) reaches it. Only
 * the operator's opt-in (INTEL_ALLOW_PRIVATE_SOURCES=1, passed down as
 * configuration) lets a collector connect to one.
 *
 * Real sockets: a JSON server on 127.0.0.1 and on ::1 (same port) counts the
 * connections it accepts; a refused fetch must leave it at zero.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, LookupFunction } from 'node:net';
import { join } from 'node:path';
import { fetchJson, type FetchLimits } from '../src/intel/collectors/fetch.js';
import { mayConnectTo } from '../src/intel/collectors/addresses.js';
import { collectNpmReleases } from '../src/intel/collectors/npm-releases.js';
import { collectChainCensus, type ChainCensusOptions } from '../src/intel/collectors/chain-census.js';
import { collectDiscovery } from '../src/intel/collectors/discovery.js';
import { fixtureLookup, startFixtureServer } from './support/collector-fixtures.js';
import { openTestStore, type TestStore } from './support/intel.js';
import { tempDir } from './support/harness.js';

const ROOT = join(import.meta.dirname, '..');

/** A name resolver that answers `answers` for *.ssrf.test, as a hostile or rebinding DNS server would. */
function resolvingTo(answers: Array<{ address: string; family: 4 | 6 }>): LookupFunction {
  return ((hostname: string, options: unknown, cb: (...args: unknown[]) => void) => {
    const callback = typeof options === 'function' ? (options as typeof cb) : cb;
    const all = typeof options === 'object' && options !== null && (options as { all?: boolean }).all;
    if (!hostname.endsWith('.ssrf.test')) return callback(Object.assign(new Error(`no such host ${hostname}`), { code: 'ENOTFOUND' }));
    if (all) return callback(null, answers);
    return callback(null, answers[0]!.address, answers[0]!.family);
  }) as LookupFunction;
}

interface Target {
  /** The source's host as configured. */
  host: string;
  /** The address the fetch would connect to, which the refusal must name. */
  address: string;
  lookup?: LookupFunction;
}

/** A JSON server on both loopback addresses, same port, counting accepted connections. */
async function startLoopbackJson(): Promise<{ port: number; connections: () => number; close: () => Promise<void> }> {
  let connections = 0;
  const make = () => {
    const s = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
    s.on('connection', () => connections++);
    return s;
  };
  for (let tries = 0; tries < 20; tries++) {
    const v4 = make();
    await new Promise<void>((r) => v4.listen(0, '127.0.0.1', r));
    const port = (v4.address() as AddressInfo).port;
    const v6 = make();
    const ok = await new Promise<boolean>((r) => {
      v6.once('error', () => r(false));
      v6.listen(port, '::1', () => r(true));
    });
    if (!ok) {
      await new Promise<void>((r) => v4.close(() => r()));
      continue;
    }
    const servers: Server[] = [v4, v6];
    return {
      port,
      connections: () => connections,
      close: () => Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r())))).then(() => undefined),
    };
  }
  throw new Error('no port free on both 127.0.0.1 and ::1');
}

describe('collector sources at internal addresses are refused at connect time', () => {
  let server: Awaited<ReturnType<typeof startLoopbackJson>>;
  let ts: TestStore;
  before(async () => {
    server = await startLoopbackJson();
    ts = await openTestStore('sqlite');
  });
  after(async () => {
    await server?.close();
    await ts?.close();
  });

  const targets = (): Target[] => [
    { host: '127.0.0.1', address: '127.0.0.1' },
    { host: '2130706433', address: '127.0.0.1' },
    { host: '0x7f.1', address: '127.0.0.1' },
    { host: '0177.0.0.1', address: '127.0.0.1' },
    { host: '127.1', address: '127.0.0.1' },
    { host: 'localhost', address: '' },
    { host: '[::1]', address: '::1' },
    { host: '[::ffff:127.0.0.1]', address: '::ffff:7f00:1' },
    { host: 'loopback.ssrf.test', address: '127.0.0.1', lookup: resolvingTo([{ address: '127.0.0.1', family: 4 }]) },
    { host: 'loopback6.ssrf.test', address: '::1', lookup: resolvingTo([{ address: '::1', family: 6 }]) },
    // One private answer among others is enough: the connection could go to any of them.
    { host: 'mixed.ssrf.test', address: '127.0.0.1', lookup: resolvingTo([{ address: '127.0.0.1', family: 4 }, { address: '93.184.216.34', family: 4 }]) },
  ];
  const limits = (t: Target, allowPrivateAddresses?: boolean): FetchLimits => ({ timeoutMs: 3000, maxBytes: 64 * 1024, ...(t.lookup && { lookup: t.lookup }), ...(allowPrivateAddresses !== undefined && { allowPrivateAddresses }) });

  test('every spelling of loopback, and every name that resolves to it, is refused before a connection is made, naming the address', async () => {
    for (const t of targets()) {
      const before = server.connections();
      const url = `http://${t.host}:${server.port}/feed.json`;
      const got = await fetchJson(url, limits(t));
      assert.equal(server.connections(), before, `${t.host}: the server saw a connection`);
      assert.equal(got.ok, false, `${t.host}: fetched`);
      if (got.ok) continue;
      assert.equal(got.failure, 'private_address', `${t.host}: ${got.failure}: ${got.detail}`);
      if (t.address) assert.ok(got.detail.includes(t.address), `${t.host}: the refusal names ${t.address}: ${got.detail}`);
      assert.match(got.detail, /INTEL_ALLOW_PRIVATE_SOURCES/);
    }
  });

  test('with the operator\'s opt-in the same sources are fetched', async () => {
    for (const t of targets()) {
      const before = server.connections();
      const got = await fetchJson(`http://${t.host}:${server.port}/feed.json`, limits(t, true));
      assert.ok(got.ok, `${t.host}: ${got.ok ? '' : `${got.failure}: ${got.detail}`}`);
      assert.deepEqual(got.ok && got.json, { ok: true });
      assert.equal(server.connections(), before + 1, t.host);
    }
  });

  test('documentation addresses reach no internal network and are connected to (an egress proxy may answer on them), public ones too', () => {
    for (const a of ['203.0.113.80', '192.0.2.1', '198.51.100.7', '::ffff:203.0.113.80', '2001:db8::1', '3fff::1', '104.16.0.1', '2606:4700::1']) assert.equal(mayConnectTo(a), true, a);
    for (const a of ['10.0.0.1', '127.0.0.1', '::ffff:127.0.0.1', '169.254.169.254', 'fd00::1', 'not-an-address']) assert.equal(mayConnectTo(a), false, a);
  });

  test('every internal range is refused, as a literal or as a DNS answer, in IPv4 and in the IPv6 forms that carry IPv4', async () => {
    const internal = [
      '10.0.0.1', '172.16.5.4', '192.168.1.1', '100.64.0.1', '169.254.169.254', '169.254.0.1', '0.0.0.0', '0.1.2.3', '224.0.0.1', '239.255.255.250', '255.255.255.255', '198.18.0.1', '192.0.0.8',
      '::', '::1', 'fc00::1', 'fd12:3456::1', 'fe80::1', 'fec0::1', 'ff02::1', '::ffff:10.0.0.1', '::ffff:169.254.169.254', '::127.0.0.1', '64:ff9b::a9fe:a9fe', '64:ff9b:1::1', '2002:a9fe:a9fe::1', '2002:7f00:1::1',
    ];
    const refusedAs = async (url: string, lookup?: LookupFunction) => {
      const got = await fetchJson(url, { timeoutMs: 500, maxBytes: 1024, ...(lookup && { lookup }) });
      return got.ok ? 'fetched' : got.failure;
    };
    for (const address of internal) {
      const v6 = address.includes(':');
      assert.equal(await refusedAs(`http://${v6 ? `[${address}]` : address}/latest/meta-data/`), 'private_address', `literal ${address}`);
      assert.equal(await refusedAs('http://metadata.ssrf.test/latest/meta-data/', resolvingTo([{ address, family: v6 ? 6 : 4 }])), 'private_address', `resolved ${address}`);
    }
    for (const spelled of ['http://0/', 'http://0x0a000001/', 'http://0251.0376.0251.0376/', 'http://[::ffff:a9fe:a9fe]/', 'http://169.254.169.254./']) {
      assert.equal(await refusedAs(spelled), 'private_address', spelled);
    }
  });

  test('a collector run reports the refusal as its own failure kind and writes nothing', async () => {
    const before = server.connections();
    const r = await collectNpmReleases({ store: ts.store, now: Date.now, limits: { timeoutMs: 3000, maxBytes: 64 * 1024 } }, { registry: `http://2130706433:${server.port}`, packages: ['@x402/core'] });
    assert.equal(server.connections(), before);
    assert.equal(r.failures.length, 1, JSON.stringify(r.failures));
    assert.equal(r.failures[0]!.failure, 'private_address');
    assert.match(r.failures[0]!.detail, /127\.0\.0\.1/);
    assert.equal(r.records.created, 0);
  });

  test('the on-chain census reads its RPC through the same rule', async () => {
    // The census needs payees: one listed resource, read from a fixture directory the operator allowed.
    const directory = await startFixtureServer();
    const payTo = '0x' + '5'.repeat(40);
    const asset = '0x036CbD53842c5426634e7929541eC2318f3dCF7e';
    directory.set('bazaar', '/discovery/resources', {
      body: JSON.stringify({
        x402Version: 2,
        items: [{ resource: 'https://weather.fixture.test/forecast', type: 'http', x402Version: 2, accepts: [{ scheme: 'exact', network: 'eip155:84532', amount: '10000', asset, payTo, maxTimeoutSeconds: 300 }], lastUpdated: new Date().toISOString(), metadata: { category: 'weather' } }],
        pagination: { limit: 100, offset: 0, total: 1 },
      }),
    });
    try {
      const d = await collectDiscovery({ store: ts.store, now: Date.now, limits: { timeoutMs: 3000, maxBytes: 1 << 20, lookup: fixtureLookup, allowPrivateAddresses: true } }, { bazaarUrls: [directory.url('bazaar', '/discovery/resources')], origins: [], openapiUrls: [] });
      assert.deepEqual(d.failures, []);
    } finally {
      await directory.close();
    }
    const opts: ChainCensusOptions = { rpcUrl: `http://[::1]:${server.port}`, asset, network: 'eip155:84532', sourceUrl: `https://sepolia.basescan.org/token/${asset}`, operatorWallets: [], dustAtomic: 1000n, blockRange: 10n, maxBlocksPerRun: 100n, timeoutMs: 3000, maxBytes: 1 << 20 };
    const before = server.connections();
    const refused = await collectChainCensus({ store: ts.store, now: Date.now, limits: { timeoutMs: 3000, maxBytes: 1 << 20 } }, opts);
    assert.equal(server.connections(), before, 'the RPC saw a connection');
    assert.deepEqual(refused.failures.map((f) => f.failure), ['private_address'], JSON.stringify(refused.failures));
    assert.match(refused.failures[0]!.detail, /::1/);
    const allowed = await collectChainCensus({ store: ts.store, now: Date.now, limits: { timeoutMs: 3000, maxBytes: 1 << 20, allowPrivateAddresses: true } }, opts);
    assert.ok(server.connections() > before, 'with the opt-in the RPC is asked');
    assert.notDeepEqual(allowed.failures.map((f) => f.failure), ['private_address']);
  });

  test('npm run intel -- collect: a registry on localhost is refused unless INTEL_ALLOW_PRIVATE_SOURCES=1', async () => {
    const run = (extra: Record<string, string>) =>
      new Promise<{ status: number; out: string }>((resolve) => {
        execFile(
          process.execPath,
          ['--import', 'tsx', join(ROOT, 'cli/intel.ts'), 'collect', '--source', 'npm-releases'],
          { cwd: ROOT, encoding: 'utf8', env: { ...process.env, LOG_LEVEL: 'silent', DATABASE_URL: '', DATA_DIR: tempDir('ssrf-cli-'), INTEL_NPM_REGISTRY: `http://localhost:${server.port}`, INTEL_NPM_PACKAGES: '@x402/core', ...extra } },
          (err, stdout, stderr) => resolve({ status: err ? Number((err as { code?: number }).code ?? 1) : 0, out: stdout + stderr }),
        );
      });
    const before = server.connections();
    const refused = await run({});
    assert.equal(server.connections(), before, refused.out);
    assert.equal(refused.status, 1, refused.out);
    assert.match(refused.out, /^npm-releases: http:\/\/localhost:\d+\/@x402%2fcore: private_address: .*(127\.0\.0\.1|::1).*INTEL_ALLOW_PRIVATE_SOURCES=1/m);
    const allowed = await run({ INTEL_ALLOW_PRIVATE_SOURCES: '1' });
    assert.ok(server.connections() > before, allowed.out);
    assert.doesNotMatch(allowed.out, /private_address/);
  });
});
