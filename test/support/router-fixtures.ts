/**
 * Capabilities and descriptors the router tests add to the catalog, to prove
 * the router is generic over whatever the catalog holds:
 * - a stand-in for the changes-since feed (POST /v1/intelligence/changes-since,
 *   10000 atomic), carrying the real feed's routing;
 * - a capability with no routing at all (routable by id, path and title);
 * - two capabilities whose routing makes them unsellable (a cost of goods
 *   above the price; a supplier off the allowlist);
 * - the changes-since feed with its real input schema (cursor optional) and
 *   routing, answering nothing, and the devnet payment terms the tests quote with.
 */
import type { Capability } from '../../src/catalog/capability.js';
import { CATALOG } from '../../src/capabilities/index.js';
import { catalogOfferEvidenceExtractor } from '../../src/capabilities/catalog-offer-evidence-extractor/index.js';
import type { ServiceModule } from '../../src/module.js';
import { genericDescriptor } from '../../src/router/descriptors.js';
import { changesSinceRouting } from '../../src/intel/changes-since-routing.js';
import { CHANGES_SINCE_INPUT_SCHEMA } from '../../src/intel/schemas.js';

/** The payment terms the router tests quote with (the devnet's token and payee). */
export const routerTestPayment = {
  network: 'eip155:31337',
  payTo: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' as const,
  asset: { address: '0x5FbDB2315678afecb367f032d93F642f64180aa3' as const, name: 'USD Coin', version: '2', decimals: 6, symbol: 'USDC' },
};

/** The changes-since feed with its real input schema (cursor optional) and routing, answering nothing. */
export const changesSinceReal: Capability<Record<string, unknown>> = {
  id: 'intelligence-changes-since',
  method: 'POST',
  path: '/v1/intelligence/changes-since',
  priceAtomic: '10000',
  title: 'Machine-economy changes since a cursor',
  summary: 'A fixture: Machine-economy changes since a cursor.',
  description: 'Material changes to the machine-economy newswire after a cursor.',
  inputSchema: CHANGES_SINCE_INPUT_SCHEMA,
  outputSchema: { type: 'object' },
  examples: [],
  routing: changesSinceRouting,
  run: () => ({}),
};

export const changesSinceStub: Capability<{ cursor: string; include_high_resolution: boolean }> = {
  id: 'intelligence-changes-since',
  method: 'POST',
  path: '/v1/intelligence/changes-since',
  priceAtomic: '10000',
  title: 'Changes-since intelligence feed',
  summary: 'A fixture: Changes-since intelligence feed.',
  description: 'Material deltas of machine-economy news since a cursor.',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['cursor', 'include_high_resolution'],
    properties: { cursor: { type: 'string', format: 'date-time' }, include_high_resolution: { type: 'boolean' } },
  },
  outputSchema: { type: 'object', properties: { since: { type: 'string' }, nextCursor: { type: 'string' }, count: { type: 'integer' }, items: { type: 'array' } } },
  examples: [],
  routing: changesSinceRouting,
  run: (input) => ({ since: input.cursor, nextCursor: '2030-01-01T00:00:00Z', count: 0, items: [], high_resolution: input.include_high_resolution }),
};

export const textLengthCounter: Capability<{ text: string }> = {
  id: 'text-length-counter',
  method: 'POST',
  path: '/x402/v1/text-length-counter',
  priceAtomic: '2000',
  title: 'Text length counter',
  summary: 'A fixture: Text length counter.',
  description: 'Counts the UTF-16 code units of a text. A fixture with no routing descriptor.',
  inputSchema: { type: 'object', additionalProperties: false, required: ['text'], properties: { text: { type: 'string', minLength: 1, maxLength: 1000 } } },
  outputSchema: { type: 'object', properties: { length: { type: 'integer' } } },
  examples: [{ summary: 'abc', input: { text: 'abc' }, output: { length: 3 } }],
  run: (input) => ({ length: input.text.length }),
};

const premiumLookupBase: Capability<{ ticker: string }> = {
  id: 'premium-lookup',
  method: 'POST',
  path: '/x402/v1/premium-lookup',
  priceAtomic: '1000',
  title: 'Premium lookup',
  summary: 'A fixture: Premium lookup.',
  description: 'A fixture whose descriptor says each call costs more than its price.',
  inputSchema: { type: 'object', additionalProperties: false, required: ['ticker'], properties: { ticker: { type: 'string' } } },
  outputSchema: { type: 'object' },
  examples: [],
  run: (input) => ({ ticker: input.ticker }),
};

export const premiumLookup: Capability<{ ticker: string }> = { ...premiumLookupBase, routing: { ...genericDescriptor(premiumLookupBase), names: ['premium lookup'], cogsAtomic: '5000' } };

const resoldQuoteBase: Capability<{ symbol: string }> = {
  id: 'resold-quote',
  method: 'POST',
  path: '/x402/v1/resold-quote',
  priceAtomic: '5000',
  title: 'Resold quote',
  summary: 'A fixture: Resold quote.',
  description: 'A fixture whose descriptor pays a supplier that is not on the allowlist.',
  inputSchema: { type: 'object', additionalProperties: false, required: ['symbol'], properties: { symbol: { type: 'string' } } },
  outputSchema: { type: 'object' },
  examples: [],
  run: (input) => ({ symbol: input.symbol }),
};

export const resoldQuote: Capability<{ symbol: string }> = { ...resoldQuoteBase, routing: { ...genericDescriptor(resoldQuoteBase), names: ['resold quote'], suppliers: ['acme-market-data'] } };


/** The base catalog plus the offer extractor (while it is not yet in CATALOG). */
export function baseCatalog(): Capability[] {
  return CATALOG.some((c) => c.id === catalogOfferEvidenceExtractor.id) ? [...CATALOG] : [...CATALOG, catalogOfferEvidenceExtractor];
}

export const fixtureModule: ServiceModule = {
  name: 'router-fixtures',
  capabilities: () => [changesSinceStub, textLengthCounter, premiumLookup, resoldQuote],
};
