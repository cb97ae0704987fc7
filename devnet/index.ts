// Local payment rail for development and tests: anvil (chain 31337) + DevUSDC (an
// EIP-3009 token with USDC's EIP-712 domain) + Multicall3 + an x402 facilitator.
//
// Everything runs in-process except anvil, which is a child process. It is killed by
// stop(), and also when this process exits or is terminated by SIGINT/SIGTERM, so a
// crashed or interrupted test run does not leave anvil processes behind. (SIGKILL of
// the parent cannot be intercepted; anvil would then survive.)
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestClient, createWalletClient, getAddress, http, publicActions, toHex, type Hex } from 'viem';
import { generatePrivateKey, mnemonicToAccount, privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { devUsdcAbi } from './artifacts/abis.js';
import {
  authorizationState,
  erc20BalanceOf,
  erc20TransferLogs,
  findAuthorizationUsedTx,
  type Address,
  type TransferLog,
} from './chain-reads.js';
import { startFacilitatorServer, type FacilitatorServer } from './facilitator-server.js';
import { startSvmDevnet, type SvmDevnet } from './svm-devnet.js';
import { anvilInstanceId } from '../src/payments/devnet-chain.js';

export { authorizationState, findAuthorizationUsedTx };
export type { TransferLog };
export type { SvmDevnet, SvmDevnetAccount, SvmFaults } from './svm-devnet.js';

export interface DevnetAccount {
  address: Address;
  privateKey: Hex;
}

export interface Devnet {
  network: 'eip155:31337';
  chainId: 31337;
  /**
   * Which chain this is: anvil's instanceId, drawn afresh by every anvil. A
   * new devnet is a new chain under the same network id, token address and
   * buyers; the service tells a ledger's payments on an earlier one by it.
   */
  chainInstance: string;
  rpcUrl: string;
  /** DevUSDC contract address. */
  asset: Address;
  assetName: 'USD Coin';
  assetVersion: '2';
  decimals: 6;
  /** Merchant (anvil account #1). Starts with 0 USDC. */
  payTo: Address;
  facilitatorUrl: string;
  /** Facilitator's first signer = deployer = minter (anvil account #0). */
  facilitatorAddress: Address;
  /** Every account the facilitator settles from (round-robin): #0, then #6, #7, … */
  facilitatorSigners: Address[];
  /** buyers[0] (anvil account #2). */
  buyer: DevnetAccount;
  /** Anvil accounts #2..#5, each minted 1,000,000 USDC. */
  buyers: DevnetAccount[];
  /** Process id of the anvil child, for diagnostics and leak checks. */
  anvilPid: number;
  /**
   * The embedded Solana devnet (litesvm in this process), settled by the same
   * facilitator; absent when started with `svm: false`.
   */
  svm?: SvmDevnet;
  stop(): Promise<void>;
}

export interface StartDevnetOptions {
  log?: (msg: string) => void;
  /**
   * How long the facilitator waits for a settlement's receipt before answering
   * `success:false, errorReason:"settlement_pending"` (the SDK's behaviour; on
   * Base confirmations can take 10–28 s). Default: the SDK's 180 s.
   */
  confirmationTimeoutMs?: number;
  /** Tuning of the devnet facilitator (the throughput benchmark's baseline uses the old settings). */
  facilitator?: {
    /**
     * Accounts settling in parallel, each with its own serial nonce queue:
     * anvil #0, then #6..#9 (all pre-funded with ETH by anvil). Default 4, at most 5.
     */
    signers?: number;
    /** Receipt polling interval; default: the facilitator's loopback default (25 ms). */
    pollingIntervalMs?: number;
  };
  /** Also start the embedded Solana devnet and let the facilitator settle on it. Default true. */
  svm?: boolean;
}

/** Anvil accounts that may settle: #0 (deployer), then the ones no other role uses. */
const SIGNER_ACCOUNTS = [0, 6, 7, 8, 9];
const DEFAULT_SIGNERS = 4;

/** anvil's default mnemonic: its accounts are the well-known, publicly-known test keys. */
const ANVIL_MNEMONIC = 'test test test test test test test test test test test junk';
const CHAIN_ID = 31337 as const;
const NETWORK = 'eip155:31337' as const;
/** Canonical Multicall3 address (same on every chain), where the x402 SDK looks for it. */
export const MULTICALL3_ADDRESS = '0xcA11bde05977b3631167028862bE2a173976CA11' as const;
/** 1,000,000 USDC in atomic units (6 decimals). */
const BUYER_FUNDING = 1_000_000n * 10n ** 6n;

const here = dirname(fileURLToPath(import.meta.url));

interface Artifact {
  abi: unknown[];
  bytecode: Hex;
  deployedBytecode: Hex;
}

function loadArtifact(name: 'DevUSDC' | 'Multicall3'): Artifact {
  const file = join(here, 'artifacts', `${name}.json`);
  if (!existsSync(file)) throw new Error(`missing ${file}: run \`npm run build:token\``);
  return JSON.parse(readFileSync(file, 'utf8')) as Artifact;
}

/** Anvil test account `index` (0..9) of the default mnemonic, with its private key. */
export function devnetAccount(index: number): DevnetAccount {
  const hd = mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: index });
  const key = hd.getHdKey().privateKey;
  if (!key) throw new Error(`cannot derive anvil account ${index}`);
  return { address: hd.address, privateKey: toHex(key) };
}

/**
 * Path of the anvil executable shipped by the npm package @foundry-rs/anvil.
 *
 * That package's `bin.mjs` is only a wrapper: the binary lives in an optional
 * platform package (@foundry-rs/anvil-<os>-<arch>/bin/anvil), or — when npm skipped
 * optional deps — its postinstall downloads it next to itself. We spawn the binary
 * directly (not the wrapper) so that killing our child really kills anvil.
 * ANVIL_BIN overrides everything.
 */
export function resolveAnvilBinary(): string {
  if (process.env.ANVIL_BIN) return process.env.ANVIL_BIN;
  const require = createRequire(import.meta.url);
  const exe = process.platform === 'win32' ? 'anvil.exe' : 'anvil';
  const os = ({ linux: 'linux', darwin: 'darwin', win32: 'win32' } as Record<string, string>)[process.platform];
  const arch = ({ x64: 'amd64', arm64: 'arm64' } as Record<string, string>)[process.arch];
  const tried: string[] = [];
  if (os && arch) {
    const pkg = `@foundry-rs/anvil-${os}-${arch}`;
    try {
      const p = require.resolve(`${pkg}/bin/${exe}`);
      if (existsSync(p)) return p;
      tried.push(p);
    } catch {
      tried.push(`${pkg}/bin/${exe} (not installed)`);
    }
  }
  // Only the linux-amd64 build is a dependency (the registry these machines use
  // serves no other platform build); elsewhere install Foundry's anvil and set ANVIL_BIN.
  throw new Error(`anvil binary not found; tried: ${tried.join(', ')}. Install anvil (Foundry) and set ANVIL_BIN to its path.`);
}

// ---------------------------------------------------------------- child-process hygiene

// Every live anvil we spawned. One set of process hooks serves all devnets.
const liveAnvils = new Set<ChildProcess>();
let hooksInstalled = false;

function killAllAnvils(): void {
  for (const child of liveAnvils) {
    try {
      child.kill('SIGKILL');
    } catch {
      // already gone
    }
  }
  liveAnvils.clear();
}

function installExitHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  // 'exit' covers normal exit, process.exit() and uncaught exceptions. Only
  // synchronous work is possible there, which kill() is.
  process.on('exit', killAllAnvils);
  // A signal's default action terminates the process *without* running 'exit'
  // handlers, so SIGINT/SIGTERM are hooked as well. If the application has its own
  // handler (graceful shutdown, which may still need the chain), we stay out of the
  // way: its eventual exit runs the 'exit' hook above. If ours is the only handler,
  // we clean up and re-raise to keep the default "terminate" behaviour.
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    const onSignal = () => {
      if (process.listenerCount(sig) > 1) return;
      killAllAnvils();
      process.off(sig, onSignal);
      process.kill(process.pid, sig);
    };
    process.on(sig, onSignal);
  }
}

async function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** Spawns anvil on a free port and resolves once its RPC answers with chain id 31337. */
async function spawnAnvil(log?: (msg: string) => void): Promise<{ child: ChildProcess; rpcUrl: string }> {
  const bin = resolveAnvilBinary();
  let lastError: unknown;
  // The free port is only free when we probed it; another process may grab it
  // before anvil binds, hence a few attempts.
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freeLoopbackPort();
    const args = ['--host', '127.0.0.1', '--port', String(port), '--chain-id', String(CHAIN_ID), '--mnemonic', ANVIL_MNEMONIC, '--silent'];
    const child = spawn(bin, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    installExitHooks();
    liveAnvils.add(child);
    // Unref'd: a forgotten stop() must not keep a test process alive forever (node's
    // test runner would wait on it); the 'exit' hook then kills anvil.
    child.unref();
    let stderr = '';
    child.stderr?.setEncoding('utf8');
    (child.stderr as (NodeJS.ReadableStream & { unref?: () => void }) | null)?.unref?.();
    child.stderr?.on('data', (d: string) => {
      stderr = (stderr + d).slice(-4000);
    });
    let exited: string | undefined;
    child.once('exit', (code, signal) => {
      exited = `anvil exited (code ${code}, signal ${signal})${stderr ? `: ${stderr.trim()}` : ''}`;
      liveAnvils.delete(child);
    });
    child.once('error', (err) => {
      exited = `anvil failed to start: ${err.message}`;
      liveAnvils.delete(child);
    });

    const rpcUrl = `http://127.0.0.1:${port}`;
    try {
      await waitForRpc(rpcUrl, () => exited);
      log?.(`anvil pid ${child.pid} listening on ${rpcUrl} (chain ${CHAIN_ID})`);
      return { child, rpcUrl };
    } catch (err) {
      lastError = err;
      child.kill('SIGKILL');
      liveAnvils.delete(child);
      log?.(`anvil start attempt ${attempt + 1} failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  throw lastError instanceof Error ? lastError : new Error(String(lastError));
}

async function waitForRpc(rpcUrl: string, exited: () => string | undefined, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const why = exited();
    if (why) throw new Error(why);
    try {
      const res = await fetch(rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
        signal: AbortSignal.timeout(1000),
      });
      const body = (await res.json()) as { result?: string };
      if (body.result !== undefined) {
        // Guard against talking to some other node that happens to own the port.
        if (Number(body.result) !== CHAIN_ID) throw new Error(`node at ${rpcUrl} reports chain ${Number(body.result)}, expected ${CHAIN_ID}`);
        return;
      }
    } catch (err) {
      if (err instanceof Error && err.message.includes('expected')) throw err;
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`anvil RPC at ${rpcUrl} did not answer within ${timeoutMs} ms`);
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // The child is unref'd; re-ref it so this wait itself keeps the event loop alive.
  child.ref();
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 2000);
  await gone;
  clearTimeout(timer);
}

// ---------------------------------------------------------------- the devnet

export async function startDevnet(opts: StartDevnetOptions = {}): Promise<Devnet> {
  const { log } = opts;
  const devUsdc = loadArtifact('DevUSDC');
  const multicall = loadArtifact('Multicall3');

  const deployer = devnetAccount(0);
  const signerCount = opts.facilitator?.signers ?? DEFAULT_SIGNERS;
  if (!Number.isInteger(signerCount) || signerCount < 1 || signerCount > SIGNER_ACCOUNTS.length) {
    throw new Error(`facilitator.signers must be 1..${SIGNER_ACCOUNTS.length}`);
  }
  const extraSigners = SIGNER_ACCOUNTS.slice(1, signerCount).map(devnetAccount);
  const payTo = devnetAccount(1).address;
  const buyers = [2, 3, 4, 5].map(devnetAccount);

  const { child, rpcUrl } = await spawnAnvil(log);
  let facilitator: FacilitatorServer | undefined;
  let svm: SvmDevnet | undefined;
  try {
    const chain = { ...foundry, id: CHAIN_ID, rpcUrls: { default: { http: [rpcUrl] } } };
    const wallet = createWalletClient({
      account: mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: 0 }),
      chain,
      transport: http(rpcUrl),
      pollingInterval: 50,
    }).extend(publicActions);

    // DevUSDC, deployed by account #0 — which thereby becomes its only minter.
    const deployHash = await wallet.deployContract({ abi: devUsdcAbi, bytecode: devUsdc.bytecode });
    const deployReceipt = await wallet.waitForTransactionReceipt({ hash: deployHash });
    if (deployReceipt.status !== 'success' || !deployReceipt.contractAddress) throw new Error('DevUSDC deployment failed');
    // Receipts carry lowercase addresses; hand out the checksummed form.
    const asset = getAddress(deployReceipt.contractAddress);

    // Multicall3 at its canonical address: no deployment transaction exists for it on
    // a fresh chain, so its runtime code is written directly into state.
    await createTestClient({ mode: 'anvil', chain, transport: http(rpcUrl) }).setCode({
      address: MULTICALL3_ADDRESS,
      bytecode: multicall.deployedBytecode,
    });

    for (const b of buyers) {
      const hash = await wallet.writeContract({ address: asset, abi: devUsdcAbi, functionName: 'mint', args: [b.address, BUYER_FUNDING] });
      const r = await wallet.waitForTransactionReceipt({ hash });
      if (r.status !== 'success') throw new Error(`minting to ${b.address} failed`);
    }
    log?.(`DevUSDC at ${asset}; minted ${BUYER_FUNDING} to ${buyers.length} buyers; Multicall3 at ${MULTICALL3_ADDRESS}`);

    // In process and timer-free: an idle Solana devnet costs nothing but memory.
    if (opts.svm ?? true) svm = await startSvmDevnet({ log, confirmationTimeoutMs: opts.confirmationTimeoutMs });

    facilitator = await startFacilitatorServer({
      rpcUrl,
      privateKey: deployer.privateKey,
      extraPrivateKeys: extraSigners.map((a) => a.privateKey),
      network: NETWORK,
      log,
      unref: true,
      confirmationTimeoutMs: opts.confirmationTimeoutMs,
      pollingIntervalMs: opts.facilitator?.pollingIntervalMs,
      ...(svm ? { svm: { network: svm.network, signer: svm.signer } } : {}),
    });

    const chainInstance = await anvilInstanceId(rpcUrl);
    const fac = facilitator;
    const svmDevnet = svm;
    let stopping: Promise<void> | undefined;
    return {
      network: NETWORK,
      chainId: CHAIN_ID,
      chainInstance,
      rpcUrl,
      asset,
      assetName: 'USD Coin',
      assetVersion: '2',
      decimals: 6,
      payTo,
      facilitatorUrl: fac.url,
      facilitatorAddress: deployer.address,
      facilitatorSigners: [deployer.address, ...extraSigners.map((a) => a.address)],
      buyer: buyers[0],
      buyers,
      anvilPid: child.pid ?? -1,
      ...(svmDevnet ? { svm: svmDevnet } : {}),
      stop() {
        stopping ??= (async () => {
          await fac.close();
          await svmDevnet?.stop();
          await stopChild(child);
          liveAnvils.delete(child);
          log?.('devnet stopped');
        })();
        return stopping;
      },
    };
  } catch (err) {
    await facilitator?.close();
    await svm?.stop();
    await stopChild(child);
    liveAnvils.delete(child);
    throw err;
  }
}

// ---------------------------------------------------------------- test helpers

type ChainRef = Pick<Devnet, 'rpcUrl' | 'asset'>;

/** DevUSDC balance (atomic units) of `address`. */
export function balanceOf(devnet: ChainRef, address: Address): Promise<bigint> {
  return erc20BalanceOf(devnet.rpcUrl, devnet.asset, address);
}

/** DevUSDC Transfer logs since genesis (mints included), optionally filtered. */
export function transferLogs(devnet: ChainRef, filter: { from?: Address; to?: Address } = {}): Promise<TransferLog[]> {
  return erc20TransferLogs(devnet.rpcUrl, devnet.asset, filter);
}

/**
 * A buyer no test mnemonic knows: a fresh key holding `atomic` DevUSDC, sent
 * by an ordinary ERC-20 transfer from the last devnet buyer (buyers never send
 * transactions of their own, so this cannot race a settlement's nonce). Its
 * payments count as independent revenue, unlike the published test wallets'.
 */
export async function newIndependentBuyer(devnet: Pick<Devnet, 'rpcUrl' | 'asset' | 'buyers'>, atomic: bigint, privateKey: Hex = generatePrivateKey()): Promise<DevnetAccount> {
  const address = privateKeyToAccount(privateKey).address;
  const from = devnet.buyers[devnet.buyers.length - 1]!;
  const chain = { ...foundry, id: CHAIN_ID, rpcUrls: { default: { http: [devnet.rpcUrl] } } };
  const wallet = createWalletClient({ account: privateKeyToAccount(from.privateKey), chain, transport: http(devnet.rpcUrl), pollingInterval: 50 }).extend(publicActions);
  const hash = await wallet.writeContract({ address: devnet.asset, abi: devUsdcAbi, functionName: 'transfer', args: [address, atomic] });
  if ((await wallet.waitForTransactionReceipt({ hash })).status !== 'success') throw new Error(`funding ${address} failed`);
  return { address, privateKey };
}
