/**
 * The README as a new user reads it: its tables render as tables, every
 * command it shows is run by a test or by .ci/run (the table below says
 * which), and the commands and code this file runs are taken from the README
 * itself, as written: `npm start` (temp DATA_DIR, any free port) and the
 * `npm run buy` its ready banner prints, the production command (which, with
 * its placeholders, must stop with one line naming the variable), and the
 * `@x402/fetch` and `mppx` snippets for the devnet against a real devnet.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { CDP_FACILITATOR_URL, loadConfig, TESTNET_FACILITATOR_URL } from '../src/config.js';
import { CONFIG_VARIABLES } from '../src/config-variables.js';
import { ERROR_CODES } from '../src/errors.js';
import { withTables } from '../scripts/readme-tables.js';
import { cdpEd25519Secret } from './support/cdp-key.js';
import { spawnShell } from './support/shell.js';
import { balanceOf, decodePaymentRequiredHeader, startRig, tempDir, transferLogs } from './support/harness.js';
import { startService } from '../src/service.js';
import { createPublicClient, erc20Abi, http } from 'viem';
import { getEip712Domain } from 'viem/actions';

const ROOT = resolve(import.meta.dirname, '..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const run = promisify(execFile);
const THIS = 'test/readme.test.ts';

/**
 * Who runs each command the README shows. A command missing here fails the
 * test: add it with the test that runs it. `.ci/run` entries are checked
 * against that script's text.
 */
const COVERED_BY: Record<string, string> = {
  'npm ci && npm start': `.ci/run (npm ci) + ${THIS} (npm start)`,
  'npm start': THIS,
  'npm test': '.ci/run',
  'npm ci': '.ci/run',
  'npm test -- <part of a path>': 'scripts/run-tests.mjs (every targeted run; .ci/run runs the whole suite)',
  'npm test -- test/pages': 'test/pages.test.ts (run in full by .ci/run)',
  'npm run readme:tables': THIS,
  'npm run lint': '.ci/run',
  'npm run coverage:payments': '.ci/run',
  'npm run check': '.ci/run (its steps: typecheck, lint, test, coverage:payments)',
  [`npm run buy -- POST /x402/v1/accessibility-contrast-calculator '{"foreground":"#000000","background":"#ffffff","large_text":false}'`]: THIS,
  "npm run buy -- --url https://host POST /path '{…}'": 'cli/buy.test.ts',
  'npm run buy': 'cli/buy.test.ts (with and without --payment-id)',
  "npm run buy -- --save call.json POST /x402/v1/… '{…}'": 'cli/verify-receipt.test.ts',
  'npm run verify-receipt -- FILE': 'cli/verify-receipt.test.ts',
  'npm run verify-receipt -- call.json': 'cli/verify-receipt.test.ts',
  'npm run intel -- import FILE.ndjson': 'test/intel-import-cli.test.ts',
  'X402_NETWORK=eip155:8453 X402_PAY_TO=0x… X402_FACILITATOR_URL=https://… DATABASE_URL=postgres://… npm start': THIS,
  'X402_NETWORK=eip155:84532 X402_PAY_TO=0x… npm start': THIS,
  'X402_NETWORK=eip155:8453 X402_PAY_TO=0x… CDP_API_KEY_ID=… CDP_API_KEY_SECRET=… npm start': THIS,
  'tsx devnet/cli.ts': THIS,
  'npm run devnet': 'test/devnet-several-instances.test.ts',
  'set -a && . ./data/devnet.env && set +a && PORT=8402 DATA_DIR=data/a PUBLIC_BASE_URL=https://api.example.com npm start': 'test/devnet-several-instances.test.ts (as written, PostgreSQL and Redis given)',
  'set -a && . ./data/devnet.env && set +a && PORT=8403 DATA_DIR=data/b PUBLIC_BASE_URL=https://api.example.com npm start': 'test/devnet-several-instances.test.ts (as written, PostgreSQL and Redis given)',
  [`PORT=8403 npm run buy -- POST /x402/v1/accessibility-contrast-calculator '{"foreground":"#000000","background":"#ffffff","large_text":false}'`]: 'test/devnet-several-instances.test.ts (as written)',
  'X402_NETWORK=eip155:8453 X402_PAY_TO=0x… X402_SVM_NETWORK=solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp X402_SVM_PAY_TO=… CDP_API_KEY_ID=… CDP_API_KEY_SECRET=… npm start': THIS,
  'X402_NETWORK=eip155:8453 X402_PAY_TO=0x… X402_SVM_NETWORK=solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp X402_SVM_PAY_TO=… X402_FACILITATOR_URL=https://facilitator.payai.network npm start': THIS,
  [`npm run buy -- --chain solana POST /x402/v1/accessibility-contrast-calculator '{"foreground":"#000000","background":"#ffffff","large_text":false}'`]: 'cli/buy.test.ts',
  'spl-token create-account EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v --owner <wallet>': 'not run here: the Solana CLI (spl-token) is not a dependency; on the devnet the payee\'s account is created at start',
  'node pay.mjs': THIS,
  'node pay-mpp.mjs': THIS,
  'npm run build': 'test/production-build.test.ts',
  'node dist/src/main.js': 'test/production-build.test.ts',
  'npm run start:dist': 'test/production-build.test.ts (the script is node dist/src/main.js)',
  'npm run intel -- collect': 'test/intel-collectors-run.test.ts',
  'npm run intel -- collect [--source discovery|npm-releases|chain-census]': 'test/intel-collectors-run.test.ts',
  'npm run build:token': THIS,
  // Backups and restore: the test reads these blocks from the README and runs them as written.
  'mkdir -p "$BACKUP_DIR"': 'test/backup-restore.test.ts (as written)',
  'npm run backup -- "$BACKUP_DIR/ledger-$(date -u +%Y%m%dT%H%M%SZ).sqlite"': 'test/backup-restore.test.ts (as written, paid calls in flight)',
  'npm run backup -- --restore "$(ls "$BACKUP_DIR"/ledger-*.sqlite | tail -n 1)"': 'test/backup-restore.test.ts (as written: fresh DATA_DIR, after a crash, refused while running)',
  'f="$BACKUP_DIR/ledger-$(date -u +%Y%m%dT%H%M%SZ).dump"': 'test/backup-restore.test.ts (as written)',
  'pg_dump --format=custom --file="$f.partial" "$DATABASE_URL" && mv "$f.partial" "$f"': 'test/backup-restore.test.ts (as written, PostgreSQL given)',
  'pg_restore --dbname="$DATABASE_URL" --no-owner --no-privileges --exit-on-error --single-transaction "$(ls "$BACKUP_DIR"/ledger-*.dump | tail -n 1)"': 'test/backup-restore.test.ts (as written, into a new database)',
  'npm run backup -- FILE': 'test/backup-restore.test.ts, cli/backup.test.ts',
  // Not run by a test: it measures for minutes on the whole machine and rewrites bench/results.json.
  'npm run bench': 'NOT RUN',
};

/** Every command the README shows: each line of a ```sh block, and inline `npm …`, `tsx …`, `node …` spans. */
function readmeCommands(): string[] {
  const out = new Set<string>();
  for (const block of README.matchAll(/^```sh\n([\s\S]*?)^```/gm)) for (const line of block[1]!.split('\n')) if (line.trim()) out.add(line.trim());
  for (const span of README.matchAll(/`((?:npm|tsx|node) [^`]+)`/g)) out.add(span[1]!);
  return [...out];
}

/** The code block under a README heading. */
function codeUnder(heading: string, lang: string): string {
  const at = README.indexOf(heading);
  assert.ok(at >= 0, `README has "${heading}"`);
  const m = new RegExp('^```' + lang + '\\n([\\s\\S]*?)^```', 'm').exec(README.slice(at));
  assert.ok(m, `a ${lang} block under "${heading}"`);
  return m[1]!;
}

test('every table renders as one table (no blank line inside)', () => {
  const lines = README.split('\n');
  for (let i = 2; i < lines.length; i++) {
    if (lines[i]!.startsWith('|') && lines[i - 1] === '' && lines[i - 2]!.startsWith('|')) {
      assert.ok(/^\|[-| :]+\|$/.test(lines[i + 1] ?? ''), `README line ${i + 1}: a table row after a blank line renders as text: ${lines[i]}`);
    }
  }
});

test('every command in the README is run by a test or by .ci/run', () => {
  const ci = readFileSync(join(ROOT, '.ci/run'), 'utf8');
  const missing = readmeCommands().filter((c) => !(c in COVERED_BY));
  assert.deepEqual(missing, [], 'commands with no test: add each to COVERED_BY with the test that runs it');
  for (const command of readmeCommands()) {
    const by = COVERED_BY[command]!;
    if (by === 'NOT RUN') {
      process.stderr.write(`readme.test.ts: "${command}" is not run by any test\n`);
      continue;
    }
    for (const file of by.match(/(?:test|cli)\/[\w./-]+\.test\.ts/g) ?? []) assert.ok(existsSync(join(ROOT, file)), `${command}: ${file} exists`);
    if (by.startsWith('.ci/run') && !by.includes('its steps')) assert.ok(ci.includes(command.replace(/ && npm start$/, '')), `.ci/run runs ${command}`);
  }
});

/** A README command in its own process group, run where a user runs it. */
const spawnGroup = (command: string, env: Record<string, string>) => spawnShell(command, env, ROOT);

test('npm start, then the command its ready banner prints (the README one, with DATA_DIR) pays in a second shell without PORT', { timeout: 180_000 }, async () => {
  const dataDir = tempDir('readme-start-');
  const svc = spawnGroup('npm start', { DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'warn' });
  try {
    const m = await svc.waitFor(/Try a paid call in another terminal:\n {2}(.+)\n/, 120_000);
    const command = m[1]!;
    const readmeBuy = Object.keys(COVERED_BY).find((c) => c.startsWith('npm run buy -- POST'))!;
    assert.ok(README.includes(readmeBuy));
    assert.equal(command, `DATA_DIR='${dataDir}' ${readmeBuy}`);
    const env = { ...process.env };
    delete env.PORT;
    delete env.DATA_DIR;
    const paid = await run('sh', ['-c', command], { cwd: ROOT, env });
    assert.match(paid.stdout, /^HTTP 200$/m);
    assert.match(paid.stdout, /transaction: 0x[0-9a-f]{64}/);
  } finally {
    await svc.stop();
  }
});

test("the production command as written stops at once with one line naming the variable (its placeholders are not values)", async () => {
  const command = Object.keys(COVERED_BY).find((c) => c.startsWith('X402_NETWORK='))!;
  assert.ok(README.includes(command));
  const r = await run('sh', ['-c', command], { cwd: ROOT, env: { ...process.env, DATA_DIR: tempDir('readme-prod-') } }).catch((e) => e);
  assert.notEqual(r.code, 0);
  const lines = String(r.stderr).split('\n').filter((l) => l.startsWith('config error:'));
  assert.equal(lines.length, 1, r.stderr);
  assert.match(lines[0]!, /^config error: (X402_\w+|DATABASE_URL)/);
});

/** The ```sh commands of a README section, in order. */
function commandsIn(section: string): string[] {
  const at = README.indexOf(`\n${section}\n`);
  assert.ok(at >= 0, `README has "${section}"`);
  const end = README.indexOf('\n## ', at + 1);
  return [...README.slice(at, end < 0 ? undefined : end).matchAll(/^```sh\n([\s\S]*?)^```/gm)].map((m) => m[1]!.trim());
}

/** `A=1 B=2 npm start` → {A: '1', B: '2'}. */
function envOf(command: string): Record<string, string> {
  const m = /^((?:[A-Z][A-Z0-9_]*=\S+ )+)npm start$/.exec(command);
  assert.ok(m, `"${command}" is assignments then npm start`);
  return Object.fromEntries(m[1]!.trim().split(' ').map((a) => [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)]));
}

test('Going live: each step is one or two variables, and loadConfig, given exactly that environment, picks the facilitator the README names', () => {
  const [sepolia, mainnet, ...more] = commandsIn('## Going live');
  assert.equal(more.length, 0, 'two commands: Base Sepolia, then Base with CDP');
  for (const command of [sepolia!, mainnet!]) assert.equal(COVERED_BY[command], THIS);
  const steps = [envOf(sepolia!), envOf(mainnet!)];
  assert.deepEqual(Object.keys(steps[0]!), ['X402_NETWORK', 'X402_PAY_TO'], 'from the devnet: network and payee');
  const changed = Object.keys(steps[1]!).filter((k) => steps[1]![k] !== steps[0]![k]);
  assert.deepEqual(changed, ['X402_NETWORK', 'CDP_API_KEY_ID', 'CDP_API_KEY_SECRET'], 'then the network and the CDP key pair');
  // The placeholders, filled as an operator would: an address, a key id and a key as CDP issues them.
  const filled = (env: Record<string, string>) =>
    Object.fromEntries(Object.entries(env).map(([k, v]) => [k, k === 'X402_PAY_TO' ? '0x' + '4'.repeat(40) : k === 'CDP_API_KEY_ID' ? 'organizations/o/apiKeys/k' : k === 'CDP_API_KEY_SECRET' ? cdpEd25519Secret() : v]));
  const testnet = loadConfig(filled(steps[0]!)).payment!;
  assert.deepEqual([testnet.network, testnet.facilitatorUrls], ['eip155:84532', [TESTNET_FACILITATOR_URL]]);
  assert.ok(README.includes(`\`${TESTNET_FACILITATOR_URL}\``));
  const live = loadConfig(filled(steps[1]!)).payment!;
  assert.deepEqual([live.network, live.facilitatorUrls], ['eip155:8453', [CDP_FACILITATOR_URL]]);
  assert.ok(live.facilitatorAuth.cdp);
  assert.ok(README.includes(`\`${CDP_FACILITATOR_URL}\``));
  // Without the keys, Base stops with the one line the README describes.
  const { CDP_API_KEY_ID: _id, CDP_API_KEY_SECRET: _secret, ...keyless } = filled(steps[1]!);
  assert.throws(() => loadConfig(keyless), /^ConfigError: X402_FACILITATOR_URL: .*set CDP_API_KEY_ID and CDP_API_KEY_SECRET .* or X402_FACILITATOR_URL$/);
});

test('Going live: each command as written stops at once with one line naming the variable (its placeholders are not values)', async () => {
  for (const command of commandsIn('## Going live')) {
    const r = await run('sh', ['-c', command], { cwd: ROOT, env: { ...process.env, DATA_DIR: tempDir('readme-live-') } }).catch((e) => e);
    assert.notEqual(r.code, 0, command);
    const lines = String(r.stderr).split('\n').filter((l) => l.startsWith('config error:'));
    assert.deepEqual(lines.length, 1, r.stderr);
    assert.match(lines[0]!, /^config error: X402_PAY_TO: /);
  }
});

test('Solana beside Base: with CDP or PayAI, loadConfig given exactly that environment offers both chains through the facilitator the README names', () => {
  const [cdp, payai, ...more] = commandsIn('## Solana beside Base');
  assert.equal(more.length, 0);
  const filled = (env: Record<string, string>) =>
    Object.fromEntries(
      Object.entries(env).map(([k, v]) => [
        k,
        k === 'X402_PAY_TO' ? '0x' + '4'.repeat(40) : k === 'X402_SVM_PAY_TO' ? 'CBWSDFwN7FnPmEjSgCFSz1Lzw3pGRj72iXcZWk9dEXHQ' : k === 'CDP_API_KEY_ID' ? 'organizations/o/apiKeys/k' : k === 'CDP_API_KEY_SECRET' ? cdpEd25519Secret() : v,
      ]),
    );
  const withCdp = loadConfig(filled(envOf(cdp!))).payment!;
  assert.deepEqual([withCdp.network, withCdp.solana?.network, withCdp.solana?.asset.address, withCdp.facilitatorUrls], ['eip155:8453', 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp', 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', [CDP_FACILITATOR_URL]]);
  const withPayai = loadConfig(filled(envOf(payai!))).payment!;
  assert.deepEqual([withPayai.solana?.payTo, withPayai.facilitatorUrls], ['CBWSDFwN7FnPmEjSgCFSz1Lzw3pGRj72iXcZWk9dEXHQ', ['https://facilitator.payai.network']]);
  // As written (placeholders), start-up stops with one line naming a variable.
  assert.throws(() => loadConfig(envOf(cdp!)), /^ConfigError: X402_PAY_TO: /);
  assert.throws(() => loadConfig({ ...filled(envOf(cdp!)), X402_SVM_PAY_TO: '…' }), /^ConfigError: X402_SVM_PAY_TO: is not a base58 Solana address/);
});

test('tsx devnet/cli.ts starts the devnet alone and writes devnet.json', { timeout: 120_000 }, async () => {
  const dataDir = tempDir('readme-devnet-');
  const devnet = spawnGroup('npx tsx devnet/cli.ts', { DATA_DIR: dataDir });
  try {
    // It prints the environment of its devnet.env once devnet.json is written too.
    await devnet.waitFor(/^X402_FACILITATOR_URL=/m, 90_000);
    const facts = JSON.parse(readFileSync(join(dataDir, 'devnet.json'), 'utf8'));
    assert.equal(facts.network, 'eip155:31337');
    assert.match(facts.asset, /^0x[0-9a-fA-F]{40}$/);
    // What an MPP client needs besides the address (pay-mpp.mjs reads these): the token's EIP-712 domain, as the chain states it, and decimals.
    const domain = await getEip712Domain(createPublicClient({ transport: http(facts.rpcUrl) }), { address: facts.asset });
    assert.deepEqual([facts.assetName, facts.assetVersion, facts.decimals], [domain.domain.name, domain.domain.version, 6]);
  } finally {
    await devnet.stop();
  }
});

test('npm run build:token, in a copy of devnet/, reproduces the committed artifacts byte for byte', { timeout: 180_000 }, async () => {
  // A copy, so the shared tree's artifacts are never rewritten by a test.
  const dir = tempDir('readme-token-');
  mkdirSync(join(dir, 'devnet/contracts'), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  writeFileSync(join(dir, 'package.json'), readFileSync(join(ROOT, 'package.json')));
  writeFileSync(join(dir, 'devnet/compile-token.mjs'), readFileSync(join(ROOT, 'devnet/compile-token.mjs')));
  for (const f of ['DevUSDC.sol', 'Multicall3.sol']) writeFileSync(join(dir, 'devnet/contracts', f), readFileSync(join(ROOT, 'devnet/contracts', f)));
  await run('npm', ['run', 'build:token'], { cwd: dir });
  for (const f of ['DevUSDC.json', 'Multicall3.json', 'abis.ts']) {
    assert.equal(readFileSync(join(dir, 'devnet/artifacts', f), 'utf8'), readFileSync(join(ROOT, 'devnet/artifacts', f), 'utf8'), f);
  }
});

test("the README's @x402/fetch snippet is pay.mjs in the repository, and `node pay.mjs` pays on the devnet: 200 and a settlement on chain", { timeout: 120_000 }, async () => {
  const snippet = codeUnder('### Paying with `@x402/fetch` on the devnet', 'js');
  assert.equal(snippet, readFileSync(join(ROOT, 'pay.mjs'), 'utf8'), 'the README shows pay.mjs as it is in the repository');
  const dataDir = tempDir('readme-snippet-');
  const rig = await startRig({ dataDir });
  try {
    const { devnet } = rig;
    // What `npm start` writes; the rig's service wrote service.json itself.
    writeFileSync(join(dataDir, 'devnet.json'), JSON.stringify({ network: devnet.network, asset: devnet.asset, buyer: devnet.buyer }));
    const dir = tempDir('readme-pay-');
    mkdirSync(dir, { recursive: true });
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
    const before = await balanceOf(devnet, devnet.payTo);
    // The repository's own file, run where a user runs it.
    const r = await run(process.execPath, ['pay.mjs'], { cwd: ROOT, env: { ...process.env, DATA_DIR: dataDir } });
    assert.match(r.stdout, /^200 \{/);
    assert.match(r.stdout, /contrast_ratio: 21/);
    assert.match(r.stdout, /success: true/);
    assert.match(r.stdout, /transaction: '0x[0-9a-f]{64}'/);
    assert.equal((await balanceOf(devnet, devnet.payTo)) - before, 1000n);

    // llms.txt tells agents the same thing, with this instance's token.
    const llms = await (await fetch(rig.service.url + '/llms.txt')).text();
    assert.ok(llms.includes(`client.setSpendControls({ allowedAssets: [{ network: '${devnet.network}', asset: '${rig.service.payment.asset.address}', maxAmountPerPayment: '100000' }] })`), llms);

    // The line the README says is needed is: without it the SDK refuses the token and nothing is paid.
    writeFileSync(join(dir, 'unallowed.mjs'), snippet.replace(/^client\.setSpendControls\(.*\n/m, ''));
    const refused = await run(process.execPath, ['unallowed.mjs'], { cwd: dir, env: { ...process.env, DATA_DIR: dataDir } }).catch((e) => e);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /spendControls/);
  } finally {
    await rig.close();
  }
});

test("the README's mppx snippet is pay-mpp.mjs, and `node pay-mpp.mjs` pays on npm start's devnet with what devnet.json holds: 200, an MPP receipt, the transfer on chain", { timeout: 120_000 }, async () => {
  const snippet = codeUnder('### Paying with `mppx` on the devnet', 'js');
  assert.equal(snippet, readFileSync(join(ROOT, 'pay-mpp.mjs'), 'utf8'), 'the README shows pay-mpp.mjs as it is in the repository');
  // What `npm start` runs: the service on its embedded devnet, which writes devnet.json and service.json into DATA_DIR.
  const dataDir = tempDir('readme-mpp-');
  const service = await startService(loadConfig({ DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: '0' }));
  try {
    const facts = JSON.parse(readFileSync(join(dataDir, 'devnet.json'), 'utf8'));
    // The token's EIP-712 domain and decimals are the chain's own (EIP-5267), and what the 402 states.
    const domain = await getEip712Domain(createPublicClient({ transport: http(facts.rpcUrl) }), { address: facts.asset });
    assert.deepEqual([facts.assetName, facts.assetVersion, facts.chainId], [domain.domain.name, domain.domain.version, domain.domain.chainId]);
    assert.equal(facts.decimals, await createPublicClient({ transport: http(facts.rpcUrl) }).readContract({ address: facts.asset, abi: erc20Abi, functionName: 'decimals' }));
    const unpaid = await fetch(`${service.url}/x402/v1/accessibility-contrast-calculator`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"foreground":"#000000","background":"#ffffff","large_text":false}' });
    const extra = decodePaymentRequiredHeader(unpaid.headers.get('payment-required')!).accepts.find((a) => a.network === facts.network)!.extra;
    assert.deepEqual([extra.name, extra.version], [facts.assetName, facts.assetVersion]);
    const before = await balanceOf(facts, facts.payTo);
    const buyerBefore = await balanceOf(facts, facts.buyer.address);
    // The repository's own file, run where a user runs it.
    const r = await run(process.execPath, ['pay-mpp.mjs'], { cwd: ROOT, env: { ...process.env, DATA_DIR: dataDir } });
    assert.match(r.stdout, /^200 \{/);
    assert.match(r.stdout, /contrast_ratio: 21/);
    assert.match(r.stdout, /method: 'evm'/);
    assert.match(r.stdout, /status: 'success'/);
    const reference = /reference: '(0x[0-9a-f]{64})'/.exec(r.stdout)?.[1];
    assert.ok(reference, r.stdout);
    // The receipt names the transfer: the buyer's 1000 atomic units to the payee, in that transaction.
    assert.equal((await balanceOf(facts, facts.payTo)) - before, 1000n);
    assert.equal(buyerBefore - (await balanceOf(facts, facts.buyer.address)), 1000n);
    const [log] = (await transferLogs(facts, { from: facts.buyer.address, to: facts.payTo })).filter((l) => l.txHash === reference);
    assert.ok(log, `a transfer in ${reference}`);

    // The cap the README describes holds: under the price, the client refuses to sign and nothing is paid.
    const dir = tempDir('readme-pay-mpp-');
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
    assert.match(snippet, /maxAmount: '0\.10'/);
    writeFileSync(join(dir, 'capped.mjs'), snippet.replace(/maxAmount: '0\.10'/, "maxAmount: '0.0005'"));
    const paidTo = await balanceOf(facts, facts.payTo);
    const capped = await run(process.execPath, ['capped.mjs'], { cwd: dir, env: { ...process.env, DATA_DIR: dataDir } }).catch((e) => e);
    assert.notEqual(capped.code, 0);
    assert.match(capped.stderr, /exceeds maxAmount/);
    assert.equal(await balanceOf(facts, facts.payTo), paidTo);
  } finally {
    await service.close();
  }
});

test('the configuration and error-code tables are the ones the code generates (npm run readme:tables)', () => {
  assert.equal(README, withTables(README), 'README.md differs from the code: run npm run readme:tables and commit the result');
  // Every code errors.ts defines is a row, with its status.
  for (const [code, status] of Object.entries(ERROR_CODES)) assert.ok(README.includes(`| \`${code}\` | ${status} |`), code);
});

test('every environment variable the service reads is documented, and every documented one is read', () => {
  const read = new Set<string>();
  for (const file of ['src/config.ts', 'src/main.ts']) {
    const text = readFileSync(join(ROOT, file), 'utf8');
    // env.NAME, env['NAME'], and helpers called as int(env, 'NAME', …) / httpUrl(env, 'NAME', …).
    for (const m of text.matchAll(/\benv\.([A-Z][A-Z0-9_]+)|\benv\[['"]([A-Z][A-Z0-9_]+)['"]\]|\(env, '([A-Z][A-Z0-9_]+)'/g)) read.add((m[1] ?? m[2] ?? m[3])!);
  }
  const documented = new Set(CONFIG_VARIABLES.flatMap((v) => v.names));
  assert.deepEqual([...read].filter((n) => !documented.has(n)).sort(), [], 'read by the code but missing from src/config-variables.ts');
  assert.deepEqual([...documented].filter((n) => !read.has(n)).sort(), [], 'documented in src/config-variables.ts but never read');
  assert.ok(read.size >= 50, `the scan found ${read.size} variables: the patterns above no longer match how config.ts reads them`);
});
