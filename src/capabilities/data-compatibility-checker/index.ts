import type { Capability } from '../../catalog/capability.js';
import {
  checkCompatibility,
  findDuplicateFieldNames,
  type CheckerRequest,
  type CheckerResponse,
} from './checker.js';
import { checkerExamples } from './examples.js';
import { inputSchema, outputSchema } from './schema.js';
import { checkerRouting } from './routing.js';

export type { CheckerRequest, CheckerResponse } from './checker.js';

export const dataCompatibilityChecker: Capability<CheckerRequest, CheckerResponse> = {
  id: 'data-compatibility-checker',
  method: 'POST',
  path: '/x402/v1/data-compatibility-checker',
  priceAtomic: '3000',
  title: 'Data compatibility checker',
  summary: 'Every structural incompatibility between a producer\'s and a consumer\'s field contract (missing or newly required fields, type and null changes, case mismatches), each with a stable code, a severity and how to fix it.',
  description:
    'Compares a source (producer) and a target (consumer) field contract and reports every structural incompatibility — missing or newly required fields, null and type changes, case-mismatched names — with a stable code, a severity and remediation actions. Deterministic and order-independent; it fetches no data and does not validate API behaviour.',
  inputSchema,
  outputSchema,
  examples: [
    ...checkerExamples,
    (() => {
      // The smallest useful call; it is the example the 402's Bazaar extension carries.
      const input: CheckerRequest = {
        source_fields: [{ name: 'id', type: 'integer', required: true, nullable: false }],
        target_fields: [{ name: 'id', type: 'string', required: true, nullable: false }],
      };
      return { summary: 'One field whose type changed from integer to string', input, output: checkCompatibility(structuredClone(input)) };
    })(),
  ],
  check: findDuplicateFieldNames,
  routing: checkerRouting,
  run: checkCompatibility,
  maxBodyBytes: 64 * 1024,
  isolate: 'large-input',
};
