import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { catalogOfferEvidenceExtractor as cap, run } from './index.js';
import { MAX_BODY_BYTES, MAX_HTML_CHARS } from './schema.js';
import { ld, page, validateInput, validateOutput, verify } from './test-helpers.js';
import { adversarialPages } from './adversarial-inputs.js';

describe('capability contract', () => {
  it('id, route, price, body limit', () => {
    assert.equal(cap.id, 'catalog-offer-evidence-extractor');
    assert.equal(cap.method, 'POST');
    assert.equal(cap.path, '/x402/v1/catalog-offer-evidence-extractor');
    assert.equal(cap.priceAtomic, '100000');
    assert.ok((cap.maxBodyBytes ?? 0) >= 2 * 1024 * 1024 + 256 * 1024);
    assert.equal(cap.maxBodyBytes, MAX_BODY_BYTES);
    assert.ok(cap.title.length > 0 && cap.description.length > 200);
  });

  it('input schema', () => {
    assert.ok(validateInput({ html: '<p>' }));
    assert.ok(validateInput({ html: '<p>', base_url: 'https://example.com/a?b=c' }));
    assert.ok(validateInput({ html: '<p>', base_url: 'http://example.com' }));
    assert.ok(!validateInput({}));
    assert.ok(!validateInput({ html: '' }));
    assert.ok(!validateInput({ html: 1 }));
    assert.ok(!validateInput({ html: '<p>', extra: 1 }));
    assert.ok(!validateInput({ html: '<p>', base_url: 'ftp://example.com/' }));
    assert.ok(!validateInput({ html: '<p>', base_url: '/relative' }));
    assert.ok(!validateInput({ html: '<p>', base_url: 'not a url' }));
    assert.ok(!validateInput({ html: 'x'.repeat(MAX_HTML_CHARS + 1) }));
    assert.ok(validateInput({ html: 'x'.repeat(MAX_HTML_CHARS) }));
  });

  it('check() rejects a base_url that does not parse as http(s)', () => {
    assert.equal(cap.check?.({ html: 'x', base_url: 'https://ok.test/' }), undefined);
    assert.equal(cap.check?.({ html: 'x' }), undefined);
    assert.equal(cap.check?.({ html: 'x', base_url: 'https://exa mple.com' })?.code, 'invalid_request');
  });

  it('fromRawBody accepts text/html (with parameters) and XHTML only', () => {
    assert.deepEqual(cap.fromRawBody?.('text/html', '<p>x</p>'), { html: '<p>x</p>' });
    assert.deepEqual(cap.fromRawBody?.('Text/HTML; charset=utf-8', '<p>'), { html: '<p>' });
    assert.deepEqual(cap.fromRawBody?.('application/xhtml+xml', '<p/>'), { html: '<p/>' });
    assert.equal(cap.fromRawBody?.('application/json', '{}'), undefined);
    assert.equal(cap.fromRawBody?.('text/plain', 'x'), undefined);
  });

  it('examples: at least two, outputs equal run(input) and validate', () => {
    assert.ok(cap.examples.length >= 2);
    for (const ex of cap.examples) {
      assert.ok(validateInput(ex.input), ex.summary);
      const fresh = run(ex.input);
      assert.deepEqual(fresh, ex.output);
      verify(ex.input.html, ex.output);
      assert.ok(ex.output.products.length >= 1);
    }
    const [a, b] = cap.examples;
    assert.equal(a?.output.summary.duplicates_merged, 1);
    assert.equal(a?.output.products[0]?.merchant_listing.eligible, true);
    assert.equal(b?.output.summary.scripts_failed, 1);
    assert.equal(b?.output.summary.products, 2);
  });

  it('output is JSON-serializable and round-trips', () => {
    for (const ex of cap.examples) assert.deepEqual(JSON.parse(JSON.stringify(ex.output)), ex.output);
  });
});

describe('properties', () => {
  it('never throws on arbitrary strings; output validates', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 400 }), (html) => {
        const out = run({ html });
        assert.ok(validateOutput(out), JSON.stringify(validateOutput.errors));
      }),
      { numRuns: 500 },
    );
  });

  it('never throws on arbitrary JSON wrapped in script tags (also mangled); output verifies', () => {
    const schemaish = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        fc.constantFrom('Product', 'Offer', 'AggregateOffer', 'ProductGroup', '12.99', '1,299.00', '$5', '', 'usd', 'InStock', '2025-01-01', '#p', 'https://schema.org/Product'),
        fc.integer(),
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        fc.boolean(),
        fc.constant(null),
        fc.array(tie('node'), { maxLength: 4 }),
        fc.dictionary(
          fc.constantFrom('@type', '@id', '@graph', 'name', 'offers', 'price', 'priceCurrency', 'lowPrice', 'highPrice', 'sku', 'gtin13', 'gtin', 'brand', 'seller', 'image', 'url', 'hasVariant', 'isVariantOf', 'priceSpecification', 'priceType', 'availability', 'itemOffered', 'itemListElement', 'item', '@value', '@list'),
          tie('node'),
          { maxKeys: 6 },
        ),
      ),
    }));
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.jsonValue({ maxDepth: 4 }), schemaish.node), { maxLength: 4 }), fc.nat({ max: 5 }), fc.constantFrom('', 'https://base.test/x/y'), (values, mangle, base) => {
        const scripts = values.map((v, i) => {
          let text = JSON.stringify(v) ?? 'null';
          if (mangle === 1 && i === 0) text = text.slice(0, Math.floor(text.length / 2));
          if (mangle === 2) text = `<!-- ${text} -->`;
          if (mangle === 3) text = text.replace(/"/g, '&quot;');
          if (mangle === 4) text = `${text};`;
          return ld(text.replace(/</g, '\\u003c'));
        });
        const html = page(...scripts);
        const out = base ? run({ html, base_url: base }) : run({ html });
        verify(html, out);
        assert.equal(out.summary.scripts_found, values.length);
      }),
      { numRuns: 400 },
    );
  });

  it('deterministic: same input, same output', () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 3 }), (values) => {
        const html = page(...values.map((v) => ld(JSON.stringify(v).replace(/</g, '\\u003c'))));
        assert.equal(JSON.stringify(run({ html })), JSON.stringify(run({ html })));
      }),
      { numRuns: 100 },
    );
    for (const ex of cap.examples) assert.equal(JSON.stringify(run(ex.input)), JSON.stringify(run(ex.input)));
  });

  it('adding a broken script never removes products found from the good ones', () => {
    const good = fc.array(
      fc.record({
        name: fc.string({ minLength: 1, maxLength: 12 }),
        price: fc.oneof(fc.constant('"12.50"'), fc.constant('7'), fc.constant('"1.299,00"')),
        wrap: fc.constantFrom('plain', 'graph', 'array', 'list'),
      }),
      { minLength: 1, maxLength: 5 },
    );
    const broken = fc.oneof(
      fc.string({ maxLength: 60 }).map((s) => s.replace(/</g, '')),
      fc.constantFrom('{', '{"@type":"Product",', '{"a":}', '[1,2', '&quot;', '{"@graph":[{"@id":"#x"}', '//', '/*', '{"name":"unterminated'),
    );
    fc.assert(
      fc.property(good, broken, fc.nat(), (products, bad, posSeed) => {
        const scripts = products.map((p, i) => {
          const prod = `{"@type":"Product","sku":"SKU-${i}","name":${JSON.stringify(p.name)},"offers":{"@type":"Offer","price":${p.price},"priceCurrency":"EUR"}}`;
          const body =
            p.wrap === 'graph'
              ? `{"@context":"https://schema.org","@graph":[${prod}]}`
              : p.wrap === 'array'
                ? `[${prod}]`
                : p.wrap === 'list'
                  ? `{"@context":"https://schema.org","@type":"ItemList","itemListElement":[{"@type":"ListItem","item":${prod}}]}`
                  : prod;
          return ld(body.replace(/</g, '\\u003c'));
        });
        const before = run({ html: page(...scripts) });
        const withBad = [...scripts];
        withBad.splice(posSeed % (scripts.length + 1), 0, ld(bad));
        const after = run({ html: page(...withBad) });
        const skus = (o: typeof before): Set<string> =>
          new Set(o.products.flatMap((p) => p.identifiers.filter((i) => i.property === 'sku').map((i) => `${i.normalized}|${p.offers[0]?.price?.normalized}`)));
        const a = skus(after);
        for (const k of skus(before)) assert.ok(a.has(k), `lost ${k} after adding ${JSON.stringify(bad)}`);
        assert.equal(before.products.length, products.length);
      }),
      { numRuns: 400 },
    );
  });
});

describe('cost', () => {
  function bigListingPage(targetBytes: number): { html: string; count: number } {
    const parts: string[] = ['<!doctype html><html><head><base href="/shop/"><title>Catalog</title>'];
    let size = parts[0]?.length ?? 0;
    let i = 0;
    const items: string[] = [];
    while (size < targetBytes) {
      const item = `{"@type":"ListItem","position":${i + 1},"item":{"@type":"Product","@id":"#p${i}","name":"Product ${i} – Grüße","sku":"SKU-${i}","gtin13":"4006381333931","image":["img/${i}.jpg","https://cdn.test/${i}-2.jpg"],"url":"p/${i}","brand":{"@type":"Brand","name":"Brand ${i % 17}"},"offers":{"@type":"Offer","price":"${(i % 900) + 1}.99","priceCurrency":"EUR","availability":"https://schema.org/InStock","itemCondition":"NewCondition","priceValidUntil":"2030-12-31","seller":{"@id":"#org"},"priceSpecification":{"@type":"UnitPriceSpecification","priceType":"https://schema.org/StrikethroughPrice","price":"${(i % 900) + 5}.99","priceCurrency":"EUR"}}}}`;
      items.push(item);
      size += item.length + 1;
      i++;
      if (items.length === 200) {
        const s = ld(`{"@context":"https://schema.org","@type":"ItemList","itemListElement":[${items.join(',')}]}`);
        parts.push(s, '<div class="grid">' + '<a href="#">x</a>'.repeat(20) + '</div>');
        size += 400;
        items.length = 0;
      }
    }
    if (items.length) parts.push(ld(`{"@context":"https://schema.org","@type":"ItemList","itemListElement":[${items.join(',')}]}`));
    parts.push(ld('{"@context":"https://schema.org","@type":"Organization","@id":"#org","name":"Shop"}'), '</head><body></body></html>');
    return { html: parts.join('\n'), count: i };
  }

  /** A JSON round trip gives a flat string, as the HTTP layer's JSON.parse would. */
  const flat = (s: string): string => JSON.parse(JSON.stringify(s)) as string;


  it('a realistic ~2 MB page (markup, inline scripts, a product and a 48-item list in JSON-LD)', () => {
    const items = Array.from({ length: 48 }, (_, i) => `{"@type":"ListItem","position":${i + 1},"item":{"@type":"Product","name":"Item ${i}","sku":"S${i}","image":"/i/${i}.jpg","url":"/p/${i}","offers":{"@type":"Offer","price":"${i}.99","priceCurrency":"EUR","availability":"https://schema.org/InStock"}}}`);
    const head =
      ld(`{"@context":"https://schema.org","@type":"Product","name":"Main","sku":"M1","gtin13":"4006381333931","image":["/a.jpg","/b.jpg"],"brand":{"@type":"Brand","name":"ACME"},"offers":{"@type":"Offer","price":"119.90","priceCurrency":"EUR","availability":"https://schema.org/InStock"}}`) +
      ld(`{"@context":"https://schema.org","@type":"ItemList","itemListElement":[${items.join(',')}]}`);
    const cards: string[] = [];
    let len = 0;
    for (let k = 0; len < 2_000_000; k++) {
      const c = `<div class="card c${k}"><a href="/p/${k}"><img src="/i/${k}.jpg" alt="x"></a><span class="price">€ ${k}.99</span><script>window.dataLayer.push({id:${k}})</script><!-- c --></div>\n`;
      cards.push(c);
      len += c.length;
    }
    const html = flat(`<!doctype html><html><head><title>t</title>${head}</head><body>${cards.join('')}</body></html>`);
    const out = run({ html, base_url: 'https://shop.test/c/' });
    assert.equal(out.summary.products, 49);
    verify(html, out);
  });

  it('a dense ~2 MB page that is nothing but JSON-LD (thousands of products): every product up to the cap', () => {
    const { html, count } = bigListingPage(2_000_000);
    const out = run({ html: flat(html), base_url: 'https://shop.test/c/' });
    assert.equal(out.summary.products, Math.min(count, 5000));
    assert.equal(out.products[0]?.offers[0]?.seller[0]?.name, 'Shop');
    assert.equal(out.products[0]?.images[0]?.resolved, 'https://shop.test/shop/img/0.jpg');
    verify(html, out);
  });

  it('adversarial pages do not throw and get a valid answer (their timings: npm run bench, adversarial inputs)', () => {
    for (const [name, html] of adversarialPages()) {
      const out = run({ html });
      assert.ok(validateOutput(out), `${name}: ${JSON.stringify(validateOutput.errors)?.slice(0, 500)}`);
    }
  });
});
