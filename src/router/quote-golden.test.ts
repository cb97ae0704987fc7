/**
 * The router quote, byte for byte: a recorded corpus of quote requests (the
 * objectives the router tests use, each capability's examples and routing
 * example, the bench request, refusals, items, aliases, constraints, edge
 * inputs, case and Unicode variants) replayed through readBody → plan →
 * quoteBody, and the JSON text compared with what the code answered when the
 * fixture was recorded. It exists so the quote path can be made faster
 * without a byte of any answer changing.
 *
 * Re-record (only when an answer is meant to change):
 *   WRITE_ROUTER_GOLDEN=1 node --import tsx --test test/router-quote-golden.test.ts
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import type { Capability } from '../catalog/capability.js';
import { CATALOG } from '../capabilities/index.js';
import { OutcomeRouter, errorBodyOf } from './planner.js';
import { quoteBody } from './quote.js';
import { benchQuoteInput } from './bench-input.js';
import { baseCatalog, changesSinceReal, changesSinceStub, premiumLookup, resoldQuote, routerTestPayment, textLengthCounter } from '../../test/support/router-fixtures.js';

const FIXTURE = new URL('../../test/fixtures/router-quote-golden.json', import.meta.url);

const payment = routerTestPayment;
const changesSince = changesSinceReal;

/** Two routers: the bench's (the shipped catalog) and a wide one with generic descriptors, a supplier and a cost of goods. */
function routers(): Record<string, { router: OutcomeRouter; catalog: Capability[] }> {
  const wide = [...baseCatalog(), changesSince, textLengthCounter, premiumLookup, resoldQuote, { ...changesSinceStub, id: 'changes-since-stub', path: '/x402/v1/changes-since-stub' }] as Capability[];
  return {
    shipped: { router: new OutcomeRouter(CATALOG, payment), catalog: [...CATALOG] },
    wide: { router: new OutcomeRouter(wide, payment), catalog: wide },
  };
}

interface Case {
  router: string;
  contentType: string | undefined;
  raw: string;
  composite: boolean;
  /** SHA-256 (hex) of the answer's JSON text: the fixture stays small, and any changed byte changes it. */
  out?: string;
  /** Whether the answer was a quote (the corpus must keep plenty of them). */
  quoted?: boolean;
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/** One request through the quote path: the quote body's JSON, or the error body's (with its status-defining code). */
function answer(router: OutcomeRouter, c: Case): string {
  const parsed = router.readBody(c.contentType, c.raw);
  if (!parsed.ok) return JSON.stringify(errorBodyOf(parsed.error));
  const plan = router.plan(parsed.value);
  if (!plan.ok) return JSON.stringify(errorBodyOf(plan.error));
  return JSON.stringify(quoteBody(plan.value, { baseUrl: 'http://127.0.0.1:1', payment, compositeEnabled: c.composite, quoteId: 'q_golden', createdAt: '2026-01-01T00:00:00.000Z' }));
}

/** Every quoted literal objective in the router's tests (recorded into the fixture, so later edits to those tests do not move it). */
function harvestedObjectives(): string[] {
  const files = ['test/router-quote.test.ts', 'src/router/planner-multilingual.test.ts', 'test/router-e2e.test.ts', 'test/router-discovery.test.ts', 'test/signed-quotes.test.ts', 'test/mcp.test.ts', 'src/router/execute.test.ts'];
  const out = new Set<string>();
  for (const f of files) {
    let text = '';
    try {
      text = readFileSync(f, 'utf8');
    } catch {
      continue;
    }
    for (const m of text.matchAll(/'((?:[^'\\\n]|\\.){4,300})'/g)) {
      const s = m[1]!.replace(/\\'/g, "'");
      if (/\s/.test(s) || /^[#/]/.test(s)) out.add(s);
    }
  }
  return [...out].sort();
}

function corpus(rs: ReturnType<typeof routers>): Case[] {
  const cases: Case[] = [];
  const add = (router: string, body: unknown, opts: { contentType?: string; composite?: boolean; raw?: string } = {}) =>
    cases.push({ router, contentType: opts.contentType ?? 'application/json', raw: opts.raw ?? JSON.stringify(body), composite: opts.composite ?? true });

  const objectives = harvestedObjectives();
  const variants = (s: string) => [s, s.toUpperCase(), ` \t${s.replace(/ /g, '  ')}\n `, s.replace(/[a-z#0-9]/g, (ch) => String.fromCharCode(ch.charCodeAt(0) + 0xfee0))];
  for (const name of Object.keys(rs)) {
    const { catalog } = rs[name]!;
    // Each harvested objective alone, in four forms, under each alias; every tenth also with each capability's first example as inputs.
    objectives.forEach((o, i) => {
      for (const v of variants(o)) add(name, { objective: v });
      add(name, { [['goal', 'task', 'outcome', 'query'][i % 4]!]: o, latency: (['any', 'interactive', 'batch'] as const)[i % 3] });
      if (i % 10 === 0) for (const cap of catalog) add(name, { objective: o, inputs: (cap.examples[0]?.input ?? {}) as Record<string, unknown> });
    });
    for (const cap of catalog) {
      const ex = cap.routing?.example?.(cap);
      if (ex) {
        add(name, ex);
        add(name, { ...ex, evidence: 'sourced' });
        add(name, { ...ex, freshness: 'live', preferred_protocol: 'mcp' }, { composite: false });
        add(name, { ...ex, max_price: '1' });
        add(name, { ...ex, required_output: { ratio: true, passes: true, compatible: true, normalized: true, zz: 1 } });
      }
      for (const [i, e] of cap.examples.entries()) {
        const input = e.input as Record<string, unknown>;
        add(name, { objective: cap.title, inputs: input });
        add(name, { objective: cap.id, ...input });
        add(name, { objective: `${cap.path} please`, inputs: { ...input, unrelated_key: i } });
        add(name, { objective: 'do these', inputs: { items: [{ ...input, capability_id: cap.id }, input, { nothing: true }, 7] } });
        add(name, { objective: 'do these', inputs: { items: [input, input] } });
      }
    }
    add(name, benchQuoteInput());
    add(name, { ...benchQuoteInput(), buyer_metadata: { password: 'x', api_key: 'y', nested: { Private_Key: 'z', ok: [1, { cookie: 2 }] }, keep: 'me' } });
    add(name, { ...benchQuoteInput(), inputs: { source_fields: [] } });
    add(name, { ...benchQuoteInput(), goal: (benchQuoteInput().goal as string).toUpperCase() });
    add(name, { objective: 'contrast', fg: '#000', bg: '#fff' });
    add(name, { objective: 'contrast', inputs: { fg: '#000', foreground: '#111' }, bg: 'white' });
    add(name, { objective: 'contrast', foreground: '#000', inputs: { foreground: '#222' } });
    add(name, { objective: 'Texto negro sobre fondo blanco: ¿contraste suficiente?' });
    add(name, { objective: 'Ｃｏｎｔｒａｓｔ ＃ＦＦＦ on ＃０００ — Kontrastverhältnis prüfen, ß, “quotes”' });
    add(name, { objective: '#FFF 위의 #333 텍스트 대비', latency: 'batch' });
    add(name, { objective: '背景 #ffffff の上の文字 #777777 のコントラスト' });
    add(name, { objective: 'a'.repeat(5000) });
    add(name, { objective: '' });
    add(name, { objective: 'x', goal: 'y' });
    add(name, {});
    add(name, []);
    add(name, null);
    add(name, { objective: 'contrast of #000 on #fff', inputs: { items: 'nope' } });
    add(name, { objective: 'contrast of #000 on #fff', inputs: { items: Array.from({ length: 25 }, () => ({ foreground: '#000', background: '#fff' })) } });
    add(name, { objective: 'contrast of #000 on #fff', inputs: { suppliers: ['someone-else'], pay_to: '0xabc', payer: 'mcp' } });
    add(name, { objective: 'contrast of #000 on #fff', inputs: { whois: 'example.com', source_url: 'https://example.com/a' } });
    add(name, { objective: 'Fetch ipfs://QmZHKZDavkvNfA9gSAg7HALv8jF7BJaKjUc9U2LSuvUySB without downloading it, just normalize' });
    add(name, { objective: 'Normalize https://example.com/thing.json' });
    add(name, { objective: 'contrast', max_price: 'ten' });
    add(name, { objective: 'contrast', unknown_top_level: { a: 1 } });
    add(name, null, { raw: '' });
    add(name, null, { raw: '   ' });
    add(name, null, { raw: '{"objective":' });
    add(name, null, { raw: '{"objective":"contrast of #000 on #fff"}', contentType: 'text/plain' });
    add(name, null, { raw: '{"objective":"contrast of #000 on #fff"}', contentType: 'application/merge-patch+json; charset=utf-8' });
    add(name, null, { raw: '{"objective":"contrast of #000 on #fff"}', contentType: undefined });
  }
  return cases;
}

test('router quotes are byte-identical to the recorded corpus', () => {
  const rs = routers();
  if (process.env.WRITE_ROUTER_GOLDEN) {
    const cases = corpus(rs).map((c) => {
      const out = answer(rs[c.router]!.router, c);
      return { ...c, out: sha256(out), quoted: out.includes('"status":"QUOTED"') };
    });
    writeFileSync(FIXTURE, JSON.stringify(cases, null, 0).replace(/\},\{"router"/g, '},\n{"router"') + '\n');
    return;
  }
  const cases = JSON.parse(readFileSync(FIXTURE, 'utf8')) as Case[];
  assert.ok(cases.length > 1000, `the corpus has ${cases.length} cases`);
  const quoted = cases.filter((c) => c.quoted).length;
  assert.ok(quoted > 200, `only ${quoted} cases quote`);
  for (const [i, c] of cases.entries()) {
    // Twice: a quote must not depend on what the router answered before.
    for (let k = 0; k < 2; k++) {
      const out = answer(rs[c.router]!.router, c);
      if (sha256(out) !== c.out) assert.fail(`case ${i} (${c.router}) answers differently: ${c.raw.slice(0, 200)}\n→ ${out.slice(0, 2000)}`);
    }
  }
});
