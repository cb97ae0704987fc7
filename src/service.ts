/**
 * Wires a configured service together: ledger, payment rail (devnet or
 * external), gate, HTTP app, reconciler. Used by `main.ts` and by tests that
 * want the real service in-process.
 */
import { serve, type ServerType } from '@hono/node-server';
import type { Hono } from 'hono';
import { writeFileSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import pino, { type Logger } from 'pino';
import pinoPretty from 'pino-pretty';
import { standardOutputLines } from './observability/log-lines.js';
import { createApp } from './app.js';
import { OwnOrigins } from './http/own-origin.js';
import { secureServerAnswers } from './http/security-headers.js';
import type { Server } from 'node:http';
import { CATALOG } from './capabilities/index.js';
import { assertCatalog, type Capability } from './catalog/index.js';
import { ConfigError, DEVNET_NETWORK, type Config, type Hex, type PaymentConfig } from './config.js';
import { listenRefusal } from './start-up-checks.js';
import { createCommitmentSigner } from './commitments/signer.js';
import { acquireHandlerPool, handlerExecutor, stepExecutor } from './isolation/pool.js';
import { offerVerifier, receiptHook } from './commitments/flow-hooks.js';
import { offerOf } from './discovery/bazaar.js';
import { createPaidFlow, type PaidFlow } from './payments/paid-flow.js';
import { rpcChainReader, type ChainReader } from './payments/chain.js';
import type { SvmChainReader } from './payments/chains/svm.js';
import { toBase58 } from './payments/chains/svm-transaction.js';
import { railFacts } from './payments/rails.js';
import { PaymentGate } from './payments/gate.js';
import { SignInWithX } from './payments/sign-in.js';
import { MppCharge } from './payments/mpp.js';
import { PaymentRail } from './payments/rail.js';
import { facilitatorPool } from './payments/facilitators.js';
import { LAST_GOOD_FILE, LastGoodSupported, startFacilitators } from './payments/facilitator-watch.js';
import { instrumentFacilitator, instrumentLedger } from './payments/instrumentation.js';
import { MemoryRateLimitStore, RedisRateLimitStore, type RateLimitStore } from './http/rate-limit.js';
import { Redis } from 'ioredis';
import { startReconciler } from './payments/reconciler.js';
import { checkDevnetChain } from './payments/devnet-chain.js';
import { openDatabase, type SqlDriver } from './store/index.js';
import type { Ledger } from './store/ledger.js';
import type { FacilitatorClient } from '@x402/core/server';
import type { ModuleInit, ServiceModule } from './module.js';
import { defaultModules } from './modules.js';
import { mountModules, registerModule } from './http/free-routes.js';
import { ownWallets } from './payments/own-wallets.js';

export interface RunningService {
  url: string;
  config: Config;
  payment: PaymentConfig;
  ledger: Ledger;
  /** The database the ledger lives in (content stores share it). */
  db: SqlDriver;
  rail: PaymentRail;
  gate: PaymentGate;
  /** The one paid flow (and its executor) every transport of this service uses. */
  flow: PaidFlow;
  catalog: readonly Capability[];
  /** The HTTP app (its route table is what the discovery tests compare with OpenAPI). */
  app: Hono;
  /** Present when the service started its own devnet. */
  devnet?: {
    rpcUrl: string;
    facilitatorUrl: string;
    buyer: { address: string; privateKey: string };
    /** The embedded Solana devnet (DEVNET_SVM, default on): its RPC and its first buyer (64-byte secret key, base58). */
    svm?: { rpcUrl: string; buyer: { address: string; secretKey: string } };
  };
  close(): Promise<void>;
}

export interface ServiceOptions {
  catalog?: readonly Capability[];
  log?: Logger;
  /** Replace the facilitator client (fault-injection tests). */
  facilitator?: FacilitatorClient;
  chain?: ChainReader;
  /** Replace the Solana chain reader (fault-injection tests). */
  svmReader?: SvmChainReader;
  /** Wrap the opened ledger (fault-injection tests). */
  wrapLedger?: (ledger: Ledger) => Ledger;
  /** Service modules to run (each instance serves this one service); defaults to `defaultModules()`. */
  modules?: readonly ServiceModule[];
}

type Cleanups = Array<() => Promise<void> | void>;

/** The payment configuration: the operator's, or a local devnet started here (its facts written to DATA_DIR/devnet.json). */
async function paymentRail(config: Config, log: Logger, cleanups: Cleanups): Promise<{ payment: PaymentConfig; devnet?: RunningService['devnet']; devnetWallets?: string[]; signingKey?: Hex; mppSecretKey?: string }> {
  if (config.rail !== 'devnet') return { payment: config.payment!, signingKey: config.signingKey, mppSecretKey: config.mppSecretKey };
  const { startDevnet } = await import('../devnet/index.js');
  const { devnetSigningKey, devnetMppSecret } = await import('../devnet/signing-key.js');
  const devnet = await startDevnet({ log: (m: string) => log.info(m), svm: config.devnetSvm });
  cleanups.unshift(() => devnet.stop());
  const svm = devnet.svm;
  const payment: PaymentConfig = {
    network: devnet.network,
    payTo: devnet.payTo,
    asset: { address: devnet.asset, name: devnet.assetName, version: devnet.assetVersion, decimals: devnet.decimals, symbol: 'USDC' },
    facilitatorUrls: [devnet.facilitatorUrl],
    facilitatorAuth: {},
    rpcUrl: devnet.rpcUrl,
    ...config.timings,
    ...(svm && { solana: { network: svm.network, payTo: svm.payTo, asset: { address: svm.mint, decimals: svm.decimals, symbol: 'USDC', name: 'USD Coin' }, rpcUrl: svm.rpcUrl } }),
  };
  const svmBuyer = svm && { address: svm.buyers[0]!.address, secretKey: toBase58(svm.buyers[0]!.secretKey) };
  mkdirSync(config.dataDir, { recursive: true });
  const file = join(config.dataDir, 'devnet.json');
  // X402_SIGNING_KEY wins; otherwise the devnet's own key, kept in devnet.json across restarts.
  const signingKey = config.signingKey ?? devnetSigningKey(file);
  // Likewise MPP_SECRET_KEY, or the devnet's own.
  const mppSecretKey = config.mppSecretKey ?? devnetMppSecret(file);
  const facts = {
    network: devnet.network,
    chainId: devnet.chainId,
    // Which chain this is: a new one each start (see payments/devnet-chain.ts).
    chainInstance: devnet.chainInstance,
    rpcUrl: devnet.rpcUrl,
    asset: devnet.asset,
    // What an MPP client (mppx) needs besides the address: the token's EIP-712 domain it signs for, and its decimals.
    assetName: devnet.assetName,
    assetVersion: devnet.assetVersion,
    decimals: devnet.decimals,
    payTo: devnet.payTo,
    facilitatorUrl: devnet.facilitatorUrl,
    buyer: devnet.buyer,
    signingKey,
    signer: createCommitmentSigner(signingKey).address,
    mppSecretKey,
    ...(svm && { solana: { network: svm.network, rpcUrl: svm.rpcUrl, mint: svm.mint, payTo: svm.payTo, buyer: svmBuyer } }),
  };
  writeFileSync(file, JSON.stringify(facts, null, 2) + '\n', { mode: 0o600 });
  log.info({ file, network: DEVNET_NETWORK, rpcUrl: devnet.rpcUrl, facilitatorUrl: devnet.facilitatorUrl }, `devnet payment rail ready; buyer key in ${file}`);
  // The Solana devnet's keys are as public as anvil's: its buyers, payee and fee payers are test wallets.
  const devnetWallets = svm ? [svm.payTo, ...svm.feePayers, ...svm.buyers.map((b) => b.address)] : [];
  return { payment, devnet: { rpcUrl: devnet.rpcUrl, facilitatorUrl: devnet.facilitatorUrl, buyer: devnet.buyer, ...(svmBuyer && { svm: { rpcUrl: svm!.rpcUrl, buyer: svmBuyer } }) }, devnetWallets, signingKey, mppSecretKey };
}

/** The whole catalog: the base entries, every module's, then the entries built over all of them (the composite). */
async function completeCatalog(base: readonly Capability[], modules: readonly ServiceModule[], init: ModuleInit, cleanups: Cleanups): Promise<Capability[]> {
  const catalog = [...base];
  for (const m of modules) {
    if (m.capabilities) catalog.push(...(await m.capabilities(init)));
    if (m.stop) cleanups.unshift(() => m.stop!());
  }
  const others = [...catalog];
  for (const m of modules) if (m.lateCapabilities) catalog.push(...(await m.lateCapabilities(others, init)));
  assertCatalog(catalog);
  return catalog;
}

async function listen(app: Hono, config: Config, cleanups: Cleanups, log: Logger): Promise<string> {
  const server: ServerType = await new Promise((resolve, reject) => {
    const s = serve({ fetch: app.fetch, port: config.port, hostname: config.host }, () => resolve(s));
    secureServerAnswers(s as Server);
    // Checked before boot (start-up-checks.ts); this catches what changed since, worded the same.
    s.once('error', (e: NodeJS.ErrnoException) => reject(listenRefusal(e, config.host, config.port)));
  });
  // Shutdown: stop accepting, let requests in flight finish (their connections close after the
  // response), and past SHUTDOWN_DRAIN_MS cut whatever is still open. A paid call cut there is
  // left to the reconciler, as after a crash.
  const http = server as ServerType & { closeIdleConnections?: () => void; closeAllConnections?: () => void };
  cleanups.unshift(
    () =>
      new Promise<void>((r) => {
        const deadline = setTimeout(() => {
          log.warn({ drainMs: config.operations.shutdownDrainMs }, 'drain deadline passed: closing connections still in flight');
          http.closeAllConnections?.();
        }, config.operations.shutdownDrainMs);
        server.close(() => {
          clearTimeout(deadline);
          r();
        });
        // Keep-alive connections that are idle would otherwise hold close() open for seconds.
        http.closeIdleConnections?.();
      }),
  );
  const addr = server.address() as AddressInfo;
  return `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${addr.port}`;
}

/** Pretty, coloured lines for a person at a terminal; JSON lines (one object each) for everything else: files, pipes, collectors. */
export function logFormatFor(out: { isTTY?: boolean }): 'pretty' | 'json' {
  return out.isTTY === true ? 'pretty' : 'json';
}

/** The service's logger, writing to `out` in the format that suits it. */
export function createLogger(level: string, out: NodeJS.WriteStream = process.stdout): Logger {
  if (logFormatFor(out) === 'json') {
    // Standard output written directly (decision 0028), a turn's lines in one write (decision 0033):
    // no stream machinery per line as through process.stdout, and no thread hop per write as in async mode.
    const dest = out === process.stdout ? standardOutputLines() : out;
    return pino({ level }, dest);
  }
  // pino-pretty as a stream in this thread (not a worker transport): lines stay in order with the banner.
  return pino({ level }, pinoPretty({ destination: out, colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', sync: true }));
}

/**
 * `DATA_DIR/service.json`: where this instance answers, written once it
 * listens, so `npm run buy` in another terminal finds it without the server's
 * PORT. Removed on close unless another instance has replaced it since.
 */
function announce(dataDir: string, url: string, cleanups: Cleanups): void {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, 'service.json');
  const facts = JSON.stringify({ url, pid: process.pid, startedAt: new Date().toISOString() }, null, 2) + '\n';
  writeFileSync(file, facts);
  cleanups.unshift(() => {
    try {
      if (readFileSync(file, 'utf8') === facts) rmSync(file);
    } catch {
      // already gone
    }
  });
}

/** Where the free-route rate limit counts: Redis when REDIS_URL is set (shared by instances), else this process. */
async function rateLimitStoreFor(config: Config, log: Logger, cleanups: Cleanups): Promise<RateLimitStore | undefined> {
  const { rateLimitPerMinute, redisUrl } = config.operations;
  if (rateLimitPerMinute === 0) return undefined;
  if (redisUrl === undefined) return new MemoryRateLimitStore();
  // No offline queue and one retry: a request never waits on a Redis that is away (the limiter then lets it through).
  const redis = new Redis(redisUrl, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 2000, commandTimeout: 500 });
  let lastWarn = 0;
  redis.on('error', (e: Error) => {
    if (Date.now() - lastWarn < 60_000) return;
    lastWarn = Date.now();
    log.warn({ err: e.message }, 'redis (rate limit) error');
  });
  try {
    await redis.connect();
  } catch (e) {
    redis.disconnect();
    throw new ConfigError('REDIS_URL', `cannot connect: ${e instanceof Error ? e.message : String(e)}`);
  }
  const store = new RedisRateLimitStore(redis);
  cleanups.push(() => store.close());
  return store;
}

export async function startService(config: Config, opts: ServiceOptions = {}): Promise<RunningService> {
  const log = opts.log ?? createLogger(config.logLevel);
  const defaults = defaultModules();
  const modules = opts.modules ?? defaults;
  const database = await openDatabase({ dataDir: config.dataDir, databaseUrl: config.databaseUrl, ledgerTimeoutMs: config.ledgerTimeoutMs });
  const ledger = instrumentLedger(opts.wrapLedger ? opts.wrapLedger(database.ledger) : database.ledger);
  const cleanups: Cleanups = [() => database.close()];
  try {
    const { payment, devnet, devnetWallets = [], signingKey, mppSecretKey } = await paymentRail(config, log, cleanups);
    if (!mppSecretKey) log.warn('MPP_SECRET_KEY is not set: paid routes offer x402 only, no MPP (the discovery documents say so)');
    const signer = signingKey ? createCommitmentSigner(signingKey) : undefined;
    if (!signer) log.warn('X402_SIGNING_KEY is not set: receipts and quote offers are not signed (the discovery documents say so)');
    const chain = opts.chain ?? rpcChainReader(payment.rpcUrl);
    // The facilitators in order of preference, with failover (payments/facilitators.ts); start-up checks
    // each one's /supported and keeps the last good answer for outages (payments/facilitator-watch.ts).
    const lastGood = new LastGoodSupported(join(config.dataDir, LAST_GOOD_FILE), payment.network, log);
    const facilitators = facilitatorPool(payment, {
      client: opts.facilitator,
      instrument: (client, name) => instrumentFacilitator(client, log, name),
      onSupported: (answer, name) => lastGood.save(answer, name),
      log,
    });
    const rail = new PaymentRail({ payment, chain, svmReader: opts.svmReader, facilitator: facilitators });
    cleanups.push(await startFacilitators({ pool: facilitators, rail, network: payment.network, optionalNetworks: payment.solana ? [payment.solana.network] : [], lastGood, log }));
    // Before the gate and the reconciler: attempts of an earlier devnet chain are closed, never driven on this one.
    await checkDevnetChain({ db: database.db, payment, log, now: Date.now });
    const presence = [...new Map([...defaults, ...modules].flatMap((m) => m.surfaces ?? []).map((s) => [s.id, s])).values()];
    // The process's worker pool, under this service's budget: entries that compose others get its step executor when built.
    const handlers = await acquireHandlerPool({ size: config.handlers.workers });
    cleanups.push(() => handlers.release());
    const steps = stepExecutor(handlers.pool, config.handlers.budgetMs, CATALOG);
    const init: ModuleInit = { config, db: database.db, ledger, log, now: Date.now, payment, ownWallets: ownWallets(config.operatorWallets, [payment.payTo, ...(payment.solana ? [payment.solana.payTo] : []), ...devnetWallets]), presence, signer, steps };
    const catalog = await completeCatalog(opts.catalog ?? CATALOG, modules, init, cleanups);
    // Instances that share the signing key issue and accept each other's sign-in challenges (redelivery proofs).
    const signIn = new SignInWithX(railFacts(payment).map((r) => r.network), signingKey && createHash('sha256').update(`x402 sign-in challenge\n${signingKey}`).digest(), config.signInLifetimeSeconds);
    const mpp = mppSecretKey ? new MppCharge(mppSecretKey, payment) : undefined;
    // A ledger shared with other instances is swept steadily: their unfinished attempts wake nobody here.
    const reconciler = startReconciler(ledger, (network) => rail.chainFor(network), config.reconcileIntervalMs, (r) => log.info(r, 'reconciled payment attempts'), { steady: ledger.kind !== 'sqlite' });
    cleanups.push(() => reconciler.stop());
    const gate = new PaymentGate({ ledger, rail, leaseMs: payment.attemptLeaseMs, signIn, mpp, log, now: init.now, afterPaidCall: () => reconciler.wake() });
    // Where each entry's calls run is chosen here, once; the flow and every transport only see the executor.
    const executor = handlerExecutor({ pool: handlers.pool, budgetMs: config.handlers.budgetMs, workerCatalog: CATALOG, catalog, steps });
    const flow = createPaidFlow({ gate, executor, describe: offerOf, receipts: signer && receiptHook(signer), offers: signer && offerVerifier(signer), clock: init.now });
    const { ctx, mounted } = mountModules({ ...init, catalog, flow }, modules);
    const lifecycle = { draining: false };
    let closing: Promise<void> | undefined;
    const origins = new OwnOrigins({ publicBaseUrl: config.publicBaseUrl, allowedHosts: config.allowedHosts, trustProxy: config.operations.trustProxy });
    const app: Hono = createApp({ operations: config.operations, lifecycle, rateLimitStore: await rateLimitStoreFor(config, log, cleanups), catalog, gate, flow, rail, ledger, publicBaseUrl: config.publicBaseUrl, origins, signer, log, modules: mounted.map((m) => (a: Hono) => registerModule(a, m, ctx)) });
    const url = await listen(app, config, cleanups, log);
    // The service's own names: where it listens (PORT=0 has now picked a port).
    origins.listeningOn(config.host, Number(new URL(url).port || 80));
    announce(config.dataDir, url, cleanups);
    return {
      url,
      config,
      payment,
      ledger,
      db: database.db,
      rail,
      gate,
      flow,
      catalog,
      app,
      devnet,
      close() {
        // Readiness turns 503 at once; the listener's cleanup (first) drains requests in flight.
        // Idempotent: a second signal or a test's own close waits for the same shutdown.
        lifecycle.draining = true;
        closing ??= (async () => {
          for (const c of cleanups) await c();
        })();
        return closing;
      },
    };
  } catch (e) {
    for (const c of cleanups) await Promise.resolve(c()).catch(() => {});
    throw e;
  }
}
