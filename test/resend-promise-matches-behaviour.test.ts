/**
 * Finding (issue 41, row 8): the first contact promised what a plain client
 * does not get. The 402 body's how_to_pay and llms.txt said that repeating
 * the same PAYMENT-SIGNATURE returns the result again at no charge; with
 * @x402/fetch and no payment-identifier (what pay.mjs does) that resend gets
 * 402 redelivery_proof_required, because the signature is public on chain
 * once settled.
 *
 * Every text a buyer meets first (the 402 body, /llms.txt, the front page as
 * HTML and JSON, OpenAPI, the README) is read as served and held to what the
 * service does on the devnet: a plain payment resent, the same with an
 * identifier, with a sign-in, and over MPP.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { privateKeyToAccount } from 'viem/accounts';
import { Challenge } from 'mppx';
import { charge } from 'mppx/evm/client';
import { wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithSIWx } from '@x402/extensions/sign-in-with-x';
import { generatePaymentId } from '@x402/extensions/payment-identifier';
import * as howToPay from '../src/payments/how-to-pay.js';
import { CONTRAST, decodePaymentResponseHeader, postJson, startRig, transferLogs, type Rig } from './support/harness.js';
import { sendPaymentIdentifier } from './support/payment-id.js';

const README = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
/** README's part for the buyer who lost an answer, after its bold title (the rest of README is held to other things by other tests). */
function readmeOnResending(): string {
  const title = README.indexOf('**Getting a paid result again');
  assert.ok(title >= 0, 'README.md has its "Getting a paid result again" paragraph');
  const from = README.indexOf('**', title + 2) + 2;
  return README.slice(from, README.indexOf('\nLedger states:', from));
}

/** Text as a reader sees it: tags and Markdown code marks gone, entities decoded, whitespace collapsed. */
function readable(text: string): string {
  return text
    .replace(/<[^>]+>/g, ' ')
    .replace(/`/g, '')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The sentences that promise something to a resend: they speak of sending a payment again (not of the paid retry itself) and of what it gets. */
function resendPromises(text: string): string[] {
  return readable(text)
    .split(/(?<=[.!?])\s+(?=[A-Z(*])/)
    .filter((s) => /\b(resend\w*|again|lost)\b|\bsame (payment|PAYMENT-SIGNATURE|credential)\b/i.test(s) && /\b(result|charged|paying twice|returns?)\b/i.test(s));
}

describe('what the first contact says about resending is what a plain client gets', () => {
  let rig: Rig;
  let url: string;
  const texts: Array<[string, string]> = [];
  /** The code a plain @x402/fetch payment got when resent (the reference every text is held to). */
  let plainResend: string | undefined;

  before(async () => {
    rig = await startRig({ env: { MPP_SECRET_KEY: 'test-mpp-secret-0123456789abcdef0123456789' } });
    url = rig.service.url + CONTRAST;
    const unpaid = await postJson(url, { foreground: '#000000', background: '#ffffff', large_text: false });
    assert.equal(unpaid.status, 402);
    const body = (await unpaid.json()) as { problem: { how_to_pay: string; message: string } };
    const openapi = (await (await fetch(rig.service.url + '/openapi.json')).json()) as { info: { description: string }; paths: Record<string, { post: { responses: Record<string, { description: string }> } }> };
    texts.push(
      ['402 body how_to_pay', body.problem.how_to_pay],
      ['402 body message', body.problem.message],
      ['/llms.txt', await (await fetch(rig.service.url + '/llms.txt')).text()],
      ['GET / (HTML)', await (await fetch(rig.service.url + '/', { headers: { accept: 'text/html' } })).text()],
      ['GET / (JSON) how_to_pay', ((await (await fetch(rig.service.url + '/', { headers: { accept: 'application/json' } })).json()) as { how_to_pay: string }).how_to_pay],
      ['OpenAPI info.description', openapi.info.description],
      ['OpenAPI paid 200', openapi.paths[CONTRAST]!.post.responses['200']!.description],
      ['README.md (Getting a paid result again)', readmeOnResending()],
    );
  });
  after(async () => rig?.close());

  const transfers = async () => (await transferLogs(rig.devnet, { from: rig.devnet.buyer.address })).length;

  /** A payment as pay.mjs makes it (@x402/fetch, spend controls for the devnet token), optionally with a registered payment-identifier; returns the PAYMENT-SIGNATURE it sent. */
  async function pay(body: object, opts: { paymentId?: string } = {}) {
    const client = new x402Client().register('eip155:*', new ExactEvmScheme(privateKeyToAccount(rig.devnet.buyer.privateKey)));
    client.setSpendControls({ allowedAssets: [{ network: rig.devnet.network, asset: rig.devnet.asset, maxAmountPerPayment: '100000' }] });
    const id = opts.paymentId;
    if (id) {
      sendPaymentIdentifier(client, id);
    }
    let header = '';
    const recording = (async (input: RequestInfo | URL, init?: RequestInit) => {
      const req = new Request(input, init);
      header = req.headers.get('payment-signature') ?? header;
      return fetch(req);
    }) as typeof fetch;
    const res = await wrapFetchWithPayment(recording, client)(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    assert.equal(res.status, 200);
    return { header, tx: decodePaymentResponseHeader(res.headers.get('payment-response')!).transaction, bytes: await res.text() };
  }

  test('behaviour: the same PAYMENT-SIGNATURE alone gets 402 redelivery_proof_required; a sign-in without the payment, or the payment with its identifier, a sign-in or the same MPP credential, the same result and no second settlement', async () => {
    const plainBody = { foreground: '#102030', background: '#ffffff', large_text: false };
    const plain = await pay(plainBody);
    const charged = await transfers();
    const resent = await postJson(url, plainBody, { 'PAYMENT-SIGNATURE': plain.header });
    assert.equal(resent.status, 402);
    const refused = (await resent.json()) as { problem: { code: string; how_to_pay: string } };
    plainResend = refused.problem.code;
    assert.equal(plainResend, 'redelivery_proof_required');
    // The sign-in the text names recovers the plain payment, as it says: the same request, no payment header, the SDK's client.
    const signedIn = await wrapFetchWithSIWx(fetch, privateKeyToAccount(rig.devnet.buyer.privateKey))(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(plainBody),
    });
    assert.equal(signedIn.status, 200);
    assert.equal(await signedIn.text(), plain.bytes);
    // And with the payment the text names as the other use of a sign-in: the proof of its buyer.
    const withPayment = await wrapFetchWithSIWx(fetch, privateKeyToAccount(rig.devnet.buyer.privateKey))(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'PAYMENT-SIGNATURE': plain.header },
      body: JSON.stringify(plainBody),
    });
    assert.equal(withPayment.status, 200);
    assert.equal(await withPayment.text(), plain.bytes);

    const idBody = { foreground: '#203040', background: '#ffffff', large_text: false };
    const withId = await pay(idBody, { paymentId: generatePaymentId() });
    const afterFirst = await transfers();
    assert.equal(afterFirst, charged + 1);
    const again = await postJson(url, idBody, { 'PAYMENT-SIGNATURE': withId.header });
    assert.equal(again.status, 200, 'the same PAYMENT-SIGNATURE carrying its payment-identifier');
    assert.equal(await again.text(), withId.bytes, 'the same result');
    assert.equal(decodePaymentResponseHeader(again.headers.get('payment-response')!).transaction, withId.tx, 'the first settlement');

    const mppBody = { foreground: '#304050', background: '#ffffff', large_text: false };
    const challenge = Challenge.fromResponse(await postJson(url, mppBody));
    const credential = await charge({ account: privateKeyToAccount(rig.devnet.buyer.privateKey), authorization: { name: rig.devnet.assetName, version: rig.devnet.assetVersion } }).createCredential({ challenge: challenge as never, context: {} });
    const mppPaid = await postJson(url, mppBody, { Authorization: credential });
    assert.equal(mppPaid.status, 200);
    const mppBytes = await mppPaid.text();
    const mppAgain = await postJson(url, mppBody, { Authorization: credential });
    assert.equal(mppAgain.status, 200, 'the same MPP credential');
    assert.equal(await mppAgain.text(), mppBytes);
    assert.equal(await transfers(), afterFirst + 1, 'one settlement per payment, none for any resend');
  });

  test('every text that speaks of resending names the proof it needs and what a resend without it gets', () => {
    assert.ok(plainResend, 'the behaviour test ran first');
    for (const [where, text] of texts) {
      const promises = resendPromises(text);
      assert.ok(promises.length > 0, `${where} says nothing about resending`);
      for (const s of promises) assert.match(s, /payment-identifier|proof|proves?\b|sign-in|SIGN-IN-WITH-X/i, `${where} promises a resend without naming its proof: "${s}"`);
      assert.ok(readable(text).includes(plainResend!), `${where} does not say what a resend without proof gets (${plainResend})`);
      // The sign-in the behaviour test recovered with: named as the official client that does it, with its header and no payment.
      assert.match(readable(text), /wrapFetchWithSIWx/, `${where} does not name the SDK's sign-in client`);
      assert.match(readable(text), /SIGN-IN-WITH-X header and no payment/, `${where} does not say the sign-in needs no payment`);
    }
  });

  test('they say it in the same words: the one sentence of src/payments/how-to-pay.ts', () => {
    const sentence = (howToPay as Record<string, unknown>).RESEND_NEEDS_PROOF;
    assert.equal(typeof sentence, 'string', 'src/payments/how-to-pay.ts exports RESEND_NEEDS_PROOF');
    for (const [where, text] of texts) assert.ok(readable(text).includes(readable(sentence as string)), `${where} does not carry the resend sentence`);
  });
});
