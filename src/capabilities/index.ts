/**
 * The capability catalog: the table every surface is generated from (routes,
 * validation, 402s, OpenAPI, MCP tools, the agent card, the router).
 * Adding a capability is adding its folder and one line here.
 */
import type { Capability } from '../catalog/capability.js';
import { accessibilityContrastCalculator } from './accessibility-contrast-calculator/index.js';
import { catalogOfferEvidenceExtractor } from './catalog-offer-evidence-extractor/index.js';
import { dataCompatibilityChecker } from './data-compatibility-checker/index.js';
import { nftMetadataUriNormalizer } from './nft-metadata-uri-normalizer/index.js';

export const CATALOG: readonly Capability[] = Object.freeze([
  dataCompatibilityChecker,
  accessibilityContrastCalculator,
  catalogOfferEvidenceExtractor,
  nftMetadataUriNormalizer,
]);
