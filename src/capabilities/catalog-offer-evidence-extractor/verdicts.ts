/**
 * Google Search eligibility verdicts for one extracted product: merchant listing and product
 * snippet. Each rule is one function returning one `CheckOut`, so following a change in Google's
 * published property lists means editing (or adding) one function and its place in a list below.
 *
 * The verdicts read only the finished `ProductOut` (after variants inherited from their group and
 * duplicates were merged), so they judge exactly what the caller receives.
 */
import { trimAll } from './normalize.js';
import type { CheckOut, IdentifierValue, IriValue, OfferOut, PriceValue, ProductOut, UrlValue, VerdictOut } from './types.js';

/** Where shippingDetails / hasMerchantReturnPolicy were stated on the Product itself (Google wants them on the Offer). */
export interface OnProduct {
  shipping: boolean;
  returnPolicy: boolean;
}

/** Fill in `merchant_listing` and `product_snippet` of a finished product. */
export function applyVerdicts(P: ProductOut, onProduct: OnProduct): void {
  const shared = sharedChecks(P);
  P.merchant_listing = merchantListing(P, shared, onProduct);
  P.product_snippet = productSnippet(P, shared);
}

function check(property: string, status: CheckOut['status'], detail: string | null): CheckOut {
  return { property, status, detail };
}

// ---------------------------------------------------------------- checks both verdicts list

/** The same check objects appear in both verdicts, so the two can never disagree about them. */
interface SharedChecks {
  name: CheckOut;
  brand: CheckOut;
  description: CheckOut;
  rating: CheckOut;
  review: CheckOut;
}

function sharedChecks(P: ProductOut): SharedChecks {
  return {
    name: nameCheck(P),
    brand: brandCheck(P),
    description: descriptionCheck(P),
    rating: P.aggregate_rating ? check('aggregateRating', 'present', P.aggregate_rating.rating_value) : check('aggregateRating', 'missing', null),
    review: P.review_count > 0 ? check('review', 'present', String(P.review_count)) : check('review', 'missing', null),
  };
}

/** A name of only white space is stated but useless to Google: invalid rather than missing. */
function nameCheck(P: ProductOut): CheckOut {
  if (P.name === null) return check('name', 'missing', null);
  return trimAll(P.name.value) !== '' ? check('name', 'present', null) : check('name', 'invalid', 'name is empty');
}

/** A Brand object without a name is stated but names nothing: invalid rather than missing. */
function brandCheck(P: ProductOut): CheckOut {
  const names: string[] = [];
  for (const b of P.brand) if (b.name) names.push(b.name);
  if (names.length) return check('brand', 'present', names.join(', '));
  return P.brand.length ? check('brand', 'invalid', 'brand has no name') : check('brand', 'missing', null);
}

function descriptionCheck(P: ProductOut): CheckOut {
  const ok = P.description !== null && trimAll(P.description.value) !== '';
  return ok ? check('description', 'present', null) : check('description', 'missing', null);
}

// ---------------------------------------------------------------- merchant listing

/** Merchant listing: name, image, an Offer with price > 0 and an ISO 4217 priceCurrency. */
function merchantListing(P: ProductOut, shared: SharedChecks, onProduct: OnProduct): VerdictOut {
  const best = merchantOffer(P.offers);
  const required: CheckOut[] = [
    shared.name,
    imageCheck(P.images),
    offerCheck(best, P.offers),
    offerPriceCheck(best),
    offerCurrencyCheck(best),
  ];
  const recommended: CheckOut[] = [
    offerEnumCheck('offers.availability', P.offers, 'availability'),
    offerEnumCheck('offers.itemCondition', P.offers, 'item_condition'),
    shared.brand,
    gtinOrMpnCheck(P.identifiers),
    skuCheck(P.identifiers),
    shared.description,
    offerPolicyCheck('offers.shippingDetails', onProduct.shipping, P.offers, 'has_shipping_details', null),
    offerPolicyCheck('offers.hasMerchantReturnPolicy', onProduct.returnPolicy, P.offers, 'has_merchant_return_policy', 'may also be declared once for the Organization'),
    shared.rating,
    shared.review,
  ];
  let eligible = true;
  for (const c of required) if (c.status !== 'present') eligible = false;
  return { eligible, required, recommended, note: merchantListingNote(P) };
}

function priceOk(o: OfferOut): boolean {
  return o.price !== null && o.price.status === 'ok';
}

function currencyOk(o: OfferOut): boolean {
  return o.currency !== null && (o.currency.status === 'ok' || o.currency.status === 'case_normalized');
}

/**
 * The offer the merchant-listing checks are about: the first Offer with the most of price and
 * currency right, so that one good offer among broken ones makes the product eligible.
 * AggregateOffer is skipped: Google does not accept it for merchant listings.
 */
function merchantOffer(offers: OfferOut[]): OfferOut | null {
  let best: OfferOut | null = null;
  let bestScore = -1;
  for (const o of offers) {
    if (o.type === 'AggregateOffer') continue;
    const score = (priceOk(o) ? 2 : 0) + (priceOk(o) && currencyOk(o) ? 1 : 0);
    if (score > bestScore) {
      best = o;
      bestScore = score;
    }
  }
  return best;
}

function isResolved(u: UrlValue): boolean {
  return u.resolved !== null;
}

/** A relative image URL that could not be resolved (no base) is stated but unusable: invalid, not present. */
function imageCheck(images: UrlValue[]): CheckOut {
  if (images.length === 0) return check('image', 'missing', null);
  if (images.some(isResolved)) return check('image', 'present', null);
  return check('image', 'invalid', 'no image URL could be resolved to an absolute URL (send base_url)');
}

function offerCheck(best: OfferOut | null, offers: OfferOut[]): CheckOut {
  if (best) return check('offers', 'present', `${best.type} ${best.id}`);
  if (offers.length) {
    return check('offers', 'invalid', 'only AggregateOffer: merchant listings need an Offer (AggregateOffer qualifies for product snippets)');
  }
  return check('offers', 'missing', null);
}

/** Why a price that was read is still not a valid merchant-listing price (Google needs a number > 0). */
function priceProblem(status: PriceValue['status']): string {
  switch (status) {
    case 'zero':
      return 'price is 0; must be greater than 0';
    case 'negative':
      return 'price is negative';
    case 'empty':
      return 'price is empty';
    default:
      return 'price is not a number';
  }
}

function offerPriceCheck(best: OfferOut | null): CheckOut {
  if (!best) return check('offers.price', 'missing', null);
  if (!best.price) {
    // a compound price has no single amount on purpose: say so, or the caller looks for a typo
    const why = best.flags.includes('compound_price')
      ? 'the price is a CompoundPriceSpecification without a total (see price_specifications); there is no single price'
      : 'the offer has no price (neither price nor priceSpecification.price)';
    return check('offers.price', 'missing', why);
  }
  if (best.price.status === 'ok') return check('offers.price', 'present', best.price.normalized);
  return check('offers.price', 'invalid', priceProblem(best.price.status));
}

/** A currency symbol in the price text is only a hint: it never makes priceCurrency present. */
function offerCurrencyCheck(best: OfferOut | null): CheckOut {
  if (!best || !best.currency) {
    const hint = best?.price?.currency_hint;
    return check('offers.priceCurrency', 'missing', hint ? `price text suggests ${hint}` : null);
  }
  if (currencyOk(best)) return check('offers.priceCurrency', 'present', best.currency.normalized);
  const c = best.currency;
  return check(
    'offers.priceCurrency',
    'invalid',
    c.normalized ? `"${c.raw}" is not an ISO 4217 code (read as ${c.normalized})` : `"${c.raw}" is not an ISO 4217 code`,
  );
}

/**
 * availability / itemCondition: present when any offer states a known schema.org value; a value
 * that is stated but unknown is reported only when no offer has a known one.
 */
function offerEnumCheck(property: string, offers: OfferOut[], field: 'availability' | 'item_condition'): CheckOut {
  let known: IriValue | null = null;
  let unknown: IriValue | null = null;
  for (const o of offers) {
    const v = o[field];
    if (!v) continue;
    if (v.normalized) known ??= v;
    else unknown ??= v;
  }
  if (known) return check(property, 'present', known.normalized);
  if (unknown) return check(property, 'invalid', `"${unknown.raw}" is not a known value`);
  return check(property, 'missing', null);
}

/** A GTIN with a valid check digit is best; an mpn will do; a GTIN with a bad check digit is invalid. */
function gtinOrMpnCheck(ids: IdentifierValue[]): CheckOut {
  let validGtin: IdentifierValue | null = null;
  let anyGtin: IdentifierValue | null = null;
  let mpn: IdentifierValue | null = null;
  for (const i of ids) {
    if (i.gtin) {
      anyGtin ??= i;
      if (i.gtin.check_digit === 'valid') validGtin ??= i;
    } else if (i.property === 'mpn' && i.normalized) mpn ??= i;
  }
  if (validGtin) return check('gtin_or_mpn', 'present', `${validGtin.property} ${validGtin.normalized}`);
  if (mpn) return check('gtin_or_mpn', 'present', `mpn ${mpn.normalized}`);
  if (anyGtin) return check('gtin_or_mpn', 'invalid', `${anyGtin.property} check: ${anyGtin.gtin?.check_digit}`);
  return check('gtin_or_mpn', 'missing', null);
}

function skuCheck(ids: IdentifierValue[]): CheckOut {
  for (const i of ids) {
    if (!i.gtin && i.property === 'sku' && i.normalized) return check('sku', 'present', i.normalized);
  }
  return check('sku', 'missing', null);
}

/**
 * shippingDetails / hasMerchantReturnPolicy: Google reads them on the Offer; stated only on the
 * Product they still count, with a detail saying where they should move.
 */
function offerPolicyCheck(
  property: string,
  onProduct: boolean,
  offers: OfferOut[],
  field: 'has_shipping_details' | 'has_merchant_return_policy',
  missingDetail: string | null,
): CheckOut {
  for (const o of offers) if (o[field]) return check(property, 'present', null);
  return onProduct ? check(property, 'present', 'on the Product, not the Offer') : check(property, 'missing', missingDetail);
}

/** Markup can be complete and still not qualify because of where the product sits on the page. */
function merchantListingNote(P: ProductOut): string | null {
  if (P.is_group) return 'ProductGroup: Google evaluates merchant listings on its variants (see "variants").';
  if (P.role === 'list_item') {
    return 'Found in a list: Google shows merchant listings only for pages where the product can be bought; category/listing pages qualify for product snippets at most.';
  }
  return null;
}

// ---------------------------------------------------------------- product snippet

/** Product snippet: name plus one of review, aggregateRating or a priced offer. */
function productSnippet(P: ProductOut, shared: SharedChecks): VerdictOut {
  const needOne = reviewRatingOrOfferCheck(P);
  return {
    eligible: shared.name.status === 'present' && needOne.status === 'present',
    required: [shared.name, needOne],
    recommended: [
      shared.rating,
      shared.review,
      P.images.length ? check('image', 'present', null) : check('image', 'missing', null),
      shared.brand,
      shared.description,
    ],
    note: null,
  };
}

function priceReadable(p: PriceValue | null): boolean {
  return p !== null && (p.status === 'ok' || p.status === 'zero');
}

/**
 * The offer that satisfies the snippet: an Offer with price and priceCurrency, else an
 * AggregateOffer with lowPrice and priceCurrency. Unlike merchant listings, a price of 0 counts
 * here: the snippet rule asks for a readable price, not for one greater than 0.
 */
function snippetOffer(offers: OfferOut[]): OfferOut | null {
  for (const o of offers) if (o.type !== 'AggregateOffer' && priceReadable(o.price) && currencyOk(o)) return o;
  for (const o of offers) if (o.type === 'AggregateOffer' && priceReadable(o.low_price) && currencyOk(o)) return o;
  return null;
}

/** All the alternatives that hold are listed, so the caller sees what else would still qualify. */
function reviewRatingOrOfferCheck(P: ProductOut): CheckOut {
  const reasons: string[] = [];
  if (P.review_count > 0) reasons.push('review');
  if (P.aggregate_rating) reasons.push('aggregateRating');
  const offer = snippetOffer(P.offers);
  if (offer) {
    reasons.push(
      offer.type === 'AggregateOffer'
        ? `AggregateOffer ${offer.id} with lowPrice and priceCurrency`
        : `${offer.type} ${offer.id} with price and priceCurrency`,
    );
  }
  const property = 'review|aggregateRating|offers';
  if (reasons.length) return check(property, 'present', reasons.join('; '));
  if (P.offers.length) {
    return check(property, 'invalid', 'offers lack a readable price (AggregateOffer: lowPrice) or an ISO 4217 priceCurrency');
  }
  return check(property, 'missing', null);
}
