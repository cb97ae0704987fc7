/** Request and response types of the catalog offer evidence extractor. */

export interface ExtractorRequest {
  /** The page's HTML, as served. */
  html: string;
  /** URL the page was served from; only used to resolve relative URLs, never fetched. */
  base_url?: string;
}

/** Where a value came from: the script index and an RFC 6901 pointer into that script's JSON. */
export interface Evidence {
  script: number;
  pointer: string;
}

export type JsonKind = 'string' | 'number' | 'boolean';

export interface TextValue {
  value: string;
  json_type: JsonKind;
  sources: Evidence[];
  flags: string[];
}

export interface UrlValue {
  raw: string;
  /** Absolute URL after resolution against the effective base; null when it cannot be resolved. */
  resolved: string | null;
  sources: Evidence[];
  flags: string[];
}

export interface GtinOut {
  digits: string | null;
  check_digit: 'valid' | 'invalid' | 'bad_length' | 'not_numeric';
  gtin14: string | null;
  leading_zeros_possibly_lost: boolean;
  valid_if_zero_padded: boolean;
}

export interface IdentifierValue {
  property: 'sku' | 'mpn' | 'gtin' | 'gtin8' | 'gtin12' | 'gtin13' | 'gtin14' | 'isbn' | 'productID';
  raw: string;
  json_type: JsonKind;
  /** Trimmed text; for GTIN-family properties the checked digits. */
  normalized: string | null;
  gtin: GtinOut | null;
  sources: Evidence[];
  flags: string[];
}

export interface PriceValue {
  /** The value as written: the string, or the JSON number token's exact source text. */
  raw: string;
  json_type: JsonKind;
  /** Exact decimal string, `-?\d+(\.\d+)?`; null when no number could be read. */
  normalized: string | null;
  status: 'ok' | 'zero' | 'negative' | 'empty' | 'invalid';
  currency_hint: string | null;
  sources: Evidence[];
  flags: string[];
}

export interface CurrencyValue {
  raw: string;
  normalized: string | null;
  status: 'ok' | 'case_normalized' | 'symbol' | 'alias' | 'unknown' | 'empty';
  ambiguous: boolean;
  sources: Evidence[];
  flags: string[];
}

export interface IriValue {
  raw: string;
  normalized: string | null;
  sources: Evidence[];
  flags: string[];
}

export interface DateValue {
  raw: string;
  normalized: string | null;
  kind: 'date' | 'datetime' | 'invalid';
  date: string | null;
  sources: Evidence[];
  flags: string[];
}

export interface PartyValue {
  name: string | null;
  type: string | null;
  at_id: string | null;
  sources: Evidence[];
  flags: string[];
}

export interface QuantityValue {
  value: string | null;
  unit_code: string | null;
  unit_text: string | null;
  sources: Evidence[];
}

export interface PriceSpecOut {
  type: string | null;
  /**
   * Index (in the same offer's price_specifications) of the CompoundPriceSpecification whose
   * priceComponent this is; null at the top level.
   */
  component_of: number | null;
  price_type: IriValue | null;
  /** priceComponentType (ActivationFee, DistanceFee, Downpayment, Installment, …). */
  price_component_type: IriValue | null;
  price: PriceValue | null;
  min_price: PriceValue | null;
  max_price: PriceValue | null;
  currency: CurrencyValue | null;
  reference_quantity: QuantityValue | null;
  /** UnitPriceSpecification's unit, as written (UN/CEFACT code such as DAY or SMI, and free text). */
  unit_code: TextValue | null;
  unit_text: TextValue | null;
  valid_from: DateValue | null;
  valid_through: DateValue | null;
  value_added_tax_included: boolean | null;
  sources: Evidence[];
  flags: string[];
}

export interface OfferOut {
  id: string;
  type: string;
  parent_offer: string | null;
  sources: Evidence[];
  price: PriceValue | null;
  price_origin: 'price' | 'priceSpecification' | null;
  low_price: PriceValue | null;
  high_price: PriceValue | null;
  offer_count: TextValue | null;
  currency: CurrencyValue | null;
  /** Price of the priceSpecification whose priceType is StrikethroughPrice (the "was" price). */
  previous_price: PriceValue | null;
  /** Price of the priceSpecification whose priceType is ListPrice, MSRP or SRP. */
  list_price: PriceValue | null;
  price_specifications: PriceSpecOut[];
  availability: IriValue | null;
  item_condition: IriValue | null;
  price_valid_until: DateValue | null;
  url: UrlValue | null;
  seller: PartyValue[];
  has_shipping_details: boolean;
  has_merchant_return_policy: boolean;
  flags: string[];
}

export interface AggregateRatingOut {
  rating_value: string | null;
  best_rating: string | null;
  review_count: string | null;
  rating_count: string | null;
  sources: Evidence[];
}

export interface CheckOut {
  property: string;
  status: 'present' | 'missing' | 'invalid';
  detail: string | null;
}

export interface VerdictOut {
  eligible: boolean;
  required: CheckOut[];
  recommended: CheckOut[];
  note: string | null;
}

export type ProductRole =
  | 'primary'
  | 'variant'
  | 'list_item'
  | 'offered_item'
  | 'reviewed_item'
  | 'related'
  | 'nested';

export interface ProductOut {
  id: string;
  types: string[];
  type_iris: string[];
  at_id: string | null;
  role: ProductRole;
  is_group: boolean;
  group: string | null;
  variants: string[];
  product_group_id: TextValue | null;
  sources: Evidence[];
  merged_from: number;
  name: TextValue | null;
  description: TextValue | null;
  brand: PartyValue[];
  identifiers: IdentifierValue[];
  url: UrlValue | null;
  images: UrlValue[];
  offers: OfferOut[];
  aggregate_rating: AggregateRatingOut | null;
  review_count: number;
  merchant_listing: VerdictOut;
  product_snippet: VerdictOut;
  flags: string[];
}

export interface ScriptError {
  message: string;
  offset: number;
  line: number;
  column: number;
}

export interface ScriptReport {
  index: number;
  byte_offset: number;
  byte_length: number;
  char_offset: number;
  char_length: number;
  sha256: string;
  type_attribute: string | null;
  type_flags: string[];
  parse_mode: 'strict' | 'lenient' | 'failed' | 'empty';
  recoveries: string[];
  error: ScriptError | null;
  duplicate_keys: string[];
  top_level_types: string[];
  flags: string[];
}

export interface WarningOut {
  code: string;
  message: string;
  script: number | null;
  pointer: string | null;
  product: string | null;
}

export interface ExtractorResponse {
  summary: {
    scripts_found: number;
    scripts_parsed: number;
    scripts_parsed_strict: number;
    scripts_parsed_lenient: number;
    scripts_failed: number;
    scripts_empty: number;
    other_scripts_skipped: number;
    products: number;
    product_groups: number;
    variants: number;
    offers: number;
    duplicates_merged: number;
    merchant_listing_eligible: number;
    product_snippet_eligible: number;
    truncated: boolean;
  };
  base: {
    base_url: string | null;
    base_href: string | null;
    effective_base: string | null;
  };
  scripts: ScriptReport[];
  products: ProductOut[];
  /** Product markup seen in other syntaxes, which this extractor does not read. */
  unextracted_markup: {
    microdata_products: number;
    rdfa_products: number;
  };
  warnings: WarningOut[];
  warnings_omitted: number;
  evidence: {
    network_fetches: 0;
    model_calls: 0;
    supplier_payments: 0;
    input_sha256: string;
    input_bytes: number;
    hash_algorithm: 'sha256';
    pointer_syntax: 'RFC 6901';
    offsets: string;
  };
  limitations: string[];
}
