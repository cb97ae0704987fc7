/** JSON Schemas (draft 2020-12) of the catalog offer evidence extractor. */
import type { JsonSchema } from '../../catalog/capability.js';

/** Largest `html` value accepted, in characters (2 MiB of ASCII). */
export const MAX_HTML_CHARS = 2_097_152;
/** Largest request body: the 2 MiB page plus room for JSON string escaping and the envelope. */
export const MAX_BODY_BYTES = 2_621_440;

export const inputSchema: JsonSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  title: 'Catalog offer evidence extractor request',
  type: 'object',
  additionalProperties: false,
  required: ['html'],
  properties: {
    html: {
      type: 'string',
      minLength: 1,
      maxLength: MAX_HTML_CHARS,
      description:
        'The product page HTML as served (up to 2,097,152 characters). A raw text/html request body is accepted too and becomes this field.',
    },
    base_url: {
      type: 'string',
      format: 'uri',
      pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[^\\s]+$',
      maxLength: 2048,
      description:
        'The address the page was served from (http or https). Used only to resolve relative URLs (and a relative <base href>); it is never fetched.',
    },
  },
};

const str = { type: 'string' } as const;
const strOrNull = { type: ['string', 'null'] } as const;
const flags = {
  type: 'array',
  items: { type: 'string' },
  description: 'Stable lower_snake_case codes describing how the value was read or what is wrong with it.',
} as const;
const ref = (name: string): JsonSchema => ({ $ref: `#/$defs/${name}` });
const orNull = (name: string): JsonSchema => ({ oneOf: [{ type: 'null' }, ref(name)] });
const sources = { type: 'array', minItems: 1, items: ref('evidence') } as const;

function obj(properties: Record<string, unknown>, description?: string): JsonSchema {
  return {
    type: 'object',
    additionalProperties: false,
    required: Object.keys(properties),
    properties,
    ...(description ? { description } : {}),
  };
}

const jsonType = { enum: ['string', 'number', 'boolean'] } as const;

export const outputSchema: JsonSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  title: 'Catalog offer evidence extractor response',
  $defs: {
    evidence: obj(
      {
        script: { type: 'integer', minimum: 0, description: 'Index into `scripts`.' },
        pointer: { type: 'string', description: 'RFC 6901 JSON pointer into the JSON value parsed from that script.' },
      },
      'Where a value was read.',
    ),
    text: obj({ value: str, json_type: jsonType, sources, flags }),
    url: obj({
      raw: str,
      resolved: { ...strOrNull, description: 'Absolute URL, resolved against base.effective_base when relative.' },
      sources,
      flags,
    }),
    gtin: obj({
      digits: strOrNull,
      check_digit: { enum: ['valid', 'invalid', 'bad_length', 'not_numeric'] },
      gtin14: { ...strOrNull, description: 'Left-padded to 14 digits (only when the check digit is valid).' },
      leading_zeros_possibly_lost: { type: 'boolean' },
      valid_if_zero_padded: { type: 'boolean' },
    }),
    identifier: obj({
      property: { enum: ['sku', 'mpn', 'gtin', 'gtin8', 'gtin12', 'gtin13', 'gtin14', 'isbn', 'productID'] },
      raw: str,
      json_type: jsonType,
      normalized: strOrNull,
      gtin: orNull('gtin'),
      sources,
      flags,
    }),
    price: obj(
      {
        raw: { type: 'string', description: 'As written: the string, or the JSON number token exactly as in the source.' },
        json_type: jsonType,
        normalized: {
          oneOf: [{ type: 'null' }, { type: 'string', pattern: '^-?[0-9]+(\\.[0-9]+)?$' }],
          description: 'Exact decimal string (never a float); scale kept as written.',
        },
        status: { enum: ['ok', 'zero', 'negative', 'empty', 'invalid'] },
        currency_hint: { oneOf: [{ type: 'null' }, { type: 'string', pattern: '^[A-Z]{3}$' }] },
        sources,
        flags,
      },
      'A price, minPrice, maxPrice, lowPrice or highPrice value.',
    ),
    currency: obj({
      raw: str,
      normalized: { oneOf: [{ type: 'null' }, { type: 'string', pattern: '^[A-Z]{3}$' }] },
      status: { enum: ['ok', 'case_normalized', 'symbol', 'alias', 'unknown', 'empty'] },
      ambiguous: { type: 'boolean' },
      sources,
      flags,
    }),
    iri: obj({
      raw: str,
      normalized: { oneOf: [{ type: 'null' }, { type: 'string', pattern: '^https://schema\\.org/[A-Za-z]+$' }] },
      sources,
      flags,
    }),
    date: obj({
      raw: str,
      normalized: strOrNull,
      kind: { enum: ['date', 'datetime', 'invalid'] },
      date: { oneOf: [{ type: 'null' }, { type: 'string', pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' }] },
      sources,
      flags,
    }),
    party: obj({ name: strOrNull, type: strOrNull, at_id: strOrNull, sources, flags }),
    quantity: obj({ value: strOrNull, unit_code: strOrNull, unit_text: strOrNull, sources }),
    price_spec: obj({
      type: strOrNull,
      component_of: {
        type: ['integer', 'null'],
        minimum: 0,
        description:
          'Index in this offer\'s price_specifications of the CompoundPriceSpecification whose priceComponent this is; null for a top-level specification.',
      },
      price_type: orNull('iri'),
      price_component_type: { oneOf: [{ type: 'null' }, ref('iri')], description: 'priceComponentType (e.g. https://schema.org/DistanceFee, Installment).' },
      price: orNull('price'),
      min_price: orNull('price'),
      max_price: orNull('price'),
      currency: orNull('currency'),
      reference_quantity: orNull('quantity'),
      unit_code: { oneOf: [{ type: 'null' }, ref('text')], description: 'unitCode as written (UN/CEFACT code, e.g. DAY, SMI).' },
      unit_text: orNull('text'),
      valid_from: orNull('date'),
      valid_through: orNull('date'),
      value_added_tax_included: { type: ['boolean', 'null'] },
      sources,
      flags,
    }),
    offer: obj({
      id: { type: 'string', pattern: '^p[0-9]+\\.o[0-9]+$' },
      type: str,
      parent_offer: { oneOf: [{ type: 'null' }, { type: 'string', pattern: '^p[0-9]+\\.o[0-9]+$' }] },
      sources,
      price: {
        oneOf: [{ type: 'null' }, ref('price')],
        description:
          'The offer\'s price, else the first top-level priceSpecification price that is not a strikethrough/list price or a delivery/payment charge. A CompoundPriceSpecification (flag compound_price) gives its own total when it states one; its components are never summed or picked (they may have different units, e.g. per day and per mile): with no total, price is null and the components are in price_specifications (component_of).',
      },
      price_origin: { enum: ['price', 'priceSpecification', null] },
      low_price: orNull('price'),
      high_price: orNull('price'),
      offer_count: orNull('text'),
      currency: orNull('currency'),
      previous_price: { oneOf: [{ type: 'null' }, ref('price')], description: 'Price of the priceSpecification whose priceType is StrikethroughPrice (full specification in price_specifications).' },
      list_price: { oneOf: [{ type: 'null' }, ref('price')], description: 'Price of the priceSpecification whose priceType is ListPrice, MSRP or SRP.' },
      price_specifications: { type: 'array', items: ref('price_spec') },
      availability: orNull('iri'),
      item_condition: orNull('iri'),
      price_valid_until: orNull('date'),
      url: orNull('url'),
      seller: { type: 'array', items: ref('party') },
      has_shipping_details: { type: 'boolean' },
      has_merchant_return_policy: { type: 'boolean' },
      flags,
    }),
    check: obj({
      property: str,
      status: { enum: ['present', 'missing', 'invalid'] },
      detail: { ...strOrNull, description: 'What was found (value, offer id) or why it is invalid; the cited values carry their own sources.' },
    }),
    verdict: obj({
      eligible: { type: 'boolean' },
      required: { type: 'array', items: ref('check') },
      recommended: { type: 'array', items: ref('check') },
      note: strOrNull,
    }),
    aggregate_rating: obj({
      rating_value: strOrNull,
      best_rating: strOrNull,
      review_count: strOrNull,
      rating_count: strOrNull,
      sources,
    }),
    product: obj({
      id: { type: 'string', pattern: '^p[0-9]+$' },
      types: { type: 'array', minItems: 1, items: str },
      type_iris: { type: 'array', items: str },
      at_id: strOrNull,
      role: { enum: ['primary', 'variant', 'list_item', 'offered_item', 'reviewed_item', 'related', 'nested'] },
      is_group: { type: 'boolean' },
      group: { oneOf: [{ type: 'null' }, { type: 'string', pattern: '^p[0-9]+$' }] },
      variants: { type: 'array', items: { type: 'string', pattern: '^p[0-9]+$' } },
      product_group_id: orNull('text'),
      sources,
      merged_from: { type: 'integer', minimum: 1 },
      name: orNull('text'),
      description: orNull('text'),
      brand: { type: 'array', items: ref('party') },
      identifiers: { type: 'array', items: ref('identifier') },
      url: orNull('url'),
      images: { type: 'array', items: ref('url') },
      offers: { type: 'array', items: ref('offer') },
      aggregate_rating: orNull('aggregate_rating'),
      review_count: { type: 'integer', minimum: 0 },
      merchant_listing: ref('verdict'),
      product_snippet: ref('verdict'),
      flags,
    }),
    script_error: obj({
      message: str,
      offset: { type: 'integer', minimum: 0, description: 'UTF-16 code units into the script text.' },
      line: { type: 'integer', minimum: 1 },
      column: { type: 'integer', minimum: 1 },
    }),
    script: obj({
      index: { type: 'integer', minimum: 0 },
      byte_offset: { type: 'integer', minimum: 0, description: 'UTF-8 byte offset of the script text in the page.' },
      byte_length: { type: 'integer', minimum: 0 },
      char_offset: { type: 'integer', minimum: 0, description: 'Offset in UTF-16 code units (JavaScript string index).' },
      char_length: { type: 'integer', minimum: 0 },
      sha256: { type: 'string', pattern: '^[0-9a-f]{64}$', description: 'SHA-256 of the UTF-8 bytes [byte_offset, byte_offset+byte_length).' },
      type_attribute: strOrNull,
      type_flags: { type: 'array', items: { enum: ['whitespace', 'quotes', 'parameters', 'uppercase'] } },
      parse_mode: {
        enum: ['strict', 'lenient', 'failed', 'empty'],
        description: 'empty: only white space, skipped (not an error). Parsing reads the text after HTML newline normalisation (CRLF and CR → LF).',
      },
      recoveries: { type: 'array', items: str },
      error: { oneOf: [{ type: 'null' }, ref('script_error')], description: 'The strict JSON error (also kept when a lenient recovery succeeded).' },
      duplicate_keys: { type: 'array', items: str },
      top_level_types: { type: 'array', items: str },
      flags,
    }),
    warning: obj({
      code: str,
      message: str,
      script: { type: ['integer', 'null'], minimum: 0 },
      pointer: strOrNull,
      product: { oneOf: [{ type: 'null' }, { type: 'string', pattern: '^p[0-9]+$' }] },
    }),
  },
  ...obj({
    summary: obj({
      scripts_found: { type: 'integer', minimum: 0 },
      scripts_parsed: { type: 'integer', minimum: 0 },
      scripts_parsed_strict: { type: 'integer', minimum: 0 },
      scripts_parsed_lenient: { type: 'integer', minimum: 0 },
      scripts_failed: { type: 'integer', minimum: 0 },
      scripts_empty: { type: 'integer', minimum: 0 },
      other_scripts_skipped: { type: 'integer', minimum: 0 },
      products: { type: 'integer', minimum: 0 },
      product_groups: { type: 'integer', minimum: 0 },
      variants: { type: 'integer', minimum: 0 },
      offers: { type: 'integer', minimum: 0 },
      duplicates_merged: { type: 'integer', minimum: 0 },
      merchant_listing_eligible: { type: 'integer', minimum: 0 },
      product_snippet_eligible: { type: 'integer', minimum: 0 },
      truncated: { type: 'boolean' },
    }),
    base: obj({
      base_url: strOrNull,
      base_href: { ...strOrNull, description: 'Raw href of the first <base> element.' },
      effective_base: { ...strOrNull, description: 'Base used for relative URLs: <base href> resolved against base_url, else base_url.' },
    }),
    scripts: { type: 'array', items: ref('script') },
    products: { type: 'array', items: ref('product') },
    unextracted_markup: obj(
      {
        microdata_products: { type: 'integer', minimum: 0, description: 'Elements with itemscope and an itemtype naming schema.org Product or a subtype.' },
        rdfa_products: {
          type: 'integer',
          minimum: 0,
          description: 'Elements whose typeof names schema.org Product or a subtype (full IRI, schema: prefix, or a bare term after a schema.org vocab).',
        },
      },
      'Product markup in microdata or RDFa, counted but not extracted (only JSON-LD is read): why products may be empty on a page that has product markup.',
    ),
    warnings: { type: 'array', maxItems: 1000, items: ref('warning') },
    warnings_omitted: { type: 'integer', minimum: 0 },
    evidence: obj({
      network_fetches: { const: 0 },
      model_calls: { const: 0 },
      supplier_payments: { const: 0 },
      input_sha256: { type: 'string', pattern: '^[0-9a-f]{64}$', description: 'SHA-256 of the UTF-8 bytes of `html`.' },
      input_bytes: { type: 'integer', minimum: 0 },
      hash_algorithm: { const: 'sha256' },
      pointer_syntax: { const: 'RFC 6901' },
      offsets: str,
    }),
    limitations: { type: 'array', items: str },
  }),
};
