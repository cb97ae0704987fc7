import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { confidenceFor, corroborationCount, defaultTier, EVIDENCE_TIER_IDS, EVIDENCE_TIERS, isPublishable, tierAllowed, tierCeiling } from './tiers.js';

describe('evidence tiers', () => {
  test('confidence follows the tier: every confidence of a stronger tier is above every confidence of a weaker one', () => {
    for (let i = 0; i < EVIDENCE_TIER_IDS.length - 1; i++) {
      const stronger = EVIDENCE_TIER_IDS[i]!, weaker = EVIDENCE_TIER_IDS[i + 1]!;
      assert.ok(confidenceFor(stronger, true) > confidenceFor(weaker, false), `${stronger} caveated vs ${weaker}`);
      assert.ok(confidenceFor(stronger, false) > confidenceFor(stronger, true));
    }
  });

  test('TIER_D is kept but never publishable; the others are', () => {
    assert.deepEqual(EVIDENCE_TIER_IDS.filter(isPublishable), ['TIER_A', 'TIER_B', 'TIER_C']);
    assert.equal(EVIDENCE_TIERS.TIER_D.publishable, false);
  });

  test('a tier cannot be stronger than its best source type', () => {
    assert.equal(tierCeiling(['public_forum']), 'TIER_C');
    assert.equal(tierCeiling(['vendor_documentation', 'market_observation']), 'TIER_B');
    assert.equal(tierCeiling(['market_observation', 'standards_body']), 'TIER_A');
    assert.equal(tierAllowed('TIER_A', ['public_forum']), false);
    assert.equal(tierAllowed('TIER_C', ['official_announcement']), true);
    assert.equal(tierAllowed('TIER_D', ['github_maintainer']), true);
  });

  test('a caveat lowers the default tier one step, but never to TIER_D', () => {
    assert.equal(defaultTier(['github_maintainer'], false), 'TIER_A');
    assert.equal(defaultTier(['github_maintainer'], true), 'TIER_B');
    assert.equal(defaultTier(['market_observation'], true), 'TIER_C');
    assert.equal(defaultTier(['public_forum'], false), 'TIER_C');
  });

  test('corroborationCount counts distinct sources, not links', () => {
    assert.equal(corroborationCount(['https://a.example/x', 'https://A.example/x/', 'https://a.example/x#frag']), 1);
    assert.equal(corroborationCount(['https://a.example/x', 'https://b.example/x']), 2);
  });
});
