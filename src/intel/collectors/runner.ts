/**
 * Which collectors run with which sources (from the configuration), one run
 * of them, and the service's schedule. Collectors never run inside a request
 * handler: only `npm run intel -- collect` and this schedule call them.
 *
 * Order of a run: discovery first (it finds the payees), then releases, then
 * the on-chain census over the payees discovery knows.
 */
import type { IntelCollectorConfig } from '../../config.js';
import { collectChainCensus, type ChainCensusOptions } from './chain-census.js';
import { newReport, type CollectorContext, type CollectorReport } from './context.js';
import type { FetchLimits } from './fetch.js';
import { collectDiscovery, DISCOVERY_COLLECTOR, type DiscoveryOptions } from './discovery.js';
import { collectNpmReleases, DEFAULT_NPM_PACKAGES, DEFAULT_NPM_REGISTRY, NPM_COLLECTOR, type NpmOptions } from './npm-releases.js';
import { CHAIN_COLLECTOR } from './chain-census.js';

export const COLLECTOR_NAMES = [DISCOVERY_COLLECTOR, NPM_COLLECTOR, CHAIN_COLLECTOR] as const;
export type CollectorName = (typeof COLLECTOR_NAMES)[number];

export interface CollectorPlan {
  discovery?: DiscoveryOptions;
  npm?: NpmOptions;
  chain?: ChainCensusOptions;
  /** Collectors left out, with why (e.g. no sources configured). */
  off: Partial<Record<CollectorName, string>>;
}

/** Explorer pages cited as the on-chain census source on known networks. */
const EXPLORERS: Record<string, string> = { 'eip155:8453': 'https://basescan.org', 'eip155:84532': 'https://sepolia.basescan.org' };

/** The payment rail's network and asset (the devnet's in the embedded mode), when known. */
export interface RailFacts {
  network: string;
  asset: string;
}

export function planFromConfig(intel: IntelCollectorConfig, rail: RailFacts | undefined, operatorWallets: readonly string[]): CollectorPlan {
  const off: CollectorPlan['off'] = {};
  const plan: CollectorPlan = { off };
  if (intel.discoveryUrls.length + intel.discoveryOrigins.length + intel.openapiUrls.length > 0) {
    plan.discovery = { bazaarUrls: intel.discoveryUrls, origins: intel.discoveryOrigins, openapiUrls: intel.openapiUrls };
  } else off.discovery = 'no INTEL_DISCOVERY_URLS, INTEL_DISCOVERY_ORIGINS or INTEL_OPENAPI_URLS';
  plan.npm = { registry: intel.npmRegistry ?? DEFAULT_NPM_REGISTRY, packages: intel.npmPackages ?? DEFAULT_NPM_PACKAGES };
  const asset = intel.chainAsset ?? rail?.asset;
  const explorer = rail && EXPLORERS[rail.network];
  const sourceUrl = intel.chainSourceUrl ?? (explorer && asset ? `${explorer}/token/${asset}` : undefined);
  if (!intel.rpcUrl) off['chain-census'] = 'INTEL_RPC_URL is not set';
  else if (!asset) off['chain-census'] = 'no asset: set INTEL_CHAIN_ASSET (or run with an external X402_NETWORK)';
  else if (!sourceUrl) off['chain-census'] = 'no public source URL to cite: set INTEL_CHAIN_SOURCE_URL (e.g. the token’s explorer page)';
  else {
    plan.chain = {
      rpcUrl: intel.rpcUrl,
      asset,
      ...(rail ? { network: rail.network } : {}),
      sourceUrl,
      operatorWallets,
      dustAtomic: BigInt(intel.dustAtomic),
      blockRange: BigInt(intel.chainBlockRange),
      maxBlocksPerRun: BigInt(intel.chainBlockRange) * 50n,
      ...(intel.chainStartBlock !== undefined ? { startBlock: intel.chainStartBlock } : {}),
      timeoutMs: intel.fetchTimeoutMs,
      maxBytes: intel.fetchMaxBytes,
    };
  }
  return plan;
}

/** The bounds and connection rule of every collector request, from the configuration. */
export function fetchLimitsOf(intel: IntelCollectorConfig): FetchLimits {
  return { timeoutMs: intel.fetchTimeoutMs, maxBytes: intel.fetchMaxBytes, allowPrivateAddresses: intel.allowPrivateSources };
}

/**
 * Run the planned collectors once, in order (or only `only`). A collector
 * that throws is reported as a failure; the others still run.
 */
export async function runCollectors(ctx: CollectorContext, plan: CollectorPlan, only?: CollectorName): Promise<CollectorReport[]> {
  const reports: CollectorReport[] = [];
  const steps: Array<[CollectorName, (() => Promise<CollectorReport>) | undefined]> = [
    [DISCOVERY_COLLECTOR, plan.discovery && (() => collectDiscovery(ctx, plan.discovery!))],
    [NPM_COLLECTOR, plan.npm && (() => collectNpmReleases(ctx, plan.npm!))],
    [CHAIN_COLLECTOR, plan.chain && (() => collectChainCensus(ctx, plan.chain!))],
  ];
  for (const [name, step] of steps) {
    if (only && name !== only) continue;
    if (!step) {
      const r = newReport(name);
      r.notes.push(`off: ${plan.off[name] ?? 'not configured'}`);
      reports.push(r);
      continue;
    }
    try {
      reports.push(await step());
    } catch (e) {
      const r = newReport(name);
      r.failures.push({ url: '', failure: 'error', detail: e instanceof Error ? e.message : String(e) });
      reports.push(r);
    }
  }
  return reports;
}

/** One line per collector, for logs and the CLI. */
export function summarize(r: CollectorReport): string {
  const x = r.records;
  return `${r.collector}: ${x.created} created, ${x.updated} updated, ${x.unchanged} unchanged, ${x.rejected.length} rejected; ${r.failures.length} source failure${r.failures.length === 1 ? '' : 's'}`;
}

export interface CollectorSchedule {
  stop(): Promise<void>;
}

/**
 * Run `run` every `intervalMs`, first one interval after start. Runs never
 * overlap (the next is timed from the end of the previous); the timer is
 * unref'd so it never keeps the process alive; `stop` cancels the timer and
 * waits for a run in flight (bounded by the collectors' own timeouts), so
 * nothing writes to a database being closed.
 */
export function startCollectorSchedule(intervalMs: number, run: () => Promise<void>): CollectorSchedule {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> | undefined;
  const arm = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      inFlight = run()
        .catch(() => undefined)
        .finally(() => {
          inFlight = undefined;
          arm();
        });
    }, intervalMs);
    timer.unref();
  };
  arm();
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await inFlight;
    },
  };
}

/** What the service gives the schedule: its configuration, rail, clock and log. */
export interface ServiceCollectorDeps {
  intel: IntelCollectorConfig;
  rail: RailFacts;
  operatorWallets: readonly string[];
  now: () => number;
  log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
}

/** The service's schedule, when INTEL_COLLECT_INTERVAL is set (undefined otherwise). */
export function startServiceCollectors(store: CollectorContext['store'], deps: ServiceCollectorDeps): CollectorSchedule | undefined {
  const intervalMs = deps.intel.collectIntervalMs;
  if (intervalMs === undefined) return undefined;
  const plan = planFromConfig(deps.intel, deps.rail, deps.operatorWallets);
  const ctx: CollectorContext = { store, now: deps.now, limits: fetchLimitsOf(deps.intel) };
  deps.log.info({ intervalMs, off: plan.off }, 'intelligence: collectors scheduled');
  return startCollectorSchedule(intervalMs, async () => {
    for (const r of await runCollectors(ctx, plan)) {
      const line = summarize(r);
      if (r.failures.length || r.records.rejected.length) deps.log.warn({ failures: r.failures, rejected: r.records.rejected }, `intelligence collector ${line}`);
      else deps.log.info({}, `intelligence collector ${line}`);
    }
  });
}
