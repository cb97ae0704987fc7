/**
 * The router quote's CPU time, in process: body text → parsed request → plan →
 * quote body → JSON, the work POST /v1/router/quote does besides HTTP. Target
 * (issue 15): ≤ 300 µs per quote. Run alone with `tsx bench/router-quote.ts`
 * (add `--cpu-prof` to node via NODE_OPTIONS to profile it).
 */
import { CATALOG } from '../src/capabilities/index.js';
import { OutcomeRouter } from '../src/router/planner.js';
import { quoteBody } from '../src/router/quote.js';
import { benchQuoteInput } from '../src/router/bench-input.js';

export const ROUTER_QUOTE_TARGET_US = 300;

const PAYMENT = {
  network: 'eip155:31337',
  payTo: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' as const,
  asset: { address: '0x5FbDB2315678afecb367f032d93F642f64180aa3' as const, name: 'USD Coin', version: '2', decimals: 6, symbol: 'USDC' },
};

export interface QuoteCpu {
  iterations: number;
  /** Process CPU time (user + system) per quote, µs. */
  cpuUsPerQuote: number;
  targetUs: number;
  /** cpuUsPerQuote / targetUs: ≤ 1 meets the target. */
  ratio: number;
}

/** Quote the bench request `iterations` times after a warm-up; CPU time per quote. */
export function measureQuoteCpu(iterations = 20_000, warmup = 2_000): QuoteCpu {
  const router = new OutcomeRouter(CATALOG, PAYMENT);
  const raw = JSON.stringify(benchQuoteInput());
  let bytes = 0;
  const once = () => {
    const parsed = router.readBody('application/json', raw);
    if (!parsed.ok) throw new Error(parsed.error.message);
    const plan = router.plan(parsed.value);
    if (!plan.ok) throw new Error(plan.error.message);
    const body = quoteBody(plan.value, { baseUrl: 'http://127.0.0.1:1', payment: PAYMENT, compositeEnabled: true, quoteId: 'q_bench', createdAt: '2026-01-01T00:00:00.000Z' });
    bytes += JSON.stringify(body).length;
  };
  for (let i = 0; i < warmup; i++) once();
  const start = process.cpuUsage();
  for (let i = 0; i < iterations; i++) once();
  const used = process.cpuUsage(start);
  if (bytes === 0) throw new Error('no output');
  const cpuUsPerQuote = (used.user + used.system) / iterations;
  return { iterations, cpuUsPerQuote, targetUs: ROUTER_QUOTE_TARGET_US, ratio: cpuUsPerQuote / ROUTER_QUOTE_TARGET_US };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = measureQuoteCpu();
  console.log(`router quote CPU: ${r.cpuUsPerQuote.toFixed(1)} µs per quote over ${r.iterations} (target ≤ ${r.targetUs} µs, ratio ${r.ratio.toFixed(2)})`);
}
