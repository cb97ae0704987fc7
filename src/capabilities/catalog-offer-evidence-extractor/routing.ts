/** How the outcome router recognises an offer-evidence objective and builds its native bodies. */
import type { ErrorDetail } from '../../errors.js';
import { has, isObject, pick, need, notAList, type RoutingDescriptor, type UnitDraft } from '../../catalog/routing.js';

export const extractorRouting: RoutingDescriptor = {
  outcome: 'Product JSON-LD offer evidence (products, offers, prices, identifiers, each cited) from caller-supplied HTML; the page is never fetched.',
  names: ['offer evidence extractor', 'offer extractor', 'catalog offer evidence', 'product offers', 'offer evidence'],
  keywords: [
    /\bjson-?ld\b/,
    /\bproduct (?:offers?|prices?|page|markup|schema|structured data|data)\b/,
    /\bstructured data\b/,
    /\bschema\.org\b/,
    /\bmerchant listings?\b/,
    /\brich (?:results?|snippets?)\b/,
    /\bproduct snippets?\b/,
    /\bextract\w* (?:the )?(?:offers?|prices?|products?)\b/,
    /\bgtins?\b/,
  ],
  fieldAliases: { page_html: 'html', product_html: 'html', htmls: 'pages' },
  reads: ['html', 'base_url', 'pages'],
  requiredInputs: ['html'],
  optionalInputs: ['base_url', 'pages'],
  batch: 'inputs.pages: an array of HTML strings or {html, base_url?}. One step per page.',
  detect: (inputs) => has(inputs, 'html') || has(inputs, 'pages'),
  extract(ctx) {
    const { inputs, at } = ctx;
    const units: UnitDraft[] = [];
    const shared = pick(inputs, ['base_url']);
    if (has(inputs, 'pages')) {
      if (!Array.isArray(inputs.pages)) return notAList(at, 'pages', 'HTML strings');
      const invalid: ErrorDetail[] = [];
      inputs.pages.forEach((p, i) => {
        const here = `${at}/pages/${i}`;
        if (typeof p === 'string') units.push({ at: here, body: { html: p, ...shared } });
        else if (isObject(p)) units.push({ at: here, body: { ...shared, ...p } });
        else invalid.push({ path: here, rule: 'type', message: 'an HTML string or {html, base_url?}' });
      });
      if (invalid.length) return { kind: 'invalid', details: invalid };
    }
    if (has(inputs, 'html')) units.push({ at, body: { html: inputs.html, ...shared } });
    if (units.length === 0) return { kind: 'missing', missing: [need(at, 'html', 'the page HTML itself (the service fetches no URLs)')] };
    return { kind: 'units', units, assumptions: [] };
  },
  evidence: ['deterministic', 'sourced'],
  expectedLatencyMs: 40,
  example: (cap) => ({ objective: 'Extract the Product JSON-LD offers from this HTML', inputs: (cap.examples[0]?.input ?? {}) as Record<string, unknown> }),
};
