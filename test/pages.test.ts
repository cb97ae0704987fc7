/**
 * Pages for people (`GET /newswire`, `GET /newswire/{slug}`) as a reader
 * sees them: Playwright drives Debian's chromium against the real service
 * (devnet rail, starter corpus), after the admin API has corrected one
 * starter item, retracted another, published a headline full of markup and
 * held a TIER_D item.
 *
 * Without /usr/bin/chromium the browser tests are skipped with the reason
 * shown, except in CI (CI=true), where they fail: .ci/run installs chromium.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { screenshotDir } from './support/screenshots.js';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { escapeHtml, html, PAGE_CSP } from '../src/intel/pages.js';
import { EVIDENCE_TIERS, type EvidenceTier } from '../src/intel/tiers.js';
import { startRig, type Rig } from './support/harness.js';
import { itemRecord } from './support/intel.js';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const CHROMIUM = '/usr/bin/chromium';
const TOKEN = 'pages-test-admin-token-0123456789';
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'];
const SCRIPT_HEADLINE = '<script>window.__pwned = true</script> Escaping check: <b>not bold</b> & "quoted" \'text\'';
const RETRACTION_REASON = 'Retracted by the page test: the source does not support the date.';

const chromiumMissing = !existsSync(CHROMIUM);
const skipBrowser = chromiumMissing && process.env.CI !== 'true' ? `${CHROMIUM} is missing (install Debian's chromium: apt-get install chromium); CI installs it and fails without it` : false;
if (skipBrowser) process.stderr.write(`pages.test.ts: browser tests SKIPPED: ${skipBrowser}\n`);

test('escapeHtml and html`` escape every interpolated string', () => {
  assert.equal(escapeHtml(`<script>alert("x")</script> & 'y'`), '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;');
  const evil = '"><img src=x onerror=alert(1)>';
  const out = html`<a href="${evil}" title='${evil}'>${evil}</a>${[evil, html`<b>${evil}</b>`]}`.text;
  assert.ok(!out.includes('<img'), out);
  assert.equal(out.match(/<b>/g)?.length, 1, 'nested html`` stays markup, its values escaped');
  assert.equal(html`${null}${undefined}${false}${0}`.text, '0');
});

describe('pages for people in a browser', { skip: skipBrowser }, () => {
  let rig: Rig;
  let base: string;
  let browser: Browser;
  let context: BrowserContext;
  const foreignRequests: string[] = [];
  const browserErrors: string[] = [];
  // The pictures of particular states stay in a temporary folder; the 1280 and 390 px views are the README's.
  const shots = mkdtempSync(join(tmpdir(), 'pages-shots-'));
  const docShots = screenshotDir('pages-doc-shots');

  let original: Json; // a starter item, then corrected
  let correction: Json;
  let retracted: Json;
  let scripted: Json;
  let heldId: string;

  const admin = async (method: string, path: string, body?: unknown): Promise<Json> => {
    const res = await fetch(base + path, { method, headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` }, body: body === undefined ? undefined : JSON.stringify(body) });
    const json = await res.json();
    assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  const api = async (qs: string): Promise<Json[]> => {
    const res = await fetch(`${base}/v1/newswire?${qs}`);
    assert.equal(res.status, 200);
    return ((await res.json()) as Json).items;
  };
  /** A page whose console errors and script errors fail the run (not for pages that answer 400/404 on purpose: the browser logs those). */
  const newPage = async (watch = true): Promise<Page> => {
    const page = await context.newPage();
    if (!watch) return page;
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') browserErrors.push(`${page.url()}: console ${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => browserErrors.push(`${page.url()}: ${e.message}`));
    return page;
  };
  /** What a reader sees of each item on a feed page, in order. */
  const feedArticles = (page: Page) =>
    page.$$eval('article.item', (articles) =>
      articles.map((a) => ({
        id: a.getAttribute('data-event-id'),
        headline: a.querySelector('h2 a')?.textContent ?? '',
        href: a.querySelector('h2 a')?.getAttribute('href') ?? '',
        date: a.querySelector('.meta time')?.getAttribute('datetime') ?? '',
        tier: a.querySelector('.badge.tier')?.textContent ?? '',
        tierMeaning: a.querySelector('.tier-meaning')?.textContent ?? '',
        sources: [...a.querySelectorAll('.sources a')].map((l) => ({ href: l.getAttribute('href'), rel: l.getAttribute('rel') })),
        retractedBadge: a.querySelector('.badge.retracted')?.textContent ?? null,
        text: (a as HTMLElement).innerText,
      })),
    );

  before(async () => {
    assert.ok(!chromiumMissing, `${CHROMIUM} is missing and CI=true: .ci/run must install Debian's chromium`);
    rig = await startRig({ env: { ADMIN_TOKEN: TOKEN } });
    base = rig.service.url;

    const starter = await api('limit=200');
    assert.equal(starter.length, 60, 'the starter corpus');
    // Near the top of the feed, so the screenshot shows the correction notices.
    const orig = (await admin('GET', `/admin/v1/items/${starter[1].eventId}`)) as Json;
    correction = (
      await admin('POST', `/admin/v1/items/${orig.item.eventId}/corrections`, {
        eventId: 'pages-test-correction',
        eventDate: orig.item.eventDate,
        datePrecision: orig.item.datePrecision,
        type: orig.item.type,
        headline: `Correction: ${orig.item.headline}`.slice(0, 200),
        summary: 'The page test publishes this correction to check that corrections are linked both ways.',
        whyItMatters: 'Readers of the original must find the correction, and readers of the correction the original.',
        entities: orig.item.entities,
        protocols: orig.item.protocols,
        topics: orig.item.topics,
        sources: orig.evidence.map((e: Json) => ({ url: e.url, sourceType: e.sourceType })),
        evidenceTier: orig.item.evidenceTier,
        ...(orig.item.evidenceNote ? { caveat: orig.item.evidenceNote } : {}),
      })
    ).item;
    original = (await admin('GET', `/admin/v1/items/${orig.item.eventId}`)).item;
    retracted = (await admin('POST', `/admin/v1/items/${starter[3].eventId}/retraction`, { reason: RETRACTION_REASON })).item;
    const { kind: _k, ...rec } = itemRecord({ headline: SCRIPT_HEADLINE, eventDate: '2025-01-15', entities: ['x402'], protocols: ['x402'] });
    scripted = (await admin('POST', '/admin/v1/items', rec)).item;
    const { kind: _k2, ...held } = itemRecord({ evidenceTier: 'TIER_D', sources: [{ url: 'https://example.org/rumour', sourceType: 'public_forum' }] });
    heldId = (await admin('POST', '/admin/v1/items', held)).id;

    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    context = await browser.newContext({ viewport: { width: 1100, height: 1000 }, colorScheme: 'light' });
    // The pages must need nothing but this service: any other request is refused and recorded.
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith(base + '/')) return route.continue();
      foreignRequests.push(url);
      return route.abort();
    });
  });

  after(async () => {
    await browser?.close().catch(() => {});
    await rig?.close();
  });

  test('the feed page: headers, title, language, and the API’s items in the API’s order with tiers and sources', async () => {
    const page = await newPage();
    const res = await page.goto(base + '/newswire');
    assert.equal(res?.status(), 200);
    const headers = res!.headers();
    assert.equal(headers['content-security-policy'], PAGE_CSP);
    assert.match(headers['content-type']!, /^text\/html; charset=utf-8$/);
    assert.match(headers.etag!, /^"[A-Za-z0-9_-]{43}"$/, 'a strong ETag');
    assert.equal(await page.getAttribute('html', 'lang'), 'en');
    assert.match(await page.title(), /Newswire/);
    assert.equal(await page.locator('h1').textContent(), 'Newswire');

    const expected = await api('limit=100');
    assert.equal(expected.length, 61, '60 starter items − 1 retracted + the correction + the markup item; the held item is never shown');
    const seen = await feedArticles(page);
    assert.deepEqual(
      seen.map((a) => a.headline),
      expected.map((i) => i.headline),
      'the headlines a reader sees, in the API’s order (newest eventDate first)',
    );
    const dates = seen.map((a) => a.date);
    assert.deepEqual(dates, [...dates].sort().reverse(), 'newest event date first');
    for (const [n, a] of seen.entries()) {
      const item = expected[n];
      assert.equal(a.id, item.eventId);
      assert.equal(a.href, `/newswire/${item.slug}`);
      assert.equal(a.tier, `Tier ${(item.evidenceTier as string).slice(-1)}`, item.eventId);
      assert.equal(a.tierMeaning, EVIDENCE_TIERS[item.evidenceTier as EvidenceTier].label);
      assert.deepEqual(a.sources.map((s) => s.href), item.sourceURLs, `${item.eventId}: every source is a link to its URL`);
      assert.ok(a.sources.every((s) => s.rel?.split(' ').includes('noopener')));
      assert.equal(a.retractedBadge, null);
    }
    assert.ok(!seen.some((a) => a.id === retracted.eventId), 'the retracted item is hidden by default');
    assert.ok(!(await page.locator('main').innerText()).includes(retracted.headline));
    assert.ok(!seen.some((a) => a.id === heldId));

    const orig = seen.find((a) => a.id === original.eventId)!;
    assert.match(orig.text, /Corrected by/);
    const corr = seen.find((a) => a.id === correction.eventId)!;
    assert.match(corr.text, /This item corrects/);
    assert.equal(await page.locator(`article[data-event-id="${correction.eventId}"] .notice.correction a`).getAttribute('href'), `/newswire/${original.slug}`);
    assert.equal(await page.locator(`article[data-event-id="${original.eventId}"] .notice.corrected a`).getAttribute('href'), `/newswire/${correction.slug}`);

    // How current the feed is, at a glance: the newest event's date and age, and when sources were last checked.
    const newest = expected.find((i) => !i.retracted)!;
    const days = Math.floor((Date.now() - Date.parse(`${newest.eventDate}T00:00:00Z`)) / 86_400_000);
    assert.match(await page.locator('p.as-of').innerText(), new RegExp(`^Newest event: .+ \\((?:(?:${days}|${days - 1}) days before this page was made|today|yesterday)\\)\\. Sources last checked \\d+ \\w+ \\d{4}\\.$`));
    assert.match(await page.locator('article[data-event-id="2025-02-16-x402-first-commits"] .evidence').innerText(), /· checked 22 November 2026$/, 'a starter item: the day its facts were sourced');

    // The tier legend explains every tier.
    const legend = await page.locator('#tiers').innerText();
    for (const t of Object.values(EVIDENCE_TIERS)) assert.ok(legend.includes(t.label), t.label);
    // The page says it is a view of the API and links the JSON.
    assert.match(await page.locator('.view-note').innerText(), /view of the JSON API.*not the canonical database/);
    assert.equal(await page.locator('.view-note a').getAttribute('href'), '/v1/newswire?limit=100');
    assert.equal(await page.locator('script').count(), 0);

    await page.screenshot({ path: join(shots, 'newswire.png') });
    await page.close();
  });

  test('include_retracted=1 lists the retracted item, marked with its reason', async () => {
    const page = await newPage();
    assert.equal((await page.goto(base + '/newswire?include_retracted=1'))?.status(), 200);
    const expected = await api('limit=100&include_retracted=true');
    const seen = await feedArticles(page);
    assert.deepEqual(seen.map((a) => a.id), expected.map((i) => i.eventId));
    const r = seen.find((a) => a.id === retracted.eventId);
    assert.ok(r, 'present');
    assert.equal(r.retractedBadge, 'Retracted');
    assert.ok(r.text.includes(RETRACTION_REASON));
    assert.ok(await page.locator(`article[data-event-id="${retracted.eventId}"] .badge.retracted`).isVisible());
    assert.equal(await page.locator('input[name=include_retracted]').isChecked(), true);
    await page.locator(`article[data-event-id="${retracted.eventId}"]`).scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(shots, 'newswire-retracted.png') });
    await page.close();
  });

  test('a reader follows a headline to the item page: every field, sources as links, corrections both ways', async () => {
    const page = await newPage();
    await page.goto(base + '/newswire');
    await page.click(`article[data-event-id="${original.eventId}"] h2 a`);
    await page.waitForURL(`${base}/newswire/${original.slug}`);
    assert.equal(await page.locator('h1').textContent(), original.headline);
    assert.match(await page.title(), new RegExp(`^${original.headline.slice(0, 20).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    const main = await page.locator('main').innerText();
    for (const text of [original.summary, original.whyItMatters, `confidence ${original.confidence.toFixed(2)}`, EVIDENCE_TIERS[original.evidenceTier as EvidenceTier].definition])
      assert.ok(main.includes(text), `shows ${text}`);
    assert.match(main, new RegExp(`corroborated by ${original.corroborationCount} distinct sources?`));
    for (const e of original.entities) assert.ok(main.includes(e), `entity ${e}`);
    for (const p of original.protocols) assert.ok(main.includes(p), `protocol ${p}`);
    assert.equal(await page.locator('.badge.tier').first().textContent(), `Tier ${original.evidenceTier.slice(-1)}`);
    assert.equal(await page.locator(`time[datetime="${original.eventDate}"]`).count() > 0, true, 'the event date as a time element');
    // A starter item's dates are true ones: the day its facts were sourced, not the service's first start-up.
    const details = await page.locator('dl.facts').innerText();
    assert.match(details, /Sources checked\s+22 November 2026/);
    assert.match(details, /On this newswire since\s+\d{4}-\d\d-\d\d \d\d:\d\d UTC/);
    assert.doesNotMatch(details, /^Published\n\d{4}-/m, 'the store time is not called a publication date');
    const versionJson = await page.locator('.view-note a').getAttribute('href');
    const exact = (await (await fetch(base + versionJson)).json()) as Json;
    assert.deepEqual(exact.items, [original], 'the page links the JSON of exactly this item version');

    const sources = await page.$$eval('ol.source-list li', (lis) => lis.map((li) => ({ href: li.querySelector('a')?.getAttribute('href'), rel: li.querySelector('a')?.getAttribute('rel'), text: (li as HTMLElement).innerText })));
    assert.deepEqual(sources.map((s) => s.href), original.sourceURLs);
    assert.ok(sources.every((s) => s.rel === 'noopener'));
    assert.ok(sources.every((s) => /— \S/.test(s.text)), 'each source shows its source type');

    // Corrected by → the correction, which links back.
    const by = page.locator('.notice.corrected a');
    assert.equal(await by.getAttribute('href'), `/newswire/${correction.slug}`);
    assert.match(await page.locator('.notice.corrected').innerText(), /^Corrected by /);
    await page.screenshot({ path: join(shots, 'item-corrected.png'), fullPage: true });
    await by.click();
    await page.waitForURL(`${base}/newswire/${correction.slug}`);
    assert.equal(await page.locator('h1').textContent(), correction.headline);
    const back = page.locator('.notice.correction a');
    assert.match(await page.locator('.notice.correction').innerText(), /^This item corrects /);
    assert.equal(await back.getAttribute('href'), `/newswire/${original.slug}`);
    await back.click();
    await page.waitForURL(`${base}/newswire/${original.slug}`);
    await page.close();
  });

  test('a retracted item’s page stays reachable with a RETRACTED banner and the reason', async () => {
    const page = await newPage();
    const res = await page.goto(`${base}/newswire/${retracted.slug}`);
    assert.equal(res?.status(), 200);
    const banner = page.locator('.banner');
    assert.ok(await banner.isVisible());
    const text = await banner.innerText();
    assert.match(text, /^RETRACTED/);
    assert.ok(text.includes(RETRACTION_REASON));
    assert.match(await page.title(), /^\[Retracted\] /);
    assert.equal(await page.locator('h1').textContent(), retracted.headline);
    await page.screenshot({ path: join(shots, 'item-retracted.png') });
    await page.close();
  });

  test('a headline full of markup is shown as text and runs nothing', async () => {
    const page = await newPage();
    await page.goto(`${base}/newswire/${scripted.slug}`);
    assert.equal(await page.locator('h1').textContent(), SCRIPT_HEADLINE);
    assert.equal(await page.locator('script').count(), 0);
    assert.equal(await page.locator('main b').count(), 0);
    assert.equal(await page.evaluate(() => (window as unknown as { __pwned?: boolean }).__pwned), undefined);
    assert.ok((await page.title()).startsWith(SCRIPT_HEADLINE));
    await page.screenshot({ path: join(shots, 'item-markup.png') });
    await page.goto(`${base}/newswire`);
    assert.equal(await page.locator(`article[data-event-id="${scripted.eventId}"] h2 a`).textContent(), SCRIPT_HEADLINE);
    assert.equal(await page.locator('script').count(), 0);
    await page.close();
    const source = await (await fetch(`${base}/newswire/${scripted.slug}`)).text();
    assert.ok(source.includes(escapeHtml(SCRIPT_HEADLINE)));
    assert.ok(!/<script/i.test(source), 'no script element anywhere in the page');
  });

  test('unknown, malformed and held slugs are a 404 page; bad filters a 400 page', async () => {
    const page = await newPage(false);
    page.on('pageerror', (e) => browserErrors.push(`${page.url()}: ${e.message}`));
    for (const slug of ['no-such-item', heldId, 'Not_A_Slug', '%3Cscript%3E']) {
      const res = await page.goto(`${base}/newswire/${slug}`);
      assert.equal(res?.status(), 404, slug);
      assert.equal(res!.headers()['content-security-policy'], PAGE_CSP);
      assert.match(res!.headers()['content-type']!, /^text\/html/);
      assert.equal(await page.locator('h1').textContent(), 'Item not found');
      assert.equal(await page.locator('a[href="/newswire"]').count() > 0, true);
    }
    // A well-formed id the graph does not have: the page says the entity is unknown (not that no item matches).
    const unknown = await page.goto(`${base}/newswire?entity=no-such-entity`);
    assert.equal(unknown?.status(), 404);
    assert.equal(await page.locator('h1').textContent(), 'Unknown entity');
    assert.match(await page.locator('main').innerText(), /no entity with the id “no-such-entity”/);
    for (const [qs, param] of [['type=bogus', 'type'], ['include_retracted=maybe', 'include_retracted'], ['entity=Not%20An%20Id', 'entity'], ['limit=0', 'limit'], ['typo=1', 'typo']]) {
      const res = await page.goto(`${base}/newswire?${qs}`);
      assert.equal(res?.status(), 400, qs);
      assert.equal(await page.locator('h1').textContent(), 'Bad filter');
      assert.ok((await page.locator('ul.problems').innerText()).startsWith(param), qs);
    }
    await page.close();
  });

  test('filters match the API, and the filter form works without JavaScript', async () => {
    const page = await newPage();
    const type = original.type as string;
    await page.goto(`${base}/newswire?type=${type}`);
    assert.deepEqual((await feedArticles(page)).map((a) => a.id), (await api(`limit=100&type=${type}`)).map((i) => i.eventId));
    await page.goto(`${base}/newswire?entity=coinbase`);
    const byEntity = (await api('limit=100&entity=coinbase')).map((i) => i.eventId);
    assert.ok(byEntity.length > 0);
    assert.deepEqual((await feedArticles(page)).map((a) => a.id), byEntity);

    await page.goto(`${base}/newswire`);
    await page.selectOption('select[name=type]', type);
    await page.click('form.filters button[type=submit]');
    await page.waitForURL((u) => u.searchParams.get('type') === type);
    assert.equal(new URL(page.url()).searchParams.get('entity'), '', 'the empty field is sent, and means no filter');
    assert.deepEqual((await feedArticles(page)).map((a) => a.id), (await api(`limit=100&type=${type}`)).map((i) => i.eventId));

    // Paging (issue 13): the newest first; the "older items" link continues exactly after the last shown.
    await page.goto(`${base}/newswire?limit=40`);
    const first = (await feedArticles(page)).map((a) => a.id);
    assert.equal(first.length, 40);
    assert.match(await page.locator('nav.pager a').innerText(), /Older items/);
    await page.click('nav.pager a');
    const second = (await feedArticles(page)).map((a) => a.id);
    assert.equal(first.length + second.length, 61);
    assert.deepEqual([...first, ...second], (await api('limit=100')).map((i) => i.eventId), 'newest first across both pages, no item twice, none missing');
    assert.equal(await page.locator('nav.pager a').count(), 0, 'the last page has no older link');
    await page.close();
  });

  test('strong ETag: If-None-Match answers 304; a change changes the ETag', async () => {
    const a = await fetch(`${base}/newswire`);
    const etag = a.headers.get('etag')!;
    assert.equal((await fetch(`${base}/newswire`)).headers.get('etag'), etag, 'stable while nothing changes');
    const nm = await fetch(`${base}/newswire`, { headers: { 'if-none-match': etag } });
    assert.equal(nm.status, 304);
    const item = await fetch(`${base}/newswire/${original.slug}`);
    const nmItem = await fetch(`${base}/newswire/${original.slug}`, { headers: { 'if-none-match': item.headers.get('etag')! } });
    assert.equal(nmItem.status, 304);
    const { kind: _k, ...rec } = itemRecord({ eventDate: '2025-01-14' });
    await admin('POST', '/admin/v1/items', rec);
    const after = await fetch(`${base}/newswire`, { headers: { 'if-none-match': etag } });
    assert.equal(after.status, 200);
    assert.notEqual(after.headers.get('etag'), etag);
  });

  for (const [name, viewport] of [
    ['desktop', { width: 1280, height: 900 }],
    ['phone', { width: 390, height: 844 }],
  ] as const) {
    test(`the feed and an item page at ${name} width (${viewport.width} px): no horizontal overflow, dates and sources readable`, async () => {
      const page = await newPage();
      await page.setViewportSize(viewport);
      for (const [path, file] of [['/newswire', `newswire-${name}.png`], ['/newswire/2025-02-16-x402-first-commits', `newswire-item-${name}.png`]] as const) {
        assert.equal((await page.goto(base + path))?.status(), 200, path);
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        assert.equal(overflow, 0, `${path} is ${overflow}px wider than the ${name} viewport`);
        await page.screenshot({ path: join(docShots, file), fullPage: path !== '/newswire' });
      }
      assert.match(await page.locator('dl.facts').innerText(), /Sources checked\s+22 November 2026/);
      await page.close();
    });
  }

  test('nothing but this service was requested, and the browser reported no errors (CSP violations included)', () => {
    assert.deepEqual(foreignRequests, []);
    assert.deepEqual(browserErrors, []);
  });

  test('screenshots were written', (t) => {
    for (const file of [...['newswire.png', 'newswire-retracted.png', 'item-corrected.png', 'item-retracted.png', 'item-markup.png'].map((n) => join(shots, n)), ...['newswire-desktop.png', 'newswire-phone.png', 'newswire-item-desktop.png', 'newswire-item-phone.png'].map((n) => join(docShots, n))]) {
      assert.ok(readFileSync(file).subarray(1, 4).toString() === 'PNG', file);
      t.diagnostic(`screenshot: ${file}`);
    }
  });
});
