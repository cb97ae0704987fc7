// Embedded Solana devnet for development and tests, beside the EVM one (anvil):
// a litesvm runtime in this process (svm-runtime.ts), Solana JSON-RPC on loopback
// (svm-rpc.ts), USDC at its real devnet mint address, funded buyers, a merchant and
// facilitator fee payers — and a FacilitatorSvmSigner over the runtime, so the
// x402 SVM facilitator settles without an RPC hop.
//
// It claims to be Solana devnet (solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1): the x402
// SVM client and facilitator only accept the three public clusters' ids, and with
// devnet's id and devnet's USDC mint the SDK's defaults (default asset, decimals)
// hold unchanged. Clients reach *this* chain because they are given its rpcUrl.
//
// Nothing here runs unless called: no timers, no polling. The chain catches up with
// wall-clock time whenever it is touched (see svm-runtime.ts).
import { createHash } from 'node:crypto';
import {
  appendTransactionMessageInstructions,
  createKeyPairFromBytes,
  createKeyPairFromPrivateKeyBytes,
  createKeyPairSignerFromBytes,
  createTransactionMessage,
  getAddressEncoder,
  getAddressFromPublicKey,
  getBase64EncodedWireTransaction,
  getTransactionDecoder,
  lamports,
  none,
  partiallySignTransaction,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  some,
  type Address,
  type Blockhash,
  type Instruction,
  type KeyPairSigner,
} from '@solana/kit';
import { getCreateAssociatedTokenIdempotentInstruction, getMintEncoder, getMintSize, getMintToInstruction } from '@solana-program/token';
import { TransactionOnchainFailureError, type FacilitatorSvmSigner } from '@x402/svm';
import { startSvmRpcServer, type SvmRpcServer } from './svm-rpc.js';
import { associatedTokenAddress, decodeTransaction, encodeTransaction, SvmChain, TOKEN_PROGRAM, type LedgerEntry } from './svm-runtime.js';

export const SVM_NETWORK = 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1' as const;
/** USDC's devnet mint address (Circle's), so the network's default USDC is this devnet's token. */
export const SVM_USDC_MINT = '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU';
const DECIMALS = 6;
/** 1,000,000 USDC in atomic units. */
const BUYER_FUNDING = 1_000_000n * 10n ** 6n;
const LAMPORTS_PER_SOL = 1_000_000_000n;
const FEE_PAYERS = 2;
const BUYERS = 4;
const DEFAULT_CONFIRMATION_TIMEOUT_MS = 2000;

export interface SvmDevnetAccount {
  address: string;
  /** 64-byte ed25519 secret key (seed ‖ public key), as Solana keypair files hold it */
  secretKey: Uint8Array;
}

export interface SvmFaults {
  /** From now on sent transactions are accepted (signature returned) but wait in a queue, unprocessed. */
  hold(): void;
  /** Processes the queued transactions now; those whose blockhash expired are dropped. Returns the signatures that landed. */
  landHeld(): string[];
  /** Discards the queued transactions: they never land. */
  dropHeld(): void;
  /** Stops holding: sends are processed at once again (anything queued stays queued). */
  release(): void;
  /** Makes every blockhash issued so far invalid at once. */
  expireBlockhashes(): void;
}

export interface SvmDevnet {
  /** Solana devnet's CAIP-2 id: the @x402/svm client only accepts mainnet/devnet/testnet ids; a custom rpcUrl points it here. */
  network: typeof SVM_NETWORK;
  /** http://127.0.0.1:<port>, JSON-RPC 2.0, loopback only. */
  rpcUrl: string;
  /** USDC's devnet mint address; SPL Token (classic), 6 decimals; its mint authority is a devnet key. */
  mint: string;
  decimals: 6;
  /** Merchant wallet (owner); its associated token account exists from the start with 0 USDC. */
  payTo: string;
  payToTokenAccount: string;
  /** Facilitator fee payers (funded with SOL). */
  feePayers: string[];
  /** Four buyers, each with SOL and 1,000,000 USDC in their associated token account. */
  buyers: SvmDevnetAccount[];
  /** A signer over this runtime for @x402/svm's exact facilitator scheme (`new ExactSvmScheme(signer)`). */
  signer: FacilitatorSvmSigner;
  /** Token balance (atomic) of an owner's associated token account for `mint` (0n when it does not exist). */
  tokenBalance(owner: string): bigint;
  faults: SvmFaults;
  stop(): Promise<void>;
}

export interface StartSvmDevnetOptions {
  log?: (m: string) => void;
  /**
   * How long signer.confirmTransaction waits for a transaction to land before
   * throwing (the SDK then answers `settlement_pending`). Default 2000 ms.
   */
  confirmationTimeoutMs?: number;
}

// ---------------------------------------------------------------- keys

/**
 * A fixed, publicly known test key per role (like anvil's mnemonic accounts): the
 * ed25519 seed is SHA-256 of a label. Never use these anywhere real.
 */
export async function svmDevnetAccount(role: string): Promise<SvmDevnetAccount> {
  const seed = createHash('sha256').update(`x402 svm devnet key: ${role}`).digest();
  const pair = await createKeyPairFromPrivateKeyBytes(seed, true);
  const address = await getAddressFromPublicKey(pair.publicKey);
  const secretKey = new Uint8Array(64);
  secretKey.set(seed, 0);
  secretKey.set(getAddressEncoder().encode(address), 32);
  return { address, secretKey };
}

// ---------------------------------------------------------------- genesis

/** Processes a transaction built and signed here through the chain; it must land and succeed. */
async function runSetupTransaction(chain: SvmChain, payer: KeyPairSigner, instructions: Instruction[]): Promise<LedgerEntry> {
  const { blockhash, lastValidBlockHeight } = chain.latestBlockhash();
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(payer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: blockhash as Blockhash, lastValidBlockHeight }, m),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  const tx = await signTransactionMessageWithSigners(message);
  const outcome = chain.submit(decodeTransaction(encodeTransaction(tx)));
  if (outcome.kind !== 'landed' || outcome.entry.err !== null) {
    throw new Error(`devnet setup transaction failed: ${JSON.stringify(outcome.kind === 'landed' ? outcome.entry.err : outcome)}`);
  }
  return outcome.entry;
}

function airdrop(chain: SvmChain, to: string, sol: bigint): void {
  // litesvm's airdrop is a real system transfer from its own faucet account (it is
  // not in our ledger: it happened "before genesis" as far as the RPC is concerned).
  const r = chain.svm.airdrop(to as Address, lamports(sol * LAMPORTS_PER_SOL));
  if (!r || r.constructor.name === 'FailedTransactionMetadata') throw new Error(`airdrop to ${to} failed`);
}

// ---------------------------------------------------------------- the devnet

export async function startSvmDevnet(opts: StartSvmDevnetOptions = {}): Promise<SvmDevnet> {
  const { log } = opts;
  const confirmationTimeoutMs = opts.confirmationTimeoutMs ?? DEFAULT_CONFIRMATION_TIMEOUT_MS;
  const mintAuthority = await svmDevnetAccount('mint-authority');
  const payTo = await svmDevnetAccount('pay-to');
  const feePayers = await Promise.all(Array.from({ length: FEE_PAYERS }, (_, i) => svmDevnetAccount(`fee-payer-${i}`)));
  const buyers = await Promise.all(Array.from({ length: BUYERS }, (_, i) => svmDevnetAccount(`buyer-${i}`)));

  const chain = new SvmChain();
  for (const a of [mintAuthority, ...feePayers]) airdrop(chain, a.address, 1000n);
  for (const a of [payTo, ...buyers]) airdrop(chain, a.address, 10n);

  // The mint is written into state directly: its address is Circle's devnet mint,
  // whose key nobody here has, so no transaction could create it. Everything after
  // (token accounts, supply) goes through ordinary transactions.
  const mintData = getMintEncoder().encode({
    mintAuthority: some(mintAuthority.address as Address),
    supply: 0n,
    decimals: DECIMALS,
    isInitialized: true,
    freezeAuthority: none(),
  });
  chain.svm.setAccount({
    address: SVM_USDC_MINT as Address,
    executable: false,
    lamports: lamports(chain.svm.minimumBalanceForRentExemption(BigInt(getMintSize()))),
    programAddress: TOKEN_PROGRAM as Address,
    space: BigInt(mintData.length),
    data: new Uint8Array(mintData),
  });

  const authority = await createKeyPairSignerFromBytes(mintAuthority.secretKey);
  const mint = SVM_USDC_MINT as Address;
  const createAta = (owner: string) =>
    getCreateAssociatedTokenIdempotentInstruction({ payer: authority, ata: associatedTokenAddress(owner, SVM_USDC_MINT) as Address, owner: owner as Address, mint });
  await runSetupTransaction(chain, authority, [createAta(payTo.address)]);
  for (const b of buyers) {
    const token = associatedTokenAddress(b.address, SVM_USDC_MINT) as Address;
    await runSetupTransaction(chain, authority, [createAta(b.address), getMintToInstruction({ mint, token, mintAuthority: authority, amount: BUYER_FUNDING })]);
  }

  const rpc: SvmRpcServer = await startSvmRpcServer({ chain, log });
  const tokenBalance = (owner: string) => chain.tokenAccount(associatedTokenAddress(owner, SVM_USDC_MINT))?.amount ?? 0n;
  const confirmations = confirmationWaiters(chain, confirmationTimeoutMs);
  const signer = await facilitatorSigner(chain, feePayers, confirmations.wait);
  log?.(`svm devnet on ${rpc.url} (${SVM_NETWORK}); USDC ${SVM_USDC_MINT}; fee payers ${feePayers.map((f) => f.address).join(', ')}`);

  let stopping: Promise<void> | undefined;
  return {
    network: SVM_NETWORK,
    rpcUrl: rpc.url,
    mint: SVM_USDC_MINT,
    decimals: DECIMALS,
    payTo: payTo.address,
    payToTokenAccount: associatedTokenAddress(payTo.address, SVM_USDC_MINT),
    feePayers: feePayers.map((f) => f.address),
    buyers,
    signer,
    tokenBalance,
    faults: {
      hold: () => chain.hold(),
      landHeld: () => chain.landHeld(),
      dropHeld: () => chain.dropHeld(),
      release: () => chain.release(),
      expireBlockhashes: () => chain.expireBlockhashes(),
    },
    stop() {
      stopping ??= (async () => {
        chain.dropHeld();
        confirmations.cancelAll();
        await rpc.close();
        log?.('svm devnet stopped');
      })();
      return stopping;
    },
  };
}

// ---------------------------------------------------------------- confirmation

/**
 * Waiting for a signature to land, without polling: the chain announces every
 * landing, and a waiter settles on it or on its own timeout (one timer per wait,
 * cleared when it settles).
 */
function confirmationWaiters(chain: SvmChain, timeoutMs: number) {
  const pending = new Set<{ fail: (e: Error) => void }>();
  const settleOn = (entry: LedgerEntry): void => {
    if (entry.err !== null) throw new TransactionOnchainFailureError(`Transaction failed onchain: ${JSON.stringify(entry.err)}`);
  };
  return {
    wait(signature: string): Promise<void> {
      const landed = chain.transaction(signature);
      if (landed) return Promise.resolve().then(() => settleOn(landed));
      return new Promise<void>((resolve, reject) => {
        const waiter = {
          fail: (e: Error) => {
            done();
            reject(e);
          },
        };
        const unsubscribe = chain.onLanded((entry) => {
          if (entry.signature !== signature) return;
          done();
          try {
            settleOn(entry);
            resolve();
          } catch (e) {
            reject(e);
          }
        });
        const timer = setTimeout(() => waiter.fail(new Error(`Transaction confirmation timeout: ${signature} not landed after ${timeoutMs} ms`)), timeoutMs);
        function done() {
          clearTimeout(timer);
          unsubscribe();
          pending.delete(waiter);
        }
        pending.add(waiter);
      });
    },
    cancelAll(): void {
      for (const w of [...pending]) w.fail(new Error('svm devnet stopped'));
    },
  };
}

// ---------------------------------------------------------------- facilitator signer

async function facilitatorSigner(chain: SvmChain, feePayers: SvmDevnetAccount[], waitLanded: (signature: string) => Promise<void>): Promise<FacilitatorSvmSigner> {
  const keys = new Map<string, CryptoKeyPair>();
  for (const f of feePayers) keys.set(f.address, await createKeyPairFromBytes(f.secretKey));
  const checkNetwork = (network: string) => {
    if (network !== SVM_NETWORK) throw new Error(`svm devnet serves ${SVM_NETWORK}, not ${network}`);
  };
  const decode = (base64: string) => decodeTransaction(new Uint8Array(Buffer.from(base64, 'base64')));
  const simulate = (base64: string, options?: { sigVerify?: boolean; replaceRecentBlockhash?: boolean }) => {
    const sim = chain.simulate(decode(base64), { sigVerify: options?.sigVerify ?? false, replaceRecentBlockhash: options?.replaceRecentBlockhash ?? false });
    if (sim.err !== null) throw new Error(`Simulation failed: ${JSON.stringify(sim.err)}${sim.logs.length ? `; logs: ${sim.logs.join(' | ')}` : ''}`);
    return sim;
  };

  return {
    getAddresses: () => feePayers.map((f) => f.address as Address),
    async signTransaction(transaction, feePayer, network) {
      checkNetwork(network);
      const key = keys.get(feePayer);
      if (!key) throw new Error(`No signer for feePayer ${feePayer}. Available: ${[...keys.keys()].join(', ')}`);
      const tx = getTransactionDecoder().decode(new Uint8Array(Buffer.from(transaction, 'base64')));
      // Adds our signature beside the buyer's; throws if feePayer is not a signer of the message.
      const signed = await partiallySignTransaction([key], tx);
      return getBase64EncodedWireTransaction(signed);
    },
    async simulateTransaction(transaction, network, options) {
      checkNetwork(network);
      simulate(transaction, options);
    },
    // As the SDK's own signer does: broadcast without preflight (verify already
    // simulated). A transaction that cannot land is accepted and never confirms.
    async sendTransaction(transaction, network) {
      checkNetwork(network);
      const outcome = chain.submit(decode(transaction));
      return outcome.kind === 'landed' ? outcome.entry.signature : outcome.signature;
    },
    async confirmTransaction(signature, network) {
      checkNetwork(network);
      await waitLanded(signature);
    },
    async simulateTransactionWithInnerInstructions(transaction, network) {
      checkNetwork(network);
      return { innerInstructions: simulate(transaction).innerInstructions };
    },
    async getConfirmedTransactionInnerInstructions(signature, network) {
      checkNetwork(network);
      const e = chain.transaction(signature);
      return e ? { innerInstructions: e.innerInstructions } : null;
    },
    async getTokenAccountBalance(tokenAccountAddress, network) {
      checkNetwork(network);
      return chain.tokenAccount(tokenAccountAddress)?.amount ?? null;
    },
    async getAccountInfo(accountAddress, network) {
      checkNetwork(network);
      const a = chain.account(accountAddress);
      return a ? { data: [Buffer.from(a.data).toString('base64'), 'base64'], owner: a.owner, lamports: a.lamports } : null;
    },
    async getLatestBlockhash(network) {
      checkNetwork(network);
      const { blockhash, lastValidBlockHeight } = chain.latestBlockhash();
      return { blockhash, lastValidBlockHeight };
    },
    async getSlot(network) {
      checkNetwork(network);
      return chain.currentSlot();
    },
  };
}
