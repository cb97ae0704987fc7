import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { extract, ld, only, page, resolvePointer, warningCodes } from './test-helpers.js';
import type { OfferOut, ProductOut } from './types.js';

const CTX = '"@context":"https://schema.org"';

function product(json: string, base?: string): ProductOut {
  return only(extract(page(ld(json)), base));
}
function offer(p: ProductOut, k = 0): OfferOut {
  const o = p.offers[k];
  assert.ok(o, `offer ${k}`);
  return o;
}

describe('script discovery and parsing per script', () => {
  it('several scripts per page, each reported with its own parse mode, offset and hash', () => {
    const html = page(
      ld(`{${CTX},"@type":"Organization","name":"Shop"}`),
      ld(`{${CTX},"@type":"Product","name":"A","offers":{"@type":"Offer","price":"1.00","priceCurrency":"EUR"}}`),
      ld(`{${CTX},"@type":"Product","name":"B",}`),
    );
    const out = extract(html);
    assert.equal(out.summary.scripts_found, 3);
    assert.deepEqual(out.scripts.map((s) => s.parse_mode), ['strict', 'strict', 'lenient']);
    assert.deepEqual(out.scripts[2]?.recoveries, ['trailing_commas']);
    assert.deepEqual(out.products.map((p) => p.name?.value), ['A', 'B']);
    assert.equal(out.summary.products, 2);
    assert.equal(out.summary.offers, 1);
  });

  it('type with charset parameter and upper case (extruct misses both)', () => {
    const html = page(
      ld(`{${CTX},"@type":"Product","name":"A"}`, 'application/ld+json; charset=utf-8'),
      ld(`{${CTX},"@type":"Product","name":"B"}`, 'APPLICATION/LD+JSON'),
    );
    const out = extract(html);
    assert.deepEqual(out.products.map((p) => p.name?.value), ['A', 'B']);
    assert.deepEqual(out.scripts.map((s) => s.type_flags), [['parameters'], ['uppercase']]);
  });

  it('one unparseable script never loses the good ones', () => {
    const html = page(
      ld(`{${CTX},"@type":"Product","name":"Good 1"}`),
      ld('{"@type": "Product", "name": "Bad" "x": }'),
      ld(`{${CTX},"@type":"Product","name":"Good 2"}`),
    );
    const out = extract(html);
    assert.deepEqual(out.products.map((p) => p.name?.value), ['Good 1', 'Good 2']);
    assert.equal(out.summary.scripts_failed, 1);
    const bad = out.scripts[1];
    assert.equal(bad?.parse_mode, 'failed');
    assert.ok(bad?.error && bad.error.line === 1 && bad.error.offset > 0);
    assert.ok(warningCodes(out).includes('script_parse_failed'));
  });

  it('scripts after </html>', () => {
    const html = `<html><body></body></html>\n${ld(`{${CTX},"@type":"Product","name":"Late"}`)}`;
    const out = extract(html);
    assert.equal(only(out).name?.value, 'Late');
    assert.deepEqual(out.scripts[0]?.flags, ['after_html_end']);
  });

  it('leading <!-- --> and // comments, CDATA wrappers, trailing ; and {};', () => {
    const bodies = [
      `<!--\n{${CTX},"@type":"Product","name":"P"}\n-->`,
      `// comment\n{${CTX},"@type":"Product","name":"P"}`,
      `/*<![CDATA[*/{${CTX},"@type":"Product","name":"P"}/*]]>*/`,
      `<![CDATA[{${CTX},"@type":"Product","name":"P"}]]>`,
      `{${CTX},"@type":"Product","name":"P"};`,
      `{};\n{${CTX},"@type":"Product","name":"P"};`,
      `\ufeff{${CTX},"@type":"Product","name":"P"}`,
    ];
    for (const b of bodies) {
      const out = extract(page(ld(b)));
      assert.equal(out.scripts[0]?.parse_mode, 'lenient', b);
      assert.equal(only(out).name?.value, 'P', b);
    }
  });

  it('raw control characters and newlines inside strings', () => {
    const p = product(`{${CTX},"@type":"Product","name":"Line1\nLine2\u0007","description":"a\tb"}`);
    assert.equal(p.name?.value, 'Line1\nLine2\u0007');
  });

  it('whole script entity-encoded, and double-encoded', () => {
    const enc = `{&quot;@context&quot;:&quot;https://schema.org&quot;,&quot;@type&quot;:&quot;Product&quot;,&quot;name&quot;:&quot;Tom &amp;amp; Jerry&quot;,&quot;offers&quot;:{&quot;@type&quot;:&quot;Offer&quot;,&quot;price&quot;:&quot;5.00&quot;,&quot;priceCurrency&quot;:&quot;USD&quot;}}`;
    const out = extract(page(ld(enc)));
    assert.deepEqual(out.scripts[0]?.recoveries, ['entity_decoded']);
    const p = only(out);
    assert.equal(p.name?.value, 'Tom &amp; Jerry');
    assert.equal(offer(p).price?.normalized, '5.00');
    const dbl = enc.replace(/&/g, '&amp;');
    const out2 = extract(page(ld(dbl)));
    assert.deepEqual(out2.scripts[0]?.recoveries, ['entity_decoded', 'double_entity_decoded']);
    assert.equal(only(out2).name?.value, 'Tom &amp; Jerry');
  });

  it('character references inside a valid script are not decoded (and flagged)', () => {
    const out = extract(page(ld(`{${CTX},"@type":"Product","name":"Tom &amp; Jerry"}`)));
    const p = only(out);
    assert.equal(out.scripts[0]?.parse_mode, 'strict');
    assert.equal(p.name?.value, 'Tom &amp; Jerry');
    assert.ok(p.name?.flags.includes('contains_character_reference'));
    assert.ok(warningCodes(out).includes('character_reference_not_decoded'));
  });

  it('a </script> inside a JSON string: HTML ends the script there; a flagged re-join recovers it', () => {
    const html = page(
      `<script type="application/ld+json">{${CTX},"@type":"Product","name":"Widget","description":"Use </script> carefully","offers":{"@type":"Offer","price":"9.99","priceCurrency":"USD"}}</script>`,
      ld(`{${CTX},"@type":"Product","name":"Other"}`),
    );
    const out = extract(html);
    assert.equal(out.scripts.length, 2);
    const s0 = out.scripts[0];
    assert.equal(s0?.parse_mode, 'lenient');
    assert.deepEqual(s0?.recoveries, ['rejoined_after_end_tag']);
    assert.match(s0?.error?.message ?? '', /unterminated string/);
    assert.ok(warningCodes(out).includes('script_end_tag_inside_json_string'));
    assert.deepEqual(out.products.map((p) => p.name?.value), ['Widget', 'Other']);
    assert.equal(out.products[0]?.description?.value, 'Use </script> carefully');
    // the escaped form is plain valid JSON
    const ok = extract(page(ld(`{${CTX},"@type":"Product","name":"W","description":"Use <\\/script> ok"}`)));
    assert.equal(ok.scripts[0]?.parse_mode, 'strict');
    assert.equal(only(ok).description?.value, 'Use </script> ok');
  });

  it('duplicate keys: last value wins (as JSON.parse), reported with pointers', () => {
    const out = extract(page(ld(`{${CTX},"@type":"Product","name":"First","name":"Second","offers":{"@type":"Offer","price":"1","price":"2","priceCurrency":"EUR"}}`)));
    const p = only(out);
    assert.equal(p.name?.value, 'Second');
    assert.equal(offer(p).price?.normalized, '2');
    assert.deepEqual(out.scripts[0]?.duplicate_keys, ['/name', '/offers/price']);
    assert.ok(warningCodes(out).includes('duplicate_keys'));
  });

  it('an external src script is noted, not fetched', () => {
    const out = extract(page('<script type="application/ld+json" src="/data.json"></script>'));
    assert.equal(out.scripts[0]?.parse_mode, 'empty');
    assert.ok(out.scripts[0]?.flags.includes('external_src_not_fetched'));
    assert.equal(out.evidence.network_fetches, 0);
  });
});

describe('graph shapes and types', () => {
  it('a top-level array', () => {
    const out = extract(page(ld(`[{${CTX},"@type":"Product","name":"A"},{${CTX},"@type":"Product","name":"B"}]`)));
    assert.deepEqual(out.products.map((p) => [p.name?.value, p.sources[0]?.pointer]), [
      ['A', '/0'],
      ['B', '/1'],
    ]);
  });

  it('@graph with @id references, also across scripts', () => {
    const html = page(
      ld(`{${CTX},"@graph":[{"@type":"WebPage","mainEntity":{"@id":"#product"}},{"@type":"Product","@id":"#product","name":"Anvil","brand":{"@id":"#brand"},"offers":{"@id":"#offer"}},{"@type":"Brand","@id":"#brand","name":"ACME"}]}`),
      ld(`{${CTX},"@type":"Offer","@id":"#offer","price":"10.00","priceCurrency":"EUR","seller":{"@id":"#org"}}`),
      ld(`{${CTX},"@type":"Organization","@id":"#org","name":"Example Store"}`),
    );
    const out = extract(html, 'https://example.com/p/anvil');
    const p = only(out);
    assert.equal(p.at_id, 'https://example.com/p/anvil#product');
    assert.equal(p.role, 'primary');
    assert.equal(p.brand[0]?.name, 'ACME');
    assert.deepEqual(p.brand[0]?.sources[0], { script: 0, pointer: '/@graph/2/name' });
    const o = offer(p);
    assert.equal(o.price?.normalized, '10.00');
    assert.deepEqual(o.price?.sources, [{ script: 1, pointer: '/price' }]);
    assert.equal(o.seller[0]?.name, 'Example Store');
    assert.deepEqual(o.seller[0]?.sources[0], { script: 2, pointer: '/name' });
  });

  it('a product defined in pieces under one @id is one product', () => {
    const html = page(
      ld(`{${CTX},"@type":"Product","@id":"https://x.test/p#id","name":"Split"}`),
      ld(`{${CTX},"@id":"https://x.test/p#id","offers":{"@type":"Offer","price":3,"priceCurrency":"GBP"}}`),
    );
    const p = only(extract(html));
    assert.equal(p.name?.value, 'Split');
    assert.deepEqual(offer(p).price?.sources, [{ script: 1, pointer: '/offers/price' }]);
    assert.equal(p.sources.length, 2);
  });

  it('@type as an array or an IRI', () => {
    const types = ['["Product","Thing"]', '"schema:Product"', '"http://schema.org/Product"', '"https://schema.org/Product"', '["https://schema.org/IndividualProduct"]'];
    for (const t of types) {
      const p = product(`{${CTX},"@type":${t},"name":"T"}`);
      assert.equal(p.name?.value, 'T', t);
    }
    assert.equal(extract(page(ld(`{${CTX},"@type":"Organization","name":"no"}`))).products.length, 0);
  });

  it('property names as compact or full IRIs', () => {
    const p = product(`{"@type":"http://schema.org/Product","http://schema.org/name":"Full","schema:sku":"S1"}`);
    assert.equal(p.name?.value, 'Full');
    assert.equal(p.identifiers[0]?.normalized, 'S1');
  });

  it('ProductGroup with hasVariant: variants linked and inheriting brand, description and image', () => {
    const json = `{${CTX},"@type":"ProductGroup","@id":"#g","name":"Tee","productGroupID":"TEE","brand":{"@type":"Brand","name":"Acme"},"description":"Soft tee","image":"https://x.test/tee.jpg","variesBy":["https://schema.org/size"],
      "hasVariant":[
        {"@type":"Product","sku":"TEE-S","name":"Tee S","size":"S","offers":{"@type":"Offer","price":"20.00","priceCurrency":"USD","availability":"https://schema.org/InStock"}},
        {"@type":"Product","sku":"TEE-M","name":"Tee M","size":"M","image":"https://x.test/tee-m.jpg","offers":{"@type":"Offer","price":"22.00","priceCurrency":"USD"}},
        {"@id":"#tee-l"}
      ]}`;
    const html = page(ld(json), ld(`{${CTX},"@type":"Product","@id":"#tee-l","sku":"TEE-L","name":"Tee L","inProductGroupWithID":"TEE","offers":{"@type":"Offer","price":"24.00","priceCurrency":"USD"}}`));
    const out = extract(html, 'https://x.test/tee');
    assert.equal(out.summary.product_groups, 1);
    assert.equal(out.summary.variants, 3);
    const [g, s, m, l] = out.products;
    assert.ok(g && s && m && l);
    assert.equal(g.is_group, true);
    assert.deepEqual(g.variants, [s.id, m.id, l.id]);
    for (const v of [s, m, l]) {
      assert.equal(v.group, g.id);
      assert.equal(v.role, 'variant');
      assert.equal(v.brand[0]?.name, 'Acme');
      assert.ok(v.brand[0]?.flags.includes('inherited_from_group'));
      assert.equal(v.description?.value, 'Soft tee');
    }
    assert.equal(s.images[0]?.resolved, 'https://x.test/tee.jpg');
    assert.ok(s.images[0]?.flags.includes('inherited_from_group'));
    assert.equal(m.images[0]?.resolved, 'https://x.test/tee-m.jpg');
    assert.equal(s.merchant_listing.eligible, true);
    assert.equal(g.merchant_listing.eligible, false);
    assert.match(g.merchant_listing.note ?? '', /variants/);
    assert.equal(g.product_group_id?.value, 'TEE');
  });

  it('isVariantOf links a variant to its group', () => {
    const html = page(
      ld(`{${CTX},"@type":"ProductGroup","@id":"#g","name":"G","brand":"B"}`),
      ld(`{${CTX},"@type":"Product","name":"V","isVariantOf":{"@id":"#g"}}`),
    );
    const out = extract(html, 'https://x.test/');
    const v = out.products.find((p) => p.name?.value === 'V');
    assert.equal(v?.group, out.products.find((p) => p.is_group)?.id);
    assert.equal(v?.brand[0]?.name, 'B');
  });

  it('listing page: ItemList of products', () => {
    const items = Array.from({ length: 30 }, (_, i) => `{"@type":"ListItem","position":${i + 1},"item":{"@type":"Product","name":"Item ${i}","sku":"SKU${i}","url":"/p/${i}","offers":{"@type":"Offer","price":"${i + 1}.50","priceCurrency":"EUR"}}}`);
    const out = extract(page(ld(`{${CTX},"@type":"ItemList","itemListElement":[${items.join(',')}]}`)), 'https://shop.test/c/');
    assert.equal(out.products.length, 30);
    assert.equal(out.products[29]?.url?.resolved, 'https://shop.test/p/29');
    assert.ok(out.products.every((p) => p.role === 'list_item'));
    assert.deepEqual(out.products[3]?.offers[0]?.price?.sources, [{ script: 0, pointer: '/itemListElement/3/item/offers/price' }]);
  });

  it('an ItemList that references @graph products by @id', () => {
    const out = extract(
      page(ld(`{${CTX},"@graph":[{"@type":"ItemList","itemListElement":[{"@type":"ListItem","position":1,"item":{"@id":"#a"}},{"@type":"ListItem","position":2,"item":{"@id":"#b"}}]},{"@type":"Product","@id":"#a","name":"A"},{"@type":"Product","@id":"#b","name":"B"}]}`)),
      'https://x.test/list',
    );
    assert.deepEqual(out.products.map((p) => [p.name?.value, p.at_id, p.sources[0]?.pointer]), [
      ['A', 'https://x.test/list#a', '/@graph/1'],
      ['B', 'https://x.test/list#b', '/@graph/2'],
    ]);
  });

  it('a product without a schema.org @context is flagged', () => {
    assert.ok(product('{"@type":"Product","name":"A"}').flags.includes('no_schema_org_context'));
    assert.ok(!product(`{${CTX},"@type":"Product","name":"A"}`).flags.includes('no_schema_org_context'));
    assert.ok(!product('{"@type":"https://schema.org/Product","name":"A"}').flags.includes('no_schema_org_context'));
  });

  it('Offer with itemOffered at top level is attached to the product', () => {
    const p = product(`{${CTX},"@type":"Offer","price":"5","priceCurrency":"USD","itemOffered":{"@type":"Product","name":"Thing"}}`);
    assert.equal(p.role, 'offered_item');
    assert.equal(offer(p).price?.normalized, '5');
    assert.deepEqual(offer(p).sources, [{ script: 0, pointer: '' }]);
  });
});

describe('offers', () => {
  it('offers as object and as array', () => {
    const p1 = product(`{${CTX},"@type":"Product","name":"A","offers":{"@type":"Offer","price":"1","priceCurrency":"EUR"}}`);
    assert.equal(p1.offers.length, 1);
    const p2 = product(`{${CTX},"@type":"Product","name":"A","offers":[{"@type":"Offer","price":"1","priceCurrency":"EUR"},{"@type":"Offer","price":"2","priceCurrency":"USD"}]}`);
    assert.deepEqual(p2.offers.map((o) => [o.id, o.price?.normalized, o.currency?.normalized]), [
      ['p0.o0', '1', 'EUR'],
      ['p0.o1', '2', 'USD'],
    ]);
  });

  it('AggregateOffer with lowPrice, highPrice, offerCount', () => {
    const p = product(`{${CTX},"@type":"Product","name":"A","offers":{"@type":"AggregateOffer","lowPrice":"9.99","highPrice":19.99,"offerCount":"7","priceCurrency":"EUR"}}`);
    const o = offer(p);
    assert.equal(o.type, 'AggregateOffer');
    assert.equal(o.low_price?.normalized, '9.99');
    assert.equal(o.high_price?.normalized, '19.99');
    assert.equal(o.offer_count?.value, '7');
    assert.equal(p.product_snippet.eligible, true);
    assert.equal(p.merchant_listing.eligible, false);
    assert.equal(p.merchant_listing.required.find((c) => c.property === 'offers')?.status, 'invalid');
  });

  it('AggregateOffer with nested offers (currency inherited, parent linked)', () => {
    const p = product(`{${CTX},"@type":"Product","name":"A","image":"https://x.test/a.jpg","offers":{"@type":"AggregateOffer","lowPrice":"5","highPrice":"8","priceCurrency":"USD","offers":[{"@type":"Offer","price":"5","seller":"Shop A"},{"@type":"Offer","price":"8","seller":{"@type":"Organization","name":"Shop B"}}]}}`);
    assert.equal(p.offers.length, 3);
    const [agg, a, b] = p.offers;
    assert.equal(a?.parent_offer, agg?.id);
    assert.equal(b?.parent_offer, agg?.id);
    assert.equal(a?.currency?.normalized, 'USD');
    assert.ok(a?.currency?.flags.includes('inherited_from_aggregate_offer'));
    assert.equal(a?.seller[0]?.name, 'Shop A');
    assert.equal(b?.seller[0]?.name, 'Shop B');
    assert.equal(b?.seller[0]?.type, 'Organization');
    assert.equal(p.merchant_listing.eligible, true);
  });

  it('lowPrice above highPrice is flagged', () => {
    const p = product(`{${CTX},"@type":"Product","name":"A","offers":{"@type":"AggregateOffer","lowPrice":"30","highPrice":"20","priceCurrency":"EUR"}}`);
    assert.ok(offer(p).flags.includes('low_price_above_high_price'));
  });

  it('prices: numbers keep their exact text, strings are normalized with warnings', () => {
    const cases: Array<[string, string | null, string, string | null]> = [
      ['119.90', '119.90', 'ok', null],
      ['1.10', '1.10', 'ok', null],
      ['"1,299.00"', '1299.00', 'ok', 'thousands_separator_removed'],
      ['"1.299,00"', '1299.00', 'ok', 'decimal_comma_inferred'],
      ['"$12.99"', '12.99', 'ok', 'currency_in_price'],
      ['""', null, 'empty', 'empty_price'],
      ['0', '0', 'zero', 'zero_price'],
      ['"0.00"', '0.00', 'zero', 'zero_price'],
      ['-5', '-5', 'negative', 'negative_price'],
      ['"-5.00"', '-5.00', 'negative', 'negative_price'],
      ['null', null, 'empty', 'empty_price'],
      ['"call us"', null, 'invalid', 'invalid_price'],
    ];
    for (const [raw, norm, status, code] of cases) {
      const out = extract(page(ld(`{${CTX},"@type":"Product","name":"A","image":"https://x.test/i.jpg","offers":{"@type":"Offer","price":${raw},"priceCurrency":"USD"}}`)));
      const o = offer(only(out));
      assert.equal(o.price?.normalized, norm, raw);
      assert.equal(o.price?.status, status, raw);
      if (code) assert.ok(warningCodes(out).includes(code), `${raw}: ${warningCodes(out)}`);
      const ml = only(out).merchant_listing;
      assert.equal(ml.eligible, status === 'ok', raw);
      if (status === 'zero') assert.match(ml.required.find((c) => c.property === 'offers.price')?.detail ?? '', /greater than 0/);
    }
  });

  it('price only in priceSpecification, and StrikethroughPrice as previous price', () => {
    const p = product(`{${CTX},"@type":"Product","name":"A","offers":{"@type":"Offer","priceSpecification":[
      {"@type":"UnitPriceSpecification","price":"19.99","priceCurrency":"EUR","referenceQuantity":{"@type":"QuantitativeValue","value":"1","unitCode":"KGM"}},
      {"@type":"UnitPriceSpecification","priceType":"https://schema.org/StrikethroughPrice","price":"24.99","priceCurrency":"EUR"}]}}`);
    const o = offer(p);
    assert.equal(o.price?.normalized, '19.99');
    assert.equal(o.price_origin, 'priceSpecification');
    assert.deepEqual(o.price?.sources, [{ script: 0, pointer: '/offers/priceSpecification/0/price' }]);
    assert.equal(o.currency?.normalized, 'EUR');
    assert.equal(o.previous_price?.normalized, '24.99');
    assert.deepEqual(o.previous_price?.sources, [{ script: 0, pointer: '/offers/priceSpecification/1/price' }]);
    assert.equal(o.price_specifications[1]?.price_type?.normalized, 'https://schema.org/StrikethroughPrice');
    assert.equal(o.price_specifications[0]?.reference_quantity?.unit_code, 'KGM');
    assert.equal(o.price_specifications.length, 2);
  });

  it('a strikethrough price not above the price is flagged; ListPrice is reported as list_price', () => {
    const p = product(`{${CTX},"@type":"Product","name":"A","offers":{"@type":"Offer","price":"30","priceCurrency":"EUR","priceSpecification":[{"@type":"UnitPriceSpecification","priceType":"StrikethroughPrice","price":"25"},{"@type":"UnitPriceSpecification","priceType":"https://schema.org/ListPrice","price":"35"}]}}`);
    const o = offer(p);
    assert.ok(o.flags.includes('previous_price_not_higher'));
    assert.equal(o.list_price?.normalized, '35');
  });

  it('currency lowercase, symbol, or missing', () => {
    const lower = offer(product(`{${CTX},"@type":"Product","name":"A","offers":{"@type":"Offer","price":"1","priceCurrency":"eur"}}`));
    assert.equal(lower.currency?.normalized, 'EUR');
    assert.equal(lower.currency?.status, 'case_normalized');
    const outSym = extract(page(ld(`{${CTX},"@type":"Product","name":"A","image":"https://x.test/a.jpg","offers":{"@type":"Offer","price":"1","priceCurrency":"$"}}`)));
    const sym = offer(only(outSym));
    assert.equal(sym.currency?.normalized, 'USD');
    assert.equal(sym.currency?.ambiguous, true);
    assert.ok(warningCodes(outSym).includes('currency_symbol'));
    assert.equal(only(outSym).merchant_listing.required.find((c) => c.property === 'offers.priceCurrency')?.status, 'invalid');
    const outMissing = extract(page(ld(`{${CTX},"@type":"Product","name":"A","offers":{"@type":"Offer","price":"€ 5,50"}}`)));
    const miss = offer(only(outMissing));
    assert.equal(miss.currency, null);
    assert.equal(miss.price?.currency_hint, 'EUR');
    assert.equal(miss.price?.normalized, '5.50');
    assert.ok(warningCodes(outMissing).includes('missing_currency'));
    assert.equal(only(outMissing).merchant_listing.required.find((c) => c.property === 'offers.priceCurrency')?.status, 'missing');
  });

  it('a currency in the price text that contradicts priceCurrency is flagged; unknown codes are invalid', () => {
    const out = extract(page(ld(`{${CTX},"@type":"Product","name":"A","offers":{"@type":"Offer","price":"$5.00","priceCurrency":"EUR"}}`)));
    const o = offer(only(out));
    assert.equal(o.currency?.normalized, 'EUR');
    assert.ok(o.flags.includes('currency_conflict'));
    assert.ok(warningCodes(out).includes('currency_conflict'));
    const x = extract(page(ld(`{${CTX},"@type":"Product","name":"A","image":"https://x.test/a.jpg","offers":{"@type":"Offer","price":"5","priceCurrency":"XYZ"}}`)));
    assert.equal(offer(only(x)).currency?.status, 'unknown');
    assert.equal(only(x).merchant_listing.required.find((c) => c.property === 'offers.priceCurrency')?.status, 'invalid');
  });

  it('availability and itemCondition in every common form', () => {
    for (const a of ['InStock', 'schema:InStock', 'http://schema.org/InStock', 'https://schema.org/InStock']) {
      const o = offer(product(`{${CTX},"@type":"Product","name":"A","offers":{"@type":"Offer","price":"1","priceCurrency":"EUR","availability":"${a}","itemCondition":"NewCondition"}}`));
      assert.equal(o.availability?.normalized, 'https://schema.org/InStock');
      assert.deepEqual(o.availability?.flags, []);
      assert.equal(o.item_condition?.normalized, 'https://schema.org/NewCondition');
    }
    const o = offer(product(`{${CTX},"@type":"Product","name":"A","offers":{"@type":"Offer","availability":{"@id":"schema:OutOfStock"}}}`));
    assert.equal(o.availability?.normalized, 'https://schema.org/OutOfStock');
    const out = extract(page(ld(`{${CTX},"@type":"Product","name":"A","offers":{"@type":"Offer","availability":"Yes"}}`)));
    assert.equal(offer(only(out)).availability?.normalized, null);
    assert.ok(warningCodes(out).includes('unknown_availability'));
  });

  it('priceValidUntil: date, datetime, invalid, past (no clock: reported, not judged)', () => {
    const get = (v: string): OfferOut => offer(product(`{${CTX},"@type":"Product","name":"A","offers":{"@type":"Offer","price":"1","priceCurrency":"EUR","priceValidUntil":${v}}}`));
    assert.deepEqual([get('"2030-01-31"').price_valid_until?.kind, get('"2030-01-31"').price_valid_until?.normalized], ['date', '2030-01-31']);
    const dt = get('"2030-01-31T12:00:00+02:00"').price_valid_until;
    assert.equal(dt?.kind, 'datetime');
    assert.equal(dt?.date, '2030-01-31');
    assert.equal(get('"31.01.2030"').price_valid_until?.kind, 'invalid');
    assert.equal(get('20300131').price_valid_until?.kind, 'invalid');
    const past = get('"2001-01-01"').price_valid_until;
    assert.equal(past?.normalized, '2001-01-01');
    assert.deepEqual(past?.flags, []);
  });

  it('seller and brand as string, object or array', () => {
    const p = product(`{${CTX},"@type":"Product","name":"A","brand":["Acme",{"@type":"Brand","name":"Acme Pro"},{"@type":"Organization","name":"Acme Corp"}],"offers":[
      {"@type":"Offer","price":"1","priceCurrency":"EUR","seller":"Shop One"},
      {"@type":"Offer","price":"2","priceCurrency":"EUR","seller":[{"@type":"Organization","name":"Shop Two"},{"@type":"Person","name":"Jo"}]}]}`);
    assert.deepEqual(p.brand.map((b) => [b.name, b.type]), [
      ['Acme', null],
      ['Acme Pro', 'Brand'],
      ['Acme Corp', 'Organization'],
    ]);
    assert.deepEqual(p.offers[0]?.seller.map((s) => s.name), ['Shop One']);
    assert.deepEqual(p.offers[1]?.seller.map((s) => [s.name, s.type]), [
      ['Shop Two', 'Organization'],
      ['Jo', 'Person'],
    ]);
    assert.equal(p.merchant_listing.recommended.find((c) => c.property === 'brand')?.status, 'present');
  });

  it('a brand given as a string @id of a defined node is resolved', () => {
    const p = only(extract(page(ld(`{${CTX},"@graph":[{"@type":"Product","name":"A","brand":"#acme"},{"@type":"Brand","@id":"#acme","name":"ACME"}]}`)), 'https://x.test/'));
    assert.equal(p.brand[0]?.name, 'ACME');
    assert.ok(p.brand[0]?.flags.includes('resolved_from_string_reference'));
  });

  it('an unresolved @id reference is flagged, not invented', () => {
    const p = product(`{${CTX},"@type":"Product","name":"A","brand":{"@id":"#nowhere"}}`);
    assert.equal(p.brand[0]?.name, null);
    assert.ok(p.brand[0]?.flags.includes('unresolved_reference'));
  });
});

describe('identifiers', () => {
  it('sku, mpn, GTINs with check-digit verdicts', () => {
    const p = product(`{${CTX},"@type":"Product","name":"A","sku":"AB-1","mpn":"M-9","gtin13":"4006381333931","gtin8":"96385075","gtin12":"36000291452","gtin14":10036000291459}`);
    const by = (prop: string) => p.identifiers.find((i) => i.property === prop);
    assert.equal(by('sku')?.normalized, 'AB-1');
    assert.equal(by('mpn')?.normalized, 'M-9');
    assert.equal(by('gtin13')?.gtin?.check_digit, 'valid');
    assert.equal(by('gtin8')?.gtin?.check_digit, 'invalid');
    assert.equal(by('gtin12')?.gtin?.check_digit, 'bad_length');
    assert.equal(by('gtin12')?.gtin?.valid_if_zero_padded, true);
    assert.equal(by('gtin14')?.gtin?.check_digit, 'valid');
    assert.equal(by('gtin14')?.json_type, 'number');
  });

  it('GTIN as a JSON number lost leading zeros: padded, flagged, warned', () => {
    const out = extract(page(ld(`{${CTX},"@type":"Product","name":"A","gtin13":36000291452,"gtin":0}`)));
    const p = only(out);
    const g = p.identifiers.find((i) => i.property === 'gtin13');
    assert.equal(g?.raw, '36000291452');
    assert.equal(g?.normalized, '0036000291452');
    assert.equal(g?.gtin?.leading_zeros_possibly_lost, true);
    assert.equal(g?.gtin?.check_digit, 'valid');
    assert.ok(warningCodes(out).includes('gtin_leading_zeros_lost'));
  });

  it('a 14-digit GTIN number beyond 2^53 is kept digit for digit (JSON.parse would alter it)', () => {
    const p = product(`{${CTX},"@type":"Product","name":"A","gtin14":98765432109213}`);
    assert.equal(p.identifiers[0]?.normalized, '98765432109213');
  });
});

describe('URLs and base', () => {
  it('relative url and image against <base href>, itself resolved against base_url', () => {
    const html = `<html><head><base href="/shop/"></head><body>${ld(`{${CTX},"@type":"Product","name":"A","url":"item?id=1","image":[{"@type":"ImageObject","url":"img/a.jpg"},"//cdn.test/b.jpg"]}`)}</body></html>`;
    const out = extract(html, 'https://example.com/catalog/page.html');
    assert.equal(out.base.effective_base, 'https://example.com/shop/');
    const p = only(out);
    assert.equal(p.url?.resolved, 'https://example.com/shop/item?id=1');
    assert.deepEqual(p.images.map((i) => i.resolved), ['https://example.com/shop/img/a.jpg', 'https://cdn.test/b.jpg']);
    assert.deepEqual(p.images[0]?.sources, [{ script: 0, pointer: '/image/0/url' }]);
  });

  it('without any base, relative URLs stay unresolved and flagged', () => {
    const out = extract(page(ld(`{${CTX},"@type":"Product","name":"A","url":"/p/1","image":"a.jpg"}`)));
    const p = only(out);
    assert.equal(p.url?.resolved, null);
    assert.ok(p.url?.flags.includes('relative_without_base'));
    assert.equal(p.merchant_listing.required.find((c) => c.property === 'image')?.status, 'invalid');
  });

  it('an absolute <base href> works without base_url; a relative one without base_url is ignored with a warning', () => {
    const a = extract(`<base href="https://b.test/x/">${ld(`{${CTX},"@type":"Product","name":"A","url":"y"}`)}`);
    assert.equal(only(a).url?.resolved, 'https://b.test/x/y');
    const b = extract(`<base href="/x/">${ld(`{${CTX},"@type":"Product","name":"A","url":"y"}`)}`);
    assert.equal(only(b).url?.resolved, null);
    assert.ok(warningCodes(b).includes('base_href_unresolvable'));
  });
});

describe('duplicates', () => {
  it('the same product in two scripts (same sku) is merged with both sources cited', () => {
    const html = page(
      ld(`{${CTX},"@type":"Product","name":"Anvil","sku":"A1","image":"https://x.test/a.jpg","offers":{"@type":"Offer","price":"10.00","priceCurrency":"USD","availability":"InStock"}}`),
      ld(`{${CTX},"@type":"Product","name":"Anvil","sku":"A1","brand":"ACME","offers":{"@type":"Offer","price":10.00,"priceCurrency":"USD"}}`),
    );
    const out = extract(html);
    const p = only(out);
    assert.equal(out.summary.duplicates_merged, 1);
    assert.equal(p.merged_from, 2);
    assert.deepEqual(p.sources, [
      { script: 0, pointer: '' },
      { script: 1, pointer: '' },
    ]);
    assert.deepEqual(p.name?.sources.map((s) => s.script), [0, 1]);
    assert.equal(p.brand[0]?.name, 'ACME');
    assert.equal(p.offers.length, 1);
    assert.deepEqual(offer(p).price?.sources.map((s) => s.script), [0, 1]);
    assert.ok(p.flags.includes('merged_duplicate'));
  });

  it('merged by GTIN (string vs number with lost zero) and by url', () => {
    const out = extract(
      page(
        ld(`{${CTX},"@type":"Product","name":"G","gtin12":"036000291452"}`),
        ld(`{${CTX},"@type":"Product","name":"G","gtin12":36000291452}`),
        ld(`{${CTX},"@type":"Product","name":"U","url":"https://x.test/u"}`),
        ld(`{${CTX},"@type":"Product","name":"U","url":"https://x.test/u","sku":"U1"}`),
      ),
    );
    assert.deepEqual(out.products.map((p) => p.name?.value), ['G', 'U']);
    assert.equal(out.summary.duplicates_merged, 2);
  });

  it('different skus sharing a url are not merged; nor are variants of one group', () => {
    const out = extract(
      page(
        ld(`{${CTX},"@type":"Product","name":"R","url":"https://x.test/p","sku":"R-S"}`),
        ld(`{${CTX},"@type":"Product","name":"R","url":"https://x.test/p","sku":"R-M"}`),
      ),
    );
    assert.equal(out.products.length, 2);
  });
});

describe('verdicts', () => {
  it('a complete merchant listing', () => {
    const p = product(`{${CTX},"@type":"Product","name":"Full","image":"https://x.test/f.jpg","description":"d","sku":"F1","gtin13":"4006381333931","brand":{"@type":"Brand","name":"B"},
      "aggregateRating":{"@type":"AggregateRating","ratingValue":"4.5","reviewCount":"10"},"review":[{"@type":"Review"}],
      "offers":{"@type":"Offer","price":"12.00","priceCurrency":"EUR","availability":"InStock","itemCondition":"NewCondition","priceValidUntil":"2030-01-01",
        "shippingDetails":{"@type":"OfferShippingDetails"},"hasMerchantReturnPolicy":{"@type":"MerchantReturnPolicy"}}}`);
    assert.equal(p.merchant_listing.eligible, true);
    assert.ok(p.merchant_listing.required.every((c) => c.status === 'present'));
    assert.ok(p.merchant_listing.recommended.every((c) => c.status === 'present'), JSON.stringify(p.merchant_listing.recommended.filter((c) => c.status !== 'present')));
    assert.equal(p.product_snippet.eligible, true);
  });

  it('missing properties are listed', () => {
    const p = product(`{${CTX},"@type":"Product","name":"Bare"}`);
    assert.equal(p.merchant_listing.eligible, false);
    assert.deepEqual(
      p.merchant_listing.required.map((c) => [c.property, c.status]),
      [
        ['name', 'present'],
        ['image', 'missing'],
        ['offers', 'missing'],
        ['offers.price', 'missing'],
        ['offers.priceCurrency', 'missing'],
      ],
    );
    assert.equal(p.product_snippet.eligible, false);
    const rated = product(`{${CTX},"@type":"Product","name":"Rated","aggregateRating":{"ratingValue":4,"reviewCount":3}}`);
    assert.equal(rated.product_snippet.eligible, true);
  });
});

describe('evidence', () => {
  it('every cited pointer resolves in the script JSON (checked by helpers), hashes match bytes, non-ASCII offsets are bytes', () => {
    const html = `<html><head><title>Café ☕ 😀</title>${ld(`{${CTX},"@type":"Product","name":"Crème brûlée 😀","offers":{"@type":"Offer","price":"4.50","priceCurrency":"EUR"}}`)}</head></html>`;
    const out = extract(html);
    const s = out.scripts[0];
    assert.ok(s);
    assert.ok(s.byte_offset > s.char_offset);
    const doc = JSON.parse(Buffer.from(html).subarray(s.byte_offset, s.byte_offset + s.byte_length).toString());
    assert.equal(resolvePointer(doc, only(out).name?.sources[0]?.pointer ?? 'x'), 'Crème brûlée 😀');
    assert.deepEqual(
      { network_fetches: out.evidence.network_fetches, model_calls: out.evidence.model_calls, supplier_payments: out.evidence.supplier_payments },
      { network_fetches: 0, model_calls: 0, supplier_payments: 0 },
    );
    assert.ok(out.limitations.length >= 4);
  });
});
