/**
 * A pin of what every paid transport answers today, byte for byte: the HTTP
 * route, MCP's tools/call and A2A's message/send, unpaid, refused, paid,
 * replayed, over x402 and MPP, on the real devnet. A change to the paid flow
 * that should change nothing on the wire is checked against
 * test/golden/paid-answers.json; only values that differ from run to run
 * (transaction hashes, signatures, MPP challenge ids, times, A2A ids …) are
 * replaced by placeholders, numbered in order of appearance so that equal
 * values stay visibly equal. Regenerate deliberately with
 * WRITE_PAID_ANSWERS_GOLDEN=1 npm test -- paid-answers-pinned and review the diff.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Challenge, Credential } from 'mppx';
import { Mppx } from 'mppx/client';
import { charge } from 'mppx/evm/client';
import { privateKeyToAccount } from 'viem/accounts';
import { BLACK_ON_WHITE, CONTRAST, buyerClient, encodePaymentSignatureHeader, postJson, signFor, startRig, withPaymentId, type PaymentPayload, type PaymentRequired, type Rig } from './support/harness.js';
import { X402_URI } from './support/a2a-messages.js';

const GOLDEN = join(dirname(fileURLToPath(import.meta.url)), 'golden', 'paid-answers.json');
const WRITE = process.env.WRITE_PAID_ANSWERS_GOLDEN === '1';
const TOOL = 'accessibility-contrast-calculator';
/** A fixed origin: resource URLs, MPP's realm and the signed receipts name it instead of the rig's random port. */
const ORIGIN = 'https://api.example.test';

/** One distinct input per payment: a payment pays for one input. */
const input = (n: number) => ({ foreground: `#${n.toString(16).padStart(2, '0').repeat(3)}`, background: '#ffffff', large_text: false });

/** Headers not pinned: the connection's, the date, and the length (the body is pinned byte for byte). */
const UNPINNED_HEADERS = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);

interface Recorded {
  status: number;
  headers: Record<string, unknown>;
  body: unknown;
}

/** Text → { json } when JSON.stringify of its parse gives the same bytes, else { json, text } (or { text } when not JSON). */
function jsonOf(text: string): unknown {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { text };
  }
  return JSON.stringify(json) === text ? { json } : { json, text };
}

/** base64 (or base64url) JSON → jsonOf its text. */
function decodedJson(encoded: string): unknown {
  return jsonOf(Buffer.from(encoded, 'base64').toString('utf8'));
}

/** WWW-Authenticate: Payment …: the value as sent, and its auth-params in order with `request` decoded. */
function authParams(value: string): unknown {
  const params: Record<string, unknown> = {};
  for (const m of value.matchAll(/([a-zA-Z]+)="([^"]*)"/g)) params[m[1]!] = m[1] === 'request' ? decodedJson(m[2]!) : m[2];
  return { value, params };
}

/** Every header but UNPINNED_HEADERS, in the order fetch lists them (by name), the encoded ones decoded. */
async function recordHttp(res: Response): Promise<Recorded> {
  const headers: Record<string, unknown> = {};
  for (const [name, value] of res.headers) {
    if (UNPINNED_HEADERS.has(name)) continue;
    if (name === 'payment-required' || name === 'payment-response' || name === 'payment-receipt') headers[name] = decodedJson(value);
    else if (name === 'www-authenticate') headers[name] = authParams(value);
    else headers[name] = value;
  }
  return { status: res.status, headers, body: jsonOf(await res.text()) };
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const ISO_TIME = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z/g;
/** A key whose string value differs from run to run, and the kind of its placeholder. */
const VOLATILE_KEYS: Record<string, { kind: string; pattern: RegExp }> = {
  transaction: { kind: 'tx', pattern: /^0x[0-9a-fA-F]{64}$/ },
  // MPP's receipt names the transfer.
  reference: { kind: 'tx', pattern: /^0x[0-9a-fA-F]{64}$/ },
  signature: { kind: 'sig', pattern: /^0x[0-9a-fA-F]+$/ },
  // EIP-3009's (in a buyer's payload echoed by A2A's history) and sign-in-with-x's.
  nonce: { kind: 'nonce', pattern: /^(0x)?[0-9a-fA-F]+$/ },
  // The devnet facilitator's Solana fee payer: a fresh key per devnet.
  feePayer: { kind: 'svm-fee-payer', pattern: /^[1-9A-HJ-NP-Za-km-z]{32,44}$/ },
  id: { kind: 'mpp-id', pattern: /^[A-Za-z0-9_-]{43}$/ },
  challengeId: { kind: 'mpp-id', pattern: /^[A-Za-z0-9_-]{43}$/ },
  opaque: { kind: 'mpp-opaque', pattern: /^[A-Za-z0-9_-]+$/ },
};
/** x402 payment-identifiers, as generatePaymentId makes them. */
const PAYMENT_ID = /^pay_[0-9a-f]{32}$/;

/**
 * The values of a recorded answer that differ from run to run, replaced by
 * placeholders. Transaction hashes, signatures, nonces, MPP challenge ids and
 * A2A ids are numbered per kind in order of first sight (across the whole
 * file), so a value repeated (a replay's transaction, a problem's challengeId)
 * stays visibly the same; times are not numbered (two may fall in the same
 * second or not). Everything else is kept exactly.
 */
class Volatile {
  private readonly names = new Map<string, string>();
  private readonly counts = new Map<string, number>();

  private name(value: string, kind: string): string {
    let name = this.names.get(value);
    if (!name) {
      const n = (this.counts.get(kind) ?? 0) + 1;
      this.counts.set(kind, n);
      this.names.set(value, (name = `<${kind}-${n}>`));
    }
    return name;
  }

  /** Finds the volatile values by their keys (so that a copy of one elsewhere, in a text or a header, is replaced too). */
  private find(value: unknown, key?: string): unknown {
    if (Array.isArray(value)) return value.map((v) => this.find(v));
    if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.find(v, k)]));
    if (typeof value === 'number' && key === 'issuedAt') return '<unix-time:number>';
    if (typeof value !== 'string') return value;
    if (key === 'validBefore' && /^\d+$/.test(value)) return '<unix-time>';
    if (key === 'x-request-id') return '<request-id>';
    if (key === 'server-timing') return value.replace(/dur=[\d.]+/g, 'dur=<ms>');
    const rule = key === undefined ? undefined : VOLATILE_KEYS[key];
    if (rule?.pattern.test(value)) this.name(value, rule.kind);
    if (PAYMENT_ID.test(value)) this.name(value, 'payment-id');
    return value;
  }

  normalise(recorded: unknown): unknown {
    let text = JSON.stringify(this.find(recorded));
    // Longest first: no placeholder is written into a longer value that contains a shorter one.
    for (const [value, name] of [...this.names].sort((a, b) => b[0].length - a[0].length)) text = text.replaceAll(value, name);
    text = text.replace(UUID, (uuid) => this.name(uuid, 'uuid')).replace(ISO_TIME, (_, ms: string | undefined) => (ms ? '<iso-time-ms>' : '<iso-time>'));
    return JSON.parse(text);
  }
}

/**
 * The lines of `expected` and `actual` that differ, as a unified diff (- expected, + actual) with
 * `context` lines around each change: one case's answer is a few hundred lines, and a change is a few.
 */
function lineDiff(expected: string, actual: string, context = 3): string {
  const a = expected.split('\n');
  const b = actual.split('\n');
  // common[i][j]: the longest common subsequence of a[i..] and b[j..].
  const common = Array.from({ length: a.length + 1 }, () => new Uint32Array(b.length + 1));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) common[i]![j] = a[i] === b[j] ? common[i + 1]![j + 1]! + 1 : Math.max(common[i + 1]![j]!, common[i]![j + 1]!);
  }
  const lines: Array<{ op: ' ' | '-' | '+'; text: string; at: number }> = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) lines.push({ op: ' ', text: a[i++]!, at: j++ });
    else if (i < a.length && (j === b.length || common[i + 1]![j]! >= common[i]![j + 1]!)) lines.push({ op: '-', text: a[i++]!, at: j });
    else lines.push({ op: '+', text: b[j]!, at: j++ });
  }
  const near = (k: number) => lines.slice(Math.max(0, k - context), k + context + 1).some((l) => l.op !== ' ');
  const out: string[] = [];
  let skipped = true;
  lines.forEach((l, k) => {
    if (!near(k)) return void (skipped = true);
    if (skipped) out.push(`@@ line ${l.at + 1} of the answer`);
    skipped = false;
    out.push(`${l.op} ${l.text}`);
  });
  return out.join('\n');
}

describe('paid answers, pinned', () => {
  let rig: Rig;
  let url: string;
  const recorded: Record<string, unknown> = {};
  const golden: Record<string, unknown> | undefined = !WRITE && existsSync(GOLDEN) ? (JSON.parse(readFileSync(GOLDEN, 'utf8')) as Record<string, unknown>) : undefined;

  const volatile = new Volatile();

  /** Records one answer; unless writing the golden file, it must be the golden one, key order included (compared as text). */
  function pin(name: string, raw: Recorded) {
    const answer = volatile.normalise(raw);
    recorded[name] = answer;
    if (WRITE) return;
    assert.ok(golden, `${GOLDEN} is missing: generate it with WRITE_PAID_ANSWERS_GOLDEN=1 npm test -- paid-answers-pinned and review it`);
    assert.ok(name in golden, `"${name}" is not in ${GOLDEN}`);
    const [expected, actual] = [JSON.stringify(golden[name], null, 2), JSON.stringify(answer, null, 2)];
    if (actual !== expected) assert.fail(`"${name}" is not the pinned answer (- pinned, + now):\n${lineDiff(expected, actual)}`);
  }

  const mppClient = () => charge({ account: privateKeyToAccount(rig.devnet.buyer.privateKey), authorization: { name: rig.devnet.assetName, version: rig.devnet.assetVersion } });

  before(async () => {
    // A pin rewritten where it is checked proves nothing: CI never writes it.
    if (WRITE && process.env.CI === 'true') assert.fail('WRITE_PAID_ANSWERS_GOLDEN=1 is refused in CI; regenerate locally, review the diff and commit it');
    rig = await startRig({ env: { MPP_SECRET_KEY: 'test-mpp-secret-0123456789abcdef0123456789', X402_SIGNING_KEY: '0x' + '42'.repeat(32), PUBLIC_BASE_URL: ORIGIN } });
    url = rig.service.url + CONTRAST;
  });
  after(async () => {
    if (WRITE) {
      mkdirSync(dirname(GOLDEN), { recursive: true });
      writeFileSync(GOLDEN, JSON.stringify(recorded, null, 2) + '\n');
    }
    await rig?.close();
  });

  describe('HTTP', () => {
    test('1 unpaid POST with a valid body: the plain 402', async () => {
      pin('http 1 unpaid', await recordHttp(await postJson(url, BLACK_ON_WHITE)));
    });
    test('2 POST with no body: the discovery probe 402', async () => {
      pin('http 2 discovery probe', await recordHttp(await fetch(url, { method: 'POST' })));
    });
    test('3 invalid body: 400', async () => {
      pin('http 3 invalid body', await recordHttp(await postJson(url, { foreground: 'red' })));
    });
    test('4 PAYMENT-SIGNATURE not base64 JSON: 400', async () => {
      pin('http 4 payment-signature not base64 json', await recordHttp(await postJson(url, BLACK_ON_WHITE, { 'PAYMENT-SIGNATURE': 'not base64 json!' })));
    });
    test('5 PAYMENT-SIGNATURE and Authorization: Payment: 400', async () => {
      pin('http 5 two protocols', await recordHttp(await postJson(url, BLACK_ON_WHITE, { 'PAYMENT-SIGNATURE': 'eyJ4IjoxfQ', Authorization: 'Payment eyJ4IjoxfQ' })));
    });
    test('6 X-PAYMENT only: the x402 v1 refusal', async () => {
      pin('http 6 x402 v1', await recordHttp(await postJson(url, BLACK_ON_WHITE, { 'X-PAYMENT': 'eyJ4NDAyVmVyc2lvbiI6MX0' })));
    });
    test('7 malformed Authorization: Payment: the malformed-credential problem', async () => {
      pin('http 7 malformed mpp credential', await recordHttp(await postJson(url, BLACK_ON_WHITE, { Authorization: 'Payment abc' })));
    });
    test('8 an MPP credential for a challenge we did not issue: invalid-challenge', async () => {
      const body = input(0x10);
      const challenge = Challenge.fromResponse(await postJson(url, body));
      const forged = await mppClient().createCredential({ challenge: { ...challenge, id: 'A'.repeat(43) } as never, context: {} });
      pin('http 8 mpp challenge not ours', await recordHttp(await postJson(url, body, { Authorization: forged })));
    });
    test('9 an x402 payment for the wrong amount: 402 payment_invalid', async () => {
      const body = input(0x11);
      const { header } = await signFor(url, body, rig.devnet, { mutate: (pr) => void (pr.accepts[0]!.amount = '1') });
      pin('http 9 x402 wrong amount', await recordHttp(await postJson(url, body, { 'PAYMENT-SIGNATURE': header })));
    });

    let paidBody: unknown;
    let paidPayload: PaymentPayload;
    test('10 a paid x402 call: 200', async () => {
      paidBody = input(0x12);
      const { header, payload } = await signFor(url, paidBody, rig.devnet);
      paidPayload = payload;
      pin('http 10 x402 paid', await recordHttp(await postJson(url, paidBody, { 'PAYMENT-SIGNATURE': header })));
    });
    test('11 the same authorization again without its payment-identifier: 402 redelivery_proof_required', async () => {
      const { 'payment-identifier': _, ...others } = paidPayload.extensions ?? {};
      const bare = encodePaymentSignatureHeader({ ...paidPayload, extensions: others });
      pin('http 11 x402 resend without proof', await recordHttp(await postJson(url, paidBody, { 'PAYMENT-SIGNATURE': bare })));
    });
    test('12 the same payment with its payment-identifier: 200 replayed', async () => {
      pin('http 12 x402 replay with payment-identifier', await recordHttp(await postJson(url, paidBody, { 'PAYMENT-SIGNATURE': encodePaymentSignatureHeader(paidPayload) })));
    });
    test('13 a paid MPP call (mppx): 200 with Payment-Receipt', async () => {
      const mppx = Mppx.create({ methods: [mppClient()], polyfill: false });
      const res = await mppx.fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(input(0x13)) });
      pin('http 13 mpp paid', await recordHttp(res));
    });
    test('14 an X-Signed-Offer that is not base64 JSON: 400', async () => {
      pin('http 14 signed offer unreadable', await recordHttp(await postJson(url, BLACK_ON_WHITE, { 'X-Signed-Offer': 'not an offer' })));
    });
    test('15 a payment header with no body: 400', async () => {
      pin('http 15 payment without body', await recordHttp(await fetch(url, { method: 'POST', headers: { 'PAYMENT-SIGNATURE': 'eyJ4IjoxfQ' } })));
    });
  });

  describe('MCP tools/call', () => {
    let rpcId = 0;
    const call = (args: unknown, meta?: Record<string, unknown>) =>
      fetch(rig.service.url + '/mcp', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: ++rpcId, method: 'tools/call', params: { name: TOOL, arguments: args, ...(meta && { _meta: meta }) } }),
      });
    const resultOf = async (res: Response) => ((await res.clone().json()) as { result: { structuredContent: unknown; _meta?: Record<string, unknown> } }).result;

    test('unpaid call', async () => {
      pin('mcp unpaid', await recordHttp(await call(BLACK_ON_WHITE)));
    });
    test('_meta["x402/payment"] not an object', async () => {
      pin('mcp payment not an object', await recordHttp(await call(BLACK_ON_WHITE, { 'x402/payment': 'eyJ4IjoxfQ' })));
    });
    test('both x402 and MPP credentials', async () => {
      pin('mcp two protocols', await recordHttp(await call(BLACK_ON_WHITE, { 'x402/payment': { x402Version: 2 }, 'org.paymentauth/credential': { challenge: {}, payload: {} } })));
    });
    test('a malformed MPP credential', async () => {
      pin('mcp malformed mpp credential', await recordHttp(await call(BLACK_ON_WHITE, { 'org.paymentauth/credential': { challenge: 'abc' } })));
    });

    let args: unknown;
    let payload: PaymentPayload;
    test('a paid x402 call', async () => {
      args = input(0x20);
      const required = (await resultOf(await call(args))).structuredContent as PaymentRequired;
      payload = withPaymentId(await buyerClient(rig.devnet).createPaymentPayload(required));
      pin('mcp x402 paid', await recordHttp(await call(args, { 'x402/payment': payload })));
    });
    test('its replay with the payment-identifier', async () => {
      pin('mcp x402 replay with payment-identifier', await recordHttp(await call(args, { 'x402/payment': payload })));
    });
    test('a paid MPP call, the credential object as mppx\'s McpClient sends it', async () => {
      const mine = input(0x21);
      const meta = (await resultOf(await call(mine)))._meta!;
      const challenge = (meta['org.paymentauth/payment-required'] as { challenges: Challenge.Challenge[] }).challenges[0]!;
      const credential = Credential.deserialize(await mppClient().createCredential({ challenge: challenge as never, context: {} }));
      pin('mcp mpp paid', await recordHttp(await call(mine, { 'org.paymentauth/credential': credential })));
    });
  });

  describe('A2A message/send (v0.3 wire form)', () => {
    const send = (message: Record<string, unknown>) =>
      fetch(rig.service.url + '/a2a', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'X-A2A-Extensions': X402_URI },
        body: JSON.stringify({ jsonrpc: '2.0', id: 'req-001', method: 'message/send', params: { message: { kind: 'message', messageId: randomUUID(), role: 'user', ...message } } }),
      });
    const args = input(0x30);
    let taskId: string;
    let payload: PaymentPayload;
    const payOnTask = (metadata: Record<string, unknown>) => send({ taskId, parts: [{ kind: 'text', text: 'Here is the payment authorization.' }], metadata });

    test('unpaid message: input-required with the requirement', async () => {
      const res = await send({ parts: [{ kind: 'data', data: args }], metadata: { skill: TOOL } });
      const task = ((await res.clone().json()) as { result: { id: string; status: { message: { metadata: Record<string, unknown> } } } }).result;
      taskId = task.id;
      payload = withPaymentId(await buyerClient(rig.devnet).createPaymentPayload(task.status.message.metadata['x402.payment.required'] as PaymentRequired));
      pin('a2a unpaid', await recordHttp(res));
    });
    test('a malformed payment (a string)', async () => {
      pin('a2a payment not an object', await recordHttp(await payOnTask({ 'x402.payment.status': 'payment-submitted', 'x402.payment.payload': 'eyJ4IjoxfQ' })));
    });
    test('the paid message completes the task', async () => {
      pin('a2a x402 paid', await recordHttp(await payOnTask({ 'x402.payment.status': 'payment-submitted', 'x402.payment.payload': payload })));
    });
    test('the payment resent on the task with its payment-identifier', async () => {
      pin('a2a x402 resend with payment-identifier', await recordHttp(await payOnTask({ 'x402.payment.status': 'payment-submitted', 'x402.payment.payload': payload })));
    });
  });

  test('every pinned answer was recorded, in the pinned order', () => {
    if (WRITE) return;
    assert.deepEqual(Object.keys(recorded), Object.keys(golden ?? {}));
  });
});
