/**
 * The entity graph as a picture (`GET /graph`). In process: the drawing of
 * the starter graph (every entity of the chosen types drawn once and linked
 * to its items, every relationship between drawn entities drawn once, names
 * escaped, the same bytes every time). In Chromium against the real service
 * at 1280 and 390 px (the column drawing on the phone): no horizontal
 * scroll, of the page or of the picture, every label inside the picture and
 * the viewport (whole on the phone), no script error, no request to another
 * origin, each node's link answers, the type filter draws what the JSON API
 * lists, a bad type is a 400 page. Screenshots: entity-graph-*.png.

 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { graphColumnSvg, graphSvg, selectGraph, type GraphData } from '../src/intel/pages/graph-page.js';
import { PAGE_CSP } from '../src/intel/pages.js';
import { STARTER_DIR } from '../src/intel/starter.js';
import { ENTITY_TYPES, type Entity, type EntityType, type Relationship } from '../src/intel/types.js';
import { startRig, type Rig } from './support/harness.js';
import { screenshotDir } from './support/screenshots.js';
import { browserSkip, openPageBrowser, type PageBrowser } from './support/browser.js';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const skipBrowser = browserSkip('graph-page.test.ts');

const ndjson = (name: string): Json[] =>
  readFileSync(join(STARTER_DIR, name), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));

/** The starter graph as the store would hold it. */
function starterGraph(): GraphData {
  const at = '2026-11-22T00:00:00.000000Z';
  const entities: Entity[] = ndjson('entities.ndjson').map((e) => ({ id: e.id, type: e.type, name: e.name, firstParty: false, sourceUrl: e.sourceUrl, updatedAt: at }));
  const relationships: Relationship[] = ndjson('relationships.ndjson').map((r, i) => ({ id: `r${i}`, type: r.type, from: r.from, to: r.to, sourceUrl: r.sourceUrl, updatedAt: at }));
  return { entities, relationships };
}

const nodeLinks = (svg: string) => [...svg.matchAll(/<a href="\/newswire\?entity=([^"]+)"/g)].map((m) => m[1]!);
const edgeTitles = (svg: string) => [...svg.matchAll(/<path class="edge"[^>]*><title>([^<]*)<\/title>/g)].map((m) => m[1]!);

describe('the graph picture, in process', () => {
  const all = starterGraph();

  test('all types: every entity drawn once, linked to its items; every relationship drawn once with its relation', () => {
    const svg = graphSvg(selectGraph(all, [])).text;
    assert.deepEqual(nodeLinks(svg).sort(), all.entities.map((e) => e.id).sort());
    const titles = edgeTitles(svg);
    assert.equal(titles.length, all.relationships.length);
    const name = (id: string) => all.entities.find((e) => e.id === id)!.name.replace(/&/g, '&amp;').replace(/'/g, '&#39;').replace(/"/g, '&quot;');
    for (const r of all.relationships) assert.ok(titles.includes(`${name(r.from)} ${r.type.toLowerCase().replace(/_/g, ' ')} ${name(r.to)}`), `${r.from} ${r.type} ${r.to}`);
    assert.equal(graphSvg(selectGraph(all, [])).text, svg, 'the same graph draws the same bytes');
  });

  test('a type filter draws exactly the entities of those types and the relationships between them', () => {
    const present = [...new Set(all.entities.map((e) => e.type))];
    const pairs: EntityType[][] = [...present.map((t) => [t]), ['PROTOCOL', 'ORGANIZATION'], ['DIRECTORY', 'X402_RESOURCE', 'NETWORK']];
    for (const types of pairs) {
      const shown = selectGraph(all, types);
      const ids = new Set(all.entities.filter((e) => types.includes(e.type)).map((e) => e.id));
      const svg = graphSvg(shown).text;
      assert.deepEqual(new Set(nodeLinks(svg)), ids, types.join(','));
      const between = all.relationships.filter((r) => ids.has(r.from) && ids.has(r.to));
      assert.equal(edgeTitles(svg).length, between.length, types.join(','));
    }
  });

  test('the column drawing (narrow screens): every entity once, each label whole, every relationship once', () => {
    const svg = graphColumnSvg(selectGraph(all, [])).text;
    assert.deepEqual(nodeLinks(svg).sort(), all.entities.map((e) => e.id).sort());
    assert.equal(edgeTitles(svg).length, all.relationships.length);
    const esc = (t: string) => t.replace(/&/g, '&amp;').replace(/'/g, '&#39;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
    const labels = [...svg.matchAll(/<text [^>]*>(.*?)<\/text>/g)].map((m) => m[1]!.replace(/<[^>]+>/g, '').replace(/\s+/g, ''));
    assert.deepEqual(labels.sort(), all.entities.map((e) => esc(e.name).replace(/\s+/g, '')).sort(), 'no label shortened');
    assert.ok(/<tspan /.test(svg), 'long names wrap onto more lines');
    assert.ok(!svg.includes('id="graph-title"') && !svg.includes('id="arrow"'), 'its ids differ from the wide drawing\'s (both are on the page)');
    assert.equal(graphColumnSvg(selectGraph(all, [])).text, svg, 'the same graph draws the same bytes');
  });

  test('names are text, never markup', () => {
    const at = '2026-11-22T00:00:00.000000Z';
    const evil: GraphData = {
      entities: [
        { id: 'evil', type: 'ORGANIZATION', name: '<script>alert(1)</script>"x', firstParty: false, sourceUrl: 'https://a.example', updatedAt: at },
        { id: 'x402', type: 'PROTOCOL', name: 'x402', firstParty: false, sourceUrl: 'https://a.example', updatedAt: at },
      ],
      relationships: [{ id: 'r', type: 'SUPPORTS', from: 'evil', to: 'x402', sourceUrl: 'https://a.example', updatedAt: at }],
    };
    const svg = graphSvg(selectGraph(evil, [])).text;
    assert.ok(!svg.includes('<script'), svg);
    assert.ok(svg.includes('&lt;script&gt;'));
  });

  test('every entity type has a colour', async () => {
    const { TYPE_COLOURS } = await import('../src/intel/pages/graph-page.js');
    for (const t of ENTITY_TYPES) assert.match(TYPE_COLOURS[t], /^#[0-9a-f]{6}$/, t);
  });
});

describe('the graph page in a browser', { skip: skipBrowser }, () => {
  let rig: Rig;
  let base: string;
  let pb: PageBrowser;
  let context: BrowserContext;
  const errors: string[] = [];
  const shots = screenshotDir('graph-shots');
  const json = async (path: string): Promise<Json> => (await fetch(base + path)).json();
  const newPage = async (): Promise<Page> => {
    const page = await context.newPage();
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') errors.push(`${page.url()}: console ${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => errors.push(`${page.url()}: ${e.message}`));
    return page;
  };

  before(async () => {
    rig = await startRig();
    base = rig.service.url;
    pb = await openPageBrowser(base);
    context = pb.context;
  });
  after(async () => {
    await pb?.close();
    await rig?.close();
  });

  // The two-arc drawing where it fits, the column drawing (whole labels) on a phone.
  for (const [name, viewport, drawn, hidden] of [
    ['desktop', { width: 1280, height: 900 }, 'svg.graph', 'svg.graph-column'],
    ['phone', { width: 390, height: 844 }, 'svg.graph-column', 'svg.graph'],
  ] as const) {
    test(`at ${name} width (${viewport.width} px): every entity drawn and linked, no horizontal scroll, every label inside the picture`, async () => {
      const page = await newPage();
      await page.setViewportSize(viewport);
      const res = await page.goto(base + '/graph');
      assert.equal(res?.status(), 200);
      assert.equal(res!.headers()['content-security-policy'], PAGE_CSP);
      assert.equal(await page.locator('h1').innerText(), 'Entity graph');
      const counts = (await json('/v1/graph')).counts;
      assert.ok(await page.locator(drawn).isVisible());
      assert.equal(await page.locator(hidden).isVisible(), false);
      assert.equal(await page.locator(`${drawn} g.node`).count(), counts.entities);
      assert.equal(await page.locator(`${drawn} path.edge`).count(), counts.relationships);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.equal(overflow, 0, `the page is ${overflow}px wider than the ${name} viewport`);
      const box = await page.$eval('.graph-box', (b) => b.scrollWidth - b.clientWidth);
      assert.equal(box, 0, `the picture is ${box}px wider than its box: it scrolls sideways`);
      // Each label's box lies inside the picture and the viewport: nothing cut off.
      const labels = await page.$$eval(`${drawn} g.node text`, (texts) =>
        texts.map((t) => {
          const r = t.getBoundingClientRect();
          const svg = (t as SVGTextElement).ownerSVGElement!.getBoundingClientRect();
          return { text: t.textContent!, left: r.left, right: r.right, top: r.top, bottom: r.bottom, svg: { left: svg.left, right: svg.right, top: svg.top, bottom: svg.bottom }, view: document.documentElement.clientWidth };
        }),
      );
      assert.equal(labels.length, counts.entities);
      for (const l of labels) {
        assert.ok(l.left >= l.svg.left - 0.5 && l.right <= l.svg.right + 0.5 && l.top >= l.svg.top - 0.5 && l.bottom <= l.svg.bottom + 0.5, `"${l.text}" reaches outside the picture: ${JSON.stringify(l)}`);
        assert.ok(l.left >= 0 && l.right <= l.view, `"${l.text}" reaches outside the viewport: ${JSON.stringify(l)}`);
      }
      if (name === 'phone') {
        // Whole names, not shortened: the labels read as the API names the entities.
        const names = ((await json('/v1/graph/entities?limit=200')).items as Json[]).map((e) => (e.name as string).replace(/\s+/g, '')).sort();
        assert.deepEqual(labels.map((l) => l.text.replace(/\s+/g, '')).sort(), names);
      }
      await page.screenshot({ path: join(shots, `entity-graph-${name}.png`) });
      assert.ok(statSync(join(shots, `entity-graph-${name}.png`)).size > 5_000);
      await page.close();
    });
  }

  test('each node opens its entity’s items, and every node link answers 200', async () => {
    const page = await newPage();
    await page.goto(base + '/graph');
    const hrefs = await page.$$eval('svg.graph a', (as) => as.map((a) => a.getAttribute('href')!));
    assert.ok(hrefs.length >= 40);
    for (const href of hrefs) assert.equal((await fetch(base + href)).status, 200, href);
    await page.locator('svg.graph a[href="/newswire?entity=x402"]').click();
    await page.waitForURL(`${base}/newswire?entity=x402`);
    assert.equal(await page.locator('h1').innerText(), 'Newswire');
    assert.ok((await page.locator('article.item').count()) > 0, 'x402 has items');
    await page.close();
  });

  test('the type filter draws the entities the API lists for that type; the newswire links the graph; a bad type is a 400 page', async () => {
    const page = await newPage();
    await page.goto(base + '/newswire');
    await page.click('header.site a[href="/graph"]');
    await page.waitForURL(`${base}/graph`);
    await page.click('ul.types a[href="/graph?type=DIRECTORY"]');
    await page.waitForURL(`${base}/graph?type=DIRECTORY`);
    const directories = ((await json('/v1/graph/entities?type=DIRECTORY&limit=200')).items as Json[]).map((e) => `/newswire?entity=${e.id}`).sort();
    assert.ok(directories.length > 0);
    assert.deepEqual((await page.$$eval('svg.graph a', (as) => as.map((a) => a.getAttribute('href')!))).sort(), directories);
    assert.equal(await page.locator('ul.types li.on').innerText().then((t) => t.startsWith('Directory')), true);
    const two = await page.goto(`${base}/graph?type=PROTOCOL,ORGANIZATION`);
    assert.equal(two?.status(), 200);
    const types = await page.$$eval('svg.graph g.node title', (ts) => ts.map((t) => t.textContent!.split(' · ')[1]));
    assert.deepEqual([...new Set(types)].sort(), ['Organization', 'Protocol']);
    await page.close();
    const bad = await context.newPage();
    for (const qs of ['type=protocol', 'type=NOPE', 'type=PROTOCOL,', 'typo=1']) {
      const res = await bad.goto(`${base}/graph?${qs}`);
      assert.equal(res?.status(), 400, qs);
      assert.equal(await bad.locator('h1').innerText(), 'Bad filter');
    }
    await bad.close();
  });

  test('nothing but this service was requested, and the browser reported no errors', () => {
    assert.deepEqual(pb.foreign, []);
    assert.deepEqual(errors, []);
  });
});
