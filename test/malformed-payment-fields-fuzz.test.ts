/**
 * Attack: a payment payload whose fields are malformed in ways a schema
 * check of "is it a string" does not catch (a payer address with a wrong
 * EIP-55 checksum but a valid signature, a uint256 past 2^256 − 1, an
 * upper-case address, odd types anywhere) used to throw inside the EIP-712
 * encoder and answer 503 service_unavailable (MCP -32603, A2A task FAILED).
 * Every malformed field, on every transport, must get a stable 402/400 code
 * before any payment step: no facilitator call, no ledger row.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { getAddress } from 'viem';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ERROR_CODES } from '../src/errors.js';
import { BLACK_ON_WHITE, CONTRAST, encodePaymentSignatureHeader, postJson, signFor, startRig, type PaymentPayload, type Rig } from './support/harness.js';

const SKILL = 'accessibility-contrast-calculator';

/** The payer address with the case of one checksummed letter flipped: same 20 bytes, wrong EIP-55 checksum. */
function wrongChecksum(address: string): string {
  const good = getAddress(address);
  const i = [...good].findIndex((ch, k) => k > 1 && /[a-fA-F]/.test(ch));
  const ch = good[i]!;
  return good.slice(0, i) + (ch === ch.toUpperCase() ? ch.toLowerCase() : ch.toUpperCase()) + good.slice(i + 1);
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Paths of the payload's fields a client fills in. */
const PATHS = [
  ['x402Version'],
  ['accepted'],
  ['accepted', 'scheme'],
  ['accepted', 'network'],
  ['accepted', 'amount'],
  ['accepted', 'asset'],
  ['accepted', 'payTo'],
  ['accepted', 'maxTimeoutSeconds'],
  ['accepted', 'extra'],
  ['payload'],
  ['payload', 'signature'],
  ['payload', 'authorization'],
  ['payload', 'authorization', 'from'],
  ['payload', 'authorization', 'to'],
  ['payload', 'authorization', 'value'],
  ['payload', 'authorization', 'validAfter'],
  ['payload', 'authorization', 'validBefore'],
  ['payload', 'authorization', 'nonce'],
  ['extensions'],
  ['extensions', 'payment-identifier'],
  ['resource'],
];

function setPath(target: Record<string, Json>, path: string[], value: Json | undefined): void {
  let o: Record<string, Json> = target;
  for (const k of path.slice(0, -1)) {
    if (!o[k] || typeof o[k] !== 'object' || Array.isArray(o[k])) o[k] = {};
    o = o[k] as Record<string, Json>;
  }
  const last = path[path.length - 1]!;
  if (value === undefined) delete o[last];
  else o[last] = value;
}

describe('malformed payment fields get a stable code on HTTP, MCP and A2A', () => {
  let rig: Rig;
  let url: string;
  let valid: PaymentPayload;
  let mcp: Client;
  before(async () => {
    // Behind one trusted proxy, so each A2A message can come from its own client: a malformed payment leaves its
    // task waiting (by design), and one client's waiting tasks are budgeted.
    rig = await startRig({ env: { TRUST_PROXY: '1' } });
    url = rig.service.url + CONTRAST;
    ({ payload: valid } = await signFor(url, BLACK_ON_WHITE, rig.devnet));
    mcp = new Client({ name: 'fuzzer', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(rig.service.url + '/mcp')));
  });
  after(async () => {
    await mcp?.close();
    await rig?.close();
  });

  const rows = async () => Object.values((await rig.service.ledger.summary()).byState).reduce((a, b) => a + b, 0);

  /** The stable code of the answer, or 'delivered' when the mutation left a payment that still pays. */
  async function overHttp(p: unknown): Promise<string> {
    const header = Buffer.from(JSON.stringify(p)).toString('base64');
    const res = await postJson(url, BLACK_ON_WHITE, { 'PAYMENT-SIGNATURE': header });
    const json = (await res.json()) as { problem?: { code: string }; error?: { code: string } };
    if (res.status === 200) return 'delivered';
    const code = json.problem?.code ?? json.error?.code ?? '';
    assert.ok([400, 402].includes(res.status), `HTTP ${res.status} ${code}`);
    assert.equal(ERROR_CODES[code as keyof typeof ERROR_CODES], res.status, `HTTP: a stable code for ${res.status}: ${code}`);
    return code;
  }

  async function overMcp(p: unknown): Promise<string> {
    const r = await mcp.callTool({ name: SKILL, arguments: BLACK_ON_WHITE, _meta: { 'x402/payment': p as Record<string, unknown> } });
    if (r.isError !== true) return 'delivered';
    const text = JSON.parse((r.content as Array<{ text: string }>)[0]!.text) as { error?: string | { code: string }; problem?: { code: string }; x402Version?: number };
    const code = typeof text.error === 'object' ? text.error.code : text.x402Version === 2 ? 'challenge' : 'unknown';
    assert.notEqual(code, 'unknown', JSON.stringify(text));
    assert.ok(!['service_unavailable', 'ledger_unavailable', 'facilitator_unavailable'].includes(code), `MCP: ${code}`);
    return code;
  }

  let a2aClients = 1;
  async function overA2a(p: unknown): Promise<string> {
    const res = await fetch(rig.service.url + '/a2a', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'X-Forwarded-For': `10.${a2aClients >> 16 & 255}.${a2aClients >> 8 & 255}.${a2aClients++ & 255}`, 'X-A2A-Extensions': 'https://github.com/google-agentic-commerce/a2a-x402/blob/main/spec/v0.2' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'message/send',
        params: {
          message: {
            kind: 'message',
            messageId: randomUUID(),
            role: 'user',
            parts: [{ kind: 'data', data: BLACK_ON_WHITE }],
            metadata: { skill: SKILL, 'x402.payment.status': 'payment-submitted', 'x402.payment.payload': p },
          },
        },
      }),
    });
    const body = (await res.json()) as { result?: { status?: { state: string; message?: { metadata?: Record<string, unknown> } } }; error?: { code: number } };
    assert.equal(body.error, undefined, `A2A JSON-RPC error ${JSON.stringify(body.error)}`);
    const status = body.result!.status!;
    if (status.state === 'completed') return 'delivered';
    assert.equal(status.state, 'input-required', `A2A: the task waits for a good payment, not ${status.state}`);
    const code = String(status.message?.metadata?.['x402.payment.error'] ?? '');
    assert.ok(['payment_invalid', 'payment_expired', 'invalid_payment_header', 'redelivery_proof_required'].includes(code), `A2A: ${code}`);
    return code;
  }

  test('a payer address with a wrong EIP-55 checksum and a valid signature: 402 payment_invalid everywhere, nothing written or sent', async () => {
    const calls = { ...rig.proxy.calls };
    const before = await rows();
    for (const field of ['from', 'to'] as const) {
      const p = structuredClone(valid) as unknown as Record<string, Json>;
      const auth = (p.payload as { authorization: Record<string, string> }).authorization;
      auth[field] = wrongChecksum(auth[field]!);
      assert.equal(await overHttp(p), 'payment_invalid');
      assert.equal(await overMcp(p), 'challenge');
      assert.equal(await overA2a(p), 'payment_invalid');
    }
    // The same bytes all upper-case are not a checksummed address either.
    const upper = structuredClone(valid) as unknown as Record<string, Json>;
    const a = (upper.payload as { authorization: Record<string, string> }).authorization;
    a.from = '0x' + a.from!.slice(2).toUpperCase();
    assert.equal(await overHttp(upper), 'payment_invalid');
    assert.deepEqual(rig.proxy.calls, calls, 'the facilitator is never asked');
    assert.equal(await rows(), before, 'no ledger row');
  });

  test('uint256 fields past 2^256 − 1 are malformed, not an encoder exception', async () => {
    for (const field of ['validAfter', 'validBefore']) {
      const p = structuredClone(valid) as unknown as Record<string, Json>;
      (p.payload as { authorization: Record<string, string> }).authorization[field] = '9'.repeat(78);
      assert.equal(await overHttp(p), 'payment_invalid');
      assert.equal(await overA2a(p), 'payment_invalid');
    }
  });

  test('fast-check: any field replaced by any JSON value or removed', async () => {
    const from = (valid.payload as { authorization: { from: string } }).authorization.from;
    const odd = fc.oneof(
      fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json>,
      fc.constantFrom<Json>(wrongChecksum(from), from.toUpperCase(), '9'.repeat(78), '-1', '0x', '1e3', ' 1', '1.5', 'NaN', '\u0000', '0x' + 'g'.repeat(40), 2 ** 53, -1, 1e308, ''),
    );
    const mutation = fc.record({ path: fc.constantFrom(...PATHS), value: fc.option(odd, { nil: undefined }) });
    await fc.assert(
      fc.asyncProperty(fc.array(mutation, { minLength: 1, maxLength: 3 }), async (mutations) => {
        // A fresh payment each run: a mutation may leave one that still pays (a number for a decimal string, an unchecked field).
        const { payload } = await signFor(url, BLACK_ON_WHITE, rig.devnet);
        const p = structuredClone(payload) as unknown as Record<string, Json>;
        for (const m of mutations) setPath(p, m.path, m.value);
        const calls = { ...rig.proxy.calls };
        const before = await rows();
        const answers = [await overHttp(p), await overMcp(p), await overA2a(p)];
        if (!answers.includes('delivered')) {
          assert.deepEqual(rig.proxy.calls, calls, 'nothing malformed reached the facilitator');
          assert.equal(await rows(), before, 'nothing malformed was bound');
        }
      }),
      { numRuns: 200 },
    );
  });

  test('the untouched payment still pays (the harness is not refusing everything)', async () => {
    const res = await postJson(url, BLACK_ON_WHITE, { 'PAYMENT-SIGNATURE': encodePaymentSignatureHeader(valid) });
    assert.equal(res.status, 200);
  });
});
