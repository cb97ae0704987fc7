/**
 * Hostile inputs, timed: each capability's adversarial cases (the same ones
 * its unit tests check for a valid answer) run in process, best of three
 * after a warm-up. A scan gone quadratic shows here as a row far over its
 * budget; the tests assert only behaviour. Budgets are what the tests used
 * to assert (ms per call on a loaded 2-core VM), printed for comparison.
 * `npx tsx bench/adversarial-inputs.ts` runs this section alone.
 */
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { run as extract } from '../src/capabilities/catalog-offer-evidence-extractor/index.js';
import { classifyType, scanHtml } from '../src/capabilities/catalog-offer-evidence-extractor/html-scripts.js';
import { adversarialMarkup, adversarialPages, adversarialTypes } from '../src/capabilities/catalog-offer-evidence-extractor/adversarial-inputs.js';
import { nftMetadataUriNormalizer } from '../src/capabilities/nft-metadata-uri-normalizer/index.js';
import { adversarialUris } from '../src/capabilities/nft-metadata-uri-normalizer/adversarial-inputs.js';
import { fmt, markdownTable } from './stats.js';

export interface AdversarialRow {
  unit: string;
  input: string;
  chars: number;
  /** Best of the timed runs, ms. */
  ms: number;
  budgetMs: number;
}

function best(fn: () => unknown, runs = 3): number {
  fn();
  let min = Infinity;
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    fn();
    min = Math.min(min, performance.now() - t0);
  }
  return min;
}

const label = (s: string) => JSON.stringify(s.slice(0, 24)).slice(1, -1).slice(0, 24) + '…';

export function runAdversarialBench(progress: (m: string) => void = () => {}): { rows: AdversarialRow[]; markdown: string } {
  const rows: AdversarialRow[] = [];
  progress('adversarial inputs: nft normalizer, extractor pages, script scanner, type attribute');
  for (const uri of adversarialUris()) rows.push({ unit: 'nft-metadata-uri-normalizer run', input: label(uri), chars: uri.length, ms: best(() => nftMetadataUriNormalizer.run({ uri, token_id: '5' })), budgetMs: 1000 });
  for (const [name, html] of adversarialPages()) rows.push({ unit: 'catalog-offer-evidence-extractor run', input: name, chars: html.length, ms: best(() => extract({ html }), 1), budgetMs: 5000 });
  for (const html of adversarialMarkup()) rows.push({ unit: 'scanHtml', input: label(html), chars: html.length, ms: best(() => scanHtml(html)), budgetMs: 1500 });
  for (const t of adversarialTypes()) rows.push({ unit: 'classifyType', input: label(t), chars: t.length, ms: best(() => classifyType(t)), budgetMs: 1000 });
  const markdown = [
    '### Adversarial inputs (in process, best of the runs, ms)',
    '',
    markdownTable(
      ['unit', 'input', 'chars', 'ms', 'budget ms', ''],
      rows.map((r) => [r.unit, r.input, r.chars.toLocaleString('en-US'), fmt(r.ms), String(r.budgetMs), r.ms > r.budgetMs ? 'OVER' : '']),
      ['l', 'l', 'r', 'r', 'r', 'l'],
    ),
    '',
  ].join('\n');
  return { rows, markdown };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(runAdversarialBench((m) => console.error(`# ${m}`)).markdown);
