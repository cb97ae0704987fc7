/** How the outcome router recognises a contract-compatibility objective and builds its native bodies. */
import type { ErrorDetail } from '../../errors.js';
import { has, isObject, pick, need, notAList, done, type RoutingDescriptor, type UnitDraft } from '../../catalog/routing.js';
import { normalizeText } from '../../catalog/objective-text.js';

const CHECKER_OPTIONS = ['contract_version', 'comparison_mode', 'canonicalization'] as const;

export const checkerRouting: RoutingDescriptor = {
  outcome: 'Structural compatibility of a source (producer) and a target (consumer) field contract, including small batches of contract pairs.',
  names: ['compatibility checker', 'data compatibility', 'contract checker', 'schema compatibility'],
  keywords: [
    /\bcompatib\w*/,
    /\bfield contracts?\b/,
    /\bdata contracts?\b/,
    /\bschema (?:diff|drift|evolution|changes?)\b/,
    /\bbreaking changes?\b/,
    /\bsource_fields\b|\btarget_fields\b/,
    /\bproducer\b.*\bconsumer\b/,
  ],
  fieldAliases: { source_contract: 'source_fields', target_contract: 'target_fields', contract_pairs: 'comparisons' },
  reads: ['source_fields', 'target_fields', ...CHECKER_OPTIONS, 'comparisons'],
  requiredInputs: ['source_fields', 'target_fields'],
  optionalInputs: [...CHECKER_OPTIONS, 'comparisons'],
  batch: 'inputs.comparisons: an array of {source_fields, target_fields, comparison_mode?, canonicalization?}; top-level comparison_mode / canonicalization apply to every pair that does not set its own. One step per pair.',
  detect: (inputs) => has(inputs, 'source_fields') || has(inputs, 'target_fields') || has(inputs, 'comparisons'),
  extract(ctx) {
    const { inputs, at } = ctx;
    const units: UnitDraft[] = [];
    const missing: ErrorDetail[] = [];
    const assumptions: string[] = [];
    const shared = pick(inputs, CHECKER_OPTIONS);
    if (!ctx.fromItems) {
      const t = normalizeText(ctx.objective);
      if (shared.comparison_mode === undefined && /\bexact(?:ly)?[- ](?:match(?:es|ing)?|same|equal|identical)\b|\bidentical\b|\bexact (?:comparison|mode)\b/.test(t)) {
        shared.comparison_mode = 'exact';
        assumptions.push('comparison_mode "exact" because the objective asks for identical contracts.');
      }
      if (shared.canonicalization === undefined && /\bcase[- ]insensitive\w*\b|\bignor(?:e|ing) (?:the )?(?:letter )?case\b/.test(t)) {
        shared.canonicalization = 'ascii_case_insensitive';
        assumptions.push('canonicalization "ascii_case_insensitive" because the objective asks to ignore case.');
      }
    }
    if (has(inputs, 'comparisons')) {
      if (!Array.isArray(inputs.comparisons)) return notAList(at, 'comparisons', 'contract pairs');
      const invalid: ErrorDetail[] = [];
      inputs.comparisons.forEach((c, i) => {
        const here = `${at}/comparisons/${i}`;
        if (!isObject(c)) {
          invalid.push({ path: here, rule: 'type', message: 'a comparison is an object {source_fields, target_fields}' });
          return;
        }
        if (!has(c, 'source_fields')) missing.push(need(here, 'source_fields', 'the producer contract is missing'));
        if (!has(c, 'target_fields')) missing.push(need(here, 'target_fields', 'the consumer contract is missing'));
        units.push({ at: here, body: { ...shared, ...c } });
      });
      if (invalid.length) return { kind: 'invalid', details: invalid };
    }
    if (has(inputs, 'source_fields') || has(inputs, 'target_fields') || units.length === 0) {
      if (!has(inputs, 'source_fields')) missing.push(need(at, 'source_fields', 'the producer (source) contract: an array of {name, type, required, nullable}'));
      if (!has(inputs, 'target_fields')) missing.push(need(at, 'target_fields', 'the consumer (target) contract: an array of {name, type, required, nullable}'));
      units.push({ at, body: { source_fields: inputs.source_fields, target_fields: inputs.target_fields, ...shared } });
    }
    return done(units, missing, [], assumptions);
  },
  evidence: ['deterministic'],
  expectedLatencyMs: 10,
  example: (cap) => ({
    objective: 'Is the producer field contract backward compatible with the consumer contract?',
    inputs: pick((cap.examples[0]?.input ?? {}) as Record<string, unknown>, ['source_fields', 'target_fields']),
  }),
};
