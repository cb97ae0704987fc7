/**
 * The outcome router's quote, through the real service on the devnet: a table
 * of objectives with the expected outcome or rejection code. Every quoted
 * native body passes the validation of its paid route; every answer matches
 * the published schemas; a repeated request gets the same quote; secrets in
 * buyer_metadata reach neither the logs nor the database.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { newAjv } from '../src/catalog/ajv.js';
import type { Capability } from '../src/catalog/capability.js';
import { makeInputReader } from '../src/catalog/input-reader.js';
import { createRouterModule } from '../src/router/module.js';
import { quoteResponseSchema, routerContractSchema, routerErrorSchema, executionResultSchema } from '../src/router/schemas.js';
import { benchQuoteInput } from '../src/router/bench-input.js';
import { baseCatalog, fixtureModule } from './support/router-fixtures.js';
import { balanceOf, payingFetch, postJson, startRig, tempDir, type Rig } from './support/harness.js';

const BLACK = '#000000';
const WHITE = '#ffffff';
const CID = 'QmZHKZDavkvNfA9gSAg7HALv8jF7BJaKjUc9U2LSuvUySB';
const field = (name: string, type = 'string', required = true, nullable = false) => ({ name, type, required, nullable });
const SRC = [field('id', 'integer'), field('email', 'string', false, true)];
const TGT = [field('id', 'number'), field('email', 'string', true, false)];
const HTML =
  '<html><head><script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Anvil","image":"a.jpg","offers":{"@type":"Offer","price":"119.90","priceCurrency":"USD"}}</script></head><body></body></html>';

// Secret values: unique strings that must never be seen again anywhere.
const SECRETS = {
  password: 'pw-5b1f0d7e-never-log-me',
  api_key: 'ak-93c2e8aa-never-log-me',
  private_key: 'pk-0x4c0883a69102937d6231471b5dbb6204fe512961708279f7-never',
  token: 'tk-1d2f3e4a-never-log-me',
  cookie: 'ck-77aa88bb-never-log-me',
};
const METADATA_WITH_SECRETS = {
  agent: 'table-test',
  password: SECRETS.password,
  nested: { API_Key: SECRETS.api_key, list: [{ privateKey: SECRETS.private_key, note: 'kept' }], deeper: { session: { token: SECRETS.token } } },
  Cookie: SECRETS.cookie,
};

type Expect =
  | { status: 200; kind: 'single' | 'batch' | 'composed'; caps: string[]; steps: number; total: string; check?: (q: any) => void }
  | { status: 400 | 413 | 415 | 422; code: string; path?: string };

interface Row {
  name: string;
  body: unknown;
  expect: Expect;
  raw?: { contentType: string; text: string };
}

const ok = (kind: 'single' | 'batch' | 'composed', caps: string[], steps: number, total: string, check?: (q: any) => void): Expect => ({ status: 200, kind, caps, steps, total, check });
const no = (status: 400 | 413 | 415 | 422, code: string, path?: string): Expect => ({ status, code, path });

const C = 'accessibility-contrast-calculator';
const K = 'data-compatibility-checker';
const N = 'nft-metadata-uri-normalizer';
const X = 'catalog-offer-evidence-extractor';
const F = 'intelligence-changes-since';
const T = 'text-length-counter';
const body0 = (q: any) => q.steps[0].native_body;

const ROWS: Row[] = [
  // ── plain phrasing ──
  { name: 'colour pair in words', body: { objective: 'Does #777777 text on #ffffff meet WCAG AA?' }, expect: ok('single', [C], 1, '1000', (q) => assert.deepEqual(body0(q), { foreground: '#777777', background: WHITE, large_text: false })) },
  { name: 'large text stated in words', body: { objective: 'What is the contrast ratio of #ffffff on #0078d7 for large text?' }, expect: ok('single', [C], 1, '1000', (q) => assert.equal(body0(q).large_text, true)) },
  { name: 'compatibility in words', body: { objective: 'Is my producer field contract backward compatible with the consumer?', inputs: { source_fields: SRC, target_fields: TGT } }, expect: ok('single', [K], 1, '3000') },
  { name: 'NFT URI in the objective', body: { objective: `Normalize the NFT metadata URI ipfs://ipfs/${CID}` }, expect: ok('single', [N], 1, '1000', (q) => assert.equal(body0(q).uri, `ipfs://ipfs/${CID}`)) },
  { name: 'JSON-LD offers from html', body: { objective: 'Extract the Product JSON-LD offers from this HTML', inputs: { html: HTML } }, expect: ok('single', [X], 1, '100000') },
  { name: 'changes since a date', body: { objective: 'What changed in the machine economy since 2025-06-01?' }, expect: ok('single', [F], 1, '10000', (q) => assert.deepEqual(body0(q), { cursor: '2025-06-01T00:00:00Z', include_high_resolution: false })) },
  { name: 'changes since a timestamp, high resolution', body: { objective: 'Give me the news since 2025-06-01T12:30:00+02:00 in high resolution' }, expect: ok('single', [F], 1, '10000', (q) => assert.deepEqual(body0(q), { cursor: '2025-06-01T12:30:00+02:00', include_high_resolution: true })) },
  { name: 'relative time is not resolved', body: { objective: 'What changed since yesterday?' }, expect: no(422, 'missing_inputs', '/inputs/cursor') },
  { name: 'inputs only, no wording', body: { objective: 'please', inputs: { foreground: BLACK, background: WHITE, large_text: true } }, expect: ok('single', [C], 1, '1000') },
  // ── aliases ──
  { name: 'goal alias', body: { goal: 'WCAG contrast', inputs: { foreground: BLACK, background: WHITE } }, expect: ok('single', [C], 1, '1000', (q) => assert.equal(q.interpretation.objective_field, 'goal')) },
  { name: 'task alias', body: { task: 'normalize this tokenURI', inputs: { uri: 'ar://rgW4h3ffQQzOD8ynnwdl3_YlHxtssqV3aXOregPr7yI/1.json' } }, expect: ok('single', [N], 1, '1000') },
  { name: 'outcome alias', body: { outcome: 'schema compatibility', inputs: { source_fields: SRC, target_fields: TGT } }, expect: ok('single', [K], 1, '3000') },
  { name: 'query alias', body: { query: 'changes since', inputs: { cursor: '2025-01-01T00:00:00Z' } }, expect: ok('single', [F], 1, '10000') },
  { name: 'two objective fields', body: { objective: 'contrast', goal: 'contrast' }, expect: no(400, 'invalid_request', '/goal') },
  { name: 'no objective', body: { inputs: { foreground: BLACK, background: WHITE } }, expect: no(400, 'invalid_request', '/objective') },
  { name: 'empty objective', body: { objective: '' }, expect: no(400, 'invalid_request', '/objective') },
  { name: 'objective of 2001 characters', body: { objective: 'x'.repeat(2001) }, expect: no(400, 'invalid_request', '/objective') },
  { name: 'objective of exactly 2000 characters', body: { objective: `contrast of #000000 on #ffffff ${'.'.repeat(2000 - 31)}` }, expect: ok('single', [C], 1, '1000') },
  { name: 'unknown top-level property', body: { objective: 'contrast', colour: 'red' }, expect: no(400, 'invalid_request', '/colour') },
  { name: 'freshness outside its enum', body: { objective: 'contrast #000000 on #ffffff', freshness: 'stale' }, expect: no(400, 'invalid_request', '/freshness') },
  { name: 'latency outside its enum', body: { objective: 'contrast #000000 on #ffffff', latency: 'slow' }, expect: no(400, 'invalid_request', '/latency') },
  { name: 'evidence outside its enum', body: { objective: 'contrast #000000 on #ffffff', evidence: 'maybe' }, expect: no(400, 'invalid_request', '/evidence') },
  { name: 'preferred_protocol outside its enum', body: { objective: 'contrast #000000 on #ffffff', preferred_protocol: 'grpc' }, expect: no(400, 'invalid_request', '/preferred_protocol') },
  { name: 'inputs not an object', body: { objective: 'contrast', inputs: 'fg=#000000' }, expect: no(400, 'invalid_request', '/inputs') },
  { name: 'objective not a string', body: { objective: 42 }, expect: no(400, 'invalid_request', '/objective') },
  { name: 'buyer_metadata not an object', body: { objective: 'contrast #000000 on #ffffff', buyer_metadata: ['x'] }, expect: no(400, 'invalid_request', '/buyer_metadata') },
  { name: 'not JSON', body: null, raw: { contentType: 'application/json', text: '{"objective":' }, expect: no(400, 'invalid_json') },
  { name: 'not application/json', body: null, raw: { contentType: 'text/plain', text: 'contrast' }, expect: no(415, 'unsupported_media_type') },
  // ── folded fields ──
  { name: 'foreground/background/large_text at the top level', body: { objective: 'contrast', foreground: BLACK, background: WHITE, large_text: true }, expect: ok('single', [C], 1, '1000', (q) => { assert.deepEqual(q.interpretation.folded_fields, ['background', 'foreground', 'large_text']); assert.equal(body0(q).large_text, true); }) },
  { name: 'fg/bg at the top level', body: { objective: 'contrast', fg: BLACK, bg: WHITE }, expect: ok('single', [C], 1, '1000', (q) => assert.deepEqual(q.interpretation.renamed_fields, ['fg → foreground', 'bg → background'])) },
  { name: 'checker fields at the top level', body: { objective: 'compatibility', source_fields: SRC, target_fields: TGT, comparison_mode: 'exact' }, expect: ok('single', [K], 1, '3000', (q) => assert.equal(body0(q).comparison_mode, 'exact')) },
  { name: 'html and base_url at the top level', body: { objective: 'json-ld offers', html: HTML, base_url: 'https://shop.example.com/p/1' }, expect: ok('single', [X], 1, '100000', (q) => assert.equal(body0(q).base_url, 'https://shop.example.com/p/1')) },
  { name: 'uri and token_id at the top level', body: { objective: 'normalize', uri: 'ipfs://bafybeiasb5vpmaounyilfuxbd3lryvosl4yefqrfahsb2esg46q6tu6y5q/{id}.json', token_id: '314592' }, expect: ok('single', [N], 1, '1000', (q) => assert.equal(body0(q).token_id, '314592')) },
  { name: 'cursor and include_high_resolution at the top level', body: { objective: 'feed me', cursor: '2025-01-01T00:00:00Z', include_high_resolution: true }, expect: ok('single', [F], 1, '10000') },
  { name: 'since at the top level becomes the cursor', body: { objective: 'anything new?', since: '2025-01-01' }, expect: ok('single', [F], 1, '10000', (q) => assert.equal(body0(q).cursor, '2025-01-01T00:00:00Z')) },
  { name: 'top-level field conflicting with inputs', body: { objective: 'contrast', foreground: BLACK, inputs: { foreground: '#111111', background: WHITE } }, expect: no(400, 'invalid_request', '/foreground') },
  // ── colours in the text ──
  { name: 'bare colour pair', body: { objective: '#000000 on #ffffff' }, expect: ok('single', [C], 1, '1000') },
  { name: 'background named first', body: { objective: 'background #0078d7 with text #ffffff' }, expect: ok('single', [C], 1, '1000', (q) => assert.deepEqual(body0(q), { foreground: WHITE, background: '#0078d7', large_text: false })) },
  { name: 'one colour only', body: { objective: 'Is #777777 readable?' }, expect: no(422, 'missing_inputs', '/inputs/background') },
  { name: 'inputs win over colours in the text', body: { objective: 'contrast of #000000 on #ffffff', inputs: { foreground: '#777777', background: WHITE } }, expect: ok('single', [C], 1, '1000', (q) => assert.equal(body0(q).foreground, '#777777')) },
  // ── batches ──
  { name: 'three pairs in words', body: { objective: '#000000 on #ffffff, #777777 on #ffffff and #ffffff on #0078d7' }, expect: ok('batch', [C], 3, '3000') },
  { name: 'three foregrounds on one background', body: { objective: 'Contrast of #111111, #222222 and #333333 on #ffffff' }, expect: ok('batch', [C], 3, '3000', (q) => assert.deepEqual(q.steps.map((s: any) => s.native_body.background), [WHITE, WHITE, WHITE])) },
  { name: 'pairs in three notations', body: { objective: 'contrast', inputs: { pairs: [{ fg: BLACK, bg: WHITE, large_text: true }, ['#777777', WHITE], '#ffffff on #0078d7'] } }, expect: ok('batch', [C], 3, '3000', (q) => assert.deepEqual(q.steps.map((s: any) => s.native_body.large_text), [true, false, false])) },
  { name: 'two contract pairs', body: { objective: 'compatibility', inputs: { comparison_mode: 'exact', comparisons: [{ source_fields: SRC, target_fields: TGT }, { source_fields: TGT, target_fields: SRC, comparison_mode: 'backward_compatible' }] } }, expect: ok('batch', [K], 2, '6000', (q) => assert.deepEqual(q.steps.map((s: any) => s.native_body.comparison_mode), ['exact', 'backward_compatible'])) },
  { name: 'two URIs', body: { objective: 'normalize these token URIs', inputs: { uris: [`ipfs://ipfs/${CID}`, { uri: 'ar://rgW4h3ffQQzOD8ynnwdl3_YlHxtssqV3aXOregPr7yI/1.json' }] } }, expect: ok('batch', [N], 2, '2000') },
  { name: 'two pages', body: { objective: 'extract offers', inputs: { pages: [HTML, { html: HTML, base_url: 'https://a.example/' }] } }, expect: ok('batch', [X], 2, '200000') },
  { name: '21 pairs is too many', body: { objective: 'contrast', inputs: { pairs: Array.from({ length: 21 }, () => [BLACK, WHITE]) } }, expect: no(422, 'batch_too_large') },
  { name: 'a pair without background', body: { objective: 'contrast', inputs: { pairs: [[BLACK, WHITE], { foreground: BLACK }] } }, expect: no(422, 'missing_inputs', '/inputs/pairs/1/background') },
  // ── compositions ──
  { name: 'contrast and NFT in words', body: { objective: `Check contrast of #000000 on #ffffff and normalize ipfs://ipfs/${CID}` }, expect: ok('composed', [C, N], 2, '2000') },
  { name: 'composition from inputs alone', body: { objective: 'run these', inputs: { foreground: BLACK, background: WHITE, uri: `ipfs://${CID}` } }, expect: ok('composed', [C, N], 2, '2000') },
  { name: 'contrast and changes-since', body: { objective: 'check contrast #000000 on #ffffff and what changed since 2025-06-01' }, expect: ok('composed', [C, F], 2, '11000') },
  { name: 'items of three kinds', body: { objective: 'do all of these', inputs: { items: [{ fg: BLACK, bg: WHITE }, { uri: `ipfs://${CID}` }, { capability_id: T, text: 'hello' }] } }, expect: ok('composed', [C, N, T], 3, '4000') },
  { name: 'an item that matches nothing', body: { objective: 'do these', inputs: { items: [{ colour: 'red' }] } }, expect: no(422, 'no_matching_outcome', '/inputs/items/0') },
  { name: 'composition with one outcome lacking inputs', body: { objective: 'contrast of #000000 on #ffffff and the JSON-LD offers' }, expect: no(422, 'missing_inputs', '/inputs/html') },
  { name: 'checker + NFT + extractor', body: { objective: 'compatibility, json-ld offers and normalize the token URI', inputs: { source_fields: SRC, target_fields: TGT, html: HTML, uri: `ipfs://${CID}` } }, expect: ok('composed', [K, N, X], 3, '104000') },
  // ── product names, capability ids, live routes ──
  { name: 'capability id', body: { objective: 'accessibility-contrast-calculator', inputs: { foreground: BLACK, background: WHITE } }, expect: ok('single', [C], 1, '1000') },
  { name: 'route path', body: { objective: '/x402/v1/nft-metadata-uri-normalizer', inputs: { uri: `ipfs://${CID}` } }, expect: ok('single', [N], 1, '1000') },
  { name: 'full URL of a live route (not a URL to fetch)', body: { objective: 'POST https://api.example.com/x402/v1/data-compatibility-checker', source_fields: SRC, target_fields: TGT }, expect: ok('single', [K], 1, '3000') },
  { name: 'product name', body: { objective: 'Data compatibility checker', inputs: { source_fields: SRC, target_fields: TGT } }, expect: ok('single', [K], 1, '3000') },
  { name: 'product name without its inputs', body: { objective: 'NFT metadata URI normalizer' }, expect: no(422, 'missing_inputs', '/inputs/uri') },
  { name: 'undescribed capability by id', body: { objective: 'text-length-counter', inputs: { text: 'hello' } }, expect: ok('single', [T], 1, '2000') },
  { name: 'undescribed capability by title', body: { objective: 'Text length counter', inputs: { text: 'hello' } }, expect: ok('single', [T], 1, '2000') },
  { name: 'undescribed capability by route, field folded', body: { objective: '/x402/v1/text-length-counter', text: 'hello' }, expect: ok('single', [T], 1, '2000', (q) => assert.deepEqual(q.interpretation.folded_fields, ['text'])) },
  { name: 'undescribed capability without its input', body: { objective: 'Text length counter' }, expect: no(422, 'missing_inputs', '/inputs/text') },
  // ── refused categories ──
  { name: 'source_url in inputs', body: { objective: 'extract offers', inputs: { source_url: 'https://shop.example.com/p/1' } }, expect: no(422, 'url_fetch_unsupported', '/inputs/source_url') },
  { name: 'source_url at the top level', body: { objective: 'contrast of the page', source_url: 'https://example.com' }, expect: no(422, 'url_fetch_unsupported', '/inputs/source_url') },
  { name: 'fetch a URL', body: { objective: 'Fetch https://example.com/product and extract the offers' }, expect: no(422, 'url_fetch_unsupported', '/objective') },
  { name: 'a URL instead of the HTML', body: { objective: 'extract offers from https://shop.example.com/p/1' }, expect: no(422, 'url_fetch_unsupported', '/objective') },
  { name: 'a URL and nothing else', body: { objective: 'Summarize https://example.com/blog' }, expect: no(422, 'url_fetch_unsupported', '/objective') },
  { name: 'fetching NFT metadata', body: { objective: `Download the NFT metadata at ipfs://${CID}` }, expect: no(422, 'url_fetch_unsupported', '/objective') },
  { name: 'whois', body: { objective: 'Is example.com available to register? Do a whois.' }, expect: no(422, 'domain_lookup_unsupported') },
  { name: 'registrar and expiry', body: { objective: 'Look up the registrar and expiry of example.org' }, expect: no(422, 'domain_lookup_unsupported') },
  { name: 'browsing', body: { objective: 'Browse to the pricing page and click on signup' }, expect: no(422, 'browsing_unsupported') },
  { name: 'screenshot', body: { objective: 'Take a screenshot of https://example.com' }, expect: no(422, 'screenshot_unsupported') },
  { name: 'signing', body: { objective: 'Sign this transaction with my wallet' }, expect: no(422, 'wallet_signing_unsupported') },
  { name: 'private key in inputs', body: { objective: 'contrast #000000 on #ffffff', inputs: { private_key: '0xabc' } }, expect: no(422, 'wallet_signing_unsupported', '/inputs/private_key') },
  { name: 'refund', body: { objective: 'Refund my last payment for the contrast check' }, expect: no(422, 'refund_unsupported') },
  { name: 'MCP as payer in words', body: { objective: 'Let the MCP server pay for the contrast check of #000000 on #ffffff' }, expect: no(422, 'mcp_payer_unsupported') },
  { name: 'MCP as payer in inputs', body: { objective: 'contrast #000000 on #ffffff', inputs: { payer: 'mcp' } }, expect: no(422, 'mcp_payer_unsupported', '/inputs/payer') },
  { name: 'a model provider', body: { objective: 'Use OpenAI to summarize the newswire' }, expect: no(422, 'supplier_not_allowlisted') },
  { name: 'a supplier in inputs', body: { objective: 'contrast #000000 on #ffffff', supplier: 'acme-data' }, expect: no(422, 'supplier_not_allowlisted', '/inputs/supplier') },
  { name: 'a capability that pays an outside supplier', body: { objective: 'resold quote', inputs: { symbol: 'ETH' } }, expect: no(422, 'supplier_not_allowlisted') },
  { name: 'paying another address', body: { objective: 'contrast #000000 on #ffffff and pay 0x00000000000000000000000000000000000000b0' }, expect: no(422, 'supplier_not_allowlisted') },
  { name: 'negative contribution', body: { objective: 'premium lookup', inputs: { ticker: 'ETH' } }, expect: no(422, 'negative_contribution') },
  { name: 'a negated fetch is not a fetch', body: { objective: `Normalize this URI without fetching it: ipfs://${CID}` }, expect: ok('single', [N], 1, '1000') },
  { name: '"retrieve … from the feed" is not a fetch', body: { objective: 'Retrieve the machine-economy changes since 2025-06-01 from the intelligence feed' }, expect: ok('single', [F], 1, '10000') },
  { name: '"go to" a route is not browsing or a fetch', body: { objective: 'Which route should I go to for WCAG contrast of #000000 on #ffffff?' }, expect: ok('single', [C], 1, '1000') },
  { name: 'nothing matches', body: { objective: 'Write me a poem about the sea' }, expect: no(422, 'no_matching_outcome', '/objective') },
  // ── max_price ──
  { name: 'max_price equal to the price', body: { objective: 'contrast #000000 on #ffffff', max_price: '1000' }, expect: ok('single', [C], 1, '1000') },
  { name: 'max_price one below the price', body: { objective: 'contrast #000000 on #ffffff', max_price: '999' }, expect: no(422, 'price_above_max', '/max_price') },
  { name: 'batch at max_price', body: { objective: '#000000 on #ffffff, #777777 on #ffffff and #ffffff on #0078d7', max_price: '3000' }, expect: ok('batch', [C], 3, '3000') },
  { name: 'batch one above max_price', body: { objective: '#000000 on #ffffff, #777777 on #ffffff and #ffffff on #0078d7', max_price: '2999' }, expect: no(422, 'price_above_max') },
  { name: 'max_price 0', body: { objective: 'contrast #000000 on #ffffff', max_price: '0' }, expect: no(400, 'invalid_request', '/max_price') },
  { name: 'max_price with a leading zero', body: { objective: 'contrast #000000 on #ffffff', max_price: '01000' }, expect: no(400, 'invalid_request', '/max_price') },
  { name: 'max_price of 13 digits', body: { objective: 'contrast #000000 on #ffffff', max_price: '1000000000000' }, expect: no(400, 'invalid_request', '/max_price') },
  { name: 'max_price as a number', body: { objective: 'contrast #000000 on #ffffff', max_price: 1000 }, expect: no(400, 'invalid_request', '/max_price') },
  { name: 'max_price of 12 nines', body: { objective: 'json-ld offers', html: HTML, max_price: '999999999999' }, expect: ok('single', [X], 1, '100000') },
  // ── constraints ──
  { name: 'sourced evidence from a computation', body: { objective: 'contrast #000000 on #ffffff', evidence: 'sourced' }, expect: no(422, 'constraint_unsatisfiable', '/evidence') },
  { name: 'sourced evidence from the feed', body: { objective: 'changes since 2025-06-01', evidence: 'sourced', freshness: 'current_public' }, expect: ok('single', [F], 1, '10000') },
  { name: 'deterministic evidence, interactive', body: { objective: 'contrast #000000 on #ffffff', evidence: 'deterministic', latency: 'interactive' }, expect: ok('single', [C], 1, '1000') },
  { name: 'MCP preferred: advice, not a payer', body: { objective: 'contrast #000000 on #ffffff', preferred_protocol: 'mcp' }, expect: ok('single', [C], 1, '1000', (q) => assert.ok(q.how_to_pay.instructions.some((i: string) => /MCP endpoint never pays/.test(i)))) },
  { name: 'preferred protocol "the service"', body: { objective: 'contrast #000000 on #ffffff', preferred_protocol: 'the service' }, expect: ok('single', [C], 1, '1000') },
  // ── secrets, inputs, required_output ──
  { name: 'secrets in buyer_metadata are stripped and counted', body: { objective: 'contrast #000000 on #ffffff', buyer_metadata: METADATA_WITH_SECRETS }, expect: ok('single', [C], 1, '1000', (q) => assert.deepEqual(q.buyer_metadata, { received: true, secret_keys_stripped: 5, keys_kept: 2 })) },
  { name: 'secrets in buyer_metadata of an invalid request', body: { objective: 'contrast', colour: 'x', buyer_metadata: METADATA_WITH_SECRETS }, expect: no(400, 'invalid_request', '/colour') },
  { name: 'secrets in buyer_metadata of a refused request', body: { objective: 'take a screenshot', buyer_metadata: METADATA_WITH_SECRETS }, expect: no(422, 'screenshot_unsupported') },
  { name: 'a colour that is not a colour', body: { objective: 'contrast', inputs: { foreground: 'reddish', background: WHITE } }, expect: no(400, 'invalid_inputs', '/inputs/foreground') },
  // Issue 11: CSS names, #rgb and rgb() are read and normalised to the native #rrggbb.
  { name: 'a CSS colour name and #rgb', body: { objective: 'contrast', inputs: { foreground: 'red', background: '#FFF' } }, expect: ok('single', [C], 1, '1000', (q) => assert.deepEqual(q.native_body, { foreground: '#ff0000', background: WHITE, large_text: false })) },
  { name: 'duplicate field names in a contract', body: { objective: 'compatibility', inputs: { source_fields: [field('a'), field('a')], target_fields: TGT } }, expect: no(400, 'invalid_inputs') },
  { name: 'pairs not a list', body: { objective: 'contrast', inputs: { pairs: 'black on white' } }, expect: no(400, 'invalid_inputs', '/inputs/pairs') },
  { name: 'required_output coverage', body: { objective: 'contrast #000000 on #ffffff', required_output: { contrast_ratio: 'number', verdict: 'string' } }, expect: ok('single', [C], 1, '1000', (q) => assert.deepEqual(q.required_output, { covered: ['contrast_ratio'], not_covered: ['verdict'] })) },
  { name: 'unused inputs are reported, each with its reason', body: { objective: 'contrast #000000 on #ffffff', inputs: { colour_space: 'srgb' } }, expect: ok('single', [C], 1, '1000', (q) => {
    assert.deepEqual(q.interpretation.unused_inputs, ['colour_space']);
    assert.equal(q.interpretation.unused_inputs_explained[0].input, 'colour_space');
    assert.match(q.interpretation.unused_inputs_explained[0].reason, /^colour_space is not an input of any supported outcome/);
  }) },
  // Issue 11: inputs that clearly carry another outcome's data are composed with the named one, not left unused.
  { name: 'inputs carrying another outcome compose', body: { objective: 'contrast #000000 on #ffffff', inputs: { uri: `ipfs://${CID}` } }, expect: ok('composed', [C, N], 2, '2000') },
  { name: 'the bench input', body: benchQuoteInput(), expect: ok('composed', [K, C, N], 4, '6000') },
];

describe('router quote: the objective table', () => {
  let rig: Rig;
  let base: string;
  let dataDir: string;
  const logLines: string[] = [];
  const ajv = newAjv();
  const validQuote = ajv.compile<any>(quoteResponseSchema);
  const validError = ajv.compile<any>(routerErrorSchema);
  const validContract = ajv.compile<any>(routerContractSchema);
  const validResult = ajv.compile<any>(executionResultSchema);
  let catalog: readonly Capability[];

  before(async () => {
    dataDir = tempDir('router-');
    const log = pino({ level: 'trace' }, { write: (s: string) => void logLines.push(s) });
    rig = await startRig({
      dataDir,
      env: { OUTCOME_ROUTER_COMPOSITE: '1' },
      service: { catalog: baseCatalog(), log, modules: [fixtureModule, createRouterModule()] },
    });
    base = rig.service.url;
    catalog = rig.service.catalog;
  });
  after(async () => rig?.close());

  const send = (row: Row) =>
    row.raw
      ? fetch(base + '/v1/router/quote', { method: 'POST', headers: { 'content-type': row.raw.contentType }, body: row.raw.text })
      : postJson(base + '/v1/router/quote', row.body);

  test(`the table has at least 60 objectives (${ROWS.length})`, () => {
    assert.ok(ROWS.length >= 60);
    assert.equal(new Set(ROWS.map((r) => r.name)).size, ROWS.length, 'row names are unique');
  });

  for (const row of ROWS) {
    test(row.name, async () => {
      const res = await send(row);
      const body = (await res.json()) as any;
      const e = row.expect;
      if (e.status !== 200) {
        assert.equal(res.status, e.status, JSON.stringify(body));
        assert.equal(body.error.code, e.code, body.error.message);
        assert.ok(validError(body), JSON.stringify(validError.errors));
        if (e.path) assert.ok(body.error.details.some((d: any) => d.path === e.path), `details ${JSON.stringify(body.error.details)} name ${e.path}`);
        return;
      }
      assert.equal(res.status, 200, JSON.stringify(body));
      assert.ok(validQuote(body), JSON.stringify(validQuote.errors));
      assert.equal(body.outcome.kind, e.kind);
      // Steps come in catalog order, whatever order the objective names them in.
      const inCatalogOrder = (ids: string[]) => [...ids].sort((a, b) => catalog.findIndex((c) => c.id === a) - catalog.findIndex((c) => c.id === b));
      assert.deepEqual(body.outcome.capability_ids, inCatalogOrder(e.caps));
      assert.equal(body.batch_size, e.steps);
      assert.equal(body.steps.length, e.steps);
      assert.equal(body.composed, e.kind === 'composed');
      assert.equal(body.total_price.amount_atomic, e.total);
      assert.equal(body.total_price.payments, e.steps);
      let sum = 0n;
      for (const step of body.steps) {
        const cap = catalog.find((c) => c.id === step.capability_id)!;
        // The quoted body passes the very validation its paid route runs.
        const checked = makeInputReader(cap).fromValue(structuredClone(step.native_body));
        assert.ok(checked.ok, `${cap.id}: ${JSON.stringify(step.native_body).slice(0, 200)} → ${JSON.stringify(checked.ok ? '' : checked.body)}`);
        assert.deepEqual(step.execute_route, { method: 'POST', path: cap.path, url: base + cap.path });
        assert.equal(step.price.amount_atomic, cap.priceAtomic, 'the price is the live resource\'s own');
        assert.equal(step.price.pay_to, rig.service.payment.payTo);
        assert.equal(step.price.network, rig.service.payment.network);
        assert.equal(step.price.asset, rig.service.payment.asset.address);
        sum += BigInt(cap.priceAtomic);
      }
      assert.equal(String(sum), e.total);
      assert.deepEqual(body.economics, { buyer_price_atomic: e.total, cogs_atomic: '0', contribution_atomic: e.total, supplier_spend_atomic: '0', margin: 1 });
      assert.equal(body.plan.expected_cogs_atomic, '0');
      assert.deepEqual(body.plan.suppliers, inCatalogOrder(e.caps));
      assert.equal(body.how_to_pay.composite.price.amount_atomic, e.total);
      e.check?.(body);

      // Deterministic: the same request gets the same quote, except its id and timestamp.
      const again = (await (await send(row)).json()) as any;
      assert.notEqual(again.quote_id, body.quote_id);
      const strip = (q: any) => ({ ...q, quote_id: undefined, created_at: undefined });
      assert.deepEqual(strip(again), strip(body));
    });
  }

  test('key order and spacing do not change the quote', async () => {
    const a = (await (await postJson(base + '/v1/router/quote', '{"objective":"contrast","inputs":{"foreground":"#000000","background":"#ffffff"},"max_price":"5000"}')).json()) as any;
    const b = (await (await postJson(base + '/v1/router/quote', '{ "max_price": "5000", "inputs": { "background": "#ffffff", "foreground": "#000000" }, "objective": "contrast" }')).json()) as any;
    assert.equal(a.request_fingerprint, b.request_fingerprint);
  });

  test('the same meaning written with aliases and folding has the same canonical form', async () => {
    const a = (await (await postJson(base + '/v1/router/quote', { objective: 'contrast', inputs: { foreground: BLACK, background: WHITE } })).json()) as any;
    const b = (await (await postJson(base + '/v1/router/quote', { objective: 'contrast', fg: BLACK, bg: WHITE, freshness: 'any' })).json()) as any;
    assert.deepEqual(b.canonical_request, a.canonical_request);
    assert.equal(b.request_fingerprint, a.request_fingerprint);
  });

  test('GET /v1/router: the contract lists every catalog capability with a working example quote', async () => {
    const res = await fetch(base + '/v1/router');
    assert.equal(res.status, 200);
    const contract = (await res.json()) as any;
    assert.ok(validContract(contract), JSON.stringify(validContract.errors));
    // Every entry is an outcome except the composite itself, which executes plans of the others.
    assert.deepEqual(contract.supported_outcomes.map((o: any) => o.id), catalog.filter((c) => c.id !== 'outcome-router').map((c) => c.id));
    for (const o of contract.supported_outcomes) {
      const cap = catalog.find((c) => c.id === o.id)!;
      assert.equal(o.price.amount_atomic, cap.priceAtomic);
      if (['premium-lookup', 'resold-quote'].includes(o.id)) continue; // unsellable by design
      assert.ok(o.example_quote, `${o.id} has an example quote`);
      const quoted = (await (await postJson(base + '/v1/router/quote', o.example_quote.request)).json()) as any;
      assert.deepEqual(quoted.steps, o.example_quote.response.steps);
    }
    assert.deepEqual(contract.aliases.objective, ['objective', 'goal', 'task', 'outcome', 'query']);
    for (const f of ['foreground', 'background', 'fg', 'bg', 'large_text', 'source_fields', 'target_fields', 'comparison_mode', 'canonicalization', 'html', 'base_url', 'uri', 'token_id', 'cursor', 'since', 'include_high_resolution', 'source_url'])
      assert.ok(contract.aliases.folded_fields.includes(f), f);
    assert.deepEqual(
      contract.unsupported_outcomes.map((u: any) => [u.code, u.status]),
      [
        ['url_fetch_unsupported', 422],
        ['domain_lookup_unsupported', 422],
        ['browsing_unsupported', 422],
        ['screenshot_unsupported', 422],
        ['wallet_signing_unsupported', 422],
        ['refund_unsupported', 422],
        ['mcp_payer_unsupported', 422],
        ['supplier_not_allowlisted', 422],
        ['negative_contribution', 422],
      ],
    );
    assert.equal(contract.endpoints.composite.path, '/x402/v1/outcome-router');
    assert.equal((await fetch(base + '/v1/router', { method: 'DELETE' })).status, 405);
    assert.equal((await fetch(base + '/v1/router/quote')).status, 405);
  });

  test('secrets in buyer_metadata appear nowhere in the logs or the database, even after a paid composite execution', async () => {
    const body = { objective: 'contrast #000000 on #ffffff', buyer_metadata: METADATA_WITH_SECRETS };
    const before = await balanceOf(rig.devnet, rig.devnet.payTo);
    const res = await payingFetch(rig.devnet)(base + '/x402/v1/outcome-router', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const result = (await res.json()) as any;
    assert.equal(res.status, 200, JSON.stringify(result));
    assert.ok(validResult(result), JSON.stringify(validResult.errors));
    assert.equal(result.status, 'DELIVERED');
    assert.equal((await balanceOf(rig.devnet, rig.devnet.payTo)) - before, 1000n);

    const logs = logLines.join('');
    const requests = logLines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'request' && l.path === '/x402/v1/outcome-router');
    assert.deepEqual(requests.map((l) => [l.status, l.paid]), [[402, false], [200, true]], 'the paid composite call is in the logs searched below');
    assert.match(logs, /router quote/);
    const tables = await rig.service.db.all<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'");
    assert.ok(tables.some((t) => t.name === 'payment_attempts'));
    const dump: string[] = [];
    for (const { name } of tables) {
      const all = await rig.service.db.all(`SELECT * FROM "${name.replace(/"/g, '""')}"`);
      dump.push(JSON.stringify(all));
    }
    assert.deepEqual(
      await rig.service.db.all('SELECT resource, state, amount FROM payment_attempts'),
      [{ resource: 'outcome-router', state: 'settled', amount: '1000' }],
      'the ledger holds the composite payment (the rows searched below)',
    );
    const files = readdirSync(dataDir).map((f) => readFileSync(join(dataDir, f)).toString('latin1'));
    for (const secret of Object.values(SECRETS)) {
      assert.ok(!logs.includes(secret), `log holds ${secret}`);
      assert.ok(!dump.join('').includes(secret), `database holds ${secret}`);
      for (const f of files) assert.ok(!f.includes(secret), `a data file holds ${secret}`);
      assert.ok(!JSON.stringify(result).includes(secret), 'the result holds a secret');
    }
  });
});
