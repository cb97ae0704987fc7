/**
 * The operator's dashboard against the real service on the devnet: real
 * payments with the official x402 client (the devnet's own buyer, a
 * published test wallet, and two fresh wallets nobody configured), then the
 * dashboard's figures checked against the ledger and the chain: revenue,
 * paid calls per capability, buyers and repeat buyers with the test wallet
 * left out (as the newswire leaves it out), the unresolved attempt, and the
 * last deliveries' transactions. Access: bearer for scripts, the sign-in
 * form's session cookie for browsers, nothing without them, 404 when
 * ADMIN_TOKEN is unset. Then in chromium at desktop and phone widths.
 *
 * Screenshots go to a temporary directory; with UPDATE_SCREENSHOTS=1 to
 * docs/screenshots/operator-dashboard-{desktop,phone}.png (the committed
 * ones). Without /usr/bin/chromium the browser tests are skipped with the
 * reason shown, except in CI (CI=true), where they fail.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { FacilitatorClient } from '@x402/core/server';
import type { BrowserContext } from 'playwright-core';
import { browserSkip, openPageBrowser, type PageBrowser } from './support/browser.js';
import { newIndependentBuyer } from '../devnet/index.js';
import { atomicToDecimal } from '../src/catalog/price.js';
import { loadConfig } from '../src/config.js';
import { OPERATOR_CSP } from '../src/operator/page.js';
import type { DashboardReport } from '../src/operator/report.js';
import { PUBLIC_TEST_WALLETS } from '../src/payments/own-wallets.js';
import { ScriptedChain } from './support/scripted-rail.js';
import { startService } from '../src/service.js';
import { BLACK_ON_WHITE, CONTRAST, decodePaymentResponseHeader, payingFetch, startRig, tempDir, transferLogs, type Rig } from './support/harness.js';
import { screenshotDir } from './support/screenshots.js';

const TOKEN = 'operator-dashboard-test-token-0123456789';
const bearer = { authorization: `Bearer ${TOKEN}` };
const skipBrowser = browserSkip('operator-dashboard.test.ts');
const SHOTS = screenshotDir('operator-dashboard-shots');

let rig: Rig;
let base: string;
/** Every paid call made: its capability, payer and the transaction its PAYMENT-RESPONSE names. */
const paid: Array<{ resource: string; payer: string; tx: string }> = [];
let unknownId: string;

const report = async (window = '24h'): Promise<DashboardReport> => {
  const res = await fetch(`${base}/admin/dashboard.json?window=${window}`, { headers: bearer });
  assert.equal(res.status, 200, await res.clone().text());
  assert.equal(res.headers.get('cache-control'), 'no-store');
  return (await res.json()) as DashboardReport;
};

before(async () => {
  rig = await startRig({ env: { ADMIN_TOKEN: TOKEN } });
  base = rig.service.url;
  const other = rig.service.catalog.find((c) => c.path !== CONTRAST && c.priceRange === undefined && c.examples.length > 0)!;
  const strangerA = await newIndependentBuyer(rig.devnet, 1_000_000n);
  const strangerB = await newIndependentBuyer(rig.devnet, 1_000_000n);
  const calls: Array<[typeof rig.devnet.buyer, string, unknown]> = [
    [rig.devnet.buyer, CONTRAST, BLACK_ON_WHITE],
    [strangerA, CONTRAST, BLACK_ON_WHITE],
    [strangerA, CONTRAST, { ...BLACK_ON_WHITE, large_text: true }],
    [strangerA, other.path, other.examples[0]!.input],
    [strangerB, CONTRAST, BLACK_ON_WHITE],
  ];
  for (const [buyer, path, body] of calls) {
    const res = await payingFetch(rig.devnet, buyer)(base + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    assert.equal(res.status, 200, await res.text());
    const receipt = decodePaymentResponseHeader(res.headers.get('payment-response')!);
    paid.push({ resource: rig.service.catalog.find((c) => c.path === path)!.id, payer: buyer.address.toLowerCase(), tx: receipt.transaction });
  }
  // A settlement nobody could confirm: the reconciler finds the authorization unused and still valid, so it stays unknown.
  unknownId = `unknown-${randomBytes(4).toString('hex')}`;
  const ledger = rig.service.ledger;
  const now = Date.now();
  await ledger.reserve({
    attempt: {
      id: unknownId,
      network: rig.service.payment.network,
      asset: rig.service.payment.asset.address,
      payer: strangerB.address,
      nonce: `0x${randomBytes(32).toString('hex')}`,
      payTo: rig.service.payment.payTo,
      amount: rig.service.catalog.find((c) => c.path === CONTRAST)!.priceAtomic,
      resource: paid[0]!.resource,
      requestFingerprint: 'fp',
      paymentKey: null,
      validBefore: Math.floor(now / 1000) + 3600,
      payload: '{}',
      requirements: '{}',
    },
    lease: { owner: 'test', until: now + 1000 },
    now,
  });
  await ledger.advance({ id: unknownId, owner: 'test', steps: [{ to: 'verified', patch: {} }, { to: 'executed', patch: { response: { status: 200, contentType: 'application/json', body: '{}' } } }, { to: 'settling', patch: {} }, { to: 'unknown', patch: { failureCode: 'settlement_failed', facilitator: rig.service.payment.facilitatorUrls[0] } }], now });
  await ledger.release({ id: unknownId, owner: 'test' });
});
after(async () => {
  await rig?.close();
});

describe("the dashboard's figures after real devnet payments", () => {
  test('revenue, paid calls per capability and the independent figures equal the ledger; the newswire agrees', async () => {
    const r = await report();
    const summary = await rig.service.ledger.summary();
    assert.equal(r.totals.paidCalls, paid.length);
    assert.equal(r.totals.paidCalls, summary.paidDeliveries);
    assert.equal(r.totals.revenue.atomic, summary.settledAtomic);
    assert.equal(r.totals.revenue.usd, atomicToDecimal(summary.settledAtomic, 6));

    // Per capability: the count of paid calls made, at the catalog's price.
    for (const c of rig.service.catalog) {
      const made = paid.filter((p) => p.resource === c.id).length;
      const row = r.capabilities.find((x) => x.resource === c.id)!;
      assert.ok(row, `${c.id} is listed even when it sold nothing`);
      assert.equal(row.paidCalls, made, c.id);
      assert.equal(row.revenue.atomic, (BigInt(c.priceAtomic) * BigInt(made)).toString(), c.id);
      assert.equal(row.path, c.path);
      const inSeries = r.series.byCapability.find((s) => s.resource === c.id);
      assert.equal(inSeries ? inSeries.paidCalls.reduce((a, b) => a + b, 0) : 0, made, `${c.id}: the chart's bars add up`);
    }
    assert.equal(r.series.buckets.length, 24);

    // Independent: every payer the ledger knows, less the published test wallets (the devnet's buyer paid once).
    const own = new Set([...PUBLIC_TEST_WALLETS, rig.service.payment.payTo.toLowerCase()]);
    const byPayer = await rig.service.ledger.paidDeliveriesByPayer();
    const independent = byPayer.filter((p) => !own.has(p.payer));
    assert.equal(r.totals.independentPaidCalls, paid.length - 1);
    assert.equal(r.totals.independentPaidCalls, independent.reduce((n, p) => n + p.deliveries, 0));
    assert.equal(r.totals.independentRevenue.atomic, independent.reduce((n, p) => n + BigInt(p.atomic), 0n).toString());
    const newswire = (await (await fetch(base + '/v1/newswire?limit=1')).json()) as { independentRevenueUsd: number };
    assert.equal(newswire.independentRevenueUsd, Number(r.totals.independentRevenue.usd), 'the dashboard and the newswire leave out the same wallets');
  });

  test('buyers: two independent ones, one came back; the devnet buyer is left out and counted apart', async () => {
    const { buyers } = await report();
    assert.equal(buyers.count, 2);
    assert.equal(buyers.repeat, 1);
    assert.equal(buyers.repeatShare, 0.5);
    const strangers = [...new Set(paid.slice(1).map((p) => p.payer))];
    assert.deepEqual(buyers.top.map((b) => [b.payer, b.paidCalls]), strangers.map((s) => [s, paid.filter((p) => p.payer === s).length]));
    assert.deepEqual([buyers.excluded.payers, buyers.excluded.paidCalls], [1, 1]);
    assert.ok(!buyers.top.some((b) => b.payer === rig.devnet.buyer.address.toLowerCase()));
  });

  test("the last deliveries are the ledger's, with the transactions the buyers were given, on chain", async () => {
    const r = await report();
    assert.deepEqual(new Set(r.lastDeliveries.map((d) => d.txHash)), new Set(paid.map((p) => p.tx)));
    const onChain = new Set((await transferLogs(rig.devnet, { to: rig.service.payment.payTo as `0x${string}` })).map((t) => t.txHash));
    for (const d of r.lastDeliveries) {
      const a = (await rig.service.ledger.get({ id: d.id }))!;
      assert.equal(a.state, 'settled');
      assert.equal(a.txHash, d.txHash);
      assert.equal(a.amount, d.amount.atomic);
      assert.equal(a.payer, d.payer);
      assert.equal(a.resource, d.resource);
      assert.equal(new Date(a.updatedAt).toISOString(), d.settledAt);
      assert.ok(onChain.has(d.txHash as `0x${string}`), `${d.txHash} moved the payment to the payee on chain`);
    }
    const times = r.lastDeliveries.map((d) => d.settledAt);
    assert.deepEqual(times, [...times].sort().reverse(), 'newest first');
  });

  test('attempts by state, the unresolved attempt listed, settlement time and the facilitator as recorded', async () => {
    const r = await report();
    assert.equal(r.attempts.byState.settled, paid.length);
    assert.equal(r.attempts.byState.unknown, 1);
    assert.equal(r.attempts.unresolvedTotal, 1);
    assert.deepEqual(r.attempts.unresolved.map((u) => [u.id, u.state, u.lease, u.failureCode]), [[unknownId, 'unknown', 'free', 'settlement_failed']]);
    assert.equal(r.settlement.count, paid.length);
    assert.equal(r.settlement.histogram.at(-1)!.count <= paid.length, true);
    assert.ok(r.settlement.meanSeconds! > 0);
    assert.equal(r.facilitators.length, 1);
    const f = r.facilitators[0]!;
    assert.equal(f.up, true);
    assert.ok(f.settle.calls >= paid.length && f.verify.calls >= paid.length, JSON.stringify(f));
    assert.equal(f.settle.outcomes.success! >= paid.length, true);
  });

  test('the page shows the same figures: revenue, each capability, the transactions, the unresolved attempt', async () => {
    const res = await fetch(base + '/admin/dashboard?window=24h', { headers: bearer });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type')!, /^text\/html; charset=utf-8/);
    assert.equal(res.headers.get('content-security-policy'), OPERATOR_CSP);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    const page = await res.text();
    const r = await report();
    assert.ok(page.includes(`$${r.totals.revenue.usd}`), 'total revenue');
    assert.ok(page.includes(`$${r.totals.independentRevenue.usd}`), 'independent revenue');
    for (const p of paid) assert.ok(page.includes(p.tx), p.tx);
    assert.ok(page.includes(unknownId));
    assert.ok(!/<script/i.test(page), 'no script');
    assert.equal((page.match(/<svg /g) ?? []).length >= 2, true, 'charts are inline SVG');
  });

  test('windows: 7d (the default) in 6-hour buckets and 30d in days; anything else is 400 invalid_parameter', async () => {
    const week = await report('7d');
    assert.equal(week.series.buckets.length, 28);
    assert.equal(week.totals.paidCalls, paid.length);
    const month = await report('30d');
    assert.equal(month.series.buckets.length, 30);
    const plain = (await (await fetch(`${base}/admin/dashboard.json`, { headers: bearer })).json()) as DashboardReport;
    assert.equal(plain.window.name, '7d');
    for (const q of ['window=1y', 'window=24h&window=7d', 'window=']) {
      const res = await fetch(`${base}/admin/dashboard.json?${q}`, { headers: bearer });
      assert.equal(res.status, 400, q);
      assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'invalid_parameter');
      assert.equal((await fetch(`${base}/admin/dashboard?${q}`, { headers: bearer })).status, 400, q);
    }
  });
});

describe('access', () => {
  test('no token: the page answers 401 with the sign-in form, the JSON 401 unauthorized; a wrong token likewise', async () => {
    for (const headers of [{}, { authorization: 'Bearer wrong-token-wrong-token' }, { authorization: TOKEN }] as Array<Record<string, string>>) {
      const page = await fetch(base + '/admin/dashboard', { headers });
      assert.equal(page.status, 401);
      const text = await page.text();
      assert.match(text, /<form class="login" method="post" action="\/admin\/login">/);
      assert.ok(!text.includes('class="cards"') && !text.includes('<svg'), 'no figure shown');
      const json = await fetch(base + '/admin/dashboard.json', { headers });
      assert.equal(json.status, 401);
      assert.equal(((await json.json()) as { error: { code: string } }).error.code, 'unauthorized');
      assert.match(json.headers.get('www-authenticate')!, /^Bearer/);
    }
  });

  test('the sign-in form: a wrong token is refused without a cookie; the right one sets a session cookie that holds no secret and opens the page; sign-out ends it', async () => {
    const form = (token: string) => fetch(base + '/admin/login', { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token }).toString() });
    const wrong = await form('not-the-admin-token-at-all');
    assert.equal(wrong.status, 401);
    assert.equal(wrong.headers.get('set-cookie'), null);
    assert.match(await wrong.text(), /not the admin token/);

    const ok = await form(TOKEN);
    assert.equal(ok.status, 303);
    assert.equal(ok.headers.get('location'), '/admin/dashboard');
    const setCookie = ok.headers.get('set-cookie')!;
    assert.match(setCookie, /^operator_session=v1\.[0-9]+\.[A-Za-z0-9_-]{43}; Path=\/admin; Max-Age=43200; HttpOnly; SameSite=Strict$/, 'no Secure over plain http');
    assert.ok(!setCookie.includes(TOKEN));
    const cookie = setCookie.split(';')[0]!;
    assert.equal((await fetch(base + '/admin/dashboard', { headers: { cookie } })).status, 200);
    assert.equal((await fetch(base + '/admin/dashboard.json', { headers: { cookie } })).status, 200);

    // A cookie changed by one character, or made up, opens nothing.
    const tampered = cookie.replace(/\.([0-9]+)\./, (_, e: string) => `.${Number(e) + 1}.`);
    assert.equal((await fetch(base + '/admin/dashboard', { headers: { cookie: tampered } })).status, 401);
    assert.equal((await fetch(base + '/admin/dashboard', { headers: { cookie: `operator_session=${TOKEN}` } })).status, 401);

    const out = await fetch(base + '/admin/logout', { method: 'POST', redirect: 'manual', headers: { cookie } });
    assert.equal(out.status, 303);
    assert.match(out.headers.get('set-cookie')!, /^operator_session=; Path=\/admin; Max-Age=0; HttpOnly; SameSite=Strict/);
  });

  test('over https (directly, or through a trusted proxy) the session cookie is Secure', async () => {
    const res = await rig.service.app.request('https://dashboard.example.test/admin/login', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `token=${TOKEN}` });
    assert.equal(res.status, 303);
    assert.match(res.headers.get('set-cookie')!, /; HttpOnly; SameSite=Strict; Secure$/);
  });

  test('the sign-in takes a form only: JSON or an empty token is 400; the token never goes in a URL (GET is 405)', async () => {
    const json = await fetch(base + '/admin/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: TOKEN }) });
    assert.equal(json.status, 400);
    assert.equal(json.headers.get('set-cookie'), null);
    const empty = await fetch(base + '/admin/login', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'token=' });
    assert.equal(empty.status, 400);
    assert.equal((await fetch(`${base}/admin/login?token=${TOKEN}`)).status, 405);
  });

});

describe('in a browser', { skip: skipBrowser }, () => {
  let pb: PageBrowser;
  let context: BrowserContext;
  const errors: string[] = [];

  before(async () => {
    pb = await openPageBrowser(base);
    context = pb.context;
  });
  after(async () => {
    await pb?.close();
  });

  test('signing in through the form opens the dashboard', async () => {
    const page = await context.newPage();
    page.on('pageerror', (e) => errors.push(e.message));
    await page.setViewportSize({ width: 1280, height: 800 });
    const first = await page.goto(base + '/admin/dashboard');
    assert.equal(first?.status(), 401);
    await page.fill('#token', TOKEN);
    await Promise.all([page.waitForURL(base + '/admin/dashboard'), page.click('button[type=submit]')]);
    assert.equal(await page.locator('h1').innerText(), 'Operator dashboard');
    assert.ok(!page.url().includes(TOKEN), 'the token is not in the URL');
    const cookies = await context.cookies(base + '/admin/dashboard');
    assert.deepEqual(cookies.map((c) => [c.name, c.httpOnly, c.sameSite]), [['operator_session', true, 'Strict']]);
    await page.close();
  });

  for (const [name, viewport] of [
    ['desktop', { width: 1280, height: 800 }],
    ['phone', { width: 390, height: 844 }],
  ] as const) {
    test(`the dashboard at ${name} width (${viewport.width}×${viewport.height}): figures, charts, transactions, no horizontal overflow`, async () => {
      const page = await context.newPage();
      page.on('pageerror', (e) => errors.push(e.message));
      await page.setViewportSize(viewport);
      const res = await page.goto(base + '/admin/dashboard?window=24h');
      assert.equal(res?.status(), 200);
      const r = await report();
      assert.ok((await page.locator('.cards').innerText()).includes(`$${r.totals.revenue.usd}`));
      assert.equal(await page.locator('#deliveries tbody tr').count(), paid.length);
      for (const p of paid) assert.ok((await page.locator('#deliveries').innerText()).includes(p.tx));
      assert.equal(await page.locator('#unresolved tbody tr').count(), 1);
      for (const chart of await page.locator('figure.chart svg').all()) {
        const box = (await chart.boundingBox())!;
        assert.ok(box.width > 200 && box.height > 100, `a chart is drawn (${box.width}×${box.height})`);
      }
      assert.ok((await page.locator('figure.chart rect').count()) >= 2, 'bars drawn');
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.equal(overflow, 0, `the page is ${overflow}px wider than the ${name} viewport`);
      mkdirSync(SHOTS, { recursive: true });
      const file = join(SHOTS, `operator-dashboard-${name}.png`);
      await page.screenshot({ path: file, fullPage: true });
      assert.ok(statSync(file).size > 5_000, 'a screenshot was written');
      await page.close();
    });
  }

  test('nothing came from another origin and no script failed', () => {
    assert.deepEqual(pb.foreign, []);
    assert.deepEqual(errors, []);
    process.stderr.write(`operator-dashboard.test.ts: screenshots in ${SHOTS}\n`);
  });
});

// Last: this service shares the process's metrics registry, and its facilitator would show on the pages above.
describe('without ADMIN_TOKEN', () => {
  test('ADMIN_TOKEN unset: every dashboard path is 404', async () => {
    const network = 'eip155:84532';
    const facilitator = { getSupported: async () => ({ kinds: [{ x402Version: 2, scheme: 'exact', network }], extensions: [], signers: {} }) } as unknown as FacilitatorClient;
    const config = loadConfig({ X402_NETWORK: network, X402_PAY_TO: '0x1111111111111111111111111111111111111111', X402_FACILITATOR_URL: 'http://127.0.0.1:9', X402_RPC_URL: 'http://127.0.0.1:9', HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'silent', DATA_DIR: tempDir('operator-off-') });
    const svc = await startService(config, { facilitator, chain: new ScriptedChain() });
    try {
      for (const [method, path] of [['GET', '/admin/dashboard'], ['GET', '/admin/dashboard.json'], ['POST', '/admin/login'], ['POST', '/admin/logout']] as const) {
        const res = await svc.app.request(path, { method, headers: { ...bearer, 'content-type': 'application/x-www-form-urlencoded' }, body: method === 'POST' ? `token=${TOKEN}` : undefined });
        assert.equal(res.status, 404, `${method} ${path}`);
      }
    } finally {
      await svc.close();
    }
  });
});
