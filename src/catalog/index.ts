/**
 * The capability catalog: the single table every surface is generated from.
 * Adding a capability is adding its module and one line here.
 */
import type { Capability } from './capability.js';
import { accessibilityContrastCalculator } from '../capabilities/accessibility-contrast-calculator/index.js';
import { catalogOfferEvidenceExtractor } from '../capabilities/catalog-offer-evidence-extractor/index.js';
import { dataCompatibilityChecker } from '../capabilities/data-compatibility-checker/index.js';
import { nftMetadataUriNormalizer } from '../capabilities/nft-metadata-uri-normalizer/index.js';

export type { Capability, InputProblem, JsonSchema } from './capability.js';

export const CATALOG: readonly Capability[] = Object.freeze([
  dataCompatibilityChecker,
  accessibilityContrastCalculator,
  catalogOfferEvidenceExtractor,
  nftMetadataUriNormalizer,
]);

export function findCapability(catalog: readonly Capability[], method: string, path: string): Capability | undefined {
  return catalog.find((c) => c.method === method && c.path === path);
}

/** Catalog invariants, checked at start-up so a bad entry never serves traffic. */
export function assertCatalog(catalog: readonly Capability[]): void {
  const ids = new Set<string>();
  const paths = new Set<string>();
  for (const c of catalog) {
    if (!/^[a-z][a-z0-9-]*$/.test(c.id)) throw new Error(`catalog: bad id "${c.id}"`);
    if (ids.has(c.id)) throw new Error(`catalog: duplicate id "${c.id}"`);
    if (paths.has(`${c.method} ${c.path}`)) throw new Error(`catalog: duplicate route ${c.method} ${c.path}`);
    if (!/^[1-9][0-9]{0,17}$/.test(c.priceAtomic)) throw new Error(`catalog: ${c.id} has a bad price "${c.priceAtomic}"`);
    ids.add(c.id);
    paths.add(`${c.method} ${c.path}`);
  }
}
