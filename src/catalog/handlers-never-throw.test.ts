/**
 * Property over the whole catalog: no input that passes a capability's own
 * validation (schema, defaults and `check`, exactly as the paid route applies
 * them) can make its handler throw, and every result serialises as JSON with
 * bounded nesting. A throw there happens after the payment was verified, so
 * it costs the buyer an authorization for nothing.
 *
 * Inputs: each capability's published examples with string and number leaves
 * replaced, prefixed, suffixed or spliced with adversarial values, sent
 * through a JSON round trip as they would arrive on the wire.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { CATALOG } from '../capabilities/index.js';
import { makeInputReader } from './input-reader.js';

/**
 * A result nested deeper than this could serialise or not depending on how
 * much stack the caller has left (MCP and the router composite wrap results
 * in envelopes), so it counts as a failure too.
 */
const MAX_RESULT_DEPTH = 128;

const deepArrays = (n: number) => '['.repeat(n) + ']'.repeat(n);
const deepObjects = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);
const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
const b64url = (s: string) => Buffer.from(s, 'utf8').toString('base64url');

const depth = fc.oneof(fc.integer({ min: 1, max: 200 }), fc.integer({ min: 4000, max: 20000 }));
const deepJson = fc.tuple(fc.boolean(), depth).map(([arrays, n]) => (arrays ? deepArrays(n) : deepObjects(n)));

const adversarialString: fc.Arbitrary<string> = fc.oneof(
  deepJson,
  deepJson.map((j) => 'data:application/json,' + j),
  deepJson.map((j) => 'data:application/json;base64,' + b64(j)),
  deepJson.map((j) => 'data:application/json;base64,' + b64url(j)),
  deepJson.map((j) => 'data:,' + j),
  deepJson.map((j) => 'data:text/plain;charset=utf-8,' + encodeURIComponent(j)),
  deepJson.map((j) => `<script type="application/ld+json">${j}</script>`),
  deepJson.map((j) => `<script type="application/ld+json">{"@type":"Product","name":"x","offers":${j}}</script>`),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    '\uD800',
    '\uDFFF',
    'a\uDC00b',
    '\uFEFF',
    '\u202E',
    '%',
    '%ZZ',
    '%ED%A0%80',
    '{id}',
    '%7Bid%7D',
    'data:',
    'data:,',
    'data:;base64,',
    'data:;base64,====',
    'data:application/json;charset=utf-16,%FF%FE',
    'data:application/json;charset=x-unknown,{}',
    'data:text/html;base64,' + b64('<script type="application/ld+json">' + deepArrays(5000) + '</script>'),
    'ipfs://',
    'ipfs://ipfs/',
    'ar://',
    'https://',
    'http://[::1',
    '1e309',
    '-0',
    'NaN',
    '0x' + 'f'.repeat(70),
    '9'.repeat(400),
    '{id}'.repeat(100),
    '<script type="application/ld+json">',
    '</script>',
    '"\\',
  ),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.tuple(fc.constantFrom('a', ' ', '%', '{', '[', '\u00e9', '\uD83D\uDE00', '\u0000'), fc.integer({ min: 1, max: 70000 })).map(([c, n]) => c.repeat(n)),
);

const adversarialNumber: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(0, -0, 1, -1, 0.5, 1e308, -1e308, 5e-324, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER + 2, -Number.MAX_SAFE_INTEGER, 2 ** 31, 2 ** 32, 1e21),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

type Op = 'replace' | 'prefix' | 'suffix' | 'splice' | 'upper' | 'lower';
interface Mutation {
  leaf: number;
  op: Op;
  /** An adversarial string, or (when `donor` is set) unused. */
  s: string;
  /** Index into the capability's own example leaves: crossover keeps more inputs schema-valid. */
  donor: number | null;
  n: number;
  at: number;
}
interface Case {
  example: number;
  mutations: Mutation[];
}

const short = (s: string) => (s.length > 60 ? `${JSON.stringify(s.slice(0, 40))}…(${s.length} chars)` : JSON.stringify(s));
/** Counterexamples print compactly: some strings here are 40,000 characters. */
const withShortPrint = (m: Mutation): Mutation =>
  Object.defineProperty(m, fc.toStringMethod, { value: () => `{leaf:${m.leaf},op:${m.op},s:${short(m.s)},donor:${m.donor},n:${m.n},at:${m.at}}`, enumerable: false });

const mutationArb: fc.Arbitrary<Mutation> = fc
  .record({
    leaf: fc.nat(),
    op: fc.constantFrom<Op>('replace', 'replace', 'prefix', 'suffix', 'splice', 'upper', 'lower'),
    s: adversarialString,
    donor: fc.option(fc.nat(), { freq: 2 }),
    n: adversarialNumber,
    at: fc.nat(),
  })
  .map(withShortPrint);
const caseArb: fc.Arbitrary<Case> = fc.record({ example: fc.nat(), mutations: fc.array(mutationArb, { minLength: 0, maxLength: 3 }) });

type Container = Record<string, unknown> | unknown[];
interface Leaf {
  parent: Container;
  key: string | number;
}

/** String and number leaves, found with an explicit stack (inputs are data, not code paths). */
function leaves(root: unknown): Leaf[] {
  const out: Leaf[] = [];
  const stack: unknown[] = [root];
  while (stack.length) {
    const node = stack.pop();
    if (!node || typeof node !== 'object') continue;
    const entries: Array<[string | number, unknown]> = Array.isArray(node) ? node.map((v, i) => [i, v]) : Object.entries(node);
    for (const [key, v] of entries) {
      if (typeof v === 'string' || typeof v === 'number') out.push({ parent: node as Container, key });
      else stack.push(v);
    }
  }
  return out;
}

function mutate(example: unknown, mutations: Mutation[], donors: Array<string | number>): unknown {
  const value = structuredClone(example);
  const found = leaves(value);
  if (found.length === 0) return value;
  for (const m of mutations) {
    const { parent, key } = found[m.leaf % found.length]!;
    const old = (parent as Record<string | number, unknown>)[key];
    const donor = m.donor === null || donors.length === 0 ? undefined : donors[m.donor % donors.length];
    const s = donor === undefined ? m.s : String(donor);
    let next: unknown;
    if (donor !== undefined && m.op === 'replace') next = donor;
    else if (typeof old === 'number') next = m.op === 'replace' ? m.n : s;
    else {
      const o = String(old);
      const at = m.at % (o.length + 1);
      next = { replace: s, prefix: s + o, suffix: o + s, splice: o.slice(0, at) + s + o.slice(at), upper: o.toUpperCase(), lower: o.toLowerCase() }[m.op];
    }
    (parent as Record<string | number, unknown>)[key] = next;
  }
  // As it arrives: JSON has no -0, undefined or lone-surrogate bytes (they travel as \u escapes).
  return JSON.parse(JSON.stringify(value));
}

/** Nesting depth of a JSON value, measured without recursion. */
function depthOf(root: unknown): number {
  let max = 0;
  const stack: Array<[unknown, number]> = [[root, 0]];
  while (stack.length) {
    const [node, d] = stack.pop()!;
    if (!node || typeof node !== 'object') continue;
    max = Math.max(max, d + 1);
    for (const v of Array.isArray(node) ? node : Object.values(node)) stack.push([v, d + 1]);
  }
  return max;
}

/** Cases every capability tries first: the shapes that broke handlers before. */
const SEEDS: Case[] = [deepArrays(5000), deepObjects(5000), deepArrays(20000)].flatMap((j) =>
  ['data:application/json,' + j, 'data:application/json;base64,' + b64(j), 'data:,' + j, j].map((s) => ({
    example: 0,
    mutations: [withShortPrint({ leaf: 0, op: 'replace', s, donor: null, n: 0, at: 0 })],
  })),
);

describe('no schema-valid input makes a catalog handler throw', () => {
  for (const cap of CATALOG) {
    test(cap.id, async (t) => {
      const reader = makeInputReader(cap);
      const examples = cap.examples.map((e) => e.input as unknown);
      const donors = examples.flatMap((e) => leaves(e).map(({ parent, key }) => (parent as Record<string | number, unknown>)[key] as string | number));
      assert.ok(examples.length > 0, `${cap.id} publishes no examples`);
      let accepted = 0;
      await fc.assert(
        fc.asyncProperty(caseArb, async (c) => {
          const input = mutate(examples[c.example % examples.length], c.mutations, donors);
          const parsed = reader.fromValue(input);
          if (!parsed.ok) return; // only what the paid route would hand to the handler
          accepted++;
          let out: unknown;
          try {
            out = await cap.run(parsed.input);
          } catch (e) {
            assert.fail(`${cap.id} threw on a schema-valid input: ${(e as Error)?.message ?? e}`);
          }
          const d = depthOf(out);
          assert.ok(d <= MAX_RESULT_DEPTH, `${cap.id} returned a result nested ${d} levels deep`);
          const text = JSON.stringify(out);
          assert.equal(typeof text, 'string', `${cap.id} returned something JSON.stringify cannot write`);
          JSON.parse(text);
        }),
        { numRuns: 300, examples: SEEDS.map((s) => [s]) },
      );
      t.diagnostic(`${accepted} schema-valid inputs run`);
      // The filter must leave real work: a generator that only made invalid inputs would prove nothing.
      assert.ok(accepted >= 30, `${cap.id}: only ${accepted} generated inputs passed validation`);
    });
  }
});
