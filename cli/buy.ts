/**
 * npm run buy -- [--url BASE_URL] [--max ATOMIC] [--allow-asset NETWORK:ADDRESS] METHOD PATH [JSON_BODY]
 *
 * Pays for one call with the official x402 client (@x402/fetch) and prints
 * the result and the settlement receipt. Against the local service it uses
 * the funded devnet buyer from DATA_DIR/devnet.json; against any other x402
 * v2 server it needs BUYER_PRIVATE_KEY.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { x402Client, wrapFetchWithPayment, decodePaymentResponseHeader } from '@x402/fetch';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { privateKeyToAccount } from 'viem/accounts';

const USAGE = 'usage: npm run buy -- [--url BASE_URL] [--max ATOMIC_UNITS] [--allow-asset NETWORK:ADDRESS] METHOD PATH [JSON_BODY]';

function die(msg: string): never {
  process.stderr.write(msg + '\n');
  process.exit(2);
}

interface DevnetFile {
  network: string;
  asset: string;
  buyer: { address: string; privateKey: string };
}

async function main() {
  const args = process.argv.slice(2);
  let baseUrl: string | undefined;
  let max: string | undefined;
  const extraAssets: Array<{ network: `${string}:${string}`; asset: string }> = [];
  const positional: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--url') baseUrl = args[++i];
    else if (a === '--max') max = args[++i];
    else if (a === '--allow-asset') {
      const m = /^(eip155:[0-9]+):(0x[0-9a-fA-F]{40})$/.exec(args[++i] ?? '');
      if (!m) die('--allow-asset takes NETWORK:ADDRESS, e.g. eip155:31337:0x5FbDB2315678afecb367f032d93F642f64180aa3');
      extraAssets.push({ network: m[1] as `${string}:${string}`, asset: m[2]! });
    }
    else if (a === '-h' || a === '--help') die(USAGE);
    else positional.push(a);
  }
  const [method, path, body] = positional;
  if (!method || !path) die(USAGE);
  if (max !== undefined && !/^[1-9][0-9]*$/.test(max)) die('--max must be a positive whole number of atomic units');

  const dataDir = resolve(process.env.DATA_DIR || './data');
  const devnetFile = join(dataDir, 'devnet.json');
  const devnet: DevnetFile | undefined = existsSync(devnetFile) ? JSON.parse(readFileSync(devnetFile, 'utf8')) : undefined;
  const local = baseUrl === undefined;
  const base = (baseUrl ?? process.env.BUY_URL ?? `http://127.0.0.1:${process.env.PORT || 8402}`).replace(/\/+$/, '');

  let key = process.env.BUYER_PRIVATE_KEY;
  if (!key && local && devnet) key = devnet.buyer.privateKey;
  if (!key) die(local ? `no buyer key: start the service (npm start) so it writes ${devnetFile}, or set BUYER_PRIVATE_KEY` : 'BUYER_PRIVATE_KEY is required with --url');
  if (!/^0x[0-9a-fA-F]{64}$/.test(key)) die('BUYER_PRIVATE_KEY must be 0x followed by 64 hex digits');
  const account = privateKeyToAccount(key as `0x${string}`);

  const client = new x402Client().register('eip155:*', new ExactEvmScheme(account));
  // The SDK pays only assets it knows (USDC on Base) up to $1 unless told otherwise;
  // the devnet token must be listed explicitly.
  const allowed = [
    ...(devnet && local ? [{ network: devnet.network as `${string}:${string}`, asset: devnet.asset }] : []),
    ...extraAssets,
  ].map((a) => ({ ...a, maxAmountPerPayment: max ?? '1000000' }));
  client.setSpendControls({ allowedAssets: allowed, ...(max ? { maxAmountPerPayment: `$${Number(max) / 1e6}` } : {}) });
  const pay = wrapFetchWithPayment(fetch, client);

  const init: RequestInit = { method: method.toUpperCase(), headers: {} };
  if (body !== undefined) {
    try {
      JSON.parse(body);
    } catch {
      die('JSON_BODY is not valid JSON');
    }
    init.body = body;
    (init.headers as Record<string, string>)['content-type'] = 'application/json';
  }
  const url = path.startsWith('http') ? path : base + (path.startsWith('/') ? path : '/' + path);
  process.stderr.write(`paying as ${account.address} → ${init.method} ${url}\n`);
  const res = await pay(url, init);
  const text = await res.text();
  let shown = text;
  try {
    shown = JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    // not JSON: print as is
  }
  process.stdout.write(`HTTP ${res.status}\n${shown}\n`);
  const receiptHeader = res.headers.get('payment-response');
  if (receiptHeader) {
    const r = decodePaymentResponseHeader(receiptHeader);
    process.stdout.write(
      `\nsettlement receipt:\n  success:     ${r.success}\n  transaction: ${r.transaction || '(none)'}\n  network:     ${r.network}\n  payer:       ${r.payer ?? ''}\n` +
        (r.errorReason ? `  error:       ${r.errorReason}\n` : ''),
    );
  } else if (res.status !== 200) {
    process.stdout.write('\nno settlement receipt (nothing was charged)\n');
  }
  process.exit(res.ok ? 0 : 1);
}

main().catch((e) => die(`buy failed: ${e instanceof Error ? e.message : String(e)}`));
