/**
 * Catalog offer evidence extractor: Product / Offer facts from the JSON-LD of caller-supplied
 * HTML, each value cited by script index + JSON pointer, each script by offset and SHA-256.
 *
 * Pure and deterministic: no I/O, no clock, no randomness (node:crypto hashing only).
 */
import { createHash } from 'node:crypto';
import type { Capability, InputProblem } from '../../catalog/capability.js';
import { extractProducts, LIMITS, localName } from './extract.js';
import { scanHtml, trimAsciiSpace, utf8Length } from './html-scripts.js';
import { type JsonNode, parseScriptText, pointerOf } from './lenient-json.js';
import { inputSchema, MAX_BODY_BYTES, outputSchema } from './schema.js';
import type { ExtractorRequest, ExtractorResponse, ScriptReport, WarningOut } from './types.js';
import { extractorRouting } from './routing.js';

export type { ExtractorRequest, ExtractorResponse } from './types.js';

const LIMITATIONS: readonly string[] = [
  'Only JSON-LD in <script type="application/ld+json"> elements is read; microdata, RDFa, Open Graph and other meta tags are not.',
  'Nothing is fetched: base_url and <base href> only resolve relative URLs; external scripts (src) and remote @context documents are not loaded, and no JSON-LD context processing is done — schema.org types and properties are matched by local name (Product, schema:Product, https://schema.org/Product).',
  'Prices, currencies, availability and identifiers are reported as stated by the page markup; they are not checked against the visible page, a product feed or the merchant.',
  'The page is not rendered: JSON-LD injected by JavaScript at run time is not seen.',
  'Eligibility verdicts follow Google Search Central\'s published merchant-listing and product-snippet property lists as known when this service was built; Google may change them and applies further policies (page type, visible content, quality) that markup alone cannot show.',
  'No clock is used: whether priceValidUntil is in the past is left to the caller (compare price_valid_until.date with your own date).',
  `Bounds: ${LIMITS.products} products, ${LIMITS.offersPerProduct} offers and ${LIMITS.imagesPerProduct} images per product, ${LIMITS.warnings} warnings, JSON nesting of 512 levels per script, descriptions cut at ${LIMITS.descriptionChars} characters; summary.truncated and flags say when a bound was hit.`,
];

const OFFSETS_NOTE =
  'scripts[].byte_offset/byte_length are UTF-8 byte positions in `html` (char_offset/char_length are JavaScript string positions); sha256 is over exactly those bytes. Pointers address the JSON value parsed from that script (after HTML newline normalisation, CRLF/CR → LF, and any recoveries listed for it).';

function sha256(s: string): string {
  return createHash('sha256').update(s, 'utf8').digest('hex');
}

function topLevelTypes(root: JsonNode | null): string[] {
  if (!root) return [];
  const out: string[] = [];
  const visit = (n: JsonNode, depth: number): void => {
    if (out.length >= 20) return;
    if (n.kind === 'array') {
      if (depth < 2) for (const it of n.items) visit(it, depth + 1);
      return;
    }
    if (n.kind !== 'object') return;
    const t = n.props.get('@type');
    const list = t ? (t.kind === 'array' ? t.items : [t]) : [];
    for (const x of list) if (x.kind === 'string' && !out.includes(localName(x.value)) && out.length < 20) out.push(localName(x.value));
    const g = n.props.get('@graph');
    if (g && depth < 2) visit(g, depth + 1);
  };
  visit(root, 0);
  return out;
}

function escapeToken(t: string): string {
  return t.replace(/~/g, '~0').replace(/\//g, '~1');
}

function resolveBase(
  baseUrl: string | null,
  baseHref: string | null,
  warn: (w: WarningOut) => void,
): { baseUrl: string | null; effective: string | null } {
  let bu: string | null = null;
  if (baseUrl !== null) {
    try {
      const u = new URL(baseUrl);
      if (u.protocol === 'http:' || u.protocol === 'https:') bu = u.href;
    } catch {
      bu = null;
    }
  }
  if (baseHref === null) return { baseUrl: bu, effective: bu };
  const href = trimAsciiSpace(baseHref);
  try {
    const u = bu ? new URL(href, bu) : new URL(href);
    if (u.protocol === 'http:' || u.protocol === 'https:') return { baseUrl: bu, effective: u.href };
    warn({ code: 'base_href_not_http', message: `<base href="${href.slice(0, 200)}"> is not an http(s) URL; ignored.`, script: null, pointer: null, product: null });
  } catch {
    warn({
      code: 'base_href_unresolvable',
      message: `<base href="${href.slice(0, 200)}"> could not be resolved${bu ? '' : ' (it is relative and no base_url was given)'}; ignored.`,
      script: null,
      pointer: null,
      product: null,
    });
  }
  return { baseUrl: bu, effective: bu };
}

export function run(input: ExtractorRequest): ExtractorResponse {
  const html = input.html;
  const early: WarningOut[] = [];
  let earlyOmitted = 0;
  const warn = (w: WarningOut): void => {
    if (early.length < LIMITS.warnings) early.push(w);
    else earlyOmitted++;
  };
  const scan = scanHtml(html);
  for (const n of scan.notes) warn({ code: n.code, message: n.message, script: null, pointer: null, product: null });
  const base = resolveBase(input.base_url ?? null, scan.baseHref ? scan.baseHref.raw : null, warn);

  const reports: ScriptReport[] = [];
  const roots: Array<{ index: number; root: JsonNode | null }> = [];
  let bytePos = 0;
  let charPos = 0;
  let strict = 0;
  let lenient = 0;
  let failed = 0;
  let empty = 0;
  scan.scripts.forEach((s, index) => {
    const text = html.slice(s.contentStart, s.contentEnd);
    let parsed = parseScriptText(text);
    let spanEnd = s.contentEnd;
    const flags: string[] = [];
    if (parsed.mode === 'failed' && s.continuationEnd !== null) {
      const joined = parseScriptText(html.slice(s.contentStart, s.continuationEnd));
      if (joined.mode !== 'failed') {
        parsed = {
          mode: 'lenient',
          value: joined.value,
          recoveries: [...joined.recoveries, 'rejoined_after_end_tag'],
          duplicates: joined.duplicates,
          error: parsed.error,
        };
        spanEnd = s.continuationEnd;
        warn({
          code: 'script_end_tag_inside_json_string',
          message:
            'The JSON text contains "</script>" inside a string, which ends the element in HTML (browsers and search engines see a truncated script). The text up to the next stray </script> was re-joined and parses; write "<\\/script>" in the JSON to fix the page.',
          script: index,
          pointer: null,
          product: null,
        });
      }
    }
    bytePos += utf8Length(html, charPos, s.contentStart);
    charPos = s.contentStart;
    const byteLength = utf8Length(html, s.contentStart, spanEnd);
    if (parsed.mode === 'strict') strict++;
    else if (parsed.mode === 'lenient') lenient++;
    else if (parsed.mode === 'empty') empty++;
    else failed++;
    if (s.afterHtmlEnd) flags.push('after_html_end');
    if (s.unterminated) flags.push('unterminated');
    if (s.doubleEscaped) flags.push('double_escaped_script_data');
    if (s.insideNoscript) flags.push('inside_noscript');
    if (s.insideTemplate) flags.push('inside_template');
    if (s.src !== null) {
      flags.push('external_src_not_fetched');
      warn({ code: 'external_script_not_fetched', message: `Script ${index} has src="${s.src.slice(0, 200)}"; external JSON-LD is not fetched.`, script: index, pointer: null, product: null });
    }
    if (s.unterminated) {
      warn({ code: 'unterminated_script', message: `Script ${index} has no </script> end tag; it runs to the end of the page, as in a browser.`, script: index, pointer: null, product: null });
    }
    if (parsed.mode === 'failed' && parsed.error) {
      warn({
        code: 'script_parse_failed',
        message: `Script ${index} is not valid JSON and could not be recovered: ${parsed.error.message} at line ${parsed.error.line}, column ${parsed.error.column}. Other scripts are unaffected.`,
        script: index,
        pointer: null,
        product: null,
      });
    } else if (parsed.mode === 'lenient') {
      warn({
        code: 'script_recovered',
        message: `Script ${index} is not valid JSON (${parsed.error?.message ?? 'error'}); read after recoveries: ${parsed.recoveries.join(', ')}.`,
        script: index,
        pointer: null,
        product: null,
      });
    }
    const dupes: string[] = [];
    for (const d of parsed.duplicates) {
      if (dupes.length >= 50) break;
      const ptr = `${pointerOf(d.object)}/${escapeToken(d.key)}`;
      if (!dupes.includes(ptr)) dupes.push(ptr);
    }
    if (dupes.length) {
      warn({
        code: 'duplicate_keys',
        message: `Script ${index} repeats keys (${dupes.slice(0, 5).join(', ')}${dupes.length > 5 ? ', …' : ''}); the last value of each is used, as JSON.parse does.`,
        script: index,
        pointer: dupes[0] as string,
        product: null,
      });
    }
    reports.push({
      index,
      byte_offset: bytePos,
      byte_length: byteLength,
      char_offset: s.contentStart,
      char_length: spanEnd - s.contentStart,
      sha256: sha256(html.slice(s.contentStart, spanEnd)),
      type_attribute: s.typeAttribute === null ? null : s.typeAttribute.slice(0, 200),
      type_flags: s.typeFlags,
      parse_mode: parsed.mode,
      recoveries: parsed.recoveries,
      error: parsed.error,
      duplicate_keys: dupes,
      top_level_types: topLevelTypes(parsed.value),
      flags,
    });
    roots.push({ index, root: parsed.value });
  });
  if (scan.scripts.length === 0 && html.length < 50_000_000 && /ld\+json/i.test(html)) {
    warn({
      code: 'ld_json_mentioned_without_script',
      message: 'The page mentions "ld+json" but no <script type="application/ld+json"> element was found (commented out, malformed tag or a typo?).',
      script: null,
      pointer: null,
      product: null,
    });
  }

  const ex = extractProducts({ scripts: roots, base: base.effective });
  const warnings = [...early, ...ex.warnings];
  let omitted = ex.warningsOmitted + earlyOmitted;
  if (warnings.length > LIMITS.warnings) {
    omitted += warnings.length - LIMITS.warnings;
    warnings.length = LIMITS.warnings;
  }
  let offers = 0;
  let groups = 0;
  let variants = 0;
  let ml = 0;
  let ps = 0;
  for (const p of ex.products) {
    offers += p.offers.length;
    if (p.is_group) groups++;
    if (p.group !== null) variants++;
    if (p.merchant_listing.eligible) ml++;
    if (p.product_snippet.eligible) ps++;
  }
  const truncated = ex.truncated || ex.products.some((p) => p.flags.includes('offers_truncated') || p.flags.includes('images_truncated'));
  return {
    summary: {
      scripts_found: reports.length,
      scripts_parsed: strict + lenient,
      scripts_parsed_strict: strict,
      scripts_parsed_lenient: lenient,
      scripts_failed: failed,
      scripts_empty: empty,
      other_scripts_skipped: scan.otherScripts,
      products: ex.products.length,
      product_groups: groups,
      variants,
      offers,
      duplicates_merged: ex.duplicatesMerged,
      merchant_listing_eligible: ml,
      product_snippet_eligible: ps,
      truncated,
    },
    base: {
      base_url: base.baseUrl,
      base_href: scan.baseHref ? scan.baseHref.raw.slice(0, 2048) : null,
      effective_base: base.effective,
    },
    scripts: reports,
    products: ex.products,
    unextracted_markup: { microdata_products: scan.markup.microdataProducts, rdfa_products: scan.markup.rdfaProducts },
    warnings,
    warnings_omitted: omitted,
    evidence: {
      network_fetches: 0,
      model_calls: 0,
      supplier_payments: 0,
      input_sha256: sha256(html),
      input_bytes: Buffer.byteLength(html, 'utf8'),
      hash_algorithm: 'sha256',
      pointer_syntax: 'RFC 6901',
      offsets: OFFSETS_NOTE,
    },
    limitations: [...LIMITATIONS],
  };
}

/** Accept a raw `text/html` (or XHTML) body as `{ html: body }`. */
function fromRawBody(mediaType: string, body: string): ExtractorRequest | undefined {
  const essence = trimAsciiSpace((mediaType.split(';')[0] ?? '').toLowerCase());
  if (essence === 'text/html' || essence === 'application/xhtml+xml') return { html: body };
  return undefined;
}

/** Rules beyond the JSON Schema: base_url must parse as an absolute http(s) URL. */
function check(input: ExtractorRequest): InputProblem | undefined {
  if (input.base_url === undefined) return undefined;
  let ok = false;
  try {
    const u = new URL(input.base_url);
    ok = u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    ok = false;
  }
  if (ok) return undefined;
  return {
    code: 'invalid_request',
    message: 'base_url must be an absolute http or https URL',
    details: [{ path: '/base_url', rule: 'format', message: 'not an absolute http(s) URL' }],
  };
}

const EXAMPLE_PRODUCT_PAGE = `<!doctype html>
<html><head>
<base href="/shop/">
<title>Executive Anvil</title>
<script type="application/ld+json; charset=utf-8">
{
  "@context": "https://schema.org/",
  "@graph": [
    {
      "@type": "Product",
      "@id": "#anvil",
      "name": "Executive Anvil",
      "image": ["anvil-1x1.jpg", "https://cdn.example.com/anvil-4x3.jpg"],
      "brand": {"@type": "Brand", "name": "ACME"},
      "sku": "0446310786",
      "gtin13": "4006381333931",
      "offers": {
        "@type": "Offer",
        "url": "executive-anvil",
        "price": 119.90,
        "priceCurrency": "usd",
        "priceValidUntil": "2030-11-20",
        "availability": "InStock",
        "itemCondition": "https://schema.org/NewCondition",
        "priceSpecification": {
          "@type": "UnitPriceSpecification",
          "priceType": "https://schema.org/StrikethroughPrice",
          "price": "149.90",
          "priceCurrency": "USD"
        },
        "seller": {"@id": "#store"}
      }
    },
    {"@type": "Organization", "@id": "#store", "name": "Example Store"}
  ]
}
</script>
<script type="application/ld+json">
// exported by a plugin
{"@context": "https://schema.org", "@type": "Product", "sku": "0446310786", "name": "Executive Anvil",
 "offers": {"@type": "Offer", "price": "119.90", "priceCurrency": "USD",},}
</script>
</head><body><h1>Executive Anvil</h1></body></html>`;

const EXAMPLE_LISTING_PAGE = `<html><body>
<script type='APPLICATION/LD+JSON'>
{"@context":"https://schema.org","@type":"ItemList","itemListElement":[
 {"@type":"ListItem","position":1,"item":{"@type":"Product","name":"Tea Kettle","image":"/img/kettle.jpg",
   "offers":{"@type":"AggregateOffer","lowPrice":"1.299,00","highPrice":"1.499,00","priceCurrency":"€","offerCount":3}}},
 {"@type":"ListItem","position":2,"item":{"@type":"Product","name":"Mug","gtin12":12345678905,
   "offers":{"@type":"Offer","price":"$12.99","availability":"schema:OutOfStock"}}}
]}
</script>
<script type="application/ld+json">{"@type": "Product", "name": "broken" "offers": }</script>
</body></html>`;

const exampleInputs: Array<{ summary: string; input: ExtractorRequest }> = [
  {
    summary:
      'Product page: @graph with @id references, relative URLs against <base href>, strikethrough price, lowercase currency, a second lenient script merged as a duplicate (same sku)',
    input: { html: EXAMPLE_PRODUCT_PAGE, base_url: 'https://www.example.com/products/anvil' },
  },
  {
    summary:
      'Listing page: ItemList of products, AggregateOffer with decimal-comma prices and a currency symbol, a GTIN given as a JSON number (leading zero lost), a "$12.99" price, and a broken script that does not affect the others',
    input: { html: EXAMPLE_LISTING_PAGE, base_url: 'https://shop.example.org/category/kitchen' },
  },
];

export const catalogOfferEvidenceExtractor: Capability<ExtractorRequest, ExtractorResponse> = {
  id: 'catalog-offer-evidence-extractor',
  method: 'POST',
  path: '/x402/v1/catalog-offer-evidence-extractor',
  priceAtomic: '100000',
  title: 'Catalog offer evidence extractor (Product JSON-LD → offers with citations)',
  summary: 'Every schema.org Product and Offer in a page\'s JSON-LD, with prices as exact decimal strings, ISO currencies, GTIN checks and, for each value, where it came from (script, JSON pointer, SHA-256).',
  description: [
    'Send a product or listing page\'s HTML (JSON {"html", "base_url"?} or a raw text/html body, up to 2 MiB) and get every schema.org Product, ProductGroup variant and Offer found in its JSON-LD, normalized and cited.',
    'Every <script type="application/ld+json"> is found the way a browser tokenizes HTML (any case, ; charset=… parameters, quoted or unquoted attributes, scripts after </html>) and parsed on its own: strict JSON first, then a flagged lenient recovery for damage seen in the wild (leading <!-- --> or // comments, CDATA wrappers, trailing commas and semicolons, raw newlines in strings, entity-encoded or double-encoded scripts, a </script> inside a JSON string); one broken script never hides the others.',
    'Arrays and @graph are flattened, @id references are resolved across scripts, types match by local name (Product, schema:Product, http(s)://schema.org/Product). For each product: name, brand, sku/mpn/GTINs with check-digit verdicts (and a warning when a GTIN given as a JSON number lost leading zeros), url and images resolved against base_url / <base href>, and offers (Offer, AggregateOffer with nested offers, priceSpecification incl. StrikethroughPrice as previous price).',
    'Prices come back as the raw value and an exact decimal string — never a float ("1.299,00" → "1299.00", "$12.99" → "12.99" + currency hint, 0 and negatives flagged); currencies as ISO 4217; availability and itemCondition as https://schema.org/ IRIs; priceValidUntil as ISO 8601 (expiry is left to you: no clock).',
    'Every value cites {script, pointer} (RFC 6901) and every script its byte offset and SHA-256, so you can verify each claim. Each product gets a Google merchant-listing and product-snippet verdict listing present, missing and invalid properties. Duplicates (same sku/GTIN/url) are merged with all sources cited.',
    'Deterministic: nothing is fetched (base_url is never requested), no model is called.',
  ].join(' '),
  inputSchema,
  outputSchema,
  examples: [
    ...exampleInputs,
    {
      // The smallest useful call; it is the example the 402's Bazaar extension carries.
      summary: 'One Product with one Offer',
      input: { html: '<script type="application/ld+json">{"@type":"Product","name":"Mug","offers":{"price":"9.50","priceCurrency":"EUR"}}</script>' },
    },
  ].map((e) => ({ summary: e.summary, input: e.input, output: run(e.input) })),
  check,
  routing: extractorRouting,
  run,
  fromRawBody,
  maxBodyBytes: MAX_BODY_BYTES,
  isolate: 'large-input',
};
