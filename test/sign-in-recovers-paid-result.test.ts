/**
 * Issue 45: sign in, get what you paid for. A buyer pays once with the
 * official client, loses the answer, and gets it again by signing in with the
 * same wallet: the SDK's own wrapFetchWithSIWx and x402 client hook over HTTP
 * (EVM, and Solana with `Prefer: network=solana`), createSIWxPayload and
 * encodeSIWxHeader over MCP and A2A. One transfer on chain; the ledger shows
 * the delivery and the redelivery. Then the faults, each from outside the
 * process and each charged nothing and delivered nothing: a replayed sign-in,
 * another wallet's, one for another resource or body, another domain or URI,
 * another chain, an expired one, and one used on instance A replayed on
 * instance B of one PostgreSQL ledger.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createKeyPairSignerFromBytes, type KeyPairSigner } from '@solana/kit';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { TaskState, type Message, type Task } from '@a2a-js/sdk';
import { ClientFactory } from '@a2a-js/sdk/client';
import { wrapFetchWithPayment, x402Client, x402HTTPClient } from '@x402/fetch';
import { ExactSvmScheme } from '@x402/svm/exact/client';
import { createSIWxClientHook, createSIWxPayload, encodeSIWxHeader, wrapFetchWithSIWx, type SIWxSigner } from '@x402/extensions/sign-in-with-x';
import type { PaymentRequired } from '@x402/core/types';
import { loadConfig } from '../src/config.js';
import { startService, type RunningService } from '../src/service.js';
import { startDevnet } from '../devnet/index.js';
import { CONTRAST, buyerClient, decodePaymentRequiredHeader, decodePaymentResponseHeader, devnetEnv, payingFetch, postJson, startRig, tempDir, transferLogs, type Rig } from './support/harness.js';
import { spawnService } from './support/child-service.js';
import { freshPgUrl, pgConfigured, PG_SKIP_REASON } from './support/pg.js';
import { X402_URI, isTask, userMessage } from './support/a2a-messages.js';

const SIWX = 'sign-in-with-x';
type Declared = { info: Record<string, string>; supportedChains: Array<{ chainId: string; type: 'eip191' | 'ed25519' }>; schema?: unknown };

const declarationOf = (pr: PaymentRequired) => pr.extensions?.[SIWX] as Declared;
/** A sign-in over `declared` on `chainId`, as the SDK makes it (createSIWxPayload checks the message is bound to `requestUrl`'s origin). */
async function signInOver(declared: Declared, chainId: string, signer: SIWxSigner, requestUrl: string, edit: (info: Record<string, string>) => void = () => {}): Promise<string> {
  const chain = declared.supportedChains.find((c) => c.chainId === chainId) ?? { chainId, type: chainId.startsWith('solana:') ? 'ed25519' : 'eip191' };
  const info: Record<string, string> = { ...declared.info, chainId: chain.chainId, type: chain.type };
  edit(info);
  return encodeSIWxHeader(await createSIWxPayload(info as never, signer, requestUrl));
}

const post = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
/** A body no other test of this file pays for. */
let n = 0;
const freshBody = () => ({ foreground: `#${(0x100000 + ++n * 7919).toString(16).slice(-6)}`, background: '#ffffff', large_text: false });

describe('sign in, get what you paid for', () => {
  let rig: Rig;
  let url: string;
  let solana: KeyPairSigner;
  const evm = () => privateKeyToAccount(rig.devnet.buyer.privateKey);
  /** The same wallet as the SDK's sign-in types name it (@solana/kit's signer, typed more narrowly there). */
  const solanaSiwx = () => solana as unknown as SIWxSigner;

  before(async () => {
    rig = await startRig();
    url = rig.service.url + CONTRAST;
    solana = await createKeyPairSignerFromBytes(rig.devnet.svm!.buyers[0]!.secretKey);
  });
  after(async () => rig?.close());

  const solanaClient = () => new x402Client().register('solana:*', new ExactSvmScheme(solana, { rpcUrl: rig.devnet.svm!.rpcUrl }));
  const evmTransfers = async () => (await transferLogs(rig.devnet, { from: rig.devnet.buyer.address })).length;
  const solanaPaid = () => rig.devnet.svm!.tokenBalance(rig.devnet.svm!.payTo);
  /** What the ledger holds about the attempt settled by `tx`: its state, deliveries (settled events: the delivery and each redelivery) and spent sign-ins. */
  async function ledgerOf(service: Pick<RunningService, 'db' | 'ledger'>, tx: string) {
    const rows = await service.db.all<{ id: string; state: string }>('SELECT id, state FROM payment_attempts WHERE tx_hash = ?', [tx]);
    assert.equal(rows.length, 1, 'one attempt for the transaction');
    const history = await service.ledger.history({ id: rows[0]!.id });
    const signIns = await service.db.all<{ signer: string; network: string }>('SELECT signer, network FROM sign_ins WHERE attempt_id = ?', [rows[0]!.id]);
    return { state: rows[0]!.state, settledEvents: history.filter((e) => e.state === 'settled').length, signIns };
  }
  /** The same 402 as an unpaid request gets it: refused, nothing delivered. */
  async function assertOrdinary402(res: Response, why?: RegExp) {
    const text = await res.text();
    assert.equal(res.status, 402, text);
    const body = JSON.parse(text) as { problem: { code: string; message: string }; contrast_ratio?: unknown };
    assert.equal(body.problem.code, 'payment_required');
    assert.equal(body.contrast_ratio, undefined, 'nothing delivered');
    if (why) assert.match(body.problem.message, why);
  }

  test('every 402 declares sign-in-with-x as the SDK describes it: our origin and resource, both chains, a nonce of its own, in the header and the body', async () => {
    const a = await fetch(url, post(freshBody()));
    const b = await fetch(url, post(freshBody()));
    const [pa, pb] = [decodePaymentRequiredHeader(a.headers.get('payment-required')!), decodePaymentRequiredHeader(b.headers.get('payment-required')!)];
    const d = declarationOf(pa);
    assert.deepEqual(Object.keys(d.info).sort(), ['domain', 'expirationTime', 'issuedAt', 'nonce', 'statement', 'uri', 'version']);
    assert.equal(d.info.domain, new URL(url).host);
    assert.equal(d.info.uri, url);
    assert.equal(d.info.version, '1');
    assert.equal(Date.parse(d.info.expirationTime!) - Date.parse(d.info.issuedAt!), 300_000);
    assert.deepEqual(d.supportedChains, [
      { chainId: rig.devnet.network, type: 'eip191' },
      { chainId: rig.devnet.svm!.network, type: 'ed25519' },
    ]);
    assert.notEqual(declarationOf(pb).info.nonce, d.info.nonce, 'each 402 its own message');
    assert.deepEqual(((await a.json()) as { extensions: Record<string, Declared> }).extensions[SIWX]!.info, d.info, 'the body carries the header\'s declaration');
    // Prefer: network=solana lists Solana first, and says so.
    const preferring = await fetch(url, post(freshBody(), { Prefer: 'network=solana' }));
    assert.equal(decodePaymentRequiredHeader(preferring.headers.get('payment-required')!).accepts[0]!.network, rig.devnet.svm!.network);
    assert.equal(preferring.headers.get('preference-applied'), 'network=solana');
    assert.equal(decodePaymentRequiredHeader((await fetch(url, post(freshBody(), { Prefer: 'network=bitcoin' }))).headers.get('payment-required')!).accepts[0]!.network, rig.devnet.network, 'a chain we do not take changes nothing');
  });

  test('EVM over HTTP: @x402/fetch pays once; wrapFetchWithSIWx with the same wallet and no payment gets the same result and receipt; one transfer; its sign-in works once', async () => {
    const body = freshBody();
    const paid = await payingFetch(rig.devnet)(url, post(body));
    assert.equal(paid.status, 200);
    const bytes = await paid.text();
    const receipt = decodePaymentResponseHeader(paid.headers.get('payment-response')!);
    const transfers = await evmTransfers();
    let sent: string | undefined;
    const recording = (async (input: RequestInfo | URL, init?: RequestInit) => {
      const req = new Request(input, init);
      sent = req.headers.get('sign-in-with-x') ?? sent;
      assert.equal(req.headers.get('payment-signature'), null, 'no payment header');
      return fetch(req);
    }) as typeof fetch;
    const again = await wrapFetchWithSIWx(recording, evm())(url, post(body));
    assert.equal(again.status, 200);
    assert.equal(await again.text(), bytes, 'the same result, byte for byte');
    assert.equal(again.headers.get('x-payment-replayed'), 'true');
    assert.deepEqual(decodePaymentResponseHeader(again.headers.get('payment-response')!), receipt, 'the same receipt');
    assert.equal(await evmTransfers(), transfers, 'nothing charged');
    assert.deepEqual(await ledgerOf(rig.service, receipt.transaction), { state: 'settled', settledEvents: 2, signIns: [{ signer: rig.devnet.buyer.address.toLowerCase(), network: rig.devnet.network }] });
    // The captured sign-in, sent again: the ordinary 402.
    assert.ok(sent);
    await assertOrdinary402(await fetch(url, post(body, { 'SIGN-IN-WITH-X': sent })), /already used/);
    assert.equal((await ledgerOf(rig.service, receipt.transaction)).signIns.length, 1);
    // A new sign-in works again.
    assert.equal((await wrapFetchWithSIWx(fetch, evm())(url, post(body))).status, 200);
    assert.equal(await evmTransfers(), transfers);
  });

  test('the x402 client\'s sign-in hook: the first call pays, the same call again signs in instead of paying', async () => {
    const body = freshBody();
    const client = new x402HTTPClient(buyerClient(rig.devnet)).onPaymentRequired(createSIWxClientHook(evm()));
    const pay = wrapFetchWithPayment(fetch, client);
    const before = await evmTransfers();
    const first = await pay(url, post(body));
    assert.equal(first.status, 200);
    assert.equal(first.headers.get('x-payment-replayed'), 'false');
    assert.equal(await evmTransfers(), before + 1);
    const second = await pay(url, post(body));
    assert.equal(second.status, 200);
    assert.equal(second.headers.get('x-payment-replayed'), 'true');
    assert.equal(await second.text(), await first.text());
    assert.equal(await evmTransfers(), before + 1, 'paid once');
  });

  test('Solana over HTTP: paid with @x402/fetch (ExactSvmScheme); wrapFetchWithSIWx with the Solana wallet and Prefer: network=solana gets it again; the hook needs no preference', async () => {
    const body = freshBody();
    const paid = await wrapFetchWithPayment(fetch, solanaClient())(url, post(body));
    assert.equal(paid.status, 200, await paid.clone().text());
    const bytes = await paid.text();
    const receipt = decodePaymentResponseHeader(paid.headers.get('payment-response')!);
    assert.equal(receipt.network, rig.devnet.svm!.network);
    const balance = solanaPaid();
    // Without the preference the SDK signs on accepts[0]'s chain (EVM), which a Solana wallet cannot: it gets the 402.
    assert.equal((await wrapFetchWithSIWx(fetch, solanaSiwx())(url, post(body))).status, 402);
    const again = await wrapFetchWithSIWx(fetch, solanaSiwx())(url, post(body, { Prefer: 'network=solana' }));
    assert.equal(again.status, 200);
    assert.equal(await again.text(), bytes);
    assert.deepEqual(decodePaymentResponseHeader(again.headers.get('payment-response')!), receipt);
    const hooked = await wrapFetchWithPayment(fetch, new x402HTTPClient(solanaClient()).onPaymentRequired(createSIWxClientHook(solanaSiwx())))(url, post(body));
    assert.equal(hooked.status, 200);
    assert.equal(hooked.headers.get('x-payment-replayed'), 'true');
    assert.equal(solanaPaid(), balance, 'nothing charged');
    const ledger = await ledgerOf(rig.service, receipt.transaction);
    assert.equal(ledger.settledEvents, 3, 'one delivery, two redeliveries');
    assert.deepEqual(ledger.signIns.map((s) => [s.signer, s.network]), [[solana.address, rig.devnet.svm!.network], [solana.address, rig.devnet.svm!.network]]);
  });

  for (const chain of ['evm', 'solana'] as const) {
    test(`MCP (${chain}): paid through _meta["x402/payment"]; the same call with _meta["x402/sign-in-with-x"] and no payment gets the result and receipt again, once`, async () => {
      const mcp = new Client({ name: 'sign-in-test', version: '1.0.0' });
      await mcp.connect(new StreamableHTTPClientTransport(new URL(rig.service.url + '/mcp')));
      try {
        const args = freshBody();
        const call = (meta?: Record<string, unknown>) => mcp.callTool({ name: 'accessibility-contrast-calculator', arguments: args, ...(meta && { _meta: meta }) });
        const challenge = (await call()).structuredContent as PaymentRequired;
        const network = chain === 'evm' ? rig.devnet.network : rig.devnet.svm!.network;
        const onChain = { ...challenge, accepts: challenge.accepts.filter((a) => a.network === network) };
        const payload = await (chain === 'evm' ? buyerClient(rig.devnet) : solanaClient()).createPaymentPayload(onChain);
        const paid = await call({ 'x402/payment': payload });
        assert.notEqual(paid.isError, true, JSON.stringify(paid.content));
        const receipt = paid._meta?.['x402/payment-response'] as { transaction: string; network: string };
        assert.equal(receipt.network, network);
        const declared = declarationOf((await call()).structuredContent as PaymentRequired);
        const header = await signInOver(declared, network, chain === 'evm' ? evm() : solanaSiwx(), rig.service.url + '/mcp');
        const again = await call({ 'x402/sign-in-with-x': header });
        assert.notEqual(again.isError, true, JSON.stringify(again.content));
        assert.deepEqual(again.structuredContent, paid.structuredContent);
        assert.deepEqual(again._meta?.['x402/payment-response'], receipt);
        const replayed = await call({ 'x402/sign-in-with-x': header });
        assert.equal(replayed.isError, true);
        assert.ok((replayed.structuredContent as PaymentRequired).accepts.length > 0, 'the ordinary challenge');
        const ledger = await ledgerOf(rig.service, receipt.transaction);
        assert.deepEqual([ledger.settledEvents, ledger.signIns.length], [2, 1]);
      } finally {
        await mcp.close();
      }
    });

    test(`A2A (${chain}): paid on its task; a new message with the skill call, metadata "x402.sign-in-with-x" and no payment completes with the result and receipt again, once`, async () => {
      const a2a = await new ClientFactory().createFromUrl(rig.service.url);
      const send = async (message: Message) => {
        const r = await a2a.sendMessage({ tenant: '', message, configuration: undefined, metadata: undefined }, { serviceParameters: { 'A2A-Extensions': X402_URI } });
        assert.ok(isTask(r));
        return r as Task;
      };
      const dataOf = (t: Task) => t.artifacts[0]?.parts.find((p) => p.content?.$case === 'data')?.content;
      const args = freshBody();
      const network = chain === 'evm' ? rig.devnet.network : rig.devnet.svm!.network;
      const asked = await send(userMessage({ skill: CONTRAST_SKILL }, args));
      const required = asked.status!.message!.metadata!['x402.payment.required'] as PaymentRequired;
      const payload = await (chain === 'evm' ? buyerClient(rig.devnet) : solanaClient()).createPaymentPayload({ ...required, accepts: required.accepts.filter((a) => a.network === network) });
      const done = await send(userMessage({ 'x402.payment.status': 'payment-submitted', 'x402.payment.payload': payload }, undefined, asked.id));
      assert.equal(done.status?.state, TaskState.TASK_STATE_COMPLETED);
      const receipts = done.status!.message!.metadata!['x402.payment.receipts'] as Array<{ transaction: string }>;
      const fresh = await send(userMessage({ skill: CONTRAST_SKILL }, args));
      const header = await signInOver(declarationOf(fresh.status!.message!.metadata!['x402.payment.required'] as PaymentRequired), network, chain === 'evm' ? evm() : solanaSiwx(), rig.service.url + '/a2a');
      const again = await send(userMessage({ skill: CONTRAST_SKILL, 'x402.sign-in-with-x': header }, args));
      assert.equal(again.status?.state, TaskState.TASK_STATE_COMPLETED, JSON.stringify(again.status?.message?.parts));
      assert.deepEqual(dataOf(again), dataOf(done));
      assert.deepEqual(again.status!.message!.metadata!['x402.payment.receipts'], receipts);
      const replayed = await send(userMessage({ skill: CONTRAST_SKILL, 'x402.sign-in-with-x': header }, args));
      assert.equal(replayed.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED);
      assert.equal(replayed.status!.message!.metadata!['x402.payment.status'], 'payment-required');
      const ledger = await ledgerOf(rig.service, receipts[0]!.transaction);
      assert.deepEqual([ledger.settledEvents, ledger.signIns.length], [2, 1]);
    });
  }

  test('faults: another wallet, another body, another resource, another domain or URI, another chain, an altered message: the ordinary 402, nothing charged, nothing delivered, nothing spent', async () => {
    const body = freshBody();
    const paid = await payingFetch(rig.devnet)(url, post(body));
    assert.equal(paid.status, 200);
    const receipt = decodePaymentResponseHeader(paid.headers.get('payment-response')!);
    const transfers = await evmTransfers();
    const declared = async (u = url, b: unknown = body) => declarationOf(decodePaymentRequiredHeader((await fetch(u, post(b))).headers.get('payment-required')!));
    const other = privateKeyToAccount(generatePrivateKey());
    // Another wallet, through the SDK's own client: it gets the 402 it started from.
    await assertOrdinary402(await wrapFetchWithSIWx(fetch, other)(url, post(body)));
    const otherBody = freshBody();
    await assertOrdinary402(await wrapFetchWithSIWx(fetch, evm())(url, post(otherBody)), /no settled payment/);
    // Another resource: signed over this route's 402, sent to another route (with that route's valid body), and the reverse.
    const normalizer = rig.service.url + '/x402/v1/nft-metadata-uri-normalizer';
    const normalizerBody = { uri: 'ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi/1.json' };
    await assertOrdinary402(await fetch(normalizer, post(normalizerBody, { 'SIGN-IN-WITH-X': await signInOver(await declared(), rig.devnet.network, evm(), url) })), /another resource/);
    await assertOrdinary402(await fetch(url, post(body, { 'SIGN-IN-WITH-X': await signInOver(await declared(normalizer, normalizerBody), rig.devnet.network, evm(), normalizer) })), /another resource/);
    // Another domain, another URI on our domain, another chain, a nonce or time of our message changed.
    const cases: Array<[string, (i: Record<string, string>) => void, string]> = [
      ['domain', (i) => ((i.domain = 'evil.example'), (i.uri = `http://evil.example${CONTRAST}`)), `http://evil.example${CONTRAST}`],
      ['uri', (i) => (i.uri = `${rig.service.url}/x402/v1/other`), url],
      ['chain', (i) => (i.chainId = 'eip155:1'), url],
      ['nonce', (i) => (i.nonce = `${i.nonce!.slice(0, -1)}${i.nonce!.endsWith('0') ? '1' : '0'}`), url],
      ['expirationTime', (i) => (i.expirationTime = new Date(Date.parse(i.expirationTime!) + 60_000).toISOString()), url],
    ];
    for (const [what, edit, signedFor] of cases) {
      const header = await signInOver(await declared(), rig.devnet.network, evm(), signedFor, edit);
      await assertOrdinary402(await fetch(url, post(body, { 'SIGN-IN-WITH-X': header }))).catch((e: Error) => {
        throw new Error(`another ${what}: ${e.message}`);
      });
    }
    // Not a sign-in at all.
    await assertOrdinary402(await fetch(url, post(body, { 'SIGN-IN-WITH-X': 'not-base64-json%%' })), /not accepted/);
    assert.equal(await evmTransfers(), transfers, 'nothing charged');
    assert.deepEqual(await ledgerOf(rig.service, receipt.transaction), { state: 'settled', settledEvents: 1, signIns: [] }, 'nothing delivered again, no sign-in spent');
    // The buyer's own sign-in still works.
    assert.equal((await wrapFetchWithSIWx(fetch, evm())(url, post(body))).status, 200);
  });

  test('an expired sign-in (X402_SIGN_IN_TTL_SECONDS=5): the ordinary 402 saying so; a fresh one gets the result', async () => {
    const short = await startService(loadConfig(devnetEnv(rig.devnet, rig.proxy.url, { DATA_DIR: tempDir('sign-in-ttl-'), X402_SIGN_IN_TTL_SECONDS: '5' })));
    try {
      const shortUrl = short.url + CONTRAST;
      const body = freshBody();
      assert.equal((await payingFetch(rig.devnet)(shortUrl, post(body))).status, 200);
      const transfers = await evmTransfers();
      const d = declarationOf(decodePaymentRequiredHeader((await fetch(shortUrl, post(body))).headers.get('payment-required')!));
      assert.equal(Date.parse(d.info.expirationTime!) - Date.parse(d.info.issuedAt!), 5000);
      const header = await signInOver(d, rig.devnet.network, evm(), shortUrl);
      await sleep(Math.max(0, Date.parse(d.info.expirationTime!) - Date.now()) + 200);
      await assertOrdinary402(await fetch(shortUrl, post(body, { 'SIGN-IN-WITH-X': header })), /expired/);
      assert.equal((await wrapFetchWithSIWx(fetch, evm())(shortUrl, post(body))).status, 200, 'a fresh sign-in');
      assert.equal(await evmTransfers(), transfers, 'nothing charged');
    } finally {
      await short.close();
    }
  });
});

const CONTRAST_SKILL = 'accessibility-contrast-calculator';

test('two instances on one PostgreSQL ledger behind one origin: a sign-in made over A\'s 402 works on B, once; used on A, it gets nothing on B', { skip: pgConfigured() ? undefined : PG_SKIP_REASON }, async () => {
  const devnet = await startDevnet({ svm: false });
  const databaseUrl = await freshPgUrl();
  // Behind one load balancer: one public origin and one signing key (which derives the sign-in key).
  const origin = 'http://api.example.test';
  const env = (dir: string) => devnetEnv(devnet, devnet.facilitatorUrl, { DATA_DIR: tempDir(dir), DATABASE_URL: databaseUrl, PUBLIC_BASE_URL: origin, X402_SIGNING_KEY: '0x' + '2a'.repeat(32) });
  const a = await spawnService(env('sign-in-a-'));
  const b = await spawnService(env('sign-in-b-'));
  const account = privateKeyToAccount(devnet.buyer.privateKey);
  try {
    const body = freshBody();
    // Paid through A (the client reaches A; the resource URL is the public one).
    const paid = await wrapFetchWithPayment(fetch, buyerClient(devnet))(a.url + CONTRAST, post(body));
    assert.equal(paid.status, 200, await paid.clone().text());
    const bytes = await paid.text();
    const transfers = (await transferLogs(devnet, { from: devnet.buyer.address })).length;
    const publicUrl = origin + CONTRAST;
    const over = async (instance: { url: string }) => signInOver(declarationOf(decodePaymentRequiredHeader((await postJson(instance.url + CONTRAST, body)).headers.get('payment-required')!)), devnet.network, account, publicUrl);
    // A's message, used on B: the instances share the key, so B accepts it once.
    const fromA = await over(a);
    const onB = await postJson(b.url + CONTRAST, body, { 'SIGN-IN-WITH-X': fromA });
    assert.equal(onB.status, 200);
    assert.equal(await onB.text(), bytes);
    const backOnA = await postJson(a.url + CONTRAST, body, { 'SIGN-IN-WITH-X': fromA });
    assert.equal(backOnA.status, 402, 'used on B: nothing on A');
    // Used on A first, replayed on B.
    const another = await over(b);
    assert.equal((await postJson(a.url + CONTRAST, body, { 'SIGN-IN-WITH-X': another })).status, 200);
    const replayed = await postJson(b.url + CONTRAST, body, { 'SIGN-IN-WITH-X': another });
    assert.equal(replayed.status, 402);
    assert.match(((await replayed.json()) as { problem: { message: string } }).problem.message, /already used/);
    assert.equal((await transferLogs(devnet, { from: devnet.buyer.address })).length, transfers, 'nothing charged');
  } finally {
    await a.kill();
    await b.kill();
    await devnet.stop();
  }
});
