// A small x402 facilitator over HTTP, built on the SDK's own facilitator logic.
//
// The SDK ships `x402Facilitator` + `ExactEvmScheme` (verify/settle against a chain)
// but no HTTP server, so this file adds the three routes that `HTTPFacilitatorClient`
// talks to. It is generic (any EVM RPC, any CAIP-2 `eip155:<id>` network, any
// EIP-3009 token); the devnet runs it against anvil.
//
// HTTP status contract, chosen to match what HTTPFacilitatorClient expects:
//   200 + VerifyResponse / SettleResponse  for every *answer*, including isValid:false
//       and success:false, so the client returns them instead of throwing;
//   400 + VerifyResponse / SettleResponse  when the request itself is malformed
//       (the client throws VerifyError / SettleError carrying statusCode 400);
//   500 + VerifyResponse / SettleResponse  when the facilitator itself failed
//       (RPC down, ...), which the client also surfaces as VerifyError / SettleError.
import { AsyncLocalStorage } from 'node:async_hooks';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { readBody } from './request-body.js';
import type { AddressInfo } from 'node:net';
import { x402Facilitator } from '@x402/core/facilitator';
import { isPaymentPayload, isPaymentRequirements } from '@x402/core/schemas';
import type { Network, PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { toFacilitatorEvmSigner } from '@x402/evm';
import { ExactEvmScheme } from '@x402/evm/exact/facilitator';
import type { FacilitatorSvmSigner } from '@x402/svm';
import { ExactSvmScheme } from '@x402/svm/exact/facilitator';
import { createWalletClient, defineChain, publicActions, type Abi, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { nodeHttpTransport } from './rpc-transport.js';

export interface FacilitatorServerOptions {
  /** JSON-RPC endpoint of the chain to settle on. */
  rpcUrl: string;
  /** Key of the account that pays gas and submits `transferWithAuthorization`. */
  privateKey: Hex;
  /**
   * More funded keys that submit settlements too. Settlements go round-robin
   * over `privateKey` and these; each key keeps its own serial submission
   * queue (its nonces never race), so N keys broadcast N settlements at once.
   */
  extraPrivateKeys?: Hex[];
  /** CAIP-2 network served, e.g. 'eip155:31337'. */
  network: Network;
  /** 0 or omitted: pick a free port. */
  port?: number;
  /** Default 127.0.0.1 (loopback only: this facilitator holds a funded key and has no auth). */
  host?: string;
  /** Optional one-line request log. */
  log?: (msg: string) => void;
  /**
   * Receipt polling interval. viem's default (4 s) would make every devnet
   * settle slow. Default: 25 ms when the RPC is on loopback (a local node
   * answers in well under a millisecond and anvil mines each transaction at
   * once, so the poll *is* the settle latency), 250 ms otherwise.
   */
  pollingIntervalMs?: number;
  /** Bound on waiting for a settlement receipt (SDK default: 180 s). */
  confirmationTimeoutMs?: number;
  /** Don't let the listening socket alone keep the process alive (used by the devnet). */
  unref?: boolean;
  /**
   * Also settle Solana payments (the exact scheme) on `network` through `signer`,
   * on the same facilitator, so one server serves both chains as CDP's does;
   * /supported then lists the solana kind with `extra.feePayer`.
   */
  svm?: { network: string; signer: FacilitatorSvmSigner };
}

export interface FacilitatorServer {
  url: string;
  close(): Promise<void>;
}


export async function startFacilitatorServer(opts: FacilitatorServerOptions): Promise<FacilitatorServer> {
  const { rpcUrl, privateKey, network, log } = opts;
  const chainId = parseEip155ChainId(network);
  const pollingInterval = opts.pollingIntervalMs ?? (isLoopbackUrl(rpcUrl) ? 25 : 250);

  // The wallet client needs a chain object to sign EIP-155 transactions; a minimal
  // one built from the CAIP-2 id keeps this usable beyond the devnet.
  const chain = defineChain({
    id: chainId,
    name: network,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });

  // One lane per key. viem reads the account's nonce from the node for every
  // transaction, so two settlements submitted concurrently from one account
  // could pick the same nonce and one would be rejected or replace the other.
  // Each lane therefore serializes its own submissions (only the broadcast is
  // queued; receipts are awaited in parallel), and lanes run side by side.
  // All lanes share one pool of keep-alive sockets to the node.
  const rpc = nodeHttpTransport(rpcUrl);
  const lanes = [privateKey, ...(opts.extraPrivateKeys ?? [])].map((key) => {
    const account = privateKeyToAccount(key);
    const client = createWalletClient({ account, chain, transport: rpc.transport, pollingInterval }).extend(publicActions);
    return { account, client, submit: serialQueue() };
  });
  if (new Set(lanes.map((l) => l.account.address)).size !== lanes.length) throw new Error('facilitator signer keys must be distinct');
  const account = lanes[0]!.account;
  const client = lanes[0]!.client;
  let turn = 0;
  /** The next lane, round-robin: a settlement's one broadcast goes through exactly one lane. */
  const lane = () => lanes[turn++ % lanes.length]!;

  // The SDK reads the payer's code twice per verification (once to classify
  // an ERC-6492 signature, once to choose ECDSA or ERC-1271), and /settle
  // verifies again before broadcasting. Within one /verify or /settle request
  // the two reads are milliseconds apart and mean the same thing, so they share
  // one eth_getCode. The memo lives only as long as the request and is dropped
  // before anything is broadcast (a settlement may deploy a smart wallet first).
  const requestScope = new AsyncLocalStorage<Map<string, Promise<Hex | undefined>>>();
  const getCode = (args: { address: Hex }): Promise<Hex | undefined> => {
    const memo = requestScope.getStore();
    if (!memo) return client.getCode(args);
    const key = args.address.toLowerCase();
    let code = memo.get(key);
    if (!code) {
      code = client.getCode(args);
      memo.set(key, code);
      // A failed read is not remembered: the next caller asks the node again.
      code.catch(() => memo.delete(key));
    }
    return code;
  };
  const forgetReads = () => requestScope.getStore()?.clear();

  const signer = {
    ...toFacilitatorEvmSigner(
      {
        address: account.address,
        readContract: (args) => client.readContract({ ...args, abi: args.abi as Abi, args: args.args as unknown[] }),
        verifyTypedData: (args) =>
          client.verifyTypedData(args as unknown as Parameters<typeof client.verifyTypedData>[0]),
        writeContract: (args) => {
          forgetReads();
          const l = lane();
          return l.submit(() =>
            l.client.writeContract({
              ...args,
              abi: args.abi as Abi,
              args: args.args as unknown[],
            } as unknown as Parameters<typeof l.client.writeContract>[0]),
          );
        },
        sendTransaction: (args) => {
          forgetReads();
          const l = lane();
          return l.submit(() => l.client.sendTransaction(args));
        },
        waitForTransactionReceipt: (args) => client.waitForTransactionReceipt(args),
        getCode,
      },
      opts.confirmationTimeoutMs !== undefined ? { confirmationTimeoutMs: opts.confirmationTimeoutMs } : {},
    ),
    // Every submitting address, for /supported's `signers`.
    getAddresses: () => lanes.map((l) => l.account.address),
  };

  const facilitator = new x402Facilitator().register(network, new ExactEvmScheme(signer));
  if (opts.svm) facilitator.register(opts.svm.network as Network, new ExactSvmScheme(opts.svm.signer));

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      // Last resort: handle() answers its own errors; this only fires on a bug.
      log?.(`facilitator: unhandled ${errorMessage(err)}`);
      if (!res.headersSent) sendJson(res, 500, { error: 'internal_error' });
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    const started = Date.now();
    const done = (status: number, detail: string) =>
      log?.(`facilitator ${req.method} ${path} -> ${status} ${detail} (${Date.now() - started} ms)`);

    if (req.method === 'GET' && path === '/supported') {
      sendJson(res, 200, facilitator.getSupported());
      done(200, '');
      return;
    }
    if (req.method === 'GET' && path === '/health') {
      sendJson(res, 200, { ok: true, network, signer: account.address, signers: lanes.map((l) => l.account.address) });
      return;
    }
    if (req.method !== 'POST' || (path !== '/verify' && path !== '/settle')) {
      sendJson(res, 404, { error: 'not_found' });
      done(404, '');
      return;
    }

    const isVerify = path === '/verify';
    const parsed = await readRequest(req);
    if (!parsed.ok) {
      const body = isVerify
        ? { isValid: false, invalidReason: 'invalid_request', invalidMessage: parsed.error }
        : { success: false, errorReason: 'invalid_request', errorMessage: parsed.error, transaction: '', network: parsed.network ?? '' };
      sendJson(res, 400, body);
      done(400, parsed.error);
      return;
    }
    const { paymentPayload, paymentRequirements } = parsed;

    if (isVerify) {
      try {
        const result = await requestScope.run(new Map(), () => facilitator.verify(paymentPayload, paymentRequirements));
        sendJson(res, 200, result);
        done(200, result.isValid ? 'valid' : `invalid: ${result.invalidReason ?? ''}`);
      } catch (err) {
        // Thrown (not returned) errors are the facilitator's own failures or an
        // unsupported scheme/network/version.
        sendJson(res, 500, { isValid: false, invalidReason: 'unexpected_verify_error', invalidMessage: errorMessage(err) });
        done(500, errorMessage(err));
      }
      return;
    }

    // Settlement keeps going even if the caller disconnects: once the transfer is
    // broadcast it happens regardless, and the caller must reconcile via the chain.
    try {
      const result = await requestScope.run(new Map(), () => facilitator.settle(paymentPayload, paymentRequirements));
      sendJson(res, 200, result);
      done(200, result.success ? `settled ${result.transaction}` : `failed: ${result.errorReason ?? ''}`);
    } catch (err) {
      sendJson(res, 500, {
        success: false,
        errorReason: 'unexpected_settle_error',
        errorMessage: errorMessage(err),
        transaction: '',
        network: paymentRequirements.network,
      });
      done(500, errorMessage(err));
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  if (opts.unref) server.unref();
  const addr = server.address() as AddressInfo;
  const hostForUrl = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  const url = `http://${hostForUrl}:${addr.port}`;
  if (opts.svm) log?.(`facilitator also settles ${opts.svm.network} (fee payers ${opts.svm.signer.getAddresses().join(', ')})`);
  log?.(`facilitator listening on ${url} for ${network} (signers ${lanes.map((l) => l.account.address).join(', ')}; receipts polled every ${pollingInterval} ms)`);

  let closing: Promise<void> | undefined;
  return {
    url,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Keep-alive sockets (fetch pools them) would otherwise hold close() open.
        server.closeAllConnections();
      }).finally(() => rpc.close());
      return closing;
    },
  };
}

// ---------------------------------------------------------------- helpers

type ParsedRequest =
  | { ok: true; paymentPayload: PaymentPayload; paymentRequirements: PaymentRequirements }
  | { ok: false; error: string; network?: string };

async function readRequest(req: IncomingMessage): Promise<ParsedRequest> {
  let raw: string;
  try {
    raw = await readBody(req);
  } catch (err) {
    return { ok: false, error: errorMessage(err) };
  }
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    return { ok: false, error: 'body is not valid JSON' };
  }
  if (typeof body !== 'object' || body === null) return { ok: false, error: 'body must be a JSON object' };
  const { paymentPayload, paymentRequirements } = body as Record<string, unknown>;
  const network =
    typeof paymentRequirements === 'object' && paymentRequirements !== null
      ? String((paymentRequirements as Record<string, unknown>).network ?? '')
      : undefined;
  // The SDK's zod schemas check the envelope; the originals (not the parsed copies,
  // which strip unknown keys such as extensions) are what gets passed on.
  if (!isPaymentPayload(paymentPayload)) return { ok: false, error: 'paymentPayload is missing or malformed', network };
  if (!isPaymentRequirements(paymentRequirements)) {
    return { ok: false, error: 'paymentRequirements is missing or malformed', network };
  }
  // The schemes dereference payload.payload without checking it; reject early instead of throwing a TypeError.
  const inner = (paymentPayload as { payload?: unknown }).payload;
  if (typeof inner !== 'object' || inner === null) return { ok: false, error: 'paymentPayload.payload must be an object', network };
  return {
    ok: true,
    paymentPayload: paymentPayload as PaymentPayload,
    paymentRequirements: paymentRequirements as PaymentRequirements,
  };
}


function sendJson(res: ServerResponse, status: number, body: unknown): void {
  // bigint can appear in SDK results; JSON has no bigint, the x402 wire format uses decimal strings.
  // A replacer makes every stringify take V8's slow path, so it is only used when needed.
  let text: string;
  try {
    text = JSON.stringify(body);
  } catch {
    text = JSON.stringify(body, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
  }
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(text);
}

/** 'eip155:31337' -> 31337. Throws on anything that is not an EVM CAIP-2 id. */
export function parseEip155ChainId(network: string): number {
  const m = /^eip155:(\d+)$/.exec(network);
  const id = m ? Number(m[1]) : NaN;
  if (!Number.isSafeInteger(id) || id <= 0) throw new Error(`not an eip155 network: ${network}`);
  return id;
}

/** True for an RPC on this machine (127.0.0.0/8, ::1, localhost). */
function isLoopbackUrl(url: string): boolean {
  try {
    const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
    return host === 'localhost' || host === '::1' || /^127\./.test(host);
  } catch {
    return false;
  }
}

/** Runs async tasks one at a time, in call order. */
function serialQueue(): <T>(task: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(task: () => Promise<T>) => {
    const run = tail.then(task, task);
    tail = run.catch(() => undefined);
    return run;
  };
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
