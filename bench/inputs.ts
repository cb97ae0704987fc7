/**
 * Benchmark inputs per capability id: each capability at its largest allowed
 * input (plus, where it tells something, a typical one). A capability not in
 * `LARGE_INPUTS` is benchmarked on its first published example.
 *
 * Every generator is deterministic (a fixed-seed PRNG), so two runs measure
 * the same bytes. Limits are read from the capability's own schema and body
 * limit where it states them, so the inputs follow the catalog.
 */
import type { Capability } from '../src/catalog/capability.js';
import { prng } from '../test/support/prng.js';

export interface BenchCase {
  /** Short label for the results table. */
  label: string;
  input: unknown;
}

/** `schema.properties[prop].maxLength`, when the capability states one. */
function maxLengthOf(cap: Capability, prop: string): number | undefined {
  const props = (cap.inputSchema as { properties?: Record<string, { maxLength?: unknown }> }).properties;
  const v = props?.[prop]?.maxLength;
  return typeof v === 'number' ? v : undefined;
}

// ------------------------------------------------------------ data-compatibility-checker

type FieldType = 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array';
interface Field {
  name: string;
  type: FieldType;
  required: boolean;
  nullable: boolean;
}

const ENTITIES = ['customer', 'order', 'invoice', 'shipment', 'payment', 'product', 'account', 'address', 'refund', 'coupon', 'warehouse', 'carrier'];
const ATTRIBUTES: Array<[string, FieldType]> = [
  ['id', 'integer'],
  ['name', 'string'],
  ['status', 'string'],
  ['created_at', 'string'],
  ['amount', 'number'],
  ['count', 'integer'],
  ['is_active', 'boolean'],
  ['tags', 'array'],
  ['metadata', 'object'],
  ['currency', 'string'],
];

/**
 * A producer contract of 100 fields and a consumer contract of 100 fields
 * that differ the way real schema drift does: widened and narrowed types,
 * nullability and requiredness changes, a few case-mismatched names, five
 * fields dropped and five new ones (some required), in another order.
 */
function compatibilityPair(): { source_fields: Field[]; target_fields: Field[] } {
  const rand = prng(0xc0ffee);
  const all: Field[] = [];
  for (const attr of ATTRIBUTES) {
    for (const entity of ENTITIES) {
      all.push({ name: `${entity}_${attr[0]}`, type: attr[1], required: rand() < 0.6, nullable: rand() < 0.25 });
    }
  }
  const source = all.slice(0, 100);
  const extra = all.slice(100, 105);
  const target: Field[] = [];
  source.forEach((f, i) => {
    if (i % 20 === 7) return; // dropped by the consumer: 5 fields
    const t: Field = { ...f };
    switch (i % 10) {
      case 1:
        if (t.type === 'integer') t.type = 'number'; // widened: compatible
        else if (t.type === 'number') t.type = 'integer'; // narrowed: breaking
        else if (t.type === 'string') t.type = 'object'; // changed: breaking
        break;
      case 3:
        t.nullable = !t.nullable;
        break;
      case 5:
        t.required = !t.required;
        break;
      default:
        break;
    }
    if (i % 17 === 4) t.name = t.name.charAt(0).toUpperCase() + t.name.slice(1); // case mismatch
    target.push(t);
  });
  extra.forEach((f, i) => target.push({ ...f, required: i % 2 === 0 })); // new fields, some required
  // A deterministic shuffle: the checker must not depend on input order.
  for (let i = target.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [target[i], target[j]] = [target[j]!, target[i]!];
  }
  return { source_fields: source, target_fields: target };
}

// ------------------------------------------------------------ nft-metadata-uri-normalizer

/**
 * On-chain metadata as a base64 data: URI just under the `uri` length limit:
 * a JSON document with an inline SVG image and a long attribute list, the
 * shape generative on-chain collections publish.
 */
function longDataUri(maxChars: number): string {
  const prefix = 'data:application/json;base64,';
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 350 350"><rect width="100%" height="100%" fill="#1b1b3a"/>${Array.from(
    { length: 24 },
    (_, i) => `<circle cx="${(i * 37) % 350}" cy="${(i * 53) % 350}" r="${8 + (i % 9)}" fill="#${((i * 2654435761) >>> 8).toString(16).padStart(6, '0').slice(0, 6)}"/>`,
  ).join('')}</svg>`;
  const meta: { name: string; description: string; image: string; attributes: Array<{ trait_type: string; value: string | number }> } = {
    name: 'Bench Token #4242',
    description: 'Fully on-chain metadata used by the benchmark: JSON, base64-encoded in a data: URI, with an inline SVG image.',
    image: `data:image/svg+xml;base64,${Buffer.from(svg, 'utf8').toString('base64')}`,
    attributes: [],
  };
  const encodedLength = () => prefix.length + 4 * Math.ceil(Buffer.byteLength(JSON.stringify(meta), 'utf8') / 3);
  const rand = prng(4242);
  for (let i = 0; ; i++) {
    meta.attributes.push({ trait_type: `Trait ${i}`, value: i % 3 === 0 ? Math.floor(rand() * 1000) : `Value ${Math.floor(rand() * 1e6).toString(36)}` });
    if (encodedLength() > maxChars) {
      meta.attributes.pop();
      break;
    }
  }
  // Pad the description so the URI lands within a few characters of the limit.
  while (encodedLength() + 4 <= maxChars) meta.description += '.';
  return prefix + Buffer.from(JSON.stringify(meta), 'utf8').toString('base64');
}

// ------------------------------------------------------------ catalog-offer-evidence-extractor

/** GTIN check digit (mod 10, weights 3 and 1 from the right). */
function withCheckDigit(body: string): string {
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    const d = body.charCodeAt(body.length - 1 - i) - 48;
    sum += d * (i % 2 === 0 ? 3 : 1);
  }
  return body + String((10 - (sum % 10)) % 10);
}

const ADJECTIVES = ['Executive', 'Compact', 'Heavy-duty', 'Ergonomic', 'Vintage', 'Wireless', 'Stainless', 'Organic', 'Foldable', 'Smart'];
const NOUNS = ['Anvil', 'Kettle', 'Desk Lamp', 'Backpack', 'Headphones', 'Chef Knife', 'Yoga Mat', 'Coffee Grinder', 'Rain Jacket', 'Bookshelf'];
const CURRENCIES = ['USD', 'EUR', 'GBP', 'usd'];
const AVAILABILITY = ['https://schema.org/InStock', 'InStock', 'schema:OutOfStock', 'https://schema.org/PreOrder', 'http://schema.org/LimitedAvailability'];

/** One product card: visible markup plus its JSON-LD script, in one of several real-world shapes. */
function productBlock(i: number, rand: () => number): string {
  // Every 40th card repeats an earlier product (same SKU, GTIN and URL): the extractor merges duplicates.
  const k = i > 0 && i % 40 === 0 ? i - 17 : i;
  const name = `${ADJECTIVES[k % ADJECTIVES.length]} ${NOUNS[Math.floor(k / ADJECTIVES.length) % NOUNS.length]} ${k}`;
  const sku = `SKU-${String(100000 + k)}`;
  const gtin13 = withCheckDigit(String(4006381000000 + k * 7).slice(0, 12));
  const price = (5 + rand() * 995).toFixed(2);
  const currency = CURRENCIES[i % CURRENCIES.length]!;
  const availability = AVAILABILITY[i % AVAILABILITY.length]!;
  const slug = name.toLowerCase().replace(/[^a-z0-9]+/g, '-');
  const description = `${name}: a sturdy, well-reviewed item for everyday use. Ships in 2-3 business days. ${'Durable materials and a two-year warranty. '.repeat(1 + (i % 3))}`;
  const offer: Record<string, unknown> = {
    '@type': 'Offer',
    url: `/p/${slug}`,
    price: i % 5 === 0 ? Number(price) : price,
    priceCurrency: currency,
    priceValidUntil: '2030-12-31',
    availability,
    itemCondition: 'https://schema.org/NewCondition',
    seller: { '@id': '#store' },
  };
  if (i % 10 === 3) {
    offer.priceSpecification = {
      '@type': 'UnitPriceSpecification',
      priceType: 'https://schema.org/StrikethroughPrice',
      price: (Number(price) * 1.25).toFixed(2),
      priceCurrency: currency,
    };
  }
  const product: Record<string, unknown> = {
    '@context': 'https://schema.org/',
    '@type': i % 13 === 0 ? ['Product', 'IndividualProduct'] : 'Product',
    '@id': `#product-${i}`,
    name,
    description,
    image: [`/img/${slug}-1x1.jpg`, `https://cdn.example.com/img/${slug}-4x3.jpg`],
    brand: { '@type': 'Brand', name: i % 2 ? 'ACME' : 'Globex' },
    sku,
    gtin13,
    mpn: `MPN-${(i * 7919).toString(36).toUpperCase()}`,
    aggregateRating: { '@type': 'AggregateRating', ratingValue: (3 + rand() * 2).toFixed(1), reviewCount: 1 + Math.floor(rand() * 500) },
  };
  if (i % 10 === 5) {
    const lows = [price, (Number(price) * 1.1).toFixed(2), (Number(price) * 1.3).toFixed(2)];
    product.offers = {
      '@type': 'AggregateOffer',
      lowPrice: lows[0],
      highPrice: lows[2],
      offerCount: 3,
      priceCurrency: currency,
      offers: lows.map((p, k) => ({ '@type': 'Offer', price: p, priceCurrency: currency, availability, seller: { '@type': 'Organization', name: `Seller ${k}` } })),
    };
  } else {
    product.offers = offer;
  }
  let json: string;
  let typeAttr = 'application/ld+json';
  if (i % 20 === 9) {
    // @graph with the organisation referenced by @id from another script.
    const { '@context': ctx, ...rest } = product;
    json = JSON.stringify({ '@context': ctx, '@graph': [rest, { '@type': 'WebPage', '@id': `#page-${i}`, name }] }, null, 2);
  } else if (i % 25 === 11) {
    // Damage seen in the wild: a comment and trailing commas (lenient recovery).
    json = `// generated by a shop plugin\n${JSON.stringify(product, null, 1).replace(/("|\d|true|false)(\n *[}\]])/g, '$1,$2')}`;
    typeAttr = 'application/ld+json; charset=utf-8';
  } else if (i % 25 === 17) {
    json = `<!--\n${JSON.stringify(product)}\n-->`;
    typeAttr = 'APPLICATION/LD+JSON';
  } else {
    json = JSON.stringify(product, null, i % 3 === 0 ? 2 : undefined);
  }
  return `
<article class="product-card" data-product-id="${i}" itemscope>
  <a class="product-card__link" href="/p/${slug}"><img src="/img/${slug}-1x1.jpg" alt="${name}" loading="lazy" width="320" height="320"></a>
  <h2 class="product-card__title"><a href="/p/${slug}">${name}</a></h2>
  <p class="product-card__brand">${i % 2 ? 'ACME' : 'Globex'} &middot; SKU ${sku}</p>
  <p class="product-card__price"><span class="amount">${price}</span> <span class="currency">${currency.toUpperCase()}</span></p>
  <button class="btn btn--primary add-to-cart" data-sku="${sku}" aria-label="Add ${name} to cart">Add to cart</button>
  <script type="${typeAttr}">${json}</script>
</article>`;
}

/**
 * A category page of about 2 MiB of HTML (the extractor's limit, read from its
 * schema) carrying one Product JSON-LD script per product card, plus a store
 * Organization script that the products reference by @id. Stops before either
 * the `html` length limit or the JSON request-body limit would be exceeded.
 */
function largeCatalogPage(maxChars: number, maxBodyBytes: number): { html: string; base_url: string } {
  const rand = prng(20240601);
  const head = `<!doctype html>
<html lang="en"><head>
<meta charset="utf-8"><title>All products - Example Store</title>
<base href="/shop/">
<link rel="stylesheet" href="/assets/site.css">
<script>window.dataLayer = window.dataLayer || []; function gtag(){dataLayer.push(arguments);}</script>
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Organization","@id":"#store","name":"Example Store","url":"https://www.example.com/"}</script>
</head><body>
<header class="site-header"><nav><a href="/">Home</a> <a href="/shop/">Shop</a> <a href="/cart">Cart</a></nav></header>
<main class="product-grid">`;
  const tail = `
</main>
<footer class="site-footer"><p>&copy; Example Store</p></footer>
</body></html>`;
  const envelope = JSON.stringify({ html: '', base_url: 'https://www.example.com/category/all' }).length;
  const jsonLen = (s: string) => JSON.stringify(s).length - 2;
  const parts: string[] = [head];
  let chars = head.length + tail.length;
  let bodyBytes = envelope + jsonLen(head) + jsonLen(tail);
  for (let i = 0; ; i++) {
    const block = productBlock(i, rand);
    const blockBody = jsonLen(block); // ASCII only, so characters = bytes
    if (chars + block.length > maxChars || bodyBytes + blockBody > maxBodyBytes) break;
    parts.push(block);
    chars += block.length;
    bodyBytes += blockBody;
  }
  parts.push(tail);
  return { html: parts.join(''), base_url: 'https://www.example.com/category/all' };
}

// ------------------------------------------------------------ the map

export const LARGE_INPUTS: Record<string, (cap: Capability) => BenchCase[]> = {
  'data-compatibility-checker': () => [{ label: '100×100 fields, drifted pair', input: { comparison_mode: 'backward_compatible', canonicalization: 'exact', ...compatibilityPair() } }],
  'nft-metadata-uri-normalizer': (cap) => {
    const max = maxLengthOf(cap, 'uri') ?? 65_536;
    const uri = longDataUri(max);
    return [
      { label: `data: URI, ${uri.length.toLocaleString('en-US')} chars (limit ${max.toLocaleString('en-US')})`, input: { uri } },
      {
        label: 'ipfs gateway URL + {id} + token id',
        input: {
          uri: 'https://gateway.pinata.cloud/ipfs/bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi/metadata/{id}.json',
          token_id: '115792089237316195423570985008687907853269984665640564039457584007913129639935',
          ipfs_gateway: 'https://dweb.link',
        },
      },
    ];
  },
  'catalog-offer-evidence-extractor': (cap) => {
    const page = largeCatalogPage(maxLengthOf(cap, 'html') ?? 2_097_152, cap.maxBodyBytes ?? 2_621_440);
    const scripts = (page.html.match(/<script type="application\/ld\+json/gi) ?? []).length;
    return [{ label: `${(page.html.length / 1048576).toFixed(2)} MiB page, ${scripts.toLocaleString('en-US')} JSON-LD scripts`, input: page }];
  },
};

/** The cases to benchmark for one capability: its large inputs, or its first example. */
export function casesFor(cap: Capability): BenchCase[] {
  const make = LARGE_INPUTS[cap.id];
  if (make) return make(cap);
  const ex = cap.examples[0];
  return ex ? [{ label: `example: ${ex.summary}`, input: ex.input }] : [];
}
