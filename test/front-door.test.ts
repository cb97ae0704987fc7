/**
 * The front door (`GET /`) and the API reference (`/docs`) against the real
 * service on the devnet: JSON for agents and a page for people by content
 * negotiation, prices from the catalog, a curl on the page that really gets
 * the 402; then in chromium at desktop and phone widths (no horizontal
 * overflow, screenshots), and Swagger UI served from this origin listing the
 * operations. Nothing may be loaded from another origin.
 *
 * Without /usr/bin/chromium the browser tests are skipped with the reason
 * shown, except in CI (CI=true), where they fail: .ci/run installs chromium.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { screenshotDir } from './support/screenshots.js';
import type { BrowserContext } from 'playwright-core';
import { browserSkip, openPageBrowser, type PageBrowser } from './support/browser.js';
import { atomicToDecimal } from '../src/catalog/price.js';
import { FRONT_DOOR_CSP } from '../src/discovery/front-door.js';
import { startRig, type Rig } from './support/harness.js';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const skipBrowser = browserSkip('front-door.test.ts');

const run = promisify(execFile);
/** Shell-unescape the page's text as a person copying it would get it. */
const unescapeHtml = (s: string) => s.replace(/&#39;/g, "'").replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

let rig: Rig;
let base: string;

before(async () => {
  rig = await startRig();
  base = rig.service.url;
});
after(async () => {
  await rig?.close();
});

describe('GET / by content negotiation', () => {
  test('agents (no Accept, */*, application/json) get the JSON index: links and every paid resource with its price', async () => {
    for (const accept of [undefined, '*/*', 'application/json']) {
      const res = await fetch(base + '/', { headers: accept ? { accept } : {} });
      assert.equal(res.status, 200, String(accept));
      assert.match(res.headers.get('content-type')!, /^application\/json/);
      assert.ok(res.headers.get('vary')?.split(/\s*,\s*/).includes('Accept'), `Vary: ${res.headers.get('vary')}`);
      const body = (await res.json()) as Json;
      for (const key of ['openapi', 'docs', 'llms_txt', 'mcp', 'newswire', 'graph', 'router', 'manifest', 'agent_card']) assert.ok(body.links[key]?.startsWith(base + '/'), `links.${key}`);
      assert.deepEqual(
        body.paid.map((p: Json) => [p.method, p.url, p.price_atomic]),
        rig.service.catalog.map((c) => [c.method, base + c.path, c.priceAtomic]),
      );
      assert.deepEqual(body.paid.map((p: Json) => p.summary), rig.service.catalog.map((c) => c.summary), 'what each call returns, in one sentence');
      assert.equal(body.payment.pay_to, rig.service.payment.payTo);
    }
  });

  test('browsers get the page: every resource with its price in dollars, links, how to pay, a CSP without scripts', async () => {
    const res = await fetch(base + '/', { headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' } });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type')!, /^text\/html; charset=utf-8/i);
    assert.equal(res.headers.get('content-security-policy'), FRONT_DOOR_CSP);
    const page = await res.text();
    for (const c of rig.service.catalog) {
      assert.ok(page.includes(`${c.method} ${c.path}`), c.path);
      assert.ok(page.includes(`$${atomicToDecimal(c.priceAtomic, 6)}`), `${c.path} at $${atomicToDecimal(c.priceAtomic, 6)}`);
    }
    for (const href of ['/docs', '/openapi.json', '/llms.txt', '/mcp', '/newswire', '/graph', '/v1/router', '/.well-known/agent-card.json']) assert.ok(page.includes(`href="${href}"`), href);
    assert.match(page, /PAYMENT-SIGNATURE/);
    // How to pay is steps a newcomer follows, not one paragraph of protocol terms.
    assert.equal((page.match(/<ol class="steps">[\s\S]*?<\/ol>/)![0].match(/<li>/g) ?? []).length, 4);
  });

  test("the page's curl, copied and run as is, gets the 402 from this origin", async () => {
    const page = await (await fetch(base + '/', { headers: { accept: 'text/html' } })).text();
    const m = /<pre><code>(curl [^<]+)<\/code><\/pre>/.exec(page);
    assert.ok(m, 'a curl command on the page');
    const command = unescapeHtml(m[1]!);
    assert.ok(command.includes(base + '/x402/v1/'), command);
    const out = await run('sh', ['-c', command]);
    assert.match(out.stdout, /^HTTP\/1\.1 402/);
    assert.match(out.stdout, /^payment-required: /im);
  });
});

describe('in a browser', { skip: skipBrowser }, () => {
  let pb: PageBrowser;
  let context: BrowserContext;
  const errors: string[] = [];
  const shots = screenshotDir('front-door-shots');

  before(async () => {
    pb = await openPageBrowser(base);
    context = pb.context;
  });
  after(async () => {
    await pb?.close();
  });

  for (const [name, viewport] of [
    ['desktop', { width: 1280, height: 800 }],
    ['phone', { width: 390, height: 844 }],
  ] as const) {
    test(`the front door at ${name} width (${viewport.width}×${viewport.height}): every price shown, no horizontal overflow`, async () => {
      const page = await context.newPage();
      page.on('pageerror', (e) => errors.push(e.message));
      await page.setViewportSize(viewport);
      const res = await page.goto(base + '/');
      assert.equal(res?.status(), 200);
      assert.equal(await page.locator('h1').innerText(), 'Agent pay-per-call utilities');
      const offers = page.locator('article.offer');
      assert.equal(await offers.count(), rig.service.catalog.length);
      const overflowOf = () => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.equal(await overflowOf(), 0, `the page is wider than the ${name} viewport`);
      const file = join(shots, `front-door-${name}.png`);
      await page.screenshot({ path: file, fullPage: true });
      assert.ok(statSync(file).size > 5_000, 'a screenshot was written');
      for (const c of rig.service.catalog) {
        const offer = page.locator(`#offer-${c.id}`);
        const text = await offer.innerText();
        assert.ok(text.includes(c.path) && text.includes(`$${atomicToDecimal(c.priceAtomic, 6)}`), c.path);
        // What it does is on screen at every width, not hidden to make room.
        const what = offer.locator('.what');
        assert.ok(await what.isVisible(), `${c.id}: what it does is visible`);
        assert.equal((await what.innerText()).trim(), c.summary);
        const box = (await what.boundingBox())!;
        assert.ok(box.x >= 0 && box.x + box.width <= viewport.width, `${c.id}: within the ${viewport.width} px viewport`);
        if (c.examples[0]) {
          await offer.locator('details summary').click();
          assert.match(await offer.locator('details').innerText(), /You send[\s\S]*You get back/i);
        }
      }
      assert.equal(await overflowOf(), 0, `with every example open, the page is wider than the ${name} viewport`);
      await page.close();
    });
  }

  test('/docs renders Swagger UI from this origin and lists the operations of /openapi.json', async () => {
    const page = await context.newPage();
    page.on('pageerror', (e) => errors.push(e.message));
    await page.setViewportSize({ width: 1280, height: 800 });
    const res = await page.goto(base + '/docs');
    assert.equal(res?.status(), 200);
    await page.locator('.opblock').first().waitFor({ timeout: 30_000 });
    const paths = await page.locator('.opblock-summary-path').allInnerTexts();
    const openapi = (await (await fetch(base + '/openapi.json')).json()) as Json;
    const described = Object.values(openapi.paths as Record<string, object>).reduce<number>((n, item) => n + Object.keys(item).filter((k) => ['get', 'post', 'put', 'patch', 'delete'].includes(k)).length, 0);
    assert.equal(paths.length, described, 'one operation block per described operation');
    for (const c of rig.service.catalog) assert.ok(paths.some((p) => p.replace(/\u200b/g, '') === c.path), c.path);
    await page.screenshot({ path: join(shots, 'api-reference-desktop.png') });
    await page.close();
  });

  test('nothing came from another origin and no script failed', () => {
    assert.deepEqual(pb.foreign, []);
    assert.deepEqual(errors, []);
    process.stderr.write(`front-door.test.ts: screenshots in ${shots}\n`);
  });
});

test('an unknown /docs file is 404', async () => {
  const res = await fetch(base + '/docs/..%2Fpackage.json');
  assert.equal(res.status, 404);
  assert.equal(((await res.json()) as Json).error.code, 'not_found');
});

test('a trailing slash on a page is a 308 to the page (/docs/ → /docs), never to another origin; a POST is not redirected', async () => {
  for (const [from, to] of [['/docs/', '/docs'], ['/newswire/?type=standards', '/newswire?type=standards'], ['/docs//', '/docs']]) {
    const res = await fetch(base + from, { redirect: 'manual' });
    assert.equal(res.status, 308, from);
    assert.equal(res.headers.get('location'), to, from);
  }
  assert.equal((await fetch(base + '/docs/', { redirect: 'follow' })).status, 200);
  for (const tricky of ['//evil.example/', '/%5Cevil.example/']) {
    const res = await fetch(base + tricky, { redirect: 'manual' });
    assert.notEqual(res.status, 308, tricky);
  }
  const post = await fetch(base + '/docs/', { method: 'POST', redirect: 'manual' });
  assert.equal(post.status, 404);
});
