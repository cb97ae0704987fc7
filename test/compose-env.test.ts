/**
 * compose.yaml passes the service every environment variable it reads, so an
 * operator's .env reaches the container: the names the service's code reads
 * (src/, and the devnet it starts in-process; not devnet/cli.ts, a program of
 * its own) must each be in the `service` environment, except those the image
 * fixes (Dockerfile ENV: where it listens and keeps its data). A variable
 * added to the code and forgotten in compose fails here. And with nothing set
 * on the host, compose's empty defaults must configure the service exactly as
 * leaving the variables unset does.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { loadConfig } from '../src/config.js';

const ROOT = resolve(import.meta.dirname, '..');

/** Set by the image, not passed: the container listens on 0.0.0.0:8402 (compose maps the host's PORT onto it) and keeps its data in the /data volume. */
const FIXED_BY_IMAGE = ['HOST', 'PORT', 'DATA_DIR'];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** Environment variable names a source reads: `env.NAME`, `env['NAME']`, `process.env.NAME`, and the config helpers' `(env, 'NAME'`. */
export function namesRead(text: string): string[] {
  const names = new Set<string>();
  for (const re of [/\benv\??\.([A-Z][A-Z0-9_]+)\b/g, /\benv\[\s*['"]([A-Z][A-Z0-9_]+)['"]\s*\]/g, /\(\s*env\s*,\s*['"]([A-Z][A-Z0-9_]+)['"]/g]) {
    for (const m of text.matchAll(re)) names.add(m[1]!);
  }
  return [...names];
}

/** Every variable the service's code reads, with the files that read it. */
function variablesRead(): Map<string, string[]> {
  const files = [...sources(join(ROOT, 'src')), ...sources(join(ROOT, 'devnet')).filter((f) => !f.endsWith('/cli.ts'))];
  const out = new Map<string, string[]>();
  for (const file of files) for (const name of namesRead(readFileSync(file, 'utf8'))) out.set(name, [...(out.get(name) ?? []), relative(ROOT, file)]);
  return out;
}

/** The `service` environment of compose.yaml, as written: name → value text (`${NAME:-default}` or a literal). */
function composeServiceEnvironment(): Map<string, string> {
  const lines = readFileSync(join(ROOT, 'compose.yaml'), 'utf8').split('\n');
  const indent = (l: string) => l.length - l.trimStart().length;
  const meaningful = (l: string) => l.trim() !== '' && !l.trim().startsWith('#');
  const service = lines.findIndex((l) => /^ {2}service:\s*$/.test(l));
  assert.ok(service >= 0, 'compose.yaml has services.service');
  let at = lines.findIndex((l, i) => i > service && /^ {4}environment:\s*$/.test(l));
  assert.ok(at > service && !lines.slice(service + 1, at).some((l) => meaningful(l) && indent(l) <= 2), 'services.service has an environment map');
  const env = new Map<string, string>();
  for (at++; at < lines.length; at++) {
    const line = lines[at]!;
    if (!meaningful(line)) continue;
    if (indent(line) <= 4) break;
    const m = /^ {6}([A-Z][A-Z0-9_]*):\s*(.*)$/.exec(line);
    assert.ok(m, `compose.yaml line ${at + 1} is a NAME: value entry of the environment map: ${line}`);
    assert.ok(!env.has(m[1]!), `${m[1]} listed twice`);
    env.set(m[1]!, m[2]!.trim());
  }
  return env;
}

/** A value as compose resolves it when the host sets nothing: `${NAME:-default}` → default. */
function resolvedWithNothingSet(value: string): string {
  return value.replace(/\$\{[A-Z][A-Z0-9_]*:-([^}]*)\}/g, (_, def: string) => def);
}

/** The Dockerfile's final ENV (NAME=value pairs after the last FROM). */
function imageEnv(): Record<string, string> {
  const text = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
  const last = text.slice(text.lastIndexOf('\nFROM '));
  const block = /\nENV ((?:[^\n]*\\\n)*[^\n]*)/.exec(last);
  assert.ok(block, 'the final image sets ENV');
  return Object.fromEntries([...block[1]!.matchAll(/([A-Z][A-Z0-9_]*)=(\S+)/g)].map((m) => [m[1]!, m[2]!]));
}

test('the scan finds what the config reads (a variable read only through a helper or a list still counts)', () => {
  assert.deepEqual(namesRead("int(env, 'PORT', 1, 0, 2); env.HOST; env?.A_B; env['X402_PAY_TO']; process.env.ANVIL_BIN; httpUrlList(env, 'X402_FACILITATOR_URL', true)").sort(), [
    'ANVIL_BIN', 'A_B', 'HOST', 'PORT', 'X402_FACILITATOR_URL', 'X402_PAY_TO',
  ]);
  // What loadConfig really reads, recorded, is in the scan: on the devnet and on a live network with everything set.
  const scanned = new Set(variablesRead().keys());
  const record = (base: Record<string, string>) => {
    const seen = new Set<string>();
    const env = new Proxy(base, { get: (t, k) => (typeof k === 'string' && seen.add(k), t[k as string]) });
    loadConfig(env);
    return [...seen];
  };
  const live = { X402_NETWORK: 'eip155:84532', X402_PAY_TO: '0x' + '1'.repeat(40), X402_FACILITATOR_URL: 'https://f.example', X402_ASSET: '0x036CbD53842c5426634e7929541eC2318f3dCF7e' };
  for (const base of [{}, live, { ...live, X402_FACILITATOR_URL: '' }]) {
    const missing = record(base).filter((n) => /^[A-Z][A-Z0-9_]+$/.test(n) && !scanned.has(n));
    assert.deepEqual(missing, [], 'read by loadConfig but not found by the scan');
  }
});

test('compose.yaml passes every variable the service reads (the image fixes HOST, PORT and DATA_DIR)', () => {
  const read = variablesRead();
  const compose = composeServiceEnvironment();
  for (const name of ['CDP_API_KEY_ID', 'CDP_API_KEY_SECRET', 'X402_FACILITATOR_HEADERS', 'X402_SETTLEMENT_COST_ATOMIC', 'MPP_SECRET_KEY', 'X402_NETWORK']) {
    assert.ok(read.has(name), `the scan finds ${name}`);
  }
  const missing = [...read.keys()].filter((n) => !compose.has(n) && !FIXED_BY_IMAGE.includes(n)).sort();
  assert.deepEqual(missing, [], `add to compose.yaml's service environment (read by ${missing.map((n) => `${n}: ${read.get(n)!.join(', ')}`).join('; ')})`);
  const unread = [...compose.keys()].filter((n) => !read.has(n)).sort();
  assert.deepEqual(unread, [], 'compose.yaml passes variables the service never reads');
  const image = imageEnv();
  for (const name of FIXED_BY_IMAGE) {
    assert.ok(image[name], `the Dockerfile sets ${name}`);
    assert.ok(!compose.has(name), `${name} is the image's, not passed through (compose maps the host's PORT onto 8402)`);
  }
  // Each passes the host's value through (a default after :- at most), except the ledger, which compose provides.
  for (const [name, value] of compose) {
    if (name === 'DATABASE_URL') continue;
    assert.match(value, new RegExp(`^\\$\\{${name}:-[^}]*\\}$`), `${name} passes \${${name}} through`);
  }
});

test('with nothing set on the host, compose configures the service as leaving every variable unset does', () => {
  const compose = composeServiceEnvironment();
  const image = imageEnv();
  const resolved = Object.fromEntries([...compose].map(([name, value]) => [name, resolvedWithNothingSet(value)]));
  const viaCompose = loadConfig({ ...image, ...resolved });
  const unset = loadConfig({ ...image, DATABASE_URL: resolved.DATABASE_URL! });
  assert.equal(viaCompose.rail, 'devnet');
  assert.deepEqual(viaCompose, unset);
});
