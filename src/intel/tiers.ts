/**
 * Evidence tiers: how strongly the sources behind a newswire item support it.
 *
 * The tier is the editor's claim; the code bounds it by the best source type
 * on the item (a forum post cannot make an item TIER_A), derives `confidence`
 * from it (never taken from input), and keeps TIER_D items out of every feed:
 * they are stored, versioned and visible to the operator, but never published
 * as fact.
 */

export const EVIDENCE_TIER_IDS = ['TIER_A', 'TIER_B', 'TIER_C', 'TIER_D'] as const;
export type EvidenceTier = (typeof EVIDENCE_TIER_IDS)[number];

export interface TierDefinition {
  /** 1 is strongest. `min_tier=TIER_B` keeps ranks 1 and 2. */
  rank: number;
  label: string;
  definition: string;
  /** Confidence of an item at this tier. */
  confidence: number;
  /** Confidence when the item carries a caveat (e.g. the date comes from press coverage). */
  caveatedConfidence: number;
  /** Whether items at this tier may be published as fact. */
  publishable: boolean;
}

/**
 * Confidence bands do not overlap, so `confidence` always orders the same way
 * as the tier: every TIER_A item outranks every TIER_B item, and so on.
 */
export const EVIDENCE_TIERS: Record<EvidenceTier, TierDefinition> = {
  TIER_A: {
    rank: 1,
    label: 'Primary source',
    definition:
      'The source is the original record of the claim: an official announcement, a protocol release or changelog, a standards-body document, or a commit, tag or thread in the project’s own repository.',
    confidence: 0.95,
    caveatedConfidence: 0.9,
    publishable: true,
  },
  TIER_B: {
    rank: 2,
    label: 'Authoritative or vendor documentation',
    definition:
      'The claim is stated in documentation published by the party concerned (vendor or developer documentation, charters), or in a primary source with a stated caveat.',
    confidence: 0.85,
    caveatedConfidence: 0.8,
    publishable: true,
  },
  TIER_C: {
    rank: 3,
    label: 'Market observation or forum',
    definition:
      'Trade press, third-party sites, directories or public forum threads that report or document the claim; published with the caveat that the original record was not read.',
    confidence: 0.7,
    caveatedConfidence: 0.6,
    publishable: true,
  },
  TIER_D: {
    rank: 4,
    label: 'Single uncorroborated signal',
    definition: 'One signal that no other source corroborates. Kept and versioned for the operator, never published as fact.',
    confidence: 0.3,
    caveatedConfidence: 0.2,
    publishable: false,
  },
};

/** Source types, as the newswire reports them in `sourceTypes`. */
export const SOURCE_TYPES = [
  'newsroom_original',
  'official_announcement',
  'first_party',
  'authoritative_documentation',
  'protocol_release',
  'vendor_documentation',
  'github_maintainer',
  'market_observation',
  'public_forum',
  'standards_body',
] as const;
export type SourceType = (typeof SOURCE_TYPES)[number];

/** The best tier each source type can support on its own. */
const SOURCE_CEILING: Record<SourceType, EvidenceTier> = {
  official_announcement: 'TIER_A',
  first_party: 'TIER_A',
  protocol_release: 'TIER_A',
  github_maintainer: 'TIER_A',
  standards_body: 'TIER_A',
  authoritative_documentation: 'TIER_B',
  vendor_documentation: 'TIER_B',
  newsroom_original: 'TIER_B',
  market_observation: 'TIER_C',
  public_forum: 'TIER_C',
};

export function tierRank(t: EvidenceTier): number {
  return EVIDENCE_TIERS[t].rank;
}

function tierOfRank(rank: number): EvidenceTier {
  return EVIDENCE_TIER_IDS[Math.min(Math.max(rank, 1), 4) - 1]!;
}

/** The strongest tier the given source types can support (TIER_C when none is stronger). */
export function tierCeiling(sourceTypes: readonly SourceType[]): EvidenceTier {
  let best = 3;
  for (const s of sourceTypes) best = Math.min(best, tierRank(SOURCE_CEILING[s]));
  return tierOfRank(best);
}

/** An item may claim its ceiling or anything weaker. */
export function tierAllowed(tier: EvidenceTier, sourceTypes: readonly SourceType[]): boolean {
  return tierRank(tier) >= tierRank(tierCeiling(sourceTypes));
}

/**
 * The tier an editor should give an item by default: the ceiling of its
 * sources, one step lower when it carries a caveat — but a caveat alone never
 * pushes a sourced item to TIER_D (that tier is for uncorroborated signals).
 */
export function defaultTier(sourceTypes: readonly SourceType[], caveated: boolean): EvidenceTier {
  const ceiling = tierRank(tierCeiling(sourceTypes));
  return tierOfRank(caveated ? Math.min(ceiling + 1, 3) : ceiling);
}

/** `tier`, or `cap` when `tier` is stronger: e.g. an unverified claim is never above TIER_C. */
export function tierAtMost(tier: EvidenceTier, cap: EvidenceTier): EvidenceTier {
  return tierRank(tier) >= tierRank(cap) ? tier : cap;
}

/** `confidence` follows the tier; a caveat lowers it within the tier's band. */
export function confidenceFor(tier: EvidenceTier, caveated: boolean): number {
  const d = EVIDENCE_TIERS[tier];
  return caveated ? d.caveatedConfidence : d.confidence;
}

export function isPublishable(tier: EvidenceTier): boolean {
  return EVIDENCE_TIERS[tier].publishable;
}

/**
 * A source's identity for corroboration: scheme and host lower-cased, the
 * fragment dropped, a trailing slash dropped. Two links to the same page count
 * once.
 */
function sourceIdentity(url: string): string {
  const u = new URL(url);
  u.hash = '';
  let s = `${u.protocol.toLowerCase()}//${u.host.toLowerCase()}${u.pathname}${u.search}`;
  if (s.endsWith('/')) s = s.slice(0, -1);
  return s;
}

/** `corroborationCount`: the number of distinct sources behind an item. */
export function corroborationCount(urls: readonly string[]): number {
  return new Set(urls.map(sourceIdentity)).size;
}
