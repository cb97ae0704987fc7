/**
 * npm run buy -- [--chain evm|solana] [--url BASE_URL] [--max ATOMIC] [--allow-asset NETWORK:ADDRESS] [--payment-id ID] [--save FILE] METHOD PATH [JSON_BODY]
 *
 * `--chain solana` pays the 402's Solana entry instead of its EVM one, with
 * the devnet's Solana buyer (or BUYER_SOLANA_KEY: a base58 64-byte secret
 * key, as wallets export it) over the devnet's RPC (or SOLANA_RPC_URL).
 *
 * Pays for one call with the official x402 client (@x402/fetch) and prints
 * the result and the settlement receipt. Against the local service it uses
 * the funded devnet buyer from DATA_DIR/devnet.json and the URL the service
 * wrote to DATA_DIR/service.json (so a second terminal needs no PORT);
 * against any other x402 v2 server it needs BUYER_PRIVATE_KEY. `--save FILE`
 * keeps the request and the exact response (x402-saved-response/1) for
 * `npm run verify-receipt -- FILE`. Every payment carries an x402
 * payment-identifier (a fresh one, or `--payment-id ID`): run the same call
 * again with the id it printed and a server that honours the extension
 * answers with the result already paid for, without charging again.
 *
 * The SDK pays only assets it knows (USDC) unless `--allow-asset` names
 * another (the local devnet's token is named from devnet.json). An offer it
 * refuses, for its asset or its price, stops with one line naming what the
 * server asked and the flag that would pay it; nothing is signed or paid.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { x402Client, x402HTTPClient, wrapFetchWithPayment, decodePaymentResponseHeader } from '@x402/fetch';
import type { PaymentRequired } from '@x402/core/types';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { ExactSvmScheme } from '@x402/svm/exact/client';
import { createKeyPairSignerFromBytes } from '@solana/kit';
import { privateKeyToAccount } from 'viem/accounts';
import { fromBase58 } from '../src/payments/chains/svm-transaction.js';
import { appendPaymentIdentifierToExtensions, generatePaymentId, isValidPaymentId } from '@x402/extensions/payment-identifier';
import { savedResponse } from '../src/commitments/saved-response.js';

const USAGE = 'usage: npm run buy -- [--chain evm|solana] [--url BASE_URL] [--max ATOMIC_UNITS] [--allow-asset NETWORK:ADDRESS] [--payment-id ID] [--save FILE] METHOD PATH [JSON_BODY]';

/** Without --max, the most one payment may cost (atomic units: $1 of a 6-decimal token, the SDK's own default cap). */
const DEFAULT_MAX_ATOMIC = '1000000';

function die(msg: string): never {
  process.stderr.write(msg + '\n');
  process.exit(2);
}

interface DevnetFile {
  network: string;
  asset: string;
  buyer: { address: string; privateKey: string };
  /** The embedded Solana devnet, when the service runs one (DEVNET_SVM). */
  solana?: { network: string; rpcUrl: string; mint: string; buyer: { address: string; secretKey: string } };
}

/** The flags, read by node:util parseArgs; anything else is a usage error. */
function readArgs(argv: string[]) {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        url: { type: 'string' },
        chain: { type: 'string' },
        max: { type: 'string' },
        'allow-asset': { type: 'string', multiple: true },
        save: { type: 'string' },
        'payment-id': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (e) {
    die(`${(e as Error).message}\n${USAGE}`);
  }
  const { values, positionals } = parsed;
  if (values.help) die(USAGE);
  const extraAssets = (values['allow-asset'] ?? []).map((v) => {
    // An EVM token contract, or a Solana mint (base58, 32 bytes) under its CAIP-2 network.
    const evm = /^(eip155:[0-9]+):(0x[0-9a-fA-F]{40})$/.exec(v);
    const svm = /^(solana:[1-9A-HJ-NP-Za-km-z]{1,32}):([1-9A-HJ-NP-Za-km-z]{32,44})$/.exec(v);
    const m = evm ?? (svm && fromBase58(svm[2]!)?.length === 32 ? svm : null);
    if (!m) die('--allow-asset takes NETWORK:ADDRESS, e.g. eip155:31337:0x5FbDB2315678afecb367f032d93F642f64180aa3 or solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1:<mint>');
    return { network: m[1] as `${string}:${string}`, asset: m[2]! };
  });
  const chain = values.chain ?? 'evm';
  if (chain !== 'evm' && chain !== 'solana') die('--chain takes evm or solana');
  const [method, path, body] = positionals;
  if (!method || !path || positionals.length > 3) die(USAGE);
  if (values.max !== undefined && !/^[1-9][0-9]*$/.test(values.max)) die('--max must be a positive whole number of atomic units');
  const paymentId = values['payment-id'] ?? generatePaymentId();
  if (!isValidPaymentId(paymentId)) die('--payment-id takes 16-128 letters, digits, _ or -');
  return { chain, baseUrl: values.url, max: values.max, extraAssets, method, path, body, save: values.save, paymentId };
}

/** The URL a running `npm start` announced in DATA_DIR/service.json, if that process is still alive. */
function announcedUrl(dataDir: string): string | undefined {
  const file = join(dataDir, 'service.json');
  if (!existsSync(file)) return undefined;
  try {
    const s = JSON.parse(readFileSync(file, 'utf8')) as { url?: unknown; pid?: unknown };
    if (typeof s.url !== 'string') return undefined;
    if (typeof s.pid === 'number') process.kill(s.pid, 0); // throws when the process is gone: a stale file
    return s.url;
  } catch {
    return undefined;
  }
}

/**
 * The one line that says why the SDK's spend controls refused every offer
 * the server made on this buyer's chain, and what to add to pay it anyway;
 * undefined for any other failure. Nothing was signed or sent by then.
 */
function refusalLine(error: unknown, offered: PaymentRequired | undefined, chain: string, max: string | undefined): string | undefined {
  const text = error instanceof Error ? error.message : String(error);
  if (!offered || !/rejected by spendControls/.test(text)) return undefined;
  const family = chain === 'solana' ? 'solana:' : 'eip155:';
  const offers = offered.accepts.filter((a) => a.network.startsWith(family));
  if (offers.length === 0) return undefined;
  const what = (a: (typeof offers)[number]) => `${a.amount} atomic units of ${a.asset} on ${a.network}`;
  if (/rejected by spendControls:/.test(text)) {
    // The asset is neither one the SDK knows (USDC) nor one this run allows.
    const flags = offers.map((a) => `--allow-asset ${a.network}:${a.asset}`).join(' or ');
    return `buy refused, nothing paid: the server asks ${offers.map(what).join(' or ')}, an asset this buyer does not pay unless told to; if you trust it, run again with ${flags}`;
  }
  // A cap: the per-asset one (--max, default $1) or the SDK's dollar cap on a known asset.
  const cheapest = offers.reduce((a, b) => (BigInt(a.amount) <= BigInt(b.amount) ? a : b));
  return `buy refused, nothing paid: the server asks ${what(cheapest)}, more than the ${max ?? DEFAULT_MAX_ATOMIC} atomic units this buyer pays at most${max ? ' (--max)' : ''}; to pay it, run again with --max ${cheapest.amount}`;
}

/** The EVM buyer: BUYER_PRIVATE_KEY, or the devnet's. */
function evmBuyer(devnet: DevnetFile | undefined, devnetFile: string, local: boolean) {
  let key = process.env.BUYER_PRIVATE_KEY;
  if (!key && devnet) key = devnet.buyer.privateKey;
  if (!key) die(local ? `no buyer key: start the service (npm start) so it writes ${devnetFile}, or set BUYER_PRIVATE_KEY` : 'BUYER_PRIVATE_KEY is required with --url');
  if (!/^0x[0-9a-fA-F]{64}$/.test(key)) die('BUYER_PRIVATE_KEY must be 0x followed by 64 hex digits');
  const account = privateKeyToAccount(key as `0x${string}`);
  return { client: new x402Client().register('eip155:*', new ExactEvmScheme(account)), payer: account.address };
}

/** The Solana buyer: BUYER_SOLANA_KEY, or the devnet's; the RPC its client reads the mint and a blockhash from. */
async function solanaBuyer(devnet: DevnetFile | undefined, devnetFile: string, local: boolean) {
  const key = process.env.BUYER_SOLANA_KEY || devnet?.solana?.buyer.secretKey;
  if (!key) die(local ? `no Solana buyer: start the service with its Solana devnet (DEVNET_SVM is on by default) so ${devnetFile} names one, or set BUYER_SOLANA_KEY` : 'BUYER_SOLANA_KEY is required with --chain solana and --url');
  const bytes = fromBase58(key);
  if (bytes?.length !== 64) die('BUYER_SOLANA_KEY must be a base58 64-byte secret key (as Solana wallets export it)');
  const rpcUrl = process.env.SOLANA_RPC_URL || devnet?.solana?.rpcUrl;
  const signer = await createKeyPairSignerFromBytes(bytes);
  return { client: new x402Client().register('solana:*', new ExactSvmScheme(signer, rpcUrl ? { rpcUrl } : undefined)), payer: signer.address };
}

async function main() {
  const { chain, baseUrl, max, extraAssets, method, path, body, save, paymentId } = readArgs(process.argv.slice(2));

  const dataDir = resolve(process.env.DATA_DIR || './data');
  const devnetFile = join(dataDir, 'devnet.json');
  const devnet: DevnetFile | undefined = existsSync(devnetFile) ? JSON.parse(readFileSync(devnetFile, 'utf8')) : undefined;
  const local = baseUrl === undefined;
  // The local service: BUY_URL, else where `npm start` said it listens, else PORT (or the default port).
  const base = (baseUrl ?? process.env.BUY_URL ?? announcedUrl(dataDir) ?? `http://127.0.0.1:${process.env.PORT || 8402}`).replace(/\/+$/, '');

  const { client, payer } = chain === 'solana' ? await solanaBuyer(local ? devnet : undefined, devnetFile, local) : evmBuyer(local ? devnet : undefined, devnetFile, local);
  // The SDK pays only assets it knows (USDC on Base and Solana) up to $1 unless told otherwise;
  // the devnet token must be listed explicitly.
  const allowed = [
    ...(devnet && local ? [{ network: devnet.network as `${string}:${string}`, asset: devnet.asset }] : []),
    ...(devnet?.solana && local ? [{ network: devnet.solana.network as `${string}:${string}`, asset: devnet.solana.mint }] : []),
    ...extraAssets,
  ].map((a) => ({ ...a, maxAmountPerPayment: max ?? DEFAULT_MAX_ATOMIC }));
  client.setSpendControls({ allowedAssets: allowed, ...(max ? { maxAmountPerPayment: `$${Number(max) / 1e6}` } : {}) });
  // The payment-identifier rides in the payment (never on chain): the proof this buyer shows to get a lost result again.
  client.registerExtension({
    key: 'payment-identifier',
    enrichPaymentPayload: async (p, required) => ({ ...p, extensions: appendPaymentIdentifierToExtensions(structuredClone({ ...required.extensions, ...p.extensions }), paymentId) }),
  });
  // What the server offered, kept for the message when the spend controls refuse all of it.
  let offered: PaymentRequired | undefined;
  const http = new x402HTTPClient(client).onPaymentRequired(async ({ paymentRequired }) => {
    offered = paymentRequired;
  });
  const pay = wrapFetchWithPayment(fetch, http);

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
  process.stderr.write(`paying as ${payer} (${chain}) → ${init.method} ${url}\n`);
  process.stderr.write(`payment-identifier ${paymentId} (if the answer is lost, run the same command with --payment-id ${paymentId}: the result again, not charged twice)\n`);
  let res: Response;
  try {
    res = await pay(url, init);
  } catch (e) {
    const refused = refusalLine(e, offered, chain, max);
    if (refused) die(refused);
    throw e;
  }
  const bytes = new Uint8Array(await res.arrayBuffer());
  const text = new TextDecoder().decode(bytes);
  if (save) {
    writeFileSync(save, JSON.stringify(savedResponse({ method: init.method!, url, body }, res.status, res.headers.entries(), bytes), null, 2) + '\n');
    process.stderr.write(`saved the request and response to ${save} (check it: npm run verify-receipt -- ${save})\n`);
  }
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
