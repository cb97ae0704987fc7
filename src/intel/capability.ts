/**
 * The paid catalog entry `POST /v1/intelligence/changes-since`, built over
 * the content store. Deterministic for the content it reads: the answer is a
 * function of the cursor, the options and the store up to its watermark.
 */
import type { Capability } from '../catalog/capability.js';
import {
  CHANGES_SINCE_PATH,
  CHANGES_SINCE_PRICE_ATOMIC,
  CHANGES_SINCE_PRODUCT,
  CHANGES_SINCE_SCHEMA,
  checkChangesSinceInput,
  runChangesSince,
  type ChangesDeps,
  type ChangesSinceInput,
  type ChangesSinceResponse,
} from './changes.js';
import { NO_CENSUS_SENTENCE, zeroMovements } from './census.js';
import { CHANGES_SINCE_INPUT_SCHEMA, CHANGES_SINCE_OUTPUT_SCHEMA } from './schemas.js';
import { NEWSWIRE_SCHEMA_VERSION, USAGE_RIGHTS } from './types.js';
import { changesSinceRouting } from './changes-since-routing.js';

export const CHANGES_SINCE_ID = 'intelligence-changes-since';

const CHANGES_SINCE_DESCRIPTION =
  'Material changes to the machine-economy newswire after a cursor: each delta (in items) is NEW, UPDATED, CORRECTED or RETRACTED, oldest first, with nextCursor for the next poll (every change appears exactly once along a cursor chain). ' +
  'Material means items that report a concrete change (releases, launches, listings, standards, company moves); signals, analysis seeds, digests and snapshots are left out. ' +
  'cursor: an ISO 8601 store time or the nextCursor of the previous call; maxItems bounds the answer; event_since keeps only events that happened on or after a date. ' +
  'include_high_resolution=true adds the full evidence of each delta (all source URLs and types, what each source supports, corroboration count, evidence note, changed fields). ' +
  'Reads only content the operator imported; no network fetches, no model calls. An empty result is a valid answer.';

/** An example with no changes after the cursor: what a caught-up poller receives. */
const EMPTY_EXAMPLE_OUTPUT: ChangesSinceResponse = {
  product: CHANGES_SINCE_PRODUCT,
  schema: CHANGES_SINCE_SCHEMA,
  schemaVersion: NEWSWIRE_SCHEMA_VERSION,
  since: '2026-11-22T08:09:02.123456Z',
  generatedAt: '2026-11-22T08:09:02.123456Z',
  count: 0,
  truncated: false,
  nextCursor: '2026-11-22T08:09:02.123456Z',
  priceAtomic: CHANGES_SINCE_PRICE_ATOMIC,
  highResolution: false,
  usageRights: USAGE_RIGHTS,
  marketMovements: zeroMovements([NO_CENSUS_SENTENCE]),
  items: [],
};

export function changesSinceCapability(deps: ChangesDeps): Capability<ChangesSinceInput, ChangesSinceResponse, Promise<ChangesSinceResponse>> {
  return {
    id: CHANGES_SINCE_ID,
    method: 'POST',
    path: CHANGES_SINCE_PATH,
    priceAtomic: CHANGES_SINCE_PRICE_ATOMIC,
    title: 'Machine-economy changes since a cursor',
    summary: 'The material changes to the machine-economy newswire since your cursor (new, updated, corrected and retracted items, with their evidence), and the cursor to continue from.',
    description: CHANGES_SINCE_DESCRIPTION,
    inputSchema: CHANGES_SINCE_INPUT_SCHEMA,
    outputSchema: CHANGES_SINCE_OUTPUT_SCHEMA,
    examples: [
      {
        summary: 'A caught-up poller: nothing changed after the cursor, so nextCursor is the current watermark',
        input: { cursor: '2026-11-22T08:09:02.123456Z', include_high_resolution: false, maxItems: 100 },
        output: EMPTY_EXAMPLE_OUTPUT,
      },
    ],
    check: checkChangesSinceInput,
    routing: changesSinceRouting,
    run: (input) => runChangesSince(deps, input),
    maxBodyBytes: 4096,
  };
}
