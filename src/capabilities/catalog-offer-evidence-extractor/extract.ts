/**
 * Products and offers from parsed JSON-LD trees, with evidence for every value.
 *
 * Model: all parsed scripts form one graph. Objects sharing an `@id` (resolved against the
 * effective base) are one node, as JSON-LD flattening would make them: their properties are
 * read together, whichever script they sit in. Arrays, `@graph`, `@list`/`@set` containers and
 * `@value` objects are unwrapped. Types and property names are matched by schema.org local name
 * (`Product`, `schema:Product`, `http(s)://schema.org/Product`). Each value keeps the script
 * index and RFC 6901 pointer of the JSON value it was read from.
 */
import { type JsonNode, type JsonObject } from './lenient-json.js';
import {
  AVAILABILITY,
  ITEM_CONDITION,
  PRICE_COMPONENT_TYPE,
  PRICE_TYPE,
  checkGtin,
  compareDecimals,
  normalizeCurrencyText,
  normalizeEnum,
  normalizePriceNumber,
  normalizePriceText,
  parseIsoDate,
  trimAll,
} from './normalize.js';
import { SCHEMA_ORG_SUBCLASSES } from './schemaorg-types.js';
import { applyVerdicts } from './verdicts.js';
import type {
  AggregateRatingOut,
  CurrencyValue,
  DateValue,
  Evidence,
  IdentifierValue,
  IriValue,
  OfferOut,
  PartyValue,
  PriceSpecOut,
  PriceValue,
  ProductOut,
  ProductRole,
  QuantityValue,
  TextValue,
  UrlValue,
  WarningOut,
} from './types.js';

export const LIMITS = {
  products: 5000,
  offersPerProduct: 500,
  imagesPerProduct: 50,
  warnings: 1000,
  descriptionChars: 5000,
  urlChars: 4096,
  nodesPerId: 64,
} as const;

// Product, Offer and all their subclasses in schema.org (Drug, Car, OfferForLease, …): read from
// the table scripts/gen-schemaorg-types.mjs generates, so new subtypes need no code change.
const PRODUCT_TYPES: ReadonlySet<string> = new Set(SCHEMA_ORG_SUBCLASSES.Product);
const OFFER_TYPES: ReadonlySet<string> = new Set(SCHEMA_ORG_SUBCLASSES.Offer);
/** Charges on top of the item's price: never read as the offer's price. */
const CHARGE_SPEC_TYPES: ReadonlySet<string> = new Set(['DeliveryChargeSpecification', 'PaymentChargeSpecification']);
const PROP_PREFIXES = ['', 'schema:', 'http://schema.org/', 'https://schema.org/', 'sdo:'];
const GTIN_PROPS = new Set(['gtin', 'gtin8', 'gtin12', 'gtin13', 'gtin14', 'isbn']);
const IDENTIFIER_PROPS: IdentifierValue['property'][] = [
  'sku',
  'mpn',
  'gtin',
  'gtin8',
  'gtin12',
  'gtin13',
  'gtin14',
  'isbn',
  'productID',
];

/** Local name of a type or property IRI: text after the last `/`, `#` or `:`. */
export function localName(t: string): string {
  let s = trimAll(t);
  while (s.endsWith('/')) s = s.slice(0, -1);
  const cut = Math.max(s.lastIndexOf('/'), s.lastIndexOf('#'), s.lastIndexOf(':'));
  return cut === -1 ? s : s.slice(cut + 1);
}

function escapeToken(t: string): string {
  if (t.indexOf('~') === -1 && t.indexOf('/') === -1) return t;
  return t.replace(/~/g, '~0').replace(/\//g, '~1');
}

function hasCharRef(s: string): boolean {
  let i = s.indexOf('&');
  while (i !== -1) {
    const m = /^&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[a-zA-Z]{2,8});/.exec(s.slice(i, i + 12));
    if (m) return true;
    i = s.indexOf('&', i + 1);
  }
  return false;
}

interface Scalar {
  text: string;
  kind: 'string' | 'number' | 'boolean';
  node: JsonNode;
}

interface Entity {
  first: JsonObject;
  objs: JsonObject[];
  isGroup: boolean;
  flags: string[];
  order: number;
}

interface ORec {
  out: OfferOut;
  parent: ORec | null;
  mergedInto: ORec | null;
}

interface PRec {
  entity: Entity;
  out: ProductOut;
  offers: ORec[];
  group: PRec | null;
  variants: PRec[];
  mergedInto: PRec | null;
  shippingOnProduct: Evidence[];
  returnOnProduct: Evidence[];
}

interface PendingWarning {
  code: string;
  message: string;
  at: Evidence | null;
  product: PRec | null;
}

export interface ExtractInput {
  scripts: Array<{ index: number; root: JsonNode | null }>;
  /** Effective base URL for relative URLs (already resolved), or null. */
  base: string | null;
}

export interface ExtractResult {
  products: ProductOut[];
  warnings: WarningOut[];
  warningsOmitted: number;
  duplicatesMerged: number;
  truncated: boolean;
}

const EMPTY: readonly JsonNode[] = Object.freeze([]);

const samePrice = (a: PriceValue, b: PriceValue): boolean => a.normalized === b.normalized && a.raw === b.raw;
const sameNormalized = (a: { normalized: string | null }, b: { normalized: string | null }): boolean => a.normalized === b.normalized;
const sameRaw = (a: { raw: string }, b: { raw: string }): boolean => a.raw === b.raw;
const sameText = (a: TextValue, b: TextValue): boolean => a.value === b.value;
const sameUrl = (a: UrlValue, b: UrlValue): boolean => a.resolved === b.resolved && a.raw === b.raw;

function sameEvidence(a: Evidence, b: Evidence): boolean {
  return a.script === b.script && a.pointer === b.pointer;
}

function addSources(into: Evidence[], more: Evidence[]): void {
  for (const m of more) if (!into.some((x) => sameEvidence(x, m))) into.push(m);
}

function addFlag(flags: string[], f: string): void {
  if (!flags.includes(f)) flags.push(f);
}

// ---------------------------------------------------------------- offer pricing rules

/** The price fields of one offer, worked out together from price, priceCurrency and priceSpecification. */
interface OfferPricing {
  price: PriceValue | null;
  origin: OfferOut['price_origin'];
  currency: CurrencyValue | null;
  specs: PriceSpecOut[];
  previous: PriceValue | null;
  listPrice: PriceValue | null;
}

/** Local name of a specification's priceType ("StrikethroughPrice"), '' when it has none. */
function priceTypeName(s: PriceSpecOut): string {
  return (s.price_type?.normalized ?? '').slice('https://schema.org/'.length);
}

const LIST_PRICE_TYPES: ReadonlySet<string> = new Set(['ListPrice', 'MSRP', 'SRP']);

/** A StrikethroughPrice is what the item cost before: reported as previous_price, never as the price. */
function isPreviousPrice(s: PriceSpecOut): boolean {
  return priceTypeName(s) === 'StrikethroughPrice';
}

/** A list price (ListPrice, MSRP, SRP) is a reference, not what the buyer pays. */
function isListPrice(s: PriceSpecOut): boolean {
  return LIST_PRICE_TYPES.has(priceTypeName(s));
}

function isCharge(s: PriceSpecOut): boolean {
  return s.type !== null && CHARGE_SPEC_TYPES.has(s.type);
}

/**
 * A currency the offer does not state itself: from its current price specification, else any
 * specification, else its AggregateOffer's (flagged, as it was not written on this offer).
 */
function currencyFallback(
  currency: CurrencyValue | null,
  current: PriceSpecOut[],
  specs: PriceSpecOut[],
  inherited: CurrencyValue | null,
): CurrencyValue | null {
  if (currency) return currency;
  const withCur = current.find((s) => s.currency) ?? specs.find((s) => s.currency);
  if (withCur && withCur.currency) return withCur.currency;
  if (!inherited) return null;
  return { ...inherited, sources: [...inherited.sources], flags: [...inherited.flags, 'inherited_from_aggregate_offer'] };
}

/** One priceComponent as "49.00 USD per DAY (Subscription)", for the compound_price warning. */
function describeComponent(c: PriceSpecOut): string {
  const unit = c.unit_code?.value ?? c.unit_text?.value;
  const kind = c.price_component_type?.normalized?.slice('https://schema.org/'.length) ?? c.price_component_type?.raw;
  return `${c.price?.normalized ?? c.price?.raw ?? '?'}${c.currency?.normalized ? ' ' + c.currency.normalized : ''}${unit ? ' per ' + unit : ''}${kind ? ` (${kind})` : ''}`;
}

/** Which price an offer with a compound price reports, in words for the compound_price warning. */
function compoundPriceChoice(origin: OfferOut['price_origin'], price: PriceValue | null, compound: PriceSpecOut[]): string {
  if (origin === 'price') return "the offer's own price is reported";
  if (price && compound.some((c) => c.price === price)) return 'its stated total is reported';
  if (price) return 'the price of another priceSpecification is reported';
  return 'no single price is reported';
}

/** Why a priceCurrency that was read is not plainly an ISO 4217 code. */
function currencyStatusMessage(currency: CurrencyValue): string {
  if (currency.status === 'case_normalized') return `priceCurrency "${currency.raw}" upper-cased to ${currency.normalized}.`;
  if (currency.status === 'symbol' || currency.status === 'alias') {
    return `priceCurrency "${currency.raw}" is not an ISO 4217 code; read as ${currency.normalized}${currency.ambiguous ? ' (ambiguous: the symbol is used by several currencies)' : ''}.`;
  }
  return `priceCurrency "${currency.raw}" is not a known ISO 4217 code.`;
}

class Extractor {
  private readonly rootScript = new Map<JsonNode, number>();
  /** @id key → objects carrying properties besides @id (definitions). */
  private readonly defs = new Map<string, JsonObject[]>();
  /** @id key → objects carrying only @id (references). */
  private readonly refs = new Map<string, JsonObject[]>();
  private readonly idKey = new Map<JsonObject, string>();
  private readonly order = new Map<JsonObject, number>();
  private readonly allObjects: JsonObject[] = [];
  private readonly idCache = new Map<string, string>();
  private readonly entityOf = new Map<JsonObject, Entity>();
  private readonly pending: PendingWarning[] = [];
  private omitted = 0;
  private truncated = false;

  // Converters bound once (closures created per call are costly under some loaders).
  private readonly cPrice = (n: JsonNode): PriceValue => this.price(n);
  private readonly cCurrency = (n: JsonNode): CurrencyValue | null => this.currency(n);
  private readonly cDate = (n: JsonNode): DateValue | null => this.date(n);
  private readonly cUrl = (n: JsonNode): UrlValue | null => this.url(n);
  private readonly cText = (n: JsonNode): TextValue | null => this.text(n, 200);
  private readonly cName = (n: JsonNode): TextValue | null => this.text(n, 1000);
  private readonly cDescription = (n: JsonNode): TextValue | null => this.text(n, LIMITS.descriptionChars);
  private readonly cShortText = (n: JsonNode): TextValue | null => this.text(n, 200);
  private readonly cPriceType = (n: JsonNode): IriValue | null => this.iri(n, PRICE_TYPE);
  private readonly cComponentType = (n: JsonNode): IriValue | null => this.iri(n, PRICE_COMPONENT_TYPE);
  private readonly cAvailability = (n: JsonNode): IriValue | null => this.iri(n, AVAILABILITY);
  private readonly cCondition = (n: JsonNode): IriValue | null => this.iri(n, ITEM_CONDITION);

  constructor(private readonly input: ExtractInput) {}

  // ---------------------------------------------------------------- utilities

  private warn(code: string, message: string, where: JsonNode | Evidence | null, product: PRec | null): void {
    if (this.pending.length >= LIMITS.warnings) {
      this.omitted++;
      return;
    }
    const at = where === null ? null : 'kind' in where ? this.ev(where) : where;
    this.pending.push({ code, message, at, product });
  }

  /** Pointer and script of containers, cached: a value's pointer is its parent's plus one token. */
  private readonly locCache = new Map<JsonNode, Evidence>();
  private loc(node: JsonNode): Evidence {
    if (!node.parent) return { script: this.rootScript.get(node) ?? -1, pointer: '' };
    const cached = this.locCache.get(node);
    if (cached) return cached;
    const up = this.loc(node.parent);
    const key = typeof node.key === 'number' ? String(node.key) : escapeToken(node.key);
    const e = { script: up.script, pointer: `${up.pointer}/${key}` };
    if (node.kind === 'object' || node.kind === 'array') this.locCache.set(node, e);
    return e;
  }

  /** Evidence objects are immutable and may be shared between values. */
  private ev(node: JsonNode): Evidence {
    return this.loc(node);
  }

  private normId(raw: string): string {
    const cached = this.idCache.get(raw);
    if (cached !== undefined) return cached;
    let key = trimAll(raw);
    if (!key.startsWith('_:') && key.length <= LIMITS.urlChars) {
      // URL.canParse first: a thrown exception per relative @id would dominate the cost
      const base = this.input.base ?? undefined;
      if (URL.canParse(key, base)) key = new URL(key, base).href;
    }
    this.idCache.set(raw, key);
    return key;
  }

  /** The node (all objects sharing `obj`'s @id, capped) whose properties are read together. */
  private view(obj: JsonObject): JsonObject[] {
    const key = this.idKey.get(obj);
    if (key === undefined) return [obj];
    const d = this.defs.get(key);
    if (!d || d.length === 0) return [obj];
    if (d.length === 1 && d[0] === obj) return d;
    const out = [obj];
    for (const o of d) {
      if (o !== obj) out.push(o);
      if (out.length >= LIMITS.nodesPerId) break;
    }
    return out;
  }

  /** Values are tree nodes, so one node is never reached twice: no de-duplication needed. */
  private flatten(v: JsonNode, out: JsonNode[], depth: number): void {
    if (v.kind === 'array') {
      if (depth > 4) return;
      for (const it of v.items) this.flatten(it, out, depth + 1);
      return;
    }
    if (v.kind === 'object' && depth <= 4 && v.props.size <= 2) {
      const list = v.props.get('@list') ?? v.props.get('@set');
      if (list !== undefined) {
        this.flatten(list, out, depth + 1);
        return;
      }
    }
    out.push(v);
  }

  private readonly keyCache = new Map<string, string[]>();
  private keysFor(name: string): string[] {
    let k = this.keyCache.get(name);
    if (!k) {
      k = PROP_PREFIXES.map((p) => p + name);
      this.keyCache.set(name, k);
    }
    return k;
  }

  /** All values of a schema.org property on a node (arrays flattened). Never mutate the result. */
  private vals(obj: JsonObject, name: string): readonly JsonNode[] {
    const keys = this.keysFor(name);
    if (!this.idKey.has(obj)) {
      // no @id: the node is this one object (the common case, no view array needed)
      let out: JsonNode[] | null = null;
      for (const k of keys) {
        const v = obj.props.get(k);
        if (v === undefined) continue;
        out ??= [];
        this.flatten(v, out, 0);
      }
      return out ?? EMPTY;
    }
    const out: JsonNode[] = [];
    for (const o of this.view(obj)) {
      if (o.props.size === 0) continue;
      for (const k of keys) {
        const v = o.props.get(k);
        if (v !== undefined) this.flatten(v, out, 0);
      }
    }
    return out;
  }

  private has(obj: JsonObject, name: string): boolean {
    const keys = this.keysFor(name);
    for (const o of this.view(obj)) for (const k of keys) if (o.props.has(k)) return true;
    return false;
  }

  private readonly typeCache = new Map<JsonObject, { raw: string[]; local: string[] }>();
  private typesOf(obj: JsonObject): { raw: string[]; local: string[] } {
    const cached = this.typeCache.get(obj);
    if (cached) return cached;
    const r = this.computeTypes(obj);
    this.typeCache.set(obj, r);
    return r;
  }

  private computeTypes(obj: JsonObject): { raw: string[]; local: string[] } {
    const raw: string[] = [];
    for (const o of this.view(obj)) {
      const t = o.props.get('@type');
      if (!t) continue;
      const list = t.kind === 'array' ? t.items : [t];
      for (const x of list) if (x.kind === 'string' && !raw.includes(x.value) && raw.length < 20) raw.push(x.value);
    }
    const local: string[] = [];
    for (const r of raw) {
      const l = localName(r);
      if (!local.includes(l)) local.push(l);
    }
    return { raw, local };
  }

  private scalar(node: JsonNode): Scalar | null {
    if (node.kind === 'string') return { text: node.value, kind: 'string', node };
    if (node.kind === 'number') return { text: node.raw, kind: 'number', node };
    if (node.kind === 'boolean') return { text: node.value ? 'true' : 'false', kind: 'boolean', node };
    if (node.kind === 'object') {
      const v = node.props.get('@value');
      if (v && v.kind !== 'object' && v.kind !== 'array') return this.scalar(v);
    }
    return null;
  }

  /** An object for a value that may be an object or an @id string. */
  private asObject(node: JsonNode): JsonObject | null {
    if (node.kind === 'object') return node;
    if (node.kind === 'string') {
      const key = this.normId(node.value);
      const d = this.defs.get(key) ?? this.refs.get(key);
      if (d && d.length) return d[0] as JsonObject;
    }
    return null;
  }

  /**
   * First value of a single-valued property, converted; further values that convert to the same
   * thing add their sources, different ones are flagged `multiple_values`.
   */
  private single<T extends { sources: Evidence[]; flags: string[] }>(
    obj: JsonObject,
    name: string,
    conv: (n: JsonNode) => T | null,
    same: (a: T, b: T) => boolean,
    product: PRec | null,
  ): T | null {
    const values = this.vals(obj, name);
    if (values.length === 0) return null;
    if (values.length === 1) return conv(values[0] as JsonNode);
    let first: T | null = null;
    for (const v of values) {
      const c = conv(v);
      if (!c) continue;
      if (!first) {
        first = c;
        continue;
      }
      if (same(first, c)) addSources(first.sources, c.sources);
      else if (!first.flags.includes('multiple_values')) {
        first.flags.push('multiple_values');
        this.warn(
          'multiple_values',
          `"${name}" has several different values; the first is reported.`,
          v,
          product,
        );
      }
    }
    return first;
  }

  // ---------------------------------------------------------------- value readers

  private text(node: JsonNode, maxChars = 0): TextValue | null {
    const sc = this.scalar(node);
    if (!sc) return null;
    const flags: string[] = [];
    let value = sc.text;
    if (maxChars > 0 && value.length > maxChars) {
      value = value.slice(0, maxChars);
      flags.push('truncated');
    }
    if (sc.kind !== 'string') flags.push(`given_as_${sc.kind}`);
    if (sc.kind === 'string' && trimAll(value) === '') flags.push('empty_value');
    if (sc.kind === 'string' && hasCharRef(value)) flags.push('contains_character_reference');
    return { value, json_type: sc.kind, sources: [this.ev(sc.node)], flags };
  }

  private url(node: JsonNode): UrlValue | null {
    let sc = this.scalar(node);
    if (!sc && node.kind === 'object') {
      const id = node.props.get('@id') ?? node.props.get('url') ?? node.props.get('contentUrl');
      if (id) sc = this.scalar(id);
    }
    if (!sc || sc.kind !== 'string') return null;
    const flags: string[] = [];
    let raw = sc.text;
    if (raw.length > LIMITS.urlChars) {
      raw = raw.slice(0, LIMITS.urlChars);
      flags.push('too_long_truncated');
      return { raw, resolved: null, sources: [this.ev(sc.node)], flags };
    }
    const t = trimAll(raw);
    let resolved: string | null = null;
    if (t === '') flags.push('empty_value');
    else if (URL.canParse(t)) resolved = new URL(t).href;
    else if (this.input.base) {
      if (URL.canParse(t, this.input.base)) {
        resolved = new URL(t, this.input.base).href;
        flags.push('relative_resolved');
      } else flags.push('unparseable_url');
    } else flags.push(t.startsWith('//') ? 'scheme_relative_without_base' : 'relative_without_base');
    if (resolved !== null) {
      const proto = resolved.slice(0, resolved.indexOf(':') + 1).toLowerCase();
      if (proto === 'data:') flags.push('data_uri');
      else if (proto !== 'http:' && proto !== 'https:') flags.push('non_http_scheme');
      if (resolved.length > LIMITS.urlChars) {
        resolved = null;
        flags.push('too_long_truncated');
      }
    }
    if (hasCharRef(raw)) flags.push('contains_character_reference');
    return { raw, resolved, sources: [this.ev(sc.node)], flags };
  }

  private price(node: JsonNode): PriceValue {
    const sc = this.scalar(node);
    if (!sc) {
      const raw = node.kind === 'null' ? 'null' : node.kind;
      return {
        raw,
        json_type: 'string',
        normalized: null,
        status: node.kind === 'null' ? 'empty' : 'invalid',
        currency_hint: null,
        sources: [this.ev(node)],
        flags: [node.kind === 'null' ? 'null_value' : 'not_a_scalar'],
      };
    }
    const n =
      sc.kind === 'number'
        ? normalizePriceNumber(sc.text)
        : sc.kind === 'string'
          ? normalizePriceText(sc.text)
          : { normalized: null, status: 'invalid' as const, currencyHint: null, flags: ['given_as_boolean'] };
    return {
      raw: sc.text.length > 200 ? sc.text.slice(0, 200) : sc.text,
      json_type: sc.kind,
      normalized: n.normalized,
      status: n.status,
      currency_hint: n.currencyHint,
      sources: [this.ev(sc.node)],
      flags: n.flags,
    };
  }

  private currency(node: JsonNode): CurrencyValue | null {
    const sc = this.scalar(node);
    if (!sc) return null;
    const raw = sc.text.length > 100 ? sc.text.slice(0, 100) : sc.text;
    if (sc.kind !== 'string') {
      return { raw, normalized: null, status: 'unknown', ambiguous: false, sources: [this.ev(sc.node)], flags: ['not_a_string'] };
    }
    const c = normalizeCurrencyText(raw);
    return { raw, normalized: c.normalized, status: c.status, ambiguous: c.ambiguous, sources: [this.ev(sc.node)], flags: c.flags };
  }

  private iri(node: JsonNode, table: Map<string, string>): IriValue | null {
    let sc = this.scalar(node);
    if (!sc && node.kind === 'object') {
      const id = node.props.get('@id');
      if (id) sc = this.scalar(id);
    }
    if (!sc || sc.kind !== 'string') return null;
    const raw = sc.text.length > 200 ? sc.text.slice(0, 200) : sc.text;
    const e = normalizeEnum(raw, table);
    return { raw, normalized: e.normalized, sources: [this.ev(sc.node)], flags: e.flags };
  }

  private date(node: JsonNode): DateValue | null {
    const sc = this.scalar(node);
    if (!sc) return null;
    const raw = sc.text.length > 100 ? sc.text.slice(0, 100) : sc.text;
    if (sc.kind !== 'string') {
      return { raw, normalized: null, kind: 'invalid', date: null, sources: [this.ev(sc.node)], flags: ['not_a_string'] };
    }
    const d = parseIsoDate(raw);
    return { raw, normalized: d.normalized, kind: d.kind, date: d.date, sources: [this.ev(sc.node)], flags: d.flags };
  }

  private party(node: JsonNode): PartyValue | null {
    const sc = this.scalar(node);
    if (sc && sc.kind === 'string' && /^(?:https?:|#|_:)/i.test(sc.text)) {
      // a string naming a node defined elsewhere ("brand": "#acme") is a reference
      const def = this.defs.get(this.normId(sc.text));
      if (def && def.length) {
        const p = this.party(def[0] as JsonObject);
        if (p) {
          p.sources.push(this.ev(sc.node));
          p.flags.push('resolved_from_string_reference');
          return p;
        }
      }
    }
    if (sc) {
      const name = trimAll(sc.text);
      const flags: string[] = [];
      if (name === '') flags.push('empty_value');
      if (hasCharRef(name)) flags.push('contains_character_reference');
      return { name: name === '' ? null : name.slice(0, 500), type: null, at_id: null, sources: [this.ev(sc.node)], flags };
    }
    if (node.kind !== 'object') return null;
    const flags: string[] = [];
    const nameNode = this.vals(node, 'name')[0] ?? this.vals(node, 'legalName')[0];
    const nameSc = nameNode ? this.scalar(nameNode) : null;
    let name = nameSc ? trimAll(nameSc.text) : null;
    if (name === '') name = null;
    if (name && hasCharRef(name)) flags.push('contains_character_reference');
    const idNode = node.props.get('@id');
    const atId = idNode && idNode.kind === 'string' ? this.normId(idNode.value) : null;
    if (!name) {
      if (atId !== null && this.view(node).length === 1 && node.props.size === 1) flags.push('unresolved_reference');
      else flags.push('no_name');
    }
    const t = this.typesOf(node).local[0] ?? null;
    const sources = [this.ev(node)];
    if (nameSc && !sources.some((s) => sameEvidence(s, this.ev(nameSc.node)))) sources.unshift(this.ev(nameSc.node));
    return { name: name ? name.slice(0, 500) : null, type: t, at_id: atId, sources, flags };
  }

  // ---------------------------------------------------------------- graph

  private index(): void {
    let ord = 0;
    for (const s of this.input.scripts) {
      if (!s.root) continue;
      this.rootScript.set(s.root, s.index);
      const stack: JsonNode[] = [s.root];
      while (stack.length) {
        const n = stack.pop() as JsonNode;
        if (n.kind === 'object') {
          this.order.set(n, ord++);
          this.allObjects.push(n);
          const id = n.props.get('@id');
          if (id && id.kind === 'string') {
            const key = this.normId(id.value);
            this.idKey.set(n, key);
            let onlyId = true;
            for (const k of n.props.keys()) if (k !== '@id') onlyId = false;
            const m = onlyId ? this.refs : this.defs;
            const list = m.get(key);
            if (list) list.push(n);
            else m.set(key, [n]);
          }
          // push children, then reverse them in place, so they pop in document order
          const from = stack.length;
          for (const c of n.props.values()) if (c.kind === 'object' || c.kind === 'array') stack.push(c);
          for (let a = from, b = stack.length - 1; a < b; a++, b--) {
            const t = stack[a] as JsonNode;
            stack[a] = stack[b] as JsonNode;
            stack[b] = t;
          }
        } else if (n.kind === 'array') {
          for (let k = n.items.length - 1; k >= 0; k--) {
            const c = n.items[k] as JsonNode;
            if (c.kind === 'object' || c.kind === 'array') stack.push(c);
          }
        }
      }
    }
  }

  private makeEntity(obj: JsonObject, isGroup: boolean, flags: string[]): Entity | null {
    if (this.entityOf.has(obj)) return this.entityOf.get(obj) as Entity;
    if (this.entityCount >= LIMITS.products) {
      if (!this.truncated) {
        this.truncated = true;
        this.warn('products_truncated', `More than ${LIMITS.products} products; the rest are not reported.`, obj, null);
      }
      return null;
    }
    const key = this.idKey.get(obj);
    const objs = key === undefined ? [obj] : [...(this.defs.get(key) ?? []), ...(this.refs.get(key) ?? [])];
    if (!objs.includes(obj)) objs.push(obj);
    let order = Infinity;
    for (const o of objs) order = Math.min(order, this.order.get(o) ?? Infinity);
    const first = (key !== undefined ? this.defs.get(key)?.[0] : undefined) ?? obj;
    const e: Entity = { first, objs, isGroup, flags, order };
    for (const o of objs) this.entityOf.set(o, e);
    this.entityCount++;
    this.entities.push(e);
    return e;
  }
  private entityCount = 0;
  private readonly entities: Entity[] = [];

  private findEntities(): void {
    for (const obj of this.allObjects) {
      if (this.entityOf.has(obj)) continue;
      const t = this.typesOf(obj);
      if (!t.local.some((x) => PRODUCT_TYPES.has(x))) continue;
      if (!this.makeEntity(obj, t.local.includes('ProductGroup'), [])) break;
    }
    // Untyped objects listed as variants of a group are variants too.
    for (const g of [...this.entities]) {
      if (!g.isGroup) continue;
      for (const v of this.vals(g.first, 'hasVariant')) {
        const o = this.asObject(v);
        if (!o || this.entityOf.has(o)) continue;
        if (this.typesOf(o).local.length === 0 && o.props.size > 1) {
          if (!this.makeEntity(o, false, ['untyped_variant'])) break;
        }
      }
    }
    this.entities.sort((a, b) => a.order - b.order);
  }

  private roleOf(e: Entity): ProductRole {
    const rank: ProductRole[] = ['variant', 'primary', 'list_item', 'offered_item', 'reviewed_item', 'related', 'nested'];
    let best = 6;
    for (const o of e.objs) {
      let cur: JsonNode = o;
      while (cur.parent && cur.parent.kind === 'array') cur = cur.parent;
      let r: ProductRole;
      if (!cur.parent) r = 'primary';
      else {
        const prop = localName(String(cur.key));
        if (prop === '@graph' || prop === 'mainEntity' || prop === 'about' || prop === 'isVariantOf') r = 'primary';
        else if (prop === 'hasVariant') r = 'variant';
        else if (prop === 'item' || prop === 'itemListElement') r = 'list_item';
        else if (prop === 'itemOffered') r = 'offered_item';
        else if (prop === 'itemReviewed') r = 'reviewed_item';
        else if (['isRelatedTo', 'isSimilarTo', 'isAccessoryOrSparePartFor', 'isConsumableFor'].includes(prop)) r = 'related';
        else r = 'nested';
      }
      best = Math.min(best, rank.indexOf(r));
    }
    return rank[best] as ProductRole;
  }

  // ---------------------------------------------------------------- offers

  private priceSpec(obj: JsonObject, depth: number, out: PriceSpecOut[], product: PRec, componentOf: number | null): void {
    if (out.length >= 50) return;
    const spec: PriceSpecOut = {
      type: this.typesOf(obj).local[0] ?? null,
      component_of: componentOf,
      price_type: this.single(obj, 'priceType', this.cPriceType, sameNormalized, product),
      price_component_type: this.single(obj, 'priceComponentType', this.cComponentType, sameNormalized, product),
      price: this.single(obj, 'price', this.cPrice, samePrice, product),
      min_price: this.single(obj, 'minPrice', this.cPrice, samePrice, product),
      max_price: this.single(obj, 'maxPrice', this.cPrice, samePrice, product),
      currency: this.single(obj, 'priceCurrency', this.cCurrency, sameNormalized, product),
      reference_quantity: null,
      unit_code: this.single(obj, 'unitCode', this.cShortText, sameText, product),
      unit_text: this.single(obj, 'unitText', this.cShortText, sameText, product),
      valid_from: this.single(obj, 'validFrom', this.cDate, sameRaw, product),
      valid_through: this.single(obj, 'validThrough', this.cDate, sameRaw, product),
      value_added_tax_included: null,
      sources: [this.ev(obj)],
      flags: [],
    };
    const rq = this.vals(obj, 'referenceQuantity')[0];
    if (rq && rq.kind === 'object') {
      const q: QuantityValue = { value: null, unit_code: null, unit_text: null, sources: [this.ev(rq)] };
      const v = this.vals(rq, 'value')[0];
      const uc = this.vals(rq, 'unitCode')[0];
      const ut = this.vals(rq, 'unitText')[0];
      q.value = v ? (this.scalar(v)?.text ?? null) : null;
      q.unit_code = uc ? (this.scalar(uc)?.text ?? null) : null;
      q.unit_text = ut ? (this.scalar(ut)?.text ?? null) : null;
      spec.reference_quantity = q;
    }
    const vat = this.vals(obj, 'valueAddedTaxIncluded')[0];
    if (vat) {
      const sc = this.scalar(vat);
      if (sc && (sc.text === 'true' || sc.text === 'false')) spec.value_added_tax_included = sc.text === 'true';
    }
    if (spec.price_type && spec.price_type.normalized === null) {
      this.warn('unknown_price_type', `Unknown priceType "${spec.price_type.raw}".`, obj, product);
    }
    if (spec.price_component_type && spec.price_component_type.normalized === null) {
      this.warn('unknown_price_component_type', `Unknown priceComponentType "${spec.price_component_type.raw}".`, obj, product);
    }
    const self = out.length;
    out.push(spec);
    if (depth < 2) {
      for (const c of this.vals(obj, 'priceComponent')) {
        if (c.kind === 'object') this.priceSpec(c, depth + 1, out, product, self);
      }
    }
  }

  private warnPrice(p: PriceValue | null, label: string, product: PRec): void {
    if (!p) return;
    const node = p.sources[0] ?? null;
    const where = `${label} "${p.raw}"`;
    switch (p.status) {
      case 'zero':
        this.warn('zero_price', `${where} is 0: Google's merchant listings require a price greater than 0.`, node, product);
        break;
      case 'negative':
        this.warn('negative_price', `${where} is negative: not a valid price.`, node, product);
        break;
      case 'empty':
        this.warn('empty_price', `${where} is empty: no price reported.`, node, product);
        break;
      case 'invalid':
        this.warn('invalid_price', `${where} could not be read as a number (${p.flags.join(', ')}).`, node, product);
        break;
      default:
        break;
    }
    if (p.flags.includes('decimal_comma_inferred')) {
      this.warn('decimal_comma_inferred', `${where}: ',' was read as the decimal separator → ${p.normalized}. schema.org requires '.'.`, node, product);
    } else if (p.flags.includes('ambiguous_separator')) {
      this.warn('ambiguous_separator', `${where}: separator is ambiguous; read as ${p.normalized}.`, node, product);
    } else if (p.flags.includes('thousands_separator_removed')) {
      this.warn('thousands_separator_removed', `${where}: thousands separator removed → ${p.normalized}.`, node, product);
    }
    if (p.currency_hint) {
      this.warn(
        'currency_in_price',
        `${where} carries a currency (${p.currency_hint}${p.flags.includes('ambiguous_currency_symbol') ? ', ambiguous symbol' : ''}); schema.org wants a bare number and priceCurrency.`,
        node,
        product,
      );
    }
  }

  /**
   * One offer of `product` and, below it, the offers it lists (an AggregateOffer's individual
   * offers), which inherit its priceCurrency when they state none.
   */
  private offer(
    obj: JsonObject,
    depth: number,
    parent: ORec | null,
    product: PRec,
    seen: Set<unknown>,
    inheritedCurrency: CurrencyValue | null,
  ): void {
    if (!this.claimOffer(obj, product, seen)) return;
    const rec: ORec = { out: this.offerOut(obj, product, inheritedCurrency), parent, mergedInto: null };
    product.offers.push(rec);
    if (depth < 3) {
      for (const v of this.vals(obj, 'offers')) {
        if (v.kind === 'object') this.offer(v, depth + 1, rec, product, seen, rec.out.currency);
      }
    }
  }

  /**
   * False when this offer is not to be read: an @id reached twice (through `offers` and
   * `itemOffered`, say) is one offer, and the per-product bound keeps the response finite.
   */
  private claimOffer(obj: JsonObject, product: PRec, seen: Set<unknown>): boolean {
    const key = this.idKey.get(obj) ?? obj;
    if (seen.has(key)) return false;
    seen.add(key);
    if (product.offers.length < LIMITS.offersPerProduct) return true;
    if (!product.out.flags.includes('offers_truncated')) {
      product.out.flags.push('offers_truncated');
      this.warn('offers_truncated', `More than ${LIMITS.offersPerProduct} offers; the rest are not reported.`, obj, product);
    }
    return false;
  }

  /**
   * All fields of one offer. The order of the reads is the order of the warnings in the
   * response, so it is kept as it is: price fields, then currency checks, then the offer's terms.
   */
  private offerOut(obj: JsonObject, product: PRec, inheritedCurrency: CurrencyValue | null): OfferOut {
    const flags: string[] = [];
    const type = this.offerType(obj, product, flags);
    const { price, origin, currency, specs, previous, listPrice } = this.offerPricing(obj, product, flags, inheritedCurrency);
    const low = this.single(obj, 'lowPrice', this.cPrice, samePrice, product);
    const high = this.single(obj, 'highPrice', this.cPrice, samePrice, product);
    if (low?.normalized && high?.normalized && compareDecimals(low.normalized, high.normalized) > 0) {
      flags.push('low_price_above_high_price');
      this.warn('low_price_above_high_price', `lowPrice ${low.normalized} is above highPrice ${high.normalized}.`, obj, product);
    }
    const offerCount = this.offerCount(obj, product);
    this.checkPricePresence(obj, product, flags, type, price, low, high);
    this.checkCurrency(obj, product, flags, currency, price, low);
    this.warnPrice(price, 'price', product);
    this.warnPrice(low, 'lowPrice', product);
    this.warnPrice(high, 'highPrice', product);
    this.warnPrice(previous, 'StrikethroughPrice', product);
    const availability = this.offerAvailability(obj, product);
    const condition = this.offerCondition(obj, product);
    const validUntil = this.offerValidUntil(obj, product);
    const sellers = this.sellers(obj);
    return {
      id: '',
      type,
      parent_offer: null,
      sources: [this.ev(obj)],
      price,
      price_origin: origin,
      low_price: low,
      high_price: high,
      offer_count: offerCount,
      currency,
      previous_price: previous,
      list_price: listPrice,
      price_specifications: specs,
      availability,
      item_condition: condition,
      price_valid_until: validUntil,
      url: this.single(obj, 'url', this.cUrl, sameUrl, product),
      seller: sellers,
      has_shipping_details: this.has(obj, 'shippingDetails'),
      has_merchant_return_policy: this.has(obj, 'hasMerchantReturnPolicy'),
      flags,
    };
  }

  /**
   * The offer's schema.org type. An untyped object under `offers` is still read as an offer
   * (AggregateOffer when it states a price range), flagged; another type is kept and warned about.
   */
  private offerType(obj: JsonObject, product: PRec, flags: string[]): string {
    const types = this.typesOf(obj).local;
    const known = types.find((t) => OFFER_TYPES.has(t));
    if (known) return known;
    if (types.length === 0) {
      flags.push('untyped_offer');
      return this.has(obj, 'lowPrice') || this.has(obj, 'highPrice') ? 'AggregateOffer' : 'Offer';
    }
    const type = types[0] as string;
    flags.push('unexpected_offer_type');
    this.warn('unexpected_offer_type', `An "offers" value has @type ${type}, not Offer or AggregateOffer.`, obj, product);
    return type;
  }

  /**
   * price, priceCurrency and the priceSpecifications they may come from (see README, "Price
   * specifications"): the offer's own price wins; else the first specification that is the
   * current price; a StrikethroughPrice is the previous price and a ListPrice/MSRP/SRP the list price.
   */
  private offerPricing(obj: JsonObject, product: PRec, flags: string[], inheritedCurrency: CurrencyValue | null): OfferPricing {
    let price = this.single(obj, 'price', this.cPrice, samePrice, product);
    let currency = this.single(obj, 'priceCurrency', this.cCurrency, sameNormalized, product);
    const specs: PriceSpecOut[] = [];
    for (const v of this.vals(obj, 'priceSpecification')) {
      if (v.kind === 'object') this.priceSpec(v, 0, specs, product, null);
    }
    // Components are never the price: summing or picking one would mix units (per day + per mile).
    const current = specs.filter((s) => s.component_of === null && s.price !== null && !isPreviousPrice(s) && !isListPrice(s) && !isCharge(s));
    const compound = specs.filter((s, i) => s.component_of === null && !isPreviousPrice(s) && !isListPrice(s) && specs.some((c) => c.component_of === i));
    let origin: OfferOut['price_origin'] = price ? 'price' : null;
    const first = current[0];
    if (!price && first) {
      price = first.price;
      origin = 'priceSpecification';
      if (!currency && first.currency) currency = first.currency;
    } else if (price && price.normalized && first?.price?.normalized) {
      this.checkPriceMatchesSpecification(obj, product, flags, price.normalized, first.price.normalized);
    }
    if (compound.length) {
      flags.push('compound_price');
      this.warnCompoundPrice(obj, product, specs, compound, price, origin);
    }
    currency = currencyFallback(currency, current, specs, inheritedCurrency);
    const previous = specs.find(isPreviousPrice)?.price ?? null;
    const listPrice = specs.find(isListPrice)?.price ?? null;
    if (previous?.normalized && price?.normalized && compareDecimals(previous.normalized, price.normalized) <= 0) {
      flags.push('previous_price_not_higher');
      this.warn('previous_price_not_higher', `StrikethroughPrice ${previous.normalized} is not higher than the price ${price.normalized}.`, obj, product);
    }
    return { price, origin, currency, specs, previous, listPrice };
  }

  /** Two stated prices that disagree: the offer's own is reported, the caller is told of the other. */
  private checkPriceMatchesSpecification(obj: JsonObject, product: PRec, flags: string[], price: string, specPrice: string): void {
    if (compareDecimals(price, specPrice) === 0) return;
    flags.push('price_differs_from_price_specification');
    this.warn(
      'price_differs_from_price_specification',
      `Offer price ${price} differs from its priceSpecification price ${specPrice}.`,
      obj,
      product,
    );
  }

  /** The parts are listed in the warning because no single number stands for a compound price. */
  private warnCompoundPrice(
    obj: JsonObject,
    product: PRec,
    specs: PriceSpecOut[],
    compound: PriceSpecOut[],
    price: PriceValue | null,
    origin: OfferOut['price_origin'],
  ): void {
    const parts: string[] = [];
    for (const c of specs) {
      if (c.component_of === null || parts.length >= 6) continue;
      parts.push(describeComponent(c));
    }
    this.warn(
      'compound_price',
      `The price is a CompoundPriceSpecification (${parts.join(' + ') || 'no components'}); ${compoundPriceChoice(origin, price, compound)}: read the components in price_specifications (component_of).`,
      obj,
      product,
    );
  }

  /** offerCount is kept as written; a value that is not a count is flagged, not dropped. */
  private offerCount(obj: JsonObject, product: PRec): TextValue | null {
    const offerCount = this.single(obj, 'offerCount', this.cText, sameText, product);
    if (offerCount && !/^\d{1,15}$/.test(trimAll(offerCount.value))) offerCount.flags.push('not_a_whole_number');
    return offerCount;
  }

  /** What Google needs about the amount: an AggregateOffer needs lowPrice for product snippets. */
  private checkPricePresence(
    obj: JsonObject,
    product: PRec,
    flags: string[],
    type: string,
    price: PriceValue | null,
    low: PriceValue | null,
    high: PriceValue | null,
  ): void {
    if (type === 'AggregateOffer' && !low) {
      flags.push('aggregate_offer_without_low_price');
      this.warn('aggregate_offer_without_low_price', 'AggregateOffer has no lowPrice (Google requires it for product snippets).', obj, product);
    }
    if (!price && !low && !high) flags.push('no_price');
  }

  /**
   * priceCurrency against the price: missing, contradicted by a symbol in the price text (the
   * stated priceCurrency is reported, never the hint), or not an ISO 4217 code as written.
   */
  private checkCurrency(
    obj: JsonObject,
    product: PRec,
    flags: string[],
    currency: CurrencyValue | null,
    price: PriceValue | null,
    low: PriceValue | null,
  ): void {
    const hint = price?.currency_hint ?? low?.currency_hint ?? null;
    if (!currency && (price || low)) {
      flags.push('no_currency');
      this.warn('missing_currency', `Offer has a price but no priceCurrency${hint ? ` (the price text suggests ${hint})` : ''}.`, obj, product);
    }
    if (currency && currency.normalized && hint && hint !== currency.normalized) {
      flags.push('currency_conflict');
      this.warn(
        'currency_conflict',
        `The price text suggests ${hint} but priceCurrency is ${currency.normalized}; priceCurrency is reported.`,
        currency.sources[0] ?? obj,
        product,
      );
    }
    if (currency && currency.status !== 'ok') {
      this.warn(`currency_${currency.status}`, currencyStatusMessage(currency), currency.sources[0] ?? obj, product);
    }
  }

  private offerAvailability(obj: JsonObject, product: PRec): IriValue | null {
    const availability = this.single(obj, 'availability', this.cAvailability, sameNormalized, product);
    if (availability && availability.normalized === null) {
      this.warn('unknown_availability', `availability "${availability.raw}" is not a schema.org ItemAvailability value.`, availability.sources[0] ?? obj, product);
    }
    return availability;
  }

  private offerCondition(obj: JsonObject, product: PRec): IriValue | null {
    const condition = this.single(obj, 'itemCondition', this.cCondition, sameNormalized, product);
    if (condition && condition.normalized === null) {
      this.warn('unknown_item_condition', `itemCondition "${condition.raw}" is not a schema.org OfferItemCondition value.`, condition.sources[0] ?? obj, product);
    }
    return condition;
  }

  /** Whether the date is past is not decided here: a pure handler has no clock (see README). */
  private offerValidUntil(obj: JsonObject, product: PRec): DateValue | null {
    const validUntil = this.single(obj, 'priceValidUntil', this.cDate, sameRaw, product);
    if (validUntil && validUntil.kind === 'invalid') {
      this.warn('invalid_price_valid_until', `priceValidUntil "${validUntil.raw}" is not an ISO 8601 date.`, validUntil.sources[0] ?? obj, product);
    }
    return validUntil;
  }

  private sellers(obj: JsonObject): PartyValue[] {
    const sellers: PartyValue[] = [];
    for (const s of this.vals(obj, 'seller')) {
      const p = this.party(s);
      if (p && sellers.length < 20) sellers.push(p);
    }
    return sellers;
  }

  // ---------------------------------------------------------------- products

  private identifiers(obj: JsonObject, product: PRec): IdentifierValue[] {
    const out: IdentifierValue[] = [];
    for (const prop of IDENTIFIER_PROPS) {
      for (const v of this.vals(obj, prop)) {
        const sc = this.scalar(v);
        if (!sc) continue;
        const raw = sc.text.length > 200 ? sc.text.slice(0, 200) : sc.text;
        const flags: string[] = [];
        let normalized: string | null = trimAll(raw);
        let gtin: IdentifierValue['gtin'] = null;
        if (sc.kind === 'number') flags.push('given_as_number');
        if (sc.kind === 'boolean') flags.push('given_as_boolean');
        if (normalized === '') {
          normalized = null;
          flags.push('empty_value');
        } else if (GTIN_PROPS.has(prop)) {
          const g = checkGtin(prop, raw, sc.kind === 'number');
          for (const f of g.flags) addFlag(flags, f);
          gtin = {
            digits: g.digits,
            check_digit: g.check_digit,
            gtin14: g.gtin14,
            leading_zeros_possibly_lost: g.leading_zeros_possibly_lost,
            valid_if_zero_padded: g.valid_if_zero_padded,
          };
          normalized = g.digits;
          if (g.check_digit === 'invalid') {
            this.warn('gtin_check_digit_invalid', `${prop} "${raw}" has a wrong check digit.`, sc.node, product);
          } else if (g.check_digit === 'bad_length') {
            this.warn(
              'gtin_bad_length',
              `${prop} "${raw}" has ${g.digits?.length ?? 0} digits${g.valid_if_zero_padded ? ' (valid if left-padded with zeros: leading zeros were probably dropped)' : ''}.`,
              sc.node,
              product,
            );
          } else if (g.check_digit === 'not_numeric') {
            this.warn('gtin_not_numeric', `${prop} "${raw}" is not made of digits.`, sc.node, product);
          }
          if (g.leading_zeros_possibly_lost) {
            this.warn(
              'gtin_leading_zeros_lost',
              `${prop} was given as the JSON number ${raw}; leading zeros are lost in numbers, so it was left-padded to ${g.digits}.`,
              sc.node,
              product,
            );
          }
        }
        const existing = out.find((x) => x.property === prop && x.normalized === normalized);
        if (existing) {
          addSources(existing.sources, [this.ev(sc.node)]);
          continue;
        }
        if (out.length < 50) {
          out.push({ property: prop, raw, json_type: sc.kind, normalized, gtin, sources: [this.ev(sc.node)], flags });
        }
      }
    }
    return out;
  }

  /** The nodes a product was read from (references that only carry @id are not listed); at most 50. */
  private productSources(e: Entity): Evidence[] {
    const out: Evidence[] = [];
    for (const o of e.objs) {
      if (o.props.size === 1 && o.props.has('@id')) continue;
      if (out.length >= 50) break;
      out.push(this.ev(o));
    }
    return out;
  }

  private buildProduct(e: Entity): PRec {
    const obj = e.first;
    const t = this.typesOf(obj);
    const idNode = obj.props.get('@id');
    const out: ProductOut = {
      id: '',
      types: t.local.length ? t.local : ['Product'],
      type_iris: t.raw,
      at_id: idNode && idNode.kind === 'string' ? this.normId(idNode.value) : null,
      role: this.roleOf(e),
      is_group: e.isGroup,
      group: null,
      variants: [],
      product_group_id: null,
      sources: this.productSources(e),
      merged_from: 1,
      name: null,
      description: null,
      brand: [],
      identifiers: [],
      url: null,
      images: [],
      offers: [],
      aggregate_rating: null,
      review_count: 0,
      merchant_listing: { eligible: false, required: [], recommended: [], note: null },
      product_snippet: { eligible: false, required: [], recommended: [], note: null },
      flags: [...e.flags],
    };
    if (out.sources.length === 0) out.sources.push(this.ev(obj));
    const rec: PRec = {
      entity: e,
      out,
      offers: [],
      group: null,
      variants: [],
      mergedInto: null,
      shippingOnProduct: [],
      returnOnProduct: [],
    };
    out.name = this.single(obj, 'name', this.cName, sameText, rec);
    out.description = this.single(obj, 'description', this.cDescription, sameText, rec);
    out.product_group_id = this.single(obj, 'productGroupID', this.cShortText, sameText, rec);
    for (const tv of [out.name, out.description]) {
      if (tv && tv.flags.includes('contains_character_reference')) {
        this.warn(
          'character_reference_not_decoded',
          `A text value contains an HTML character reference (e.g. "&amp;"); inside JSON-LD it is literal text and is reported as written.`,
          null,
          rec,
        );
        break;
      }
    }
    for (const b of this.vals(obj, 'brand')) {
      const p = this.party(b);
      if (!p || out.brand.length >= 20) continue;
      const ex = out.brand.find((x) => x.name !== null && x.name === p.name);
      if (ex) addSources(ex.sources, p.sources);
      else out.brand.push(p);
    }
    out.identifiers = this.identifiers(obj, rec);
    out.url = this.single(obj, 'url', this.cUrl, sameUrl, rec);
    for (const v of this.vals(obj, 'image')) {
      if (out.images.length >= LIMITS.imagesPerProduct) {
        addFlag(out.flags, 'images_truncated');
        break;
      }
      let u: UrlValue | null = null;
      if (v.kind === 'object') {
        const inner = this.vals(v, 'contentUrl')[0] ?? this.vals(v, 'url')[0] ?? v.props.get('@id');
        if (inner) u = this.url(inner);
      } else u = this.url(v);
      if (!u) continue;
      const ex = out.images.find((x) => (x.resolved ?? x.raw) === (u.resolved ?? u.raw));
      if (ex) addSources(ex.sources, u.sources);
      else out.images.push(u);
    }
    const ar = this.vals(obj, 'aggregateRating')[0];
    if (ar && ar.kind === 'object') {
      const g = (p: string): string | null => {
        const v = this.vals(ar, p)[0];
        const sc = v ? this.scalar(v) : null;
        return sc ? sc.text.slice(0, 50) : null;
      };
      const agg: AggregateRatingOut = {
        rating_value: g('ratingValue'),
        best_rating: g('bestRating'),
        review_count: g('reviewCount'),
        rating_count: g('ratingCount'),
        sources: [this.ev(ar)],
      };
      out.aggregate_rating = agg;
    }
    out.review_count = this.vals(obj, 'review').length + this.vals(obj, 'reviews').length;
    for (const s of this.vals(obj, 'shippingDetails')) rec.shippingOnProduct.push(this.ev(s));
    for (const s of this.vals(obj, 'hasMerchantReturnPolicy')) rec.returnOnProduct.push(this.ev(s));
    if (rec.shippingOnProduct.length) out.flags.push('shipping_details_on_product');
    if (rec.returnOnProduct.length) out.flags.push('return_policy_on_product');

    // offers: own `offers`, then Offers elsewhere whose itemOffered is this product
    const seen = new Set<unknown>();
    for (const v of this.vals(obj, 'offers')) {
      if (v.kind === 'object') this.offer(v, 0, null, rec, seen, null);
      else {
        const o = this.asObject(v);
        if (o) this.offer(o, 0, null, rec, seen, null);
        else {
          addFlag(out.flags, 'offers_not_object');
          this.warn('offers_not_object', '"offers" holds a plain value, not an Offer object; ignored.', v, rec);
        }
      }
    }
    for (const o of this.reverseOffers.get(e) ?? []) this.offer(o, 0, null, rec, seen, null);
    if (!this.hasContext(obj)) addFlag(out.flags, 'no_schema_org_context');
    return rec;
  }

  private readonly reverseOffers = new Map<Entity, JsonObject[]>();

  private collectReverseOffers(): void {
    for (const obj of this.allObjects) {
      let hasItemOffered = false;
      for (const p of PROP_PREFIXES) if (obj.props.has(p + 'itemOffered')) hasItemOffered = true;
      if (!hasItemOffered) continue;
      const types = this.typesOf(obj).local;
      if (types.length && !types.some((t) => OFFER_TYPES.has(t))) continue;
      for (const v of this.vals(obj, 'itemOffered')) {
        const o = this.asObject(v);
        const e = o ? this.entityOf.get(o) : undefined;
        if (!e) continue;
        const list = this.reverseOffers.get(e);
        if (list) {
          if (!list.includes(obj)) list.push(obj);
        } else this.reverseOffers.set(e, [obj]);
      }
    }
  }

  /** Is there a schema.org @context on the object or an ancestor (or are its types full IRIs)? */
  private hasContext(obj: JsonObject): boolean {
    const t = this.typesOf(obj).raw;
    if (t.length && t.every((x) => /schema\.org\//i.test(x) || /^schema:/i.test(x))) return true;
    for (const o of this.view(obj)) {
      let cur: JsonNode | null = o;
      let steps = 0;
      while (cur && steps++ < 600) {
        if (cur.kind === 'object') {
          const c = cur.props.get('@context');
          if (c && this.contextMentionsSchema(c)) return true;
        }
        cur = cur.parent;
      }
    }
    return false;
  }

  private contextMentionsSchema(c: JsonNode): boolean {
    if (c.kind === 'string') return /schema\.org/i.test(c.value);
    if (c.kind === 'array') return c.items.some((x) => this.contextMentionsSchema(x));
    if (c.kind === 'object') {
      for (const [k, v] of c.props) {
        if (k === '@vocab' || k === 'schema' || k === '@base') {
          if (v.kind === 'string' && /schema\.org/i.test(v.value)) return true;
        }
      }
    }
    return false;
  }

  // ---------------------------------------------------------------- linking, merging

  private link(recs: Map<Entity, PRec>): void {
    const attach = (g: PRec, v: PRec, node: JsonNode): void => {
      if (g === v) return;
      if (v.group && v.group !== g) {
        addFlag(v.out.flags, 'several_groups');
        this.warn('several_groups', 'A variant is linked to more than one ProductGroup; the first is kept.', node, v);
        return;
      }
      v.group = g;
      if (!g.variants.includes(v)) g.variants.push(v);
    };
    for (const [e, g] of recs) {
      if (!e.isGroup) continue;
      for (const v of this.vals(e.first, 'hasVariant')) {
        const o = this.asObject(v);
        const ve = o ? this.entityOf.get(o) : undefined;
        const vr = ve ? recs.get(ve) : undefined;
        if (vr) attach(g, vr, v);
      }
    }
    const byGroupId = new Map<string, PRec>();
    for (const [e, g] of recs) {
      if (e.isGroup && g.out.product_group_id) {
        const k = trimAll(g.out.product_group_id.value);
        if (k && !byGroupId.has(k)) byGroupId.set(k, g);
      }
    }
    for (const [e, r] of recs) {
      for (const v of this.vals(e.first, 'isVariantOf')) {
        const o = this.asObject(v);
        const ge = o ? this.entityOf.get(o) : undefined;
        const gr = ge ? recs.get(ge) : undefined;
        if (gr && gr.entity.isGroup) attach(gr, r, v);
      }
      if (!r.group) {
        for (const v of this.vals(e.first, 'inProductGroupWithID')) {
          const sc = this.scalar(v);
          const gr = sc ? byGroupId.get(trimAll(sc.text)) : undefined;
          if (gr) attach(gr, r, v);
        }
      }
      if (r.group && r.out.role !== 'variant') r.out.role = 'variant';
    }
    // Variants inherit what they leave out from their group.
    for (const r of recs.values()) {
      const g = r.group;
      if (!g) continue;
      const inherit = <T extends { flags: string[]; sources: Evidence[] }>(v: T): T => ({
        ...v,
        sources: [...v.sources],
        flags: [...v.flags, 'inherited_from_group'],
      });
      if (r.out.brand.length === 0 && g.out.brand.length) r.out.brand = g.out.brand.map(inherit);
      if (!r.out.description && g.out.description) r.out.description = inherit(g.out.description);
      if (r.out.images.length === 0 && g.out.images.length) r.out.images = g.out.images.map(inherit);
      if (!r.out.name && g.out.name) r.out.name = inherit(g.out.name);
    }
  }

  private mergeDuplicates(list: PRec[]): number {
    interface Cluster {
      index: number;
      head: PRec;
      members: PRec[];
      gtins: Set<string>;
      skus: Set<string>;
      urls: Set<string>;
    }
    const keysOf = (p: PRec): { gtins: string[]; skus: string[]; urls: string[] } => {
      const gtins: string[] = [];
      const skus: string[] = [];
      for (const id of p.out.identifiers) {
        if (id.gtin && id.gtin.digits && (id.gtin.check_digit === 'valid' || id.gtin.check_digit === 'invalid')) {
          gtins.push(id.gtin.digits.padStart(14, '0'));
        } else if (id.property === 'sku' && id.normalized) skus.push(id.normalized);
      }
      const urls: string[] = [];
      const u = p.out.url ? (p.out.url.resolved ?? trimAll(p.out.url.raw)) : '';
      if (u) urls.push(u);
      return { gtins, skus, urls };
    };
    const clusters: Cluster[] = [];
    const byKey = new Map<string, Cluster[]>();
    const MAX_PER_KEY = 16;
    const disjoint = (a: Set<string>, b: string[]): boolean => a.size > 0 && b.length > 0 && !b.some((x) => a.has(x));
    let merged = 0;
    for (const p of list) {
      const k = keysOf(p);
      const allKeys = [...k.gtins.map((x) => 'g:' + x), ...k.skus.map((x) => 's:' + x), ...k.urls.map((x) => 'u:' + x)];
      const candidates: Cluster[] = [];
      for (const key of allKeys) for (const c of byKey.get(key) ?? []) if (!candidates.includes(c)) candidates.push(c);
      candidates.sort((a, b) => a.index - b.index);
      let target: Cluster | null = null;
      for (const c of candidates) {
        if (c.head.out.is_group !== p.out.is_group) continue;
        if ((p.group && c.members.includes(p.group)) || c.members.some((m) => m.group === p)) continue;
        if (disjoint(c.gtins, k.gtins) || disjoint(c.skus, k.skus)) continue;
        const strong = k.gtins.some((x) => c.gtins.has(x)) || k.skus.some((x) => c.skus.has(x));
        if (!strong) {
          // same URL only: variants share their group's URL, and listing rows may too
          if (p.group || c.members.some((m) => m.group)) continue;
          const n1 = c.head.out.name?.value.trim().toLowerCase();
          const n2 = p.out.name?.value.trim().toLowerCase();
          if (n1 && n2 && n1 !== n2) continue;
        }
        target = c;
        break;
      }
      if (!target) {
        const c: Cluster = { index: clusters.length, head: p, members: [p], gtins: new Set(k.gtins), skus: new Set(k.skus), urls: new Set(k.urls) };
        clusters.push(c);
        for (const key of allKeys) {
          const l = byKey.get(key);
          // A key shared by many distinct products (a GTIN pasted on every item of a listing)
          // stops being a merge key after MAX_PER_KEY clusters: bounded work per product.
          if (l) {
            if (l.length < MAX_PER_KEY) l.push(c);
          } else byKey.set(key, [c]);
        }
        continue;
      }
      this.mergeInto(target.head, p);
      target.members.push(p);
      merged++;
      for (const x of k.gtins) target.gtins.add(x);
      for (const x of k.skus) target.skus.add(x);
      for (const x of k.urls) target.urls.add(x);
      for (const key of allKeys) {
        const l = byKey.get(key);
        if (!l) byKey.set(key, [target]);
        else if (l.length < MAX_PER_KEY && !l.includes(target)) l.push(target);
      }
    }
    return merged;
  }

  private mergeInto(a: PRec, b: PRec): void {
    b.mergedInto = a;
    const A = a.out;
    const B = b.out;
    addSources(A.sources, B.sources);
    A.merged_from += B.merged_from;
    for (const t of B.types) if (!A.types.includes(t)) A.types.push(t);
    for (const t of B.type_iris) if (!A.type_iris.includes(t)) A.type_iris.push(t);
    if (!A.at_id) A.at_id = B.at_id;
    const rank: ProductRole[] = ['variant', 'primary', 'list_item', 'offered_item', 'reviewed_item', 'related', 'nested'];
    if (rank.indexOf(B.role) < rank.indexOf(A.role)) A.role = B.role;
    const mergeText = (x: TextValue | null, y: TextValue | null, label: string): TextValue | null => {
      if (!x) return y;
      if (!y) return x;
      if (x.value === y.value) addSources(x.sources, y.sources);
      else {
        addFlag(x.flags, 'conflicting_duplicate');
        this.warn('merge_conflict', `Duplicate product records disagree on ${label}; the first is kept.`, null, a);
      }
      return x;
    };
    A.name = mergeText(A.name, B.name, 'name');
    A.description = mergeText(A.description, B.description, 'description');
    A.product_group_id = mergeText(A.product_group_id, B.product_group_id, 'productGroupID');
    if (!A.url) A.url = B.url;
    else if (B.url) {
      if ((A.url.resolved ?? A.url.raw) === (B.url.resolved ?? B.url.raw)) addSources(A.url.sources, B.url.sources);
      else {
        addFlag(A.url.flags, 'conflicting_duplicate');
        this.warn('merge_conflict', 'Duplicate product records disagree on url; the first is kept.', null, a);
      }
    }
    for (const br of B.brand) {
      const ex = A.brand.find((x) => x.name !== null && x.name === br.name);
      if (ex) addSources(ex.sources, br.sources);
      else A.brand.push(br);
    }
    for (const id of B.identifiers) {
      const ex = A.identifiers.find((x) => x.property === id.property && x.normalized === id.normalized);
      if (ex) addSources(ex.sources, id.sources);
      else A.identifiers.push(id);
    }
    for (const im of B.images) {
      const ex = A.images.find((x) => (x.resolved ?? x.raw) === (im.resolved ?? im.raw));
      if (ex) addSources(ex.sources, im.sources);
      else if (A.images.length < LIMITS.imagesPerProduct) A.images.push(im);
    }
    if (!A.aggregate_rating) A.aggregate_rating = B.aggregate_rating;
    A.review_count = Math.max(A.review_count, B.review_count);
    for (const f of B.flags) addFlag(A.flags, f);
    addFlag(A.flags, 'merged_duplicate');
    a.shippingOnProduct.push(...b.shippingOnProduct);
    a.returnOnProduct.push(...b.returnOnProduct);
    // Offers: the same offer stated twice (same type, price, currency, price range) is merged;
    // fields only one copy states are filled in from it, with its sources.
    const sig = (o: ORec): string => {
      const x = o.out;
      return [x.type, x.price?.normalized, x.currency?.normalized, x.low_price?.normalized, x.high_price?.normalized, o.parent ? 'nested' : 'top'].join('|');
    };
    const compatible = (x: OfferOut, y: OfferOut): boolean =>
      (!x.availability || !y.availability || x.availability.normalized === y.availability.normalized) &&
      (!x.url || !y.url || (x.url.resolved ?? x.url.raw) === (y.url.resolved ?? y.url.raw)) &&
      (!x.item_condition || !y.item_condition || x.item_condition.normalized === y.item_condition.normalized);
    const originalCount = a.offers.length;
    for (const o of b.offers) {
      const s = sig(o);
      const ex = a.offers.find((x, i) => i < originalCount && !x.mergedInto && sig(x) === s && compatible(x.out, o.out));
      if (ex) {
        const X = ex.out;
        const Y = o.out;
        addSources(X.sources, Y.sources);
        if (X.price && Y.price) addSources(X.price.sources, Y.price.sources);
        if (X.currency && Y.currency) addSources(X.currency.sources, Y.currency.sources);
        if (!X.availability) X.availability = Y.availability;
        if (!X.item_condition) X.item_condition = Y.item_condition;
        if (!X.price_valid_until) X.price_valid_until = Y.price_valid_until;
        if (!X.url) X.url = Y.url;
        if (!X.previous_price) X.previous_price = Y.previous_price;
        if (!X.list_price) X.list_price = Y.list_price;
        if (X.seller.length === 0) X.seller = Y.seller;
        X.has_shipping_details ||= Y.has_shipping_details;
        X.has_merchant_return_policy ||= Y.has_merchant_return_policy;
        addFlag(X.flags, 'merged_duplicate');
        o.mergedInto = ex;
      } else if (a.offers.length < LIMITS.offersPerProduct) {
        a.offers.push(o);
      }
    }
    if (!a.group && b.group) a.group = b.group;
    for (const v of b.variants) if (!a.variants.includes(v)) a.variants.push(v);
  }

  // ---------------------------------------------------------------- main

  run(): ExtractResult {
    this.index();
    this.findEntities();
    this.collectReverseOffers();
    const recs = new Map<Entity, PRec>();
    for (const e of this.entities) recs.set(e, this.buildProduct(e));
    this.link(recs);
    const list = [...recs.values()];
    const merged = this.mergeDuplicates(list);
    const finalOf = (p: PRec): PRec => {
      let cur = p;
      while (cur.mergedInto) cur = cur.mergedInto;
      return cur;
    };
    const finals = list.filter((p) => !p.mergedInto);
    finals.forEach((p, i) => {
      p.out.id = `p${i}`;
    });
    for (const p of finals) {
      const offers = p.offers.filter((o) => !o.mergedInto);
      offers.forEach((o, k) => {
        o.out.id = `${p.out.id}.o${k}`;
      });
      const finalOffer = (o: ORec): ORec => {
        let cur = o;
        while (cur.mergedInto) cur = cur.mergedInto;
        return cur;
      };
      for (const o of offers) o.out.parent_offer = o.parent ? finalOffer(o.parent).out.id || null : null;
      p.out.offers = offers.map((o) => o.out);
      const g = p.group ? finalOf(p.group) : null;
      p.out.group = g && g !== p ? g.out.id : null;
      const vs: string[] = [];
      for (const v of p.variants) {
        const f = finalOf(v);
        if (f !== p && !vs.includes(f.out.id)) vs.push(f.out.id);
      }
      p.out.variants = vs;
    }
    for (const p of finals) applyVerdicts(p.out, { shipping: p.shippingOnProduct.length > 0, returnPolicy: p.returnOnProduct.length > 0 });
    const warnings: WarningOut[] = this.pending.map((w) => {
      const e = w.at;
      return {
        code: w.code,
        message: w.message,
        script: e ? e.script : w.product ? (finalOf(w.product).out.sources[0]?.script ?? null) : null,
        pointer: e ? e.pointer : null,
        product: w.product ? finalOf(w.product).out.id : null,
      };
    });
    return {
      products: finals.map((p) => p.out),
      warnings,
      warningsOmitted: this.omitted,
      duplicatesMerged: merged,
      truncated: this.truncated,
    };
  }
}

export function extractProducts(input: ExtractInput): ExtractResult {
  return new Extractor(input).run();
}
