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
  terms: {
    en: ['compatib*', 'field contract*', 'data contract*', 'breaking change*', 'schema drift', 'schema diff', 'schema evolution'],
    es: ['compatib*', 'contrato de datos', 'contratos de datos', 'contrato de campos', 'cambios incompatibles', 'cambio incompatible', 'cambios que rompen', 'productor y consumidor', 'productor y el consumidor'],
    pt: ['compatib*', 'contrato de dados', 'contratos de dados', 'contrato de campos', 'mudancas incompativeis', 'mudanca incompativel', 'alteracoes incompativeis', 'produtor e consumidor', 'produtor e o consumidor'],
    fr: ['compatib*', 'contrat de donnees', 'contrats de donnees', 'contrat de champs', 'changements cassants', 'changement cassant', 'ruptures de compatibilite', 'producteur et consommateur', 'producteur et le consommateur'],
    de: ['kompatib*', 'datenvertrag*', 'datenvertrage*', 'feldvertrag*', 'schemaanderung*', 'schema-anderung*', 'breaking change*', 'produzent und konsument', 'erzeuger und verbraucher'],
    it: ['compatib*', 'contratto dati', 'contratto dei dati', 'contratti dei dati', 'contratto di dati', 'modifiche incompatibili', 'modifica incompatibile', 'produttore e consumatore', 'produttore e il consumatore'],
    nl: ['compatib*', 'datacontract*', 'veldcontract*', 'brekende wijziging*', 'schemawijziging*', 'producent en consument', 'producent en de consument'],
    zh: ['兼容', '相容', '数据契约', '數據契約', '数据合同', '字段契约', '字段合同', '破坏性变更', '模式变更', '生产者和消费者'],
    ja: ['互換', 'データ契約', 'データコントラクト', 'フィールド契約', '破壊的変更', 'スキーマ変更', 'スキーマの変更', 'プロデューサーとコンシューマー'],
    ko: ['호환', '데이터 계약', '데이터 컨트랙트', '필드 계약', '스키마 변경', '파괴적 변경', '생산자와 소비자'],
  },
  fieldAliases: { source_contract: 'source_fields', target_contract: 'target_fields', contract_pairs: 'comparisons' },
  reads: ['source_fields', 'target_fields', ...CHECKER_OPTIONS, 'comparisons'],
  requiredInputs: ['source_fields', 'target_fields'],
  optionalInputs: [...CHECKER_OPTIONS, 'comparisons'],
  batch: 'inputs.comparisons: an array of {source_fields, target_fields, comparison_mode?, canonicalization?}; top-level comparison_mode / canonicalization apply to every pair that does not set its own. One step per pair.',
  detect: (inputs) => has(inputs, 'source_fields') || has(inputs, 'target_fields') || has(inputs, 'comparisons'),
  evident: (inputs) => Array.isArray(inputs.comparisons) || (Array.isArray(inputs.source_fields) && Array.isArray(inputs.target_fields)),
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
