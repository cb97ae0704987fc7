/**
 * Bad configuration stops start-up at once, with one line naming the
 * variable, before the devnet boots: every variable the service reads is
 * validated, or refused when it has no effect in the mode the service runs
 * in (as X402_PAY_TO is without X402_NETWORK), addresses written in mixed
 * case carry a correct EIP-55 checksum, Solana keys are base58 of 32 bytes,
 * and what the configuration points at is checked before anything boots:
 * DATA_DIR (a writable directory, found out in bounded time), PORT (free),
 * HOST (an address of this machine) and REDIS_URL (answers).
 *
 * The real `src/main.ts` runs as a child process for each bad setting; the
 * whole table of variables is then checked in-process against the same
 * configuration and start-up checks.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { ConfigError, loadConfig, SOLANA_MAINNET } from '../src/config.js';
import { CONFIG_VARIABLES } from '../src/config-variables.js';
import { tempDir } from './support/harness.js';

const ROOT = join(import.meta.dirname, '..');
/** How long a refusal may take, from spawning node to its exit (tsx compiles on the way). */
const REFUSED_WITHIN_MS = 10_000;

/** USDC on Base Sepolia, in EIP-55 case, and with one letter's case flipped (a broken checksum). */
const USDC = '0x036CbD53842c5426634e7929541eC2318f3dCF7e';
const BROKEN_USDC = '0x036CBD53842c5426634e7929541eC2318f3dCF7e';
/** The payee: Base's USDC with its second letter's case flipped. */
const BROKEN_PAY_TO = '0x833589FCD6eDb6E08f4c7C32D4f71b54bdA02913';
const SOL_KEY = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';

/** The process environment without anything that configures the service: each case sets what it tests. */
function cleanEnv(): Record<string, string> {
  const names = new Set(CONFIG_VARIABLES.flatMap((v) => v.names));
  return Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined && !names.has(e[0])));
}

interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Run src/main.ts until it exits (killed past `limitMs`: a start-up that was not refused). */
function runMain(env: Record<string, string>, limitMs = 25_000): Promise<Exit> {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src/main.ts')], { cwd: ROOT, env: { ...cleanEnv(), LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), limitMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: Date.now() - t0 });
    });
  });
}

async function listening(host: string): Promise<Server> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, host, r));
  return s;
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const s = await listening('127.0.0.1');
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

const EXTERNAL = { X402_NETWORK: 'eip155:84532', X402_PAY_TO: USDC.toLowerCase(), X402_FACILITATOR_URL: 'http://127.0.0.1:9' };

describe('src/main.ts refuses bad configuration before the devnet boots, with one line naming the variable', () => {
  let busy: Server;
  let file: string;
  let redisPort: number;
  let silent: Server;
  before(async () => {
    busy = await listening('127.0.0.1');
    // Accepts connections and never answers, as a Redis behind a stalled network does.
    silent = createServer(() => undefined);
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    file = join(tempDir('cfg-file-'), 'not-a-directory');
    writeFileSync(file, 'x');
    redisPort = await closedPort();
  });
  after(() => {
    busy?.close();
    silent?.close();
  });

  const cases = (): Array<[string, Record<string, string>, string, RegExp]> => [
    ['X402_PAY_TO with a broken EIP-55 checksum', { ...EXTERNAL, X402_PAY_TO: BROKEN_PAY_TO }, 'X402_PAY_TO', /EIP-55 checksum/],
    ['X402_ASSET with a broken EIP-55 checksum', { ...EXTERNAL, X402_ASSET: BROKEN_USDC }, 'X402_ASSET', /EIP-55 checksum/],
    ['OPERATOR_WALLETS with a broken EIP-55 checksum', { OPERATOR_WALLETS: `${USDC},${BROKEN_PAY_TO}` }, 'OPERATOR_WALLETS', /EIP-55 checksum/],
    ['INTEL_CHAIN_ASSET with a broken EIP-55 checksum', { INTEL_RPC_URL: 'https://rpc.example', INTEL_CHAIN_ASSET: BROKEN_USDC }, 'INTEL_CHAIN_ASSET', /EIP-55 checksum/],
    ['X402_SVM_PAY_TO=not-a-key under the devnet', { X402_SVM_PAY_TO: 'not-a-key' }, 'X402_SVM_PAY_TO', /X402_NETWORK/],
    ['X402_SVM_ASSET under the devnet', { X402_SVM_ASSET: SOL_KEY }, 'X402_SVM_ASSET', /X402_NETWORK/],
    ['X402_SVM_RPC_URL under the devnet', { X402_SVM_RPC_URL: 'https://api.mainnet-beta.solana.com' }, 'X402_SVM_RPC_URL', /X402_NETWORK/],
    ['CDP keys under the devnet', { CDP_API_KEY_ID: 'key-id', CDP_API_KEY_SECRET: 'secret' }, 'CDP_API_KEY_ID', /X402_NETWORK/],
    ['X402_SVM_PAY_TO=not-a-key with Solana configured', { ...EXTERNAL, X402_SVM_NETWORK: SOLANA_MAINNET, X402_SVM_PAY_TO: 'not-a-key' }, 'X402_SVM_PAY_TO', /base58/],
    ['DATA_DIR is a file', { DATA_DIR: file }, 'DATA_DIR', /not a directory/],
    ['DATA_DIR under a file', { DATA_DIR: join(file, 'data') }, 'DATA_DIR', /not a directory/],
    ['DATA_DIR=/proc/x', { DATA_DIR: '/proc/x' }, 'DATA_DIR', /cannot create/],
    ['DATA_DIR not writable', { DATA_DIR: '/proc/1' }, 'DATA_DIR', /not writable/],
    ['PORT already in use', { PORT: String((busy.address() as AddressInfo).port) }, 'PORT', /already in use/],
    ['REDIS_URL unreachable', { REDIS_URL: `redis://127.0.0.1:${redisPort}` }, 'REDIS_URL', /cannot connect.*ECONNREFUSED/],
    ['REDIS_URL that never answers', { REDIS_URL: `redis://127.0.0.1:${(silent.address() as AddressInfo).port}` }, 'REDIS_URL', /no answer within/],
    ['HOST that does not resolve', { HOST: 'no-such-host.invalid' }, 'HOST', /does not resolve|not an address/],
  ];

  test('each bad setting: exit 1 within the bound, exactly one line on stderr naming the variable, nothing booted', { timeout: 600_000 }, async (t) => {
    const failures: string[] = [];
    for (const [what, env, variable, why] of cases()) {
      const r = await runMain({ HOST: '127.0.0.1', PORT: '0', DATA_DIR: tempDir('cfg-refused-'), ...env });
      const lines = r.stderr.split('\n').filter(Boolean);
      const line = lines[0] ?? '';
      const problems = [
        r.code === null ? `not refused: still running after ${r.ms} ms` : r.code === 0 ? 'exit 0' : '',
        r.code !== null && r.ms > REFUSED_WITHIN_MS ? `refused only after ${r.ms} ms` : '',
        lines.length !== 1 ? `${lines.length} lines on stderr` : '',
        !line.startsWith(`config error: ${variable}: `) ? `the line does not name ${variable}` : '',
        !why.test(line) ? `the line does not say ${why}` : '',
        r.stdout !== '' ? `something booted first: ${r.stdout.split('\n')[0]!.slice(0, 160)}` : '',
      ].filter(Boolean);
      if (problems.length) failures.push(`${what}: ${problems.join('; ')}\n    stderr: ${r.stderr.trim().slice(0, 300)}`);
      else t.diagnostic(`${what}: ${r.ms} ms: ${line}`);
    }
    assert.deepEqual(failures, []);
  });
});

/** A CDP Ed25519 secret as CDP issues it (base64 of seed and public key). */
function ed25519Secret(): string {
  const jwk = generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' });
  return Buffer.concat([Buffer.from(jwk.d!, 'base64url'), Buffer.from(jwk.x!, 'base64url')]).toString('base64');
}

type Fragment = Record<string, string>;
type Mode = 'devnet' | 'external';

describe('every variable the service reads is refused with its name when set badly, in either mode', () => {
  const bases: Record<Mode, Fragment> = { devnet: {}, external: { X402_NETWORK: 'eip155:84532', X402_PAY_TO: USDC.toLowerCase(), X402_FACILITATOR_URL: 'https://f.example' } };
  let file: string;
  let redis: string;
  before(async () => {
    file = join(tempDir('cfg-file-'), 'not-a-directory');
    writeFileSync(file, 'x');
    redis = `redis://127.0.0.1:${await closedPort()}`;
  });

  /** A bad setting of each variable (per mode where the two differ); a new variable needs one here. */
  const bad = (): Record<string, Fragment | Record<Mode, Fragment>> => ({
    HOST: { HOST: 'not a host!' },
    PORT: { PORT: '70000' },
    DATA_DIR: { DATA_DIR: join(file, 'data') },
    DATABASE_URL: { DATABASE_URL: 'mysql://db.example/ledger' },
    X402_NETWORK: { X402_NETWORK: 'eip155:base' },
    X402_PAY_TO: { X402_PAY_TO: BROKEN_PAY_TO },
    X402_FACILITATOR_URL: { X402_FACILITATOR_URL: 'ftp://f.example' },
    X402_RPC_URL: { X402_RPC_URL: 'ftp://rpc.example' },
    X402_ASSET: { X402_ASSET: BROKEN_USDC },
    X402_ASSET_NAME: { X402_ASSET_NAME: 'USD Coin' },
    X402_ASSET_VERSION: { X402_ASSET_VERSION: '2' },
    X402_ASSET_DECIMALS: { X402_ASSET_DECIMALS: '6' },
    X402_ASSET_SYMBOL: { X402_ASSET_SYMBOL: 'USDC' },
    X402_ALLOW_CUSTOM_ASSET: { X402_ALLOW_CUSTOM_ASSET: 'yes' },
    X402_SVM_NETWORK: { X402_SVM_NETWORK: 'solana:mainnet' },
    X402_SVM_PAY_TO: { devnet: { X402_SVM_PAY_TO: 'not-a-key' }, external: { X402_SVM_NETWORK: SOLANA_MAINNET, X402_SVM_PAY_TO: 'not-a-key' } },
    X402_SVM_ASSET: { devnet: { X402_SVM_ASSET: 'not-a-key' }, external: { X402_SVM_NETWORK: SOLANA_MAINNET, X402_SVM_PAY_TO: SOL_KEY, X402_SVM_ASSET: 'not-a-key' } },
    X402_SVM_ASSET_DECIMALS: { devnet: { X402_SVM_ASSET_DECIMALS: '6' }, external: { X402_SVM_NETWORK: SOLANA_MAINNET, X402_SVM_PAY_TO: SOL_KEY, X402_SVM_ASSET_DECIMALS: '6' } },
    X402_SVM_RPC_URL: { devnet: { X402_SVM_RPC_URL: 'https://api.mainnet-beta.solana.com' }, external: { X402_SVM_NETWORK: SOLANA_MAINNET, X402_SVM_PAY_TO: SOL_KEY, X402_SVM_RPC_URL: 'ftp://rpc.example' } },
    DEVNET_SVM: { DEVNET_SVM: 'yes' },
    X402_FACILITATOR_TIMEOUT_MS: { X402_FACILITATOR_TIMEOUT_MS: '5' },
    CDP_API_KEY_ID: { CDP_API_KEY_ID: 'key id', CDP_API_KEY_SECRET: ed25519Secret() },
    CDP_API_KEY_SECRET: { devnet: { CDP_API_KEY_SECRET: ed25519Secret() }, external: { CDP_API_KEY_ID: 'key-id', CDP_API_KEY_SECRET: 'not a key' } },
    X402_FACILITATOR_HEADERS: { X402_FACILITATOR_HEADERS: '{not json' },
    X402_MAX_TIMEOUT_SECONDS: { X402_MAX_TIMEOUT_SECONDS: '1' },
    X402_ATTEMPT_LEASE_MS: { X402_ATTEMPT_LEASE_MS: '1' },
    LEDGER_TIMEOUT_MS: { LEDGER_TIMEOUT_MS: '1' },
    RECONCILE_INTERVAL_MS: { RECONCILE_INTERVAL_MS: '1' },
    PUBLIC_BASE_URL: { PUBLIC_BASE_URL: 'ftp://api.example' },
    ALLOWED_HOSTS: { ALLOWED_HOSTS: 'https://api.example/' },
    OUTCOME_ROUTER_COMPOSITE: { OUTCOME_ROUTER_COMPOSITE: 'yes' },
    X402_SETTLEMENT_COST_ATOMIC: { X402_SETTLEMENT_COST_ATOMIC: '-1' },
    X402_SIGNING_KEY: { X402_SIGNING_KEY: '0x1234' },
    X402_SIGN_IN_TTL_SECONDS: { X402_SIGN_IN_TTL_SECONDS: '3600' },
    MPP_SECRET_KEY: { MPP_SECRET_KEY: 'short' },
    ADMIN_TOKEN: { ADMIN_TOKEN: 'short' },
    OPERATOR_WALLETS: { OPERATOR_WALLETS: BROKEN_PAY_TO },
    OPERATOR_CONTACT: { OPERATOR_CONTACT: 'call us' },
    HANDLER_WORKERS: { HANDLER_WORKERS: '0' },
    HANDLER_BUDGET_MS: { HANDLER_BUDGET_MS: '1' },
    LOG_LEVEL: { LOG_LEVEL: 'loud' },
    CORS_ORIGINS: { CORS_ORIGINS: 'not a url' },
    TRUST_PROXY: { TRUST_PROXY: 'yes' },
    RATE_LIMIT_PER_MINUTE: { RATE_LIMIT_PER_MINUTE: 'many' },
    REDIS_URL: { REDIS_URL: redis },
    METRICS_TOKEN: { METRICS_TOKEN: 'short' },
    SHUTDOWN_DRAIN_MS: { SHUTDOWN_DRAIN_MS: '-1' },
    INTEL_COLLECT_INTERVAL: { INTEL_COLLECT_INTERVAL: '1s' },
    INTEL_DISCOVERY_URLS: { INTEL_DISCOVERY_URLS: 'ftp://d.example' },
    INTEL_DISCOVERY_ORIGINS: { INTEL_DISCOVERY_ORIGINS: 'ftp://d.example' },
    INTEL_OPENAPI_URLS: { INTEL_OPENAPI_URLS: 'ftp://d.example' },
    INTEL_NPM_PACKAGES: { INTEL_NPM_PACKAGES: 'Not A Package' },
    INTEL_NPM_REGISTRY: { INTEL_NPM_REGISTRY: 'ftp://registry.example' },
    INTEL_RPC_URL: { INTEL_RPC_URL: 'ftp://rpc.example' },
    INTEL_CHAIN_ASSET: { INTEL_RPC_URL: 'https://rpc.example', INTEL_CHAIN_ASSET: BROKEN_USDC },
    INTEL_CHAIN_SOURCE_URL: { INTEL_RPC_URL: 'https://rpc.example', INTEL_CHAIN_SOURCE_URL: 'ftp://x.example' },
    INTEL_CHAIN_START_BLOCK: { INTEL_RPC_URL: 'https://rpc.example', INTEL_CHAIN_START_BLOCK: 'genesis' },
    INTEL_CHAIN_BLOCK_RANGE: { INTEL_RPC_URL: 'https://rpc.example', INTEL_CHAIN_BLOCK_RANGE: '0' },
    INTEL_DUST_ATOMIC: { INTEL_RPC_URL: 'https://rpc.example', INTEL_DUST_ATOMIC: 'dust' },
    INTEL_FETCH_TIMEOUT_MS: { INTEL_FETCH_TIMEOUT_MS: '1' },
    INTEL_FETCH_MAX_BYTES: { INTEL_FETCH_MAX_BYTES: '1' },
    INTEL_ALLOW_PRIVATE_SOURCES: { INTEL_ALLOW_PRIVATE_SOURCES: 'yes' },
  });

  /** The ConfigError start-up gives for `env`: from the configuration or from the checks of what it points at. */
  async function refusal(env: Fragment): Promise<unknown> {
    const { checkStartup } = await import('../src/start-up-checks.js');
    try {
      await checkStartup(loadConfig({ HOST: '127.0.0.1', PORT: '0', DATA_DIR: tempDir('cfg-table-'), ...env }));
    } catch (e) {
      return e;
    }
    return undefined;
  }

  test('a bad value of each variable names that variable, in one line', { timeout: 120_000 }, async () => {
    const table = bad();
    const missing = CONFIG_VARIABLES.flatMap((v) => v.names).filter((n) => !(n in table));
    assert.deepEqual(missing, [], 'give each variable a bad setting in this table');
    const failures: string[] = [];
    for (const [variable, setting] of Object.entries(table)) {
      for (const mode of ['devnet', 'external'] as const) {
        const fragment = 'devnet' in setting ? (setting as Record<Mode, Fragment>)[mode] : (setting as Fragment);
        const e = await refusal({ ...bases[mode], ...fragment });
        if (!(e instanceof ConfigError)) failures.push(`${mode} ${JSON.stringify(fragment)}: ${e === undefined ? 'accepted' : String(e)}`);
        else if (e.variable !== variable || e.message.includes('\n')) failures.push(`${mode} ${JSON.stringify(fragment)}: named ${e.variable}: ${e.message}`);
      }
    }
    assert.deepEqual(failures, []);
  });

  test('a variable set where it has no effect is refused, saying so, even with a valid value', async () => {
    const cases: Array<[Fragment, string, RegExp]> = [
      ...Object.entries({
        X402_PAY_TO: USDC,
        X402_FACILITATOR_URL: 'https://f.example',
        X402_RPC_URL: 'https://rpc.example',
        X402_ASSET: USDC,
        X402_ASSET_NAME: 'USD Coin',
        X402_ASSET_VERSION: '2',
        X402_ASSET_DECIMALS: '6',
        X402_ASSET_SYMBOL: 'USDC',
        X402_ALLOW_CUSTOM_ASSET: '1',
        X402_FACILITATOR_HEADERS: '{}',
        CDP_API_KEY_ID: 'key-id',
        X402_SVM_NETWORK: SOLANA_MAINNET,
        X402_SVM_PAY_TO: SOL_KEY,
        X402_SVM_ASSET: SOL_KEY,
        X402_SVM_ASSET_DECIMALS: '6',
        X402_SVM_RPC_URL: 'https://api.mainnet-beta.solana.com',
      }).map(([name, value]): [Fragment, string, RegExp] => [{ [name]: value }, name, /X402_NETWORK is not/]),
      [{ CDP_API_KEY_SECRET: ed25519Secret() }, 'CDP_API_KEY_SECRET', /X402_NETWORK is not/],
      ...['X402_ASSET_NAME', 'X402_ASSET_VERSION', 'X402_ASSET_DECIMALS'].map((name): [Fragment, string, RegExp] => [{ ...bases.external, [name]: '6' }, name, /no effect without X402_ASSET/]),
      [{ ...bases.external, X402_ASSET_SYMBOL: 'USDC' }, 'X402_ASSET_SYMBOL', /no effect without X402_ASSET or X402_SVM_ASSET/],
      [{ ...bases.external, X402_SVM_NETWORK: SOLANA_MAINNET, X402_SVM_PAY_TO: SOL_KEY, X402_SVM_ASSET_DECIMALS: '6' }, 'X402_SVM_ASSET_DECIMALS', /no effect without X402_SVM_ASSET/],
      ...['INTEL_CHAIN_ASSET', 'INTEL_CHAIN_SOURCE_URL', 'INTEL_CHAIN_START_BLOCK', 'INTEL_CHAIN_BLOCK_RANGE', 'INTEL_DUST_ATOMIC'].map((name): [Fragment, string, RegExp] => [
        { [name]: { INTEL_CHAIN_ASSET: USDC, INTEL_CHAIN_SOURCE_URL: 'https://x.example' }[name] ?? '100' },
        name,
        /no effect without INTEL_RPC_URL/,
      ]),
      [{ REDIS_URL: 'redis://127.0.0.1:6379', RATE_LIMIT_PER_MINUTE: '0' }, 'REDIS_URL', /no effect with RATE_LIMIT_PER_MINUTE=0/],
    ];
    for (const [env, variable, why] of cases) {
      assert.throws(() => loadConfig(env), (e: unknown) => e instanceof ConfigError && e.variable === variable && why.test(e.message), JSON.stringify(env));
    }
  });

  test('addresses: one case throughout needs no checksum (stored in lower case); the EIP-55 case is kept', () => {
    const upper = `0x${USDC.slice(2).toUpperCase()}`;
    assert.equal(loadConfig({ ...bases.external, X402_PAY_TO: upper }).payment!.payTo, USDC.toLowerCase());
    assert.equal(loadConfig({ ...bases.external, X402_PAY_TO: USDC }).payment!.payTo, USDC);
    assert.deepEqual(loadConfig({ OPERATOR_WALLETS: `${USDC}, ${upper}` }).operatorWallets, [USDC.toLowerCase(), USDC.toLowerCase()]);
  });
});
