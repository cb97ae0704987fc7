/**
 * MPP (the 'Payment' HTTP authentication scheme, method evm, intent charge)
 * on the same 402 as x402, paid through the same gate and ledger: mppx's own
 * client pays a call on the devnet; a tampered credential is refused before
 * anything is sent to the facilitator; one EIP-3009 authorization presented
 * over MPP and over x402 transfers once; without MPP_SECRET_KEY there is no
 * MPP at all.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Challenge, Credential, Receipt, evm } from 'mppx';
import { Mppx } from 'mppx/client';
import { McpClient } from 'mppx/mcp/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { charge } from 'mppx/evm/client';
import { privateKeyToAccount } from 'viem/accounts';
import type { Hex } from 'viem';
import { readFileSync, writeFileSync } from 'node:fs';
import { startService } from '../src/service.js';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../src/config.js';
import { devnetMppSecret } from '../devnet/signing-key.js';
import { createSIWxPayload, encodeSIWxHeader } from '@x402/extensions/sign-in-with-x';
import {
  BLACK_ON_WHITE,
  CONTRAST,
  tempDir,
  decodePaymentRequiredHeader,
  decodePaymentResponseHeader,
  encodePaymentSignatureHeader,
  postJson,
  startRig,
  transferLogs,
  type PaymentPayload,
  type Rig,
} from './support/harness.js';

const MPP_SECRET_KEY = 'test-mpp-secret-0123456789abcdef0123456789';

type EvmChallenge = Parameters<typeof evm.challengeHash>[0] & Challenge.Challenge;

describe('MPP on the devnet', () => {
  let rig: Rig;
  let url: string;
  const client = () => charge({ account: privateKeyToAccount(rig.devnet.buyer.privateKey), authorization: { name: rig.devnet.assetName, version: rig.devnet.assetVersion } });
  before(async () => {
    rig = await startRig({ env: { MPP_SECRET_KEY, X402_SIGNING_KEY: '0x' + '42'.repeat(32) } });
    url = rig.service.url + CONTRAST;
  });
  after(async () => rig?.close());

  /** A fresh MPP challenge for `body` at `target`, from its 402. */
  async function challengeFor(target: string, body: unknown): Promise<{ challenge: EvmChallenge; res: Response }> {
    const res = await postJson(target, body);
    assert.equal(res.status, 402);
    return { challenge: Challenge.fromResponse(res) as EvmChallenge, res };
  }

  /** mppx's own credential for a challenge (optionally edited first). */
  async function credentialFor(challenge: EvmChallenge): Promise<string> {
    return client().createCredential({ challenge: challenge as never, context: {} });
  }

  async function withFreshCredential(body: unknown): Promise<{ header: string; challenge: EvmChallenge }> {
    const { challenge } = await challengeFor(url, body);
    return { header: await credentialFor(challenge), challenge };
  }

  test('every paid 402 carries both challenges, each 402 its own MPP challenge', async () => {
    const a = await postJson(url, BLACK_ON_WHITE);
    const b = await postJson(url, BLACK_ON_WHITE);
    for (const res of [a, b]) {
      assert.equal(res.status, 402);
      assert.ok(res.headers.get('payment-required'));
      assert.match(res.headers.get('www-authenticate') ?? '', /^Payment /);
      assert.match(res.headers.get('access-control-expose-headers') ?? '', /WWW-Authenticate/);
    }
    const [ca, cb] = [Challenge.fromResponse(a), Challenge.fromResponse(b)];
    assert.notEqual(ca.id, cb.id, 'one challenge per 402: its hash is the nonce the buyer signs');
    assert.ok(Challenge.verify(ca, { secretKey: MPP_SECRET_KEY }), 'mppx verifies our id');
    const x402 = decodePaymentRequiredHeader(a.headers.get('payment-required')!).accepts[0]!;
    assert.deepEqual(
      { method: ca.method, intent: ca.intent, amount: ca.request.amount, currency: ca.request.currency, recipient: ca.request.recipient },
      { method: 'evm', intent: 'charge', amount: x402.amount, currency: x402.asset, recipient: x402.payTo },
    );
    // The discovery 402 (no body) carries one too.
    const probe = await fetch(url, { method: 'POST' });
    assert.equal(probe.status, 402);
    assert.match(probe.headers.get('www-authenticate') ?? '', /^Payment /);
  });

  test('the discovery 402 (no body) of every paid route keeps its whole header block under 4 KiB with the MPP challenge in it', async () => {
    for (const cap of rig.service.catalog) {
      const res = await fetch(rig.service.url + cap.path, { method: cap.method });
      assert.equal(res.status, 402, cap.path);
      assert.match(res.headers.get('www-authenticate') ?? '', /^Payment /, cap.path);
      let block = 'HTTP/1.1 402 Payment Required\r\n'.length + 2;
      res.headers.forEach((v, k) => (block += k.length + 2 + v.length + 2));
      assert.ok(block < 4096, `${cap.path}: ${block} bytes of headers (a reverse proxy buffers 4 KiB by default)`);
    }
  });

  test('mppx\'s client pays a call: 200, Payment-Receipt with the transfer, our signed receipt, one transfer on chain', async () => {
    const before = (await transferLogs(rig.devnet)).length;
    const calls = { ...rig.proxy.calls };
    const mppx = Mppx.create({ methods: [client()], polyfill: false });
    const body = { foreground: '#102030', background: '#ffffff', large_text: false };
    const res = await mppx.fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    assert.equal(res.status, 200, await res.clone().text());
    const receipt = Receipt.fromResponse(res);
    const settled = decodePaymentResponseHeader(res.headers.get('payment-response')!);
    assert.equal(receipt.method, 'evm');
    assert.equal(receipt.reference, settled.transaction);
    assert.ok((settled.extensions as Record<string, unknown> | undefined)?.['offer-receipt'], 'our signed receipt');
    assert.ok(typeof (await res.json()).contrast_ratio === 'number');
    const logs = (await transferLogs(rig.devnet)).slice(before);
    assert.equal(logs.length, 1, 'one transfer');
    assert.equal(rig.proxy.calls.settle - calls.settle, 1, 'settled through our facilitator');
  });

  test('tampered credentials get the draft\'s 402 problem; nothing is sent to the facilitator or charged', async () => {
    const body = { foreground: '#203040', background: '#ffffff', large_text: false };
    const before = (await transferLogs(rig.devnet)).length;
    const calls = { ...rig.proxy.calls };
    const { challenge } = await challengeFor(url, body);
    const cases: Array<[string, string, string]> = [];
    // Another amount: the request inside the challenge edited (its HMAC id no longer verifies).
    cases.push(['other amount', await credentialFor({ ...challenge, request: { ...challenge.request, amount: '1' } } as EvmChallenge), 'invalid-challenge']);
    // A forged id: a challenge we never issued.
    cases.push(['forged id', await credentialFor({ ...challenge, id: 'A'.repeat(43) } as EvmChallenge), 'invalid-challenge']);
    // Another route's challenge, honestly signed.
    const otherEntry = rig.service.catalog.find((c) => c.path !== CONTRAST && c.examples.length > 0)!;
    const other = await challengeFor(rig.service.url + otherEntry.path, otherEntry.examples[0]!.input);
    cases.push(['other route', await credentialFor(other.challenge), 'invalid-challenge']);
    // The nonce is not the challenge's hash (signed for another challenge of ours).
    const second = await challengeFor(url, body);
    const signedForSecond = Credential.deserialize(await credentialFor(second.challenge));
    cases.push(['nonce is not the hash', Credential.serialize({ ...signedForSecond, challenge }), 'verification-failed']);
    // Garbage.
    cases.push(['malformed', 'Payment not-base64url-json', 'malformed-credential']);
    for (const [name, header, type] of cases) {
      const res = await postJson(url, body, { Authorization: header });
      assert.equal(res.status, 402, name);
      assert.equal(res.headers.get('content-type'), 'application/problem+json', name);
      const problem = (await res.json()) as { type: string; status: number; error: { code: string }; challengeId: string };
      assert.equal(problem.type, `https://paymentauth.org/problems/${type}`, name);
      assert.equal(problem.status, 402);
      assert.equal(problem.error.code, 'payment_invalid', name);
      assert.equal(Challenge.fromResponse(res).id, problem.challengeId, `${name}: a fresh challenge`);
      assert.ok(res.headers.get('payment-required'), `${name}: and the x402 one`);
    }
    assert.ok(cases.length >= 5);
    assert.deepEqual(rig.proxy.calls, calls, 'the facilitator is never asked');
    assert.equal((await transferLogs(rig.devnet)).length, before, 'nothing charged');
  });

  test('an expired challenge is refused as a new payment with payment-expired, before anything is sent', async () => {
    const body = { foreground: '#304050', background: '#ffffff', large_text: false };
    const calls = { ...rig.proxy.calls };
    const { challenge } = await challengeFor(url, body);
    // Re-issue the same challenge with an expiry in the past and an id bound to it, as a stale client would hold it.
    const past = Challenge.from({ ...challenge, expires: new Date(Date.now() - 60_000).toISOString(), secretKey: MPP_SECRET_KEY } as never) as EvmChallenge;
    const account = privateKeyToAccount(rig.devnet.buyer.privateKey);
    const validBefore = BigInt(Math.floor(Date.parse(past.expires!) / 1000));
    const signature = await account.signTypedData({
      domain: evm.authorizationDomain({ authorization: { name: rig.devnet.assetName, version: rig.devnet.assetVersion }, chainId: 31337, currency: past.request.currency as Hex }),
      types: evm.authorizationTypes,
      primaryType: 'TransferWithAuthorization',
      message: { from: account.address, to: past.request.recipient as Hex, value: BigInt(past.request.amount as string), validAfter: 0n, validBefore, nonce: evm.challengeHash(past) },
    });
    const header = Credential.serialize({
      challenge: past,
      payload: { from: account.address, to: past.request.recipient, value: past.request.amount, validAfter: '0', validBefore: validBefore.toString(), nonce: evm.challengeHash(past), signature, type: 'authorization' },
    });
    const res = await postJson(url, body, { Authorization: header });
    assert.equal(res.status, 402);
    const problem = (await res.json()) as { type: string; error: { code: string } };
    assert.equal(problem.type, 'https://paymentauth.org/problems/payment-expired');
    assert.equal(problem.error.code, 'payment_expired');
    assert.deepEqual(rig.proxy.calls, calls);
  });

  test('one authorization over MPP and then over x402: one transfer; x402 without proof gets redelivery_proof_required, with the payer\'s sign-in the same result', async () => {
    const body = { foreground: '#405060', background: '#ffffff', large_text: true };
    const before = (await transferLogs(rig.devnet)).length;
    const { header } = await withFreshCredential(body);
    const paid = await postJson(url, body, { Authorization: header });
    assert.equal(paid.status, 200);
    const bytes = await paid.text();
    // The same EIP-3009 authorization as an x402 payment.
    const credential = Credential.deserialize(header) as { payload: { from: Hex; to: Hex; value: string; validAfter: string; validBefore: string; nonce: Hex; signature: Hex } };
    const unpaid = await postJson(url, body);
    const accepted = decodePaymentRequiredHeader(unpaid.headers.get('payment-required')!).accepts[0]!;
    const { from, to, value, validAfter, validBefore, nonce, signature } = credential.payload;
    const x402 = { x402Version: 2, accepted, payload: { signature, authorization: { from, to, value, validAfter, validBefore, nonce } } } as unknown as PaymentPayload;
    const replay = await postJson(url, body, { 'PAYMENT-SIGNATURE': encodePaymentSignatureHeader(x402) });
    assert.equal(replay.status, 402);
    const refused = (await replay.json()) as { problem: { code: string }; extensions: Record<string, { info: Record<string, string>; supportedChains: Array<{ chainId: string; type: 'eip191' }> }> };
    assert.equal(refused.problem.code, 'redelivery_proof_required');
    // The buyer proves its key over the sign-in challenge and gets the stored result.
    const ext = refused.extensions['sign-in-with-x']!;
    const signIn = encodeSIWxHeader(await createSIWxPayload({ ...ext.info, chainId: ext.supportedChains[0]!.chainId, type: 'eip191' } as never, privateKeyToAccount(rig.devnet.buyer.privateKey), url));
    const recovered = await postJson(url, body, { 'PAYMENT-SIGNATURE': encodePaymentSignatureHeader(x402), 'SIGN-IN-WITH-X': signIn });
    assert.equal(recovered.status, 200);
    assert.equal(recovered.headers.get('x-payment-replayed'), 'true');
    assert.equal(await recovered.text(), bytes);
    // And the same credential again over MPP: the challenge is its proof.
    const again = await postJson(url, body, { Authorization: header });
    assert.equal(again.status, 200);
    assert.equal(again.headers.get('x-payment-replayed'), 'true');
    assert.ok(again.headers.get('payment-receipt'));
    assert.equal((await transferLogs(rig.devnet)).length - before, 1, 'one transfer');
  });

  test('an authorization signed for an MPP challenge but paid over x402 first: then over MPP it is redelivered, one transfer', async () => {
    const body = { foreground: '#506070', background: '#ffffff', large_text: true };
    const before = (await transferLogs(rig.devnet)).length;
    const { header, challenge } = await withFreshCredential(body);
    const credential = Credential.deserialize(header) as { payload: { from: Hex; to: Hex; value: string; validAfter: string; validBefore: string; nonce: Hex; signature: Hex } };
    const accepted = decodePaymentRequiredHeader((await postJson(url, body)).headers.get('payment-required')!).accepts[0]!;
    const { from, to, value, validAfter, validBefore, nonce, signature } = credential.payload;
    assert.equal(nonce, evm.challengeHash(challenge));
    const x402 = { x402Version: 2, accepted, payload: { signature, authorization: { from, to, value, validAfter, validBefore, nonce } } } as unknown as PaymentPayload;
    const first = await postJson(url, body, { 'PAYMENT-SIGNATURE': encodePaymentSignatureHeader(x402) });
    assert.equal(first.status, 200);
    const bytes = await first.text();
    const viaMpp = await postJson(url, body, { Authorization: header });
    assert.equal(viaMpp.status, 200);
    assert.equal(viaMpp.headers.get('x-payment-replayed'), 'true');
    assert.equal(await viaMpp.text(), bytes);
    assert.equal((await transferLogs(rig.devnet)).length - before, 1, 'one transfer');
  });

  test('MCP: mppx\'s MCP client pays a tool call through the same gate; the receipt names the transfer; a tampered credential is refused', async () => {
    const before = (await transferLogs(rig.devnet)).length;
    const sdk = new Client({ name: 'mppx-agent', version: '1.0.0' });
    await sdk.connect(new StreamableHTTPClientTransport(new URL(rig.service.url + '/mcp')));
    try {
      const args = { foreground: '#708090', background: '#ffffff', large_text: false };
      // Unpaid: the x402 PaymentRequired and MPP's challenges in one answer.
      const unpaid = await sdk.callTool({ name: 'accessibility-contrast-calculator', arguments: args });
      assert.equal(unpaid.isError, true);
      const offered = (unpaid._meta as Record<string, { challenges: EvmChallenge[] }>)['org.paymentauth/payment-required']!;
      assert.equal(offered.challenges[0]!.method, 'evm');
      assert.ok((unpaid.structuredContent as { accepts: unknown[] }).accepts.length > 0);
      // A tampered credential: refused with the draft's problem, nothing sent.
      const calls = { ...rig.proxy.calls };
      const forged = Credential.deserialize(await credentialFor({ ...offered.challenges[0]!, id: 'B'.repeat(43) } as EvmChallenge));
      const refused = await sdk.callTool({ name: 'accessibility-contrast-calculator', arguments: args, _meta: { 'org.paymentauth/credential': forged } });
      assert.equal(refused.isError, true);
      const again = (refused._meta as Record<string, { challenges: EvmChallenge[]; problem: { type: string; error: { code: string } } }>)['org.paymentauth/payment-required']!;
      assert.equal(again.problem.type, 'https://paymentauth.org/problems/invalid-challenge');
      assert.equal(again.problem.error.code, 'payment_invalid');
      assert.deepEqual(rig.proxy.calls, calls);
      // mppx's MCP client pays and retries on its own.
      const mcp = McpClient.wrap(sdk, { methods: [client()] });
      const paid = await mcp.callTool({ name: 'accessibility-contrast-calculator', arguments: args });
      assert.equal(paid.isError, undefined, JSON.stringify(paid));
      const receipt = (paid as { receipt?: { method: string; reference: string; status: string } }).receipt!;
      const settled = (paid._meta as Record<string, { transaction: string }>)['x402/payment-response']!;
      assert.deepEqual([receipt.method, receipt.status, receipt.reference], ['evm', 'success', settled.transaction]);
      assert.ok(typeof (paid.structuredContent as { contrast_ratio?: unknown }).contrast_ratio === 'number');
      assert.equal((await transferLogs(rig.devnet)).length - before, 1, 'one transfer');
    } finally {
      await sdk.close();
    }
  });

  test('the discovery documents offer both protocols', async () => {
    const manifest = (await (await fetch(rig.service.url + '/.well-known/x402')).json()) as { mpp: { enabled: boolean; method: string; intent: string; currency: string } };
    assert.deepEqual([manifest.mpp.enabled, manifest.mpp.method, manifest.mpp.intent, manifest.mpp.currency], [true, 'evm', 'charge', rig.devnet.asset]);
    const openapi = (await (await fetch(rig.service.url + '/openapi.json')).json()) as { paths: Record<string, { post: { 'x-payment-info': { protocols: Array<Record<string, unknown>> } } }> };
    assert.ok(openapi.paths[CONTRAST]!.post['x-payment-info'].protocols.some((p) => 'mpp' in p));
    assert.match(await (await fetch(rig.service.url + '/llms.txt')).text(), /WWW-Authenticate: Payment challenge/);
  });

  test('a fault answered to an MPP credential is an RFC 9457 problem with our code; the same credential pays once the facilitator is back', async () => {
    const body = { foreground: '#8090a0', background: '#ffffff', large_text: false };
    const before = (await transferLogs(rig.devnet)).length;
    const { header } = await withFreshCredential(body);
    rig.proxy.setMode({ verify: 'error500' });
    try {
      const res = await postJson(url, body, { Authorization: header });
      assert.equal(res.status, 503);
      assert.equal(res.headers.get('content-type'), 'application/problem+json');
      const problem = (await res.json()) as { type: string; status: number; error: { code: string } };
      assert.deepEqual([problem.type, problem.status, problem.error.code], ['about:blank', 503, 'facilitator_unavailable']);
    } finally {
      rig.proxy.setMode('pass');
    }
    const paid = await postJson(url, body, { Authorization: header });
    assert.equal(paid.status, 200);
    assert.equal((await transferLogs(rig.devnet)).length - before, 1);
  });

  test('PAYMENT-SIGNATURE and Authorization: Payment on one request: 400 before any payment step', async () => {
    const body = { foreground: '#607080', background: '#ffffff', large_text: false };
    const calls = { ...rig.proxy.calls };
    const { header } = await withFreshCredential(body);
    const res = await postJson(url, body, { Authorization: header, 'PAYMENT-SIGNATURE': 'eyJ4IjoxfQ' });
    assert.equal(res.status, 400);
    const err = (await res.json()) as { error: { code: string; details: Array<{ rule: string }> } };
    assert.equal(err.error.code, 'invalid_payment_header');
    assert.equal(err.error.details[0]!.rule, 'one-payment-protocol');
    assert.deepEqual(rig.proxy.calls, calls);
  });
});

describe('MPP off without MPP_SECRET_KEY', () => {
  let rig: Rig;
  before(async () => {
    rig = await startRig();
  });
  after(async () => rig?.close());

  test('no WWW-Authenticate on the 402, and an Authorization: Payment is not read: the plain x402 402', async () => {
    const url = rig.service.url + CONTRAST;
    const res = await postJson(url, BLACK_ON_WHITE);
    assert.equal(res.status, 402);
    assert.equal(res.headers.get('www-authenticate'), null);
    const withCredential = await postJson(url, BLACK_ON_WHITE, { Authorization: 'Payment eyJjaGFsbGVuZ2UiOnt9fQ' });
    assert.equal(withCredential.status, 402);
    assert.equal(withCredential.headers.get('content-type'), 'application/json');
    assert.equal(((await withCredential.json()) as { problem: { code: string } }).problem.code, 'payment_required');
  });

  test('the discovery documents say MPP is off', async () => {
    const manifest = (await (await fetch(rig.service.url + '/.well-known/x402')).json()) as { mpp: { enabled: boolean } };
    assert.equal(manifest.mpp.enabled, false);
    assert.match(await (await fetch(rig.service.url + '/llms.txt')).text(), /MPP is not offered here/);
  });
});

describe('MPP_SECRET_KEY', () => {
  test('shorter than 32 bytes stops start-up with one line naming the variable, never the value', () => {
    const secret = 'too-short-secret-value';
    let err: unknown;
    try {
      loadConfig({ MPP_SECRET_KEY: secret, PORT: '0' });
    } catch (e) {
      err = e;
    }
    assert.ok(err instanceof ConfigError);
    assert.match((err as Error).message, /MPP_SECRET_KEY/);
    assert.doesNotMatch((err as Error).message, new RegExp(secret));
    assert.doesNotMatch((err as Error).message, /\n/);
    assert.equal(loadConfig({ MPP_SECRET_KEY: 'k'.repeat(32), PORT: '0' }).mppSecretKey, 'k'.repeat(32));
  });

  test('the devnet keeps its own in devnet.json across restarts', () => {
    const file = join(tempDir('mpp-devnet-'), 'devnet.json');
    const first = devnetMppSecret(file);
    assert.match(first, /^[0-9a-f]{64}$/);
    writeFileSync(file, JSON.stringify({ mppSecretKey: first }));
    assert.equal(devnetMppSecret(file), first);
  });
});

describe('the embedded devnet offers MPP', () => {
  test('it makes an MPP_SECRET_KEY, keeps it in devnet.json, and a challenge it issued still verifies after a restart', async () => {
    const dataDir = tempDir('mpp-embedded-');
    const env = { DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: '0' };
    let service = await startService(loadConfig(env));
    let challenge: Challenge.Challenge;
    try {
      const res = await postJson(service.url + CONTRAST, BLACK_ON_WHITE);
      assert.equal(res.status, 402);
      challenge = Challenge.fromResponse(res);
    } finally {
      await service.close();
    }
    const stored = (JSON.parse(readFileSync(join(dataDir, 'devnet.json'), 'utf8')) as { mppSecretKey: string }).mppSecretKey;
    assert.ok(Challenge.verify(challenge, { secretKey: stored }));
    service = await startService(loadConfig(env));
    try {
      assert.equal((JSON.parse(readFileSync(join(dataDir, 'devnet.json'), 'utf8')) as { mppSecretKey: string }).mppSecretKey, stored);
      assert.ok(service.gate.mpp?.proves(challenge, evm.challengeHash(challenge)), 'the restarted service recognises its challenge');
    } finally {
      await service.close();
    }
  });
});
