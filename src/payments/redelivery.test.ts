/**
 * The redelivery rule's own parts: a sign-in is the message we issued, signed
 * by the payer, and nothing else; the unproven-try count stays bounded when an
 * attacker cycles authorizations.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { privateKeyToAccount } from 'viem/accounts';
import { createSIWxPayload, encodeSIWxHeader } from '@x402/extensions/sign-in-with-x';
import { RedeliveryGuard, UNPROVEN_TRIES, paymentKeyOf } from './redelivery.js';
import type { PaymentPayload } from './rail.js';
import { SIGN_IN_WITH_X, SignInWithX } from './sign-in.js';
import { svmKey } from '../../test/support/svm-payment.js';

const PAYER = privateKeyToAccount('0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a');
const URL_A = 'https://api.example/x402/v1/accessibility-contrast-calculator';
const NETWORK = 'eip155:8453';
const SOLANA = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp';

async function signedIn(signIn: SignInWithX, now: number, edit: (p: Record<string, unknown>) => void = () => {}): Promise<string> {
  const ext = signIn.challenge(URL_A, now)[SIGN_IN_WITH_X] as { info: Record<string, string>; supportedChains: Array<{ chainId: string; type: 'eip191' }> };
  const info = { ...ext.info, chainId: ext.supportedChains[0]!.chainId, type: ext.supportedChains[0]!.type };
  edit(info);
  return encodeSIWxHeader(await createSIWxPayload(info as never, PAYER, URL_A));
}

const withId = (id: string | undefined) => ({ x402Version: 2, ...(id && { extensions: { 'payment-identifier': { info: { required: false, id } } } }) }) as unknown as PaymentPayload;

describe('sign-in', () => {
  test('the message we issued, signed by the payer, names the payer', async () => {
    const now = Date.now();
    const s = new SignInWithX(NETWORK);
    assert.deepEqual(await s.check(await signedIn(s, now), URL_A, now), { ok: true, address: PAYER.address.toLowerCase(), network: NETWORK });
  });

  test('with Solana offered too: a Solana wallet signs in (ed25519) on the Solana entry, named as the ledger keys it; it proves only its own Solana payment', async () => {
    const now = Date.now();
    const s = new SignInWithX([NETWORK, SOLANA]);
    const ext = s.challenge(URL_A, now)[SIGN_IN_WITH_X] as { info: Record<string, string>; supportedChains: Array<{ chainId: string; type: string }> };
    assert.deepEqual(ext.supportedChains, [{ chainId: NETWORK, type: 'eip191' }, { chainId: SOLANA, type: 'ed25519' }]);
    const wallet = await svmKey('sign-in payer');
    const header = encodeSIWxHeader(await createSIWxPayload({ ...ext.info, chainId: SOLANA, type: 'ed25519' } as never, wallet as never, URL_A));
    assert.deepEqual(await s.check(header, URL_A, now), { ok: true, address: wallet.address, network: SOLANA });
    const guard = new RedeliveryGuard(s);
    const paidOnSolana = { id: 's1', network: SOLANA, payer: wallet.address, paymentKey: null };
    assert.equal((await guard.check(paidOnSolana, withId(undefined), header, URL_A, now)).kind, 'proven');
    const someoneElse = { ...paidOnSolana, id: 's2', payer: (await svmKey('another payer')).address };
    assert.equal((await guard.check(someoneElse, withId(undefined), header, URL_A, now)).kind, 'unproven');
    // A service offering the EVM chain only does not take a Solana sign-in.
    assert.equal((await new SignInWithX(NETWORK).check(header, URL_A, now)).ok, false);
    // The EVM payer's sign-in does not prove a Solana payment, nor a Solana one an EVM payment.
    const evmHeader = await signedIn(s, now);
    assert.equal((await guard.check({ ...paidOnSolana, id: 's3', payer: PAYER.address.toLowerCase() }, withId(undefined), evmHeader, URL_A, now)).kind, 'unproven');
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

describe('unproven tries', () => {
  test('an attacker cycling authorizations keeps the count bounded: the oldest are forgotten, never the memory grown', async () => {
    const guard = new RedeliveryGuard(new SignInWithX(NETWORK));
    const now = Date.now();
    const target = { id: 'target', network: NETWORK, payer: PAYER.address.toLowerCase(), paymentKey: paymentKeyOf(PAYER.address.toLowerCase(), 'pay_the_real_secret_0001') };
    for (let i = 0; i < UNPROVEN_TRIES; i++) assert.equal((await guard.check(target, withId(`pay_guess_${String(i).padStart(12, '0')}`), undefined, URL_A, now)).kind, 'unproven');
    assert.equal((await guard.check(target, withId('pay_the_real_secret_0001'), undefined, URL_A, now)).kind, 'limited');
    for (let i = 0; i < 10_000; i++) await guard.check({ id: `other-${i}`, network: NETWORK, payer: target.payer, paymentKey: null }, withId(undefined), undefined, URL_A, now);
    assert.equal((await guard.check(target, withId('pay_the_real_secret_0001'), undefined, URL_A, now)).kind, 'proven', 'its count was among the oldest dropped');
  });

  test('the window ends: tries count again from zero', async () => {
    const guard = new RedeliveryGuard(new SignInWithX(NETWORK));
    const now = Date.now();
    const a = { id: 'a', network: NETWORK, payer: PAYER.address.toLowerCase(), paymentKey: null };
    for (let i = 0; i <= UNPROVEN_TRIES; i++) await guard.check(a, withId(`pay_guess_${String(i).padStart(12, '0')}`), undefined, URL_A, now);
    assert.equal((await guard.check(a, withId('pay_guess_again_000001'), undefined, URL_A, now)).kind, 'limited');
    assert.equal((await guard.check(a, withId('pay_guess_again_000001'), undefined, URL_A, now + 10 * 60_000)).kind, 'unproven');
    // Expired windows are dropped first when the map is full.
    for (let i = 0; i < 10_001; i++) await guard.check({ id: `old-${i}`, network: NETWORK, payer: a.payer, paymentKey: null }, withId(undefined), undefined, URL_A, now);
    assert.equal((await guard.check({ id: 'fresh', network: NETWORK, payer: a.payer, paymentKey: null }, withId(undefined), undefined, URL_A, now + 20 * 60_000)).kind, 'unproven');
  });
});
