/**
 * npm run verify-receipt -- [--signer ADDRESS] [--resource ID] FILE
 *
 * Checks the signed receipt of one saved paid call (FILE in the
 * `x402-saved-response/1` format, e.g. from `npm run buy -- --save FILE`):
 * both EIP-712 signatures recover to the service's signer (--signer, or the
 * `signing.signer` its /.well-known/x402 publishes at the request's origin),
 * the SHA-256 of the saved response bytes and the request fingerprint match
 * what was signed, and the receipt agrees with the settlement it rides on.
 *
 * The request fingerprint is SHA-256 of "<resource id>\n" + the canonical
 * JSON of the validated input. For this service's own capabilities the id and
 * the schema defaults come from the catalog (matched by path); for anything
 * else the id is --resource (default: the last path segment) and the body is
 * taken as sent. Exit 0: verified; 1: not verified (each problem printed); 2: usage.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { decodePaymentResponseHeader } from '@x402/core/http';
import { CATALOG } from '../src/capabilities/index.js';
import { makeInputReader } from '../src/catalog/input-reader.js';
import { readSavedResponse } from '../src/commitments/saved-response.js';
import { verifyReceipt } from '../src/commitments/verify.js';
import { requestFingerprint } from '../src/foundation/canonical-json.js';

const USAGE = 'usage: npm run verify-receipt -- [--signer 0xADDRESS] [--resource ID] FILE';

function die(msg: string, code = 2): never {
  process.stderr.write(msg + '\n');
  process.exit(code);
}

/** The request as the service fingerprinted it: its resource id and validated input. */
function fingerprintOf(url: URL, bodyText: string | undefined, resource: string | undefined): string {
  let body: unknown = undefined;
  if (bodyText !== undefined) {
    try {
      body = JSON.parse(bodyText);
    } catch {
      die('the saved request body is not JSON', 1);
    }
  }
  const cap = CATALOG.find((c) => c.path === url.pathname);
  if (cap && !cap.fingerprintOf && resource === undefined) {
    const read = makeInputReader(cap).fromValue(body);
    if (read.ok) return requestFingerprint(cap.id, read.input);
  }
  return requestFingerprint(resource ?? url.pathname.split('/').filter(Boolean).pop() ?? '', body);
}

async function publishedSigner(origin: string): Promise<string> {
  const res = await fetch(origin + '/.well-known/x402').catch((e: Error) => die(`cannot fetch ${origin}/.well-known/x402: ${e.message}; pass --signer`, 1));
  const doc = (await res.json().catch(() => undefined)) as { signing?: { signer?: unknown } } | undefined;
  const signer = doc?.signing?.signer;
  if (typeof signer !== 'string') die(`${origin}/.well-known/x402 publishes no signer (signing.signer); pass --signer`, 1);
  return signer;
}

async function main() {
  let args;
  try {
    args = parseArgs({ args: process.argv.slice(2), allowPositionals: true, strict: true, options: { signer: { type: 'string' }, resource: { type: 'string' }, help: { type: 'boolean', short: 'h' } } });
  } catch (e) {
    die(`${(e as Error).message}\n${USAGE}`);
  }
  const { values, positionals } = args;
  if (values.help || positionals.length !== 1) die(USAGE);
  if (values.signer !== undefined && !/^0x[0-9a-fA-F]{40}$/.test(values.signer)) die('--signer must be a 0x-prefixed 20-byte address');
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(positionals[0]!, 'utf8'));
  } catch (e) {
    die(`cannot read ${positionals[0]}: ${(e as Error).message}`);
  }
  const saved = readSavedResponse(raw);
  if (typeof saved === 'string') die(`${positionals[0]}: ${saved}`);
  const header = saved.response.headers['payment-response'];
  if (!header) die('the saved response has no PAYMENT-RESPONSE header', 1);
  let paymentResponse: unknown;
  try {
    paymentResponse = decodePaymentResponseHeader(header);
  } catch {
    die('PAYMENT-RESPONSE is not base64 JSON', 1);
  }
  const url = new URL(saved.request.url);
  const signer = values.signer ?? (await publishedSigner(url.origin));
  const check = await verifyReceipt({
    paymentResponse,
    responseBody: Buffer.from(saved.response.body_base64, 'base64'),
    request: { fingerprint: fingerprintOf(url, saved.request.body, values.resource) },
    signer,
  });
  if (!check.ok) {
    process.stdout.write(`NOT VERIFIED\n${check.problems.map((p) => `  - ${p}`).join('\n')}\n`);
    process.exit(1);
  }
  const r = check.receipt!;
  process.stdout.write(
    `VERIFIED: signed by ${signer}\n  resource:    ${r.resourceUrl}\n  transaction: ${r.transaction}\n  network:     ${r.network}\n  payer:       ${r.payer}\n  amount:      ${check.binding!.amount}\n` +
      `  issued at:   ${new Date(r.issuedAt * 1000).toISOString()}\n  request:     ${check.binding!.requestFingerprint}\n  response:    ${check.binding!.responseSha256}\n`,
  );
}

main().catch((e) => die(`verify-receipt failed: ${e instanceof Error ? e.message : String(e)}`));
