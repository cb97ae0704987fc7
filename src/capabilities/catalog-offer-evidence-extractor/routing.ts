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
  terms: {
    en: ['json-ld', 'jsonld', 'json ld', 'ld+json', 'schema.org', 'product offer*', 'structured data'],
    es: ['datos estructurados', 'ofertas del producto', 'ofertas de producto*', 'oferta del producto', 'precios del producto', 'precio del producto', 'extraer las ofertas', 'extrae las ofertas', 'extraer ofertas', 'extrae ofertas', 'extraer los precios', 'extrae los precios', 'ofertas y precios'],
    pt: ['dados estruturados', 'ofertas do produto', 'oferta do produto', 'precos do produto', 'preco do produto', 'extrair as ofertas', 'extraia as ofertas', 'extrair ofertas', 'extraia ofertas', 'extrair os precos', 'extraia os precos', 'ofertas e precos'],
    fr: ['donnees structurees', 'offres du produit', 'offres de produit*', 'offre du produit', 'prix du produit', 'prix des produits', 'extraire les offres', 'extrais les offres', 'extrayez les offres', 'extraire les prix', 'offres et prix'],
    de: ['strukturierte daten', 'strukturierten daten', 'produktangebot*', 'produktpreis*', 'angebote extrahier*', 'angebote und preise', 'extrahiere die angebote', 'extrahiere angebote', 'extrahieren sie die angebote', 'angebotsdaten'],
    it: ['dati strutturati', 'offerte del prodotto', 'offerte di prodotto', 'offerta del prodotto', 'prezzi del prodotto', 'prezzo del prodotto', 'estrai le offerte', 'estrarre le offerte', 'estrai offerte', 'estrai i prezzi', 'offerte e prezzi'],
    nl: ['gestructureerde data', 'gestructureerde gegevens', 'productaanbieding*', 'productprijs*', 'aanbiedingen extraher*', 'extraheer de aanbiedingen', 'haal de aanbiedingen', 'aanbiedingen en prijzen'],
    zh: ['结构化数据', '結構化資料', '结构化资料', '产品报价', '商品报价', '產品報價', '商品价格', '产品价格', '商品價格', '提取报价', '提取价格', '提取商品', '提取产品'],
    ja: ['構造化データ', '商品の価格', '商品価格', '商品のオファー', 'オファー情報', 'オファーを抽出', '価格を抽出', '商品情報を抽出'],
    ko: ['구조화된 데이터', '구조화 데이터', '상품 가격', '제품 가격', '상품 오퍼', '제품 오퍼', '오퍼를 추출', '가격을 추출', '상품 정보를 추출', '오퍼 추출'],
  },
  fieldAliases: { page_html: 'html', product_html: 'html', htmls: 'pages' },
  reads: ['html', 'base_url', 'pages'],
  requiredInputs: ['html'],
  optionalInputs: ['base_url', 'pages'],
  batch: 'inputs.pages: an array of HTML strings or {html, base_url?}. One step per page.',
  detect: (inputs) => has(inputs, 'html') || has(inputs, 'pages'),
  // JSON-LD in the page is what this outcome reads; plain HTML could be meant for something else.
  evident: (inputs) => Array.isArray(inputs.pages) || (typeof inputs.html === 'string' && /application\/ld\+json/i.test(inputs.html)),
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
