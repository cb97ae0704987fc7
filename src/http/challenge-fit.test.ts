/**
 * The header budget is HTTP's: the route advertises the richest of the
 * entry's extension candidates whose PAYMENT-REQUIRED fits, keeps the gate's
 * own extensions, and encodes each challenge of the gate once.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PaymentRequired } from '../payments/rail.js';
import { SERVICE_METADATA_KEYS } from '../payments/gate.js';
import type { OfferRung } from '../payments/paid-flow.js';
import { challengeFitter } from './challenge-fit.js';

/** Rungs that keep all the service metadata: these tests are about the extensions. */
const rungs = (extensions: Array<Record<string, unknown>>): OfferRung[] => extensions.map((e) => ({ extensions: e, keeps: SERVICE_METADATA_KEYS }));

const challenge = (extensions: Record<string, unknown>) =>
  ({ x402Version: 2, resource: { url: 'http://127.0.0.1/y', description: 'd', mimeType: 'application/json' }, accepts: [{ scheme: 'exact', network: 'eip155:1', amount: '1', asset: '0x0', payTo: '0x0', maxTimeoutSeconds: 60, extra: {} }], extensions }) as PaymentRequired;

test('the richest candidate that fits the budget, with the gate\'s own extensions kept; the whole challenge when it fits', () => {
  const candidates = [{ bazaar: 'x'.repeat(4000) }, { bazaar: 'small' }];
  const fit = challengeFitter(rungs(candidates));
  const pr = challenge({ 'payment-identifier': { required: false }, ...candidates[0] });
  // The gate's room for the encodings of a cached (plain) challenge.
  const encoded = new Map<string, unknown>();
  const small = fit(pr, 2040, encoded);
  assert.deepEqual(small.paymentRequired.extensions, { 'payment-identifier': { required: false }, bazaar: 'small' });
  assert.ok(small.header.length <= 2040);
  assert.equal(fit(pr, 2040, encoded), small, 'encoded once per challenge and budget');
  const roomy = fit(pr, 100_000);
  assert.equal(roomy.paymentRequired, pr, 'within budget the gate\'s challenge is advertised as it is');
  // Nothing of the entry's fits: none of its extensions, the gate's own still there.
  const none = challengeFitter(rungs([{ bazaar: 'x'.repeat(4000) }]))(pr, 600);
  assert.deepEqual(none.paymentRequired.extensions, { 'payment-identifier': { required: false } });
  // The gate's own extensions give up their schemas before that.
  const withSchema = challenge({ 'payment-identifier': { info: { required: false }, schema: { s: 'x'.repeat(300) } }, ...candidates[0] });
  assert.deepEqual(challengeFitter(rungs(candidates))(withSchema, 600).paymentRequired.extensions, { 'payment-identifier': { info: { required: false } }, bazaar: 'small' });
});

test('short of room, the gate\'s sign-in declaration gives up its schema (which clients do not read) before the entry gives up its richest candidate; its info and chains always stay', () => {
  const signIn = { info: { domain: 'a', uri: 'http://127.0.0.1/y', nonce: 'n' }, supportedChains: [{ chainId: 'eip155:1', type: 'eip191' }], schema: { s: 'x'.repeat(600) } };
  const candidates = [{ bazaar: 'b'.repeat(600) }, { bazaar: 'small' }];
  const pr = challenge({ 'sign-in-with-x': signIn, ...candidates[0] });
  const whole = JSON.stringify(pr).length;
  const withoutSchema = challengeFitter(rungs(candidates))(pr, Math.ceil(((whole - 600) * 4) / 3) + 8);
  assert.deepEqual(withoutSchema.paymentRequired.extensions, { 'sign-in-with-x': { info: signIn.info, supportedChains: signIn.supportedChains }, bazaar: 'b'.repeat(600) });
  const tight = challengeFitter(rungs(candidates))(pr, 700);
  assert.deepEqual(tight.paymentRequired.extensions, { 'sign-in-with-x': { info: signIn.info, supportedChains: signIn.supportedChains }, bazaar: 'small' });
});

test("the service metadata on resource is traded down as each rung says, with its extensions; the resource's URL, description and media type always stay", () => {
  const metadata = { serviceName: 'Example service', tags: ['one tag', 'another tag'], iconUrl: 'https://api.example.test/favicon.svg' };
  const plain = { url: 'https://api.example.test/y', description: 'd', mimeType: 'application/json' };
  const pr = { ...challenge({ bazaar: 'rich'.repeat(100) }), resource: { ...plain, ...metadata } } as PaymentRequired;
  const fit = challengeFitter([
    { extensions: { bazaar: 'rich'.repeat(100) }, keeps: SERVICE_METADATA_KEYS },
    { extensions: { bazaar: 'bare' }, keeps: SERVICE_METADATA_KEYS },
    { extensions: { bazaar: 'bare' }, keeps: ['serviceName', 'tags'] },
    { extensions: { bazaar: 'bare' }, keeps: ['serviceName'] },
    { extensions: { bazaar: 'bare' }, keeps: [] },
  ]);
  // The challenge with the bare extension and this resource, and the budget that just holds it.
  const bare = (resource: PaymentRequired['resource']): PaymentRequired => ({ ...pr, resource, extensions: { bazaar: 'bare' } });
  const budgetFor = (p: PaymentRequired) => challengeFitter([])(p, 100_000).header.length;
  const { iconUrl: _icon, ...withoutIcon } = { ...plain, ...metadata };
  const { tags: _tags, ...nameOnly } = withoutIcon;
  for (const [what, resource] of [
    ['the leaner extensions first, with all the metadata', { ...plain, ...metadata }],
    ['then the icon goes', withoutIcon],
    ['then the tags', nameOnly],
    ['then the name', plain],
  ] as const) {
    assert.deepEqual(fit(pr, budgetFor(bare(resource))).paymentRequired, bare(resource), what);
  }
  assert.deepEqual(fit(pr, 100).paymentRequired.resource, plain, 'nothing fits: no metadata either');
});
