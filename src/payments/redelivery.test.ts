/**
 * The redelivery rule's own parts: a sign-in is the message we issued, signed
 * by the payer, and nothing else; wrong identifiers are limited per client,
 * never the right one from another client, and the count stays bounded when
 * an attacker cycles clients; an identifier too simple to be a secret proves
 * nothing.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { privateKeyToAccount } from 'viem/accounts';
import { createSIWxPayload, encodeSIWxHeader } from '@x402/extensions/sign-in-with-x';
import { MIN_IDENTIFIER_BITS, RedeliveryGuard, WRONG_IDENTIFIERS_PER_CLIENT, WRONG_IDENTIFIER_WINDOW_MS, identifierBits, paymentKeyOf } from './redelivery.js';
import { generatePaymentId } from '@x402/extensions/payment-identifier';
import type { PaymentPayload } from './rail.js';
import { SIGN_IN_LIFETIME_SECONDS, SIGN_IN_WITH_X, SignInWithX, restampText, stamped } from './sign-in.js';
import { declareSIWxExtension } from '@x402/extensions/sign-in-with-x';
import { svmKey } from '../../test/support/svm-payment.js';

const PAYER = privateKeyToAccount('0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a');
const URL_A = 'https://api.example/x402/v1/accessibility-contrast-calculator';
const NETWORK = 'eip155:8453';
const SOLANA = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp';

type Declared = { info: Record<string, string>; supportedChains: Array<{ chainId: string; type: string }>; schema?: unknown };

/** The sign-in declaration of one 402 of URL_A, as a client reads it. */
function declared(signIn: SignInWithX, now: number, url = URL_A): Declared {
  return stamped({ extensions: signIn.declare(url) } as never, signIn.stamp(url, now)).extensions![SIGN_IN_WITH_X] as Declared;
}

/** Spends sign-ins in memory, as the ledger does. */
function spender() {
  const used = new Set<string>();
  return Object.assign(async (s: { nonce: string }) => !used.has(s.nonce) && !!used.add(s.nonce), { used });
}

async function signedIn(signIn: SignInWithX, now: number, edit: (p: Record<string, unknown>) => void = () => {}): Promise<string> {
  const ext = declared(signIn, now);
  const info = { ...ext.info, chainId: ext.supportedChains[0]!.chainId, type: ext.supportedChains[0]!.type };
  edit(info);
  return encodeSIWxHeader(await createSIWxPayload(info as never, PAYER, URL_A));
}

const withId = (id: string | undefined) => ({ x402Version: 2, ...(id && { extensions: { 'payment-identifier': { info: { required: false, id } } } }) }) as unknown as PaymentPayload;

describe('sign-in', () => {
  test('the message we issued, signed by the payer, names the payer', async () => {
    const now = Date.now();
    const s = new SignInWithX(NETWORK);
    const r = await s.check(await signedIn(s, now), URL_A, now);
    assert.ok(r.ok);
    assert.deepEqual({ address: r.address, network: r.network }, { address: PAYER.address.toLowerCase(), network: NETWORK });
    assert.equal(r.expiresAt, Math.floor(now / 1000) * 1000 + SIGN_IN_LIFETIME_SECONDS * 1000);
  });

  test('the declaration is the SDK\'s (declareSIWxExtension) filled in by a server: our origin and URI, every chain we take, statement, a nonce and times of its own in each 402', async () => {
    const now = Date.now();
    const s = new SignInWithX([NETWORK, SOLANA]);
    const sdk = declareSIWxExtension({ network: [NETWORK, SOLANA], statement: 'x', expirationSeconds: SIGN_IN_LIFETIME_SECONDS })[SIGN_IN_WITH_X] as unknown as Declared;
    const ours = declared(s, now);
    // `_options` is the SDK server's own note to itself, never sent.
    assert.deepEqual(Object.keys(ours).sort(), Object.keys(sdk).filter((k) => k !== '_options').sort());
    assert.deepEqual(ours.schema, sdk.schema);
    assert.deepEqual(ours.supportedChains, sdk.supportedChains);
    assert.deepEqual(Object.keys(ours.info).sort(), ['domain', 'expirationTime', 'issuedAt', 'nonce', 'statement', 'uri', 'version']);
    assert.deepEqual([ours.info.domain, ours.info.uri, ours.info.version], ['api.example', URL_A, '1']);
    assert.equal(Date.parse(ours.info.expirationTime!) - Date.parse(ours.info.issuedAt!), SIGN_IN_LIFETIME_SECONDS * 1000);
    const again = declared(s, now);
    assert.notEqual(again.info.nonce, ours.info.nonce, 'a fresh nonce in every 402');
    assert.match(ours.info.nonce!, /^[0-9a-f]{32}$/);
    // The cached text of a 402, restamped, is the stamped object written out.
    const stamp = s.stamp(URL_A, now + 5000);
    const template = { x402Version: 2, extensions: s.declare(URL_A) } as never;
    assert.equal(restampText(JSON.stringify(template), stamp), JSON.stringify(stamped(template, stamp)));
  });

  test('a message issued for another resource, or altered in its nonce or times, or expired, proves nothing', async () => {
    const now = Date.now();
    const s = new SignInWithX(NETWORK);
    const other = URL_A.replace('accessibility-contrast-calculator', 'nft-metadata-uri-normalizer');
    const forOther = declared(s, now, other);
    const header = encodeSIWxHeader(await createSIWxPayload({ ...forOther.info, chainId: NETWORK, type: 'eip191' } as never, PAYER, other));
    assert.equal((await s.check(header, other, now)).ok, true);
    const r = await s.check(header, URL_A, now);
    assert.ok(!r.ok && r.code === 'other_resource');
    for (const [name, edit] of [
      ['nonce', (p: Record<string, unknown>) => (p.nonce = `${String(p.nonce).slice(0, -1)}${String(p.nonce).endsWith('0') ? '1' : '0'}`)],
      ['issuedAt', (p: Record<string, unknown>) => (p.issuedAt = new Date(Date.parse(String(p.issuedAt)) + 1000).toISOString())],
      ['both times', (p: Record<string, unknown>) => {
        p.issuedAt = new Date(Date.parse(String(p.issuedAt)) + 20_000).toISOString();
        p.expirationTime = new Date(Date.parse(String(p.expirationTime)) + 20_000).toISOString();
      }],
    ] as const) {
      const v = await s.check(await signedIn(s, now, edit), URL_A, now);
      assert.ok(!v.ok && v.code === 'not_issued_here', name);
    }
    const late = await s.check(await signedIn(s, now), URL_A, now + SIGN_IN_LIFETIME_SECONDS * 1000);
    assert.ok(!late.ok && late.code === 'expired');
  });

  test('a message whose signature, signature type, dates or issue time are not right proves nothing', async () => {
    const now = Date.now();
    const s = new SignInWithX(NETWORK);
    const good = JSON.parse(Buffer.from(await signedIn(s, now), 'base64').toString()) as Record<string, string>;
    const header = (edit: (p: Record<string, string>) => void) => {
      const p = { ...good };
      edit(p);
      return Buffer.from(JSON.stringify(p)).toString('base64');
    };
    const codeOf = async (h: string) => {
      const r = await s.check(h, URL_A, now);
      return r.ok ? 'ok' : r.code;
    };
    assert.equal(await codeOf(header(() => {})), 'ok');
    assert.equal(await codeOf(header((p) => (p.signature = `${p.signature!.slice(0, -4)}0000`))), 'bad_signature');
    assert.equal(await codeOf(header((p) => (p.address = '0x' + '11'.repeat(20)))), 'bad_signature');
    assert.equal(await codeOf(header((p) => (p.type = 'ed25519'))), 'not_issued_here');
    assert.equal(await codeOf(header((p) => (p.issuedAt = '2026-13-45T00:00:00Z'))), 'not_issued_here');
    assert.equal(await codeOf(header((p) => (p.issuedAt = p.issuedAt!.replace('Z', '.000Z')))), 'not_issued_here');
    assert.equal(await codeOf(header((p) => (p.nonce = 'not-hex'))), 'not_issued_here');
    assert.equal(await codeOf('%%%'), 'unreadable');
    // Issued by us, but for a time well ahead of this instance's clock (its own key, another clock): not yet valid.
    const ahead = await s.check(await signedIn(s, now + 120_000), URL_A, now);
    assert.ok(!ahead.ok && ahead.code === 'expired');
  });

  test('a sign-in proves its payer once: the second time it is spent; another wallet\'s sign-in is not spent by failing', async () => {
    const now = Date.now();
    const s = new SignInWithX(NETWORK);
    const spend = spender();
    const guard = new RedeliveryGuard(s, spend);
    const header = await signedIn(s, now);
    const paid = { id: 'p1', network: NETWORK, payer: PAYER.address.toLowerCase(), paymentKey: null };
    const someoneElse = { ...paid, id: 'p2', payer: '0x' + '11'.repeat(20) };
    assert.equal((await guard.check(someoneElse, { payment: withId(undefined), signIn: header, client: 'c' }, URL_A, now)).kind, 'unproven');
    assert.equal(spend.used.size, 0);
    assert.equal((await guard.check(paid, { payment: withId(undefined), signIn: header, client: 'c' }, URL_A, now)).kind, 'proven');
    assert.equal((await guard.check(paid, { payment: withId(undefined), signIn: header, client: 'c' }, URL_A, now)).kind, 'unproven');
  });

  test('with Solana offered too: a Solana wallet signs in (ed25519) on the Solana entry, named as the ledger keys it; it proves only its own Solana payment', async () => {
    const now = Date.now();
    const s = new SignInWithX([NETWORK, SOLANA]);
    const ext = declared(s, now);
    assert.deepEqual(ext.supportedChains, [{ chainId: NETWORK, type: 'eip191' }, { chainId: SOLANA, type: 'ed25519' }]);
    const wallet = await svmKey('sign-in payer');
    const header = encodeSIWxHeader(await createSIWxPayload({ ...ext.info, chainId: SOLANA, type: 'ed25519' } as never, wallet as never, URL_A));
    const solana = await s.check(header, URL_A, now);
    assert.ok(solana.ok);
    assert.deepEqual({ address: solana.address, network: solana.network }, { address: wallet.address, network: SOLANA });
    const guard = new RedeliveryGuard(s, spender());
    const paidOnSolana = { id: 's1', network: SOLANA, payer: wallet.address, paymentKey: null };
    assert.equal((await guard.check(paidOnSolana, { payment: withId(undefined), signIn: header, client: 'c' }, URL_A, now)).kind, 'proven');
    const someoneElse = { ...paidOnSolana, id: 's2', payer: (await svmKey('another payer')).address };
    assert.equal((await guard.check(someoneElse, { payment: withId(undefined), signIn: header, client: 'c' }, URL_A, now)).kind, 'unproven');
    // A service offering the EVM chain only does not take a Solana sign-in.
    assert.equal((await new SignInWithX(NETWORK).check(header, URL_A, now)).ok, false);
    // The EVM payer's sign-in does not prove a Solana payment, nor a Solana one an EVM payment.
    const evmHeader = await signedIn(s, now);
    assert.equal((await guard.check({ ...paidOnSolana, id: 's3', payer: PAYER.address.toLowerCase() }, { payment: withId(undefined), signIn: evmHeader, client: 'c' }, URL_A, now)).kind, 'unproven');
  });

  test('a message with fields we never issue, or a statement, chain or lifetime of its own, is not ours even when correctly signed', async () => {
    const now = Date.now();
    const s = new SignInWithX(NETWORK);
    const edits: Array<[string, (p: Record<string, unknown>) => void]> = [
      ['requestId', (p) => (p.requestId = 'r1')],
      ['resources', (p) => (p.resources = ['https://other.example/'])],
      ['notBefore', (p) => (p.notBefore = new Date(now - 1000).toISOString())],
      ['no expirationTime', (p) => delete p.expirationTime],
      ['another statement', (p) => (p.statement = 'Sign in.')],
      ['another chain', (p) => (p.chainId = 'eip155:1')],
      ['a longer lifetime', (p) => (p.expirationTime = new Date(now + 3_600_000).toISOString())],
    ];
    for (const [name, edit] of edits) {
      const r = await s.check(await signedIn(s, now, edit), URL_A, now);
      assert.equal(r.ok, false, name);
    }
  });

  test('another instance with the same secret accepts the challenge; one with another secret does not', async () => {
    const now = Date.now();
    const secret = new Uint8Array(32).fill(7);
    const header = await signedIn(new SignInWithX(NETWORK, secret), now);
    assert.equal((await new SignInWithX(NETWORK, secret).check(header, URL_A, now)).ok, true);
    assert.equal((await new SignInWithX(NETWORK, new Uint8Array(32).fill(8)).check(header, URL_A, now)).ok, false);
  });
});

describe('wrong identifiers, per client', () => {
  const payer = PAYER.address.toLowerCase();
  const SECRET = generatePaymentId();
  const target = { id: 'target', network: NETWORK, payer, paymentKey: paymentKeyOf(payer, SECRET) };
  const guess = (guard: RedeliveryGuard, client: string, now: number, id = generatePaymentId()) => guard.check(target, { payment: withId(id), client }, URL_A, now);

  test(`a client's ${WRONG_IDENTIFIERS_PER_CLIENT} wrong identifiers spend its own allowance for that payment only: the right identifier from another client is still honoured`, async () => {
    const guard = new RedeliveryGuard(new SignInWithX(NETWORK), spender());
    const now = Date.now();
    for (let i = 0; i < WRONG_IDENTIFIERS_PER_CLIENT; i++) assert.equal((await guess(guard, 'guesser', now)).kind, 'unproven');
    const limited = await guess(guard, 'guesser', now + 1000);
    assert.equal(limited.kind, 'limited');
    assert.equal((limited as { retryAfterSeconds: number }).retryAfterSeconds, WRONG_IDENTIFIER_WINDOW_MS / 1000 - 1);
    assert.equal((await guess(guard, 'guesser', now, SECRET)).kind, 'limited', 'no oracle for the guesser: not compared');
    assert.equal((await guess(guard, 'buyer', now, SECRET)).kind, 'proven');
    assert.equal((await guess(guard, 'bystander', now)).kind, 'unproven', 'another client\'s wrong identifier is compared');
    // A buyer behind the guesser's address (one NAT) keeps the identifier of every payment not being guessed.
    const mine = generatePaymentId();
    const other = { id: 'another', network: NETWORK, payer, paymentKey: paymentKeyOf(payer, mine) };
    assert.equal((await guard.check(other, { payment: withId(mine), client: 'guesser' }, URL_A, now)).kind, 'proven');
  });

  test('a try without an identifier has nothing to guess: never counted, never limited', async () => {
    const guard = new RedeliveryGuard(new SignInWithX(NETWORK), spender());
    const now = Date.now();
    for (let i = 0; i < 3 * WRONG_IDENTIFIERS_PER_CLIENT; i++) assert.equal((await guard.check(target, { payment: withId(undefined), client: 'c' }, URL_A, now)).kind, 'unproven');
    assert.equal((await guess(guard, 'c', now, SECRET)).kind, 'proven');
    assert.equal(guard.clientsTracked, 0);
  });

  test('the window ends: a client counts again from zero', async () => {
    const guard = new RedeliveryGuard(new SignInWithX(NETWORK), spender());
    const now = Date.now();
    for (let i = 0; i < WRONG_IDENTIFIERS_PER_CLIENT; i++) await guess(guard, 'c', now);
    assert.equal((await guess(guard, 'c', now + WRONG_IDENTIFIER_WINDOW_MS - 1)).kind, 'limited');
    assert.equal((await guess(guard, 'c', now + WRONG_IDENTIFIER_WINDOW_MS, SECRET)).kind, 'proven');
  });

  test('an attacker cycling clients keeps memory bounded: expired windows go first, then the oldest', async () => {
    const guard = new RedeliveryGuard(new SignInWithX(NETWORK), spender());
    const now = Date.now();
    for (let i = 0; i < WRONG_IDENTIFIERS_PER_CLIENT; i++) await guess(guard, 'first', now);
    for (let i = 0; i < 30_000; i++) await guess(guard, `client-${i}`, now + 1, `pay_${i.toString(16).padStart(32, '0')}`);
    assert.ok(guard.clientsTracked <= 10_000, `${guard.clientsTracked} clients tracked`);
    assert.equal((await guess(guard, 'first', now + 2, SECRET)).kind, 'proven', 'its count was among the oldest dropped');
    // Past the window, full tables drop expired clients before anyone current.
    for (let i = 0; i < WRONG_IDENTIFIERS_PER_CLIENT; i++) await guess(guard, 'current', now + WRONG_IDENTIFIER_WINDOW_MS + 5);
    for (let i = 0; i < 9_000; i++) await guess(guard, `later-${i}`, now + WRONG_IDENTIFIER_WINDOW_MS + 6, `pay_${i.toString(16).padStart(32, '0')}`);
    assert.equal((await guess(guard, 'current', now + WRONG_IDENTIFIER_WINDOW_MS + 7)).kind, 'limited', 'the current client was kept: the expired ones made room');
  });

  test(`an identifier too simple to be a secret (under ${MIN_IDENTIFIER_BITS} bits) proves nothing and is not counted, even when it is the right one`, async () => {
    assert.equal(identifierBits(generatePaymentId()), 128, 'the SDK\'s own: pay_ + 32 hex digits');
    assert.equal(identifierBits(crypto.randomUUID()), 128);
    for (const [id, secret] of [
      ['1234567890123456', false], // the extension's minimum length, in digits: 53 bits
      ['pay_0000000000000000001', false], // 19 digits behind a word: 63 bits
      ['order-000000001234', false],
      ['0123456789abcdef', true], // 16 hex digits: 64 bits
      ['pay_00000000000000000001', true], // 20 digits: 66 bits
      ['aZ3_kQ9-xW2mP7vL', true],
    ] as const) {
      assert.equal(identifierBits(id) >= MIN_IDENTIFIER_BITS, secret, `${id}: ${identifierBits(id).toFixed(1)} bits`);
    }
    const guard = new RedeliveryGuard(new SignInWithX(NETWORK), spender());
    const now = Date.now();
    const weak = '1234567890123456';
    const bound = { id: 'w', network: NETWORK, payer, paymentKey: paymentKeyOf(payer, weak) };
    for (let i = 0; i < 2 * WRONG_IDENTIFIERS_PER_CLIENT; i++) {
      const v = await guard.check(bound, { payment: withId(weak), client: 'c' }, URL_A, now);
      assert.equal(v.kind, 'unproven');
      assert.equal((v as { weakIdentifier: boolean }).weakIdentifier, true);
    }
    assert.equal(guard.clientsTracked, 0);
    const strongId = '0123456789abcdef';
    assert.equal((await guard.check({ ...bound, paymentKey: paymentKeyOf(payer, strongId) }, { payment: withId(strongId), client: 'c' }, URL_A, now)).kind, 'proven');
  });
});
