/** How the outcome router recognises a changes-since objective and builds its native body. */
import { has, pick, need, type RoutingDescriptor } from '../catalog/routing.js';
import { readTimestamp, toTimestamp } from '../catalog/objective-text.js';

const RELATIVE_TIME = /\b(?:yesterday|today|last (?:week|month|year|night)|ago|this (?:week|month|morning))\b/i;

export const changesSinceRouting: RoutingDescriptor = {
  outcome: 'Material deltas of the machine-economy newswire since an ISO 8601 cursor.',
  names: ['changes-since', 'changes since', 'intelligence feed', 'newswire'],
  keywords: [
    /\bchanges?[- ]since\b/,
    /\bwhat(?:'s| has| have| is)? (?:changed|new)\b/,
    /\b(?:news|updates|deltas?|developments) since\b/,
    /\bmachine[- ]economy (?:news|changes|updates|deltas?|developments)\b/,
    /\bnews ?wire\b/,
  ],
  // Renamed only where the capability does not itself accept `since` (then it is read below).
  fieldAliases: { since: 'cursor' },
  reads: ['cursor', 'since', 'include_high_resolution', 'max_items'],
  requiredInputs: ['cursor'],
  optionalInputs: ['include_high_resolution', 'max_items'],
  detect: (inputs) => has(inputs, 'cursor') || has(inputs, 'since'),
  extract(ctx) {
    const { inputs, at } = ctx;
    const assumptions: string[] = [];
    let cursor: unknown = inputs.cursor ?? inputs.since;
    if (typeof cursor === 'string') {
      const t = toTimestamp(cursor);
      if (t && t.filled.length) {
        assumptions.push(`cursor ${cursor} read as ${t.value} (${t.filled.join(', ')} filled in).`);
        cursor = t.value;
      }
    } else if (cursor === undefined && !ctx.fromItems) {
      const t = readTimestamp(ctx.objective);
      if (t) {
        cursor = t.value;
        assumptions.push(`cursor ${t.value} read from the objective${t.filled.length ? ` (${t.filled.join(', ')} filled in)` : ''}.`);
      }
    }
    if (cursor === undefined) {
      const relative = !ctx.fromItems && RELATIVE_TIME.test(ctx.objective);
      return {
        kind: 'missing',
        missing: [need(at, 'cursor', `an ISO 8601 timestamp such as 2025-06-01T00:00:00Z${relative ? ' (relative times like "yesterday" are not resolved: a quote does not depend on the clock)' : ''}`)],
      };
    }
    let high: unknown = inputs.include_high_resolution;
    if (high === undefined) {
      high = !ctx.fromItems && /\bhigh[- ]?res(?:olution)?\b|\bhi[- ]?res\b/i.test(ctx.objective);
      if (high === false) assumptions.push('include_high_resolution was not stated: false was used.');
    }
    return { kind: 'units', units: [{ at, body: { cursor, include_high_resolution: high, ...pick(inputs, ['max_items']) } }], assumptions };
  },
  evidence: ['deterministic', 'sourced'],
  expectedLatencyMs: 20,
  example: () => ({ objective: 'What changed in the machine economy since 2025-06-01?' }),
};
