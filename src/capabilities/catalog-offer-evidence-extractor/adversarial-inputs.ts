/**
 * Hostile pages and markup for the extractor: what its tests check it
 * survives with a valid answer, and what `npm run bench` times (a scan that
 * went quadratic on one of these would show there, not as a flaky test).
 * Not used at run time.
 */
import { ld } from './test-helpers.js';

const MB2 = 2_000_000;

/** Whole pages for `run`, by name: unclosed, deep, entity-heavy, huge numbers, fan-in. */
export function adversarialPages(): Array<[string, string]> {
  return [
    ['unclosed <script', '<script'.repeat(MB2 / 7)],
    ['unclosed ld+json script', '<script type="application/ld+json">' + '{"a":'.repeat(MB2 / 5)],
    ['deeply nested arrays', ld('['.repeat(MB2 / 2) + ']'.repeat(MB2 / 2))],
    ['deep nesting just under the limit, many times', ld('[' + Array.from({ length: 1000 }, () => '['.repeat(500) + ']'.repeat(500)).join(',') + ']')],
    ['huge number of &amp;', ld('{"name":"' + '&amp;'.repeat(MB2 / 5) + '"}')],
    ['entity-encoded garbage', ld('&quot;' + '&amp;'.repeat(MB2 / 5))],
    ['many tiny broken scripts', ld('{').repeat(MB2 / 40)],
    ['many empty products', ld('{"@type":"Product"}').repeat(MB2 / 60)],
    ['long price strings', ld(`{"@type":"Product","offers":{"price":"${'1,'.repeat(MB2 / 4)}","priceCurrency":"${'$'.repeat(1000)}"}}`)],
    ['huge numbers', ld(`{"@type":"Product","gtin13":${'9'.repeat(MB2 / 2)},"offers":{"price":1e999999,"lowPrice":${'1'.repeat(MB2 / 4)}.5}}`)],
    ['@id fan-in', ld(`[${Array.from({ length: 20000 }, (_, i) => `{"@type":"Product","sku":"${i}","offers":{"@type":"Offer","price":"1","priceCurrency":"EUR","seller":{"@id":"#o","@type":"Organization","name":"O"}}}`).join(',')}]`)],
    ['comment opener', '<!--' + '-'.repeat(MB2)],
    ['script data dashes', '<script type="application/ld+json"><!--' + '<script>-'.repeat(MB2 / 9)],
  ];
}

/** Markup for the script scanner (`scanHtml`). */
export function adversarialMarkup(): string[] {
  return [
    '<script'.repeat(300_000),
    '<script type="application/ld+json">'.repeat(60_000),
    '<script type="application/ld+json"><!--' + '<script>'.repeat(200_000),
    '<!--' + '<'.repeat(2_000_000),
    '<a title="' + 'x'.repeat(2_000_000),
    '</script'.repeat(250_000),
    '<style>' + '</'.repeat(1_000_000),
    '<' + 'a'.repeat(2_000_000),
    '<script type="application/ld+json">' + '-'.repeat(2_000_000),
  ];
}

/** `type` attribute values for `classifyType`: a huge quoted one and one padded with whitespace. */
export function adversarialTypes(): string[] {
  return ['"'.repeat(1_000_000), ' '.repeat(1_000_000) + 'x' + ' '.repeat(1_000_000)];
}
