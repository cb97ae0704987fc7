// Solana JSON-RPC 2.0 over the embedded chain, on loopback: the subset a wallet,
// @solana/kit's createSolanaRpc and the x402 SVM client and facilitator use, in the
// exact response shapes of an agave node (context-wrapped where agave wraps; u64s as
// bare JSON numbers, which kit parses into bigints; errors as JSON-RPC error objects
// with agave's codes).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { readBody } from './request-body.js';
import type { AddressInfo, Socket } from 'node:net';
import { isAddress } from '@solana/kit';
import {
  base58,
  decodeTransaction,
  describeTxError,
  uiAmount,
  type DecodedTx,
  type LedgerEntry,
  type SvmChain,
} from './svm-runtime.js';


/** Solana devnet's genesis hash: the devnet's CAIP-2 id is its first 32 characters. */
export const DEVNET_GENESIS_HASH = 'EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG';

// agave's JSON-RPC error codes (rpc-client-api/src/custom_error.rs) and JSON-RPC 2.0's own.
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const METHOD_NOT_FOUND = -32601;
const INVALID_PARAMS = -32602;
const SEND_TRANSACTION_PREFLIGHT_FAILURE = -32002;
const TRANSACTION_SIGNATURE_VERIFICATION_FAILURE = -32003;
const UNSUPPORTED_TRANSACTION_VERSION = -32015;

class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

export interface SvmRpcServer {
  url: string;
  close(): Promise<void>;
}

type Params = unknown[];
type Handler = (params: Params) => unknown;

export interface SvmRpcOptions {
  chain: SvmChain;
  log?: (msg: string) => void;
}

export async function startSvmRpcServer(opts: SvmRpcOptions): Promise<SvmRpcServer> {
  const methods = rpcMethods(opts.chain);
  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      opts.log?.(`svm rpc: unhandled ${err instanceof Error ? err.message : String(err)}`);
      if (!res.headersSent) send(res, 500, { jsonrpc: '2.0', id: null, error: { code: -32603, message: 'Internal error' } });
      else res.destroy();
    });
  });
  // Neither the listener nor an idle keep-alive connection may keep the process
  // alive: a test that forgets stop() must still exit. A request in flight is kept
  // alive by its client's socket.
  server.on('connection', (socket: Socket) => socket.unref());

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'POST') {
      send(res, 405, { jsonrpc: '2.0', id: null, error: { code: INVALID_REQUEST, message: 'Invalid request: use POST' } });
      return;
    }
    let raw: string;
    try {
      raw = await readBody(req);
    } catch {
      send(res, 413, { jsonrpc: '2.0', id: null, error: { code: INVALID_REQUEST, message: 'Invalid request: body too large' } });
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      send(res, 200, { jsonrpc: '2.0', id: null, error: { code: PARSE_ERROR, message: 'Parse error' } });
      return;
    }
    if (Array.isArray(body)) {
      send(res, 200, body.length === 0 ? { jsonrpc: '2.0', id: null, error: { code: INVALID_REQUEST, message: 'Invalid request' } } : body.map(call));
    } else {
      send(res, 200, call(body));
    }
  }

  function call(request: unknown): unknown {
    const r = (typeof request === 'object' && request !== null ? request : {}) as { id?: unknown; method?: unknown; params?: unknown; jsonrpc?: unknown };
    const id = r.id ?? null;
    if (r.jsonrpc !== '2.0' || typeof r.method !== 'string') return { jsonrpc: '2.0', id, error: { code: INVALID_REQUEST, message: 'Invalid request' } };
    const handler = Object.hasOwn(methods, r.method) ? methods[r.method] : undefined;
    if (!handler) return { jsonrpc: '2.0', id, error: { code: METHOD_NOT_FOUND, message: 'Method not found' } };
    const params = r.params === undefined ? [] : r.params;
    if (!Array.isArray(params)) return { jsonrpc: '2.0', id, error: { code: INVALID_PARAMS, message: 'Invalid params: expected an array' } };
    try {
      const result = handler(params);
      return { jsonrpc: '2.0', result, id };
    } catch (err) {
      if (err instanceof RpcError) {
        return { jsonrpc: '2.0', error: err.data === undefined ? { code: err.code, message: err.message } : { code: err.code, message: err.message, data: err.data }, id };
      }
      return { jsonrpc: '2.0', error: { code: INVALID_PARAMS, message: `Invalid params: ${err instanceof Error ? err.message : String(err)}` }, id };
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.unref();
  const { port } = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

// ---------------------------------------------------------------- methods

function rpcMethods(chain: SvmChain): Record<string, Handler> {
  const context = () => ({ slot: chain.currentSlot(), apiVersion: '2.2.0' });
  const wrap = (value: unknown) => ({ context: context(), value });

  return {
    getHealth: () => 'ok',
    // What this node is, honestly: litesvm behind an agave-shaped RPC.
    getVersion: () => ({ 'solana-core': '2.2.0-litesvm', 'feature-set': 0 }),
    // The devnet's genesis hash: the network id this chain claims (see svm-devnet.ts).
    getGenesisHash: () => DEVNET_GENESIS_HASH,
    getSlot: () => chain.currentSlot(),
    getBlockHeight: () => chain.blockHeight(),
    getEpochInfo: () => {
      const slot = chain.currentSlot();
      const sched = chain.svm.getEpochSchedule();
      const epoch = chain.svm.getClock().epoch;
      const first = sched.firstNormalSlot + (epoch - sched.firstNormalEpoch) * sched.slotsPerEpoch;
      return { absoluteSlot: slot, blockHeight: slot, epoch, slotIndex: slot - first, slotsInEpoch: sched.slotsPerEpoch, transactionCount: BigInt(chain.transactionCount()) };
    },
    getLatestBlockhash: () => {
      const { blockhash, lastValidBlockHeight } = chain.latestBlockhash();
      return wrap({ blockhash, lastValidBlockHeight });
    },
    isBlockhashValid: ([blockhash]) => {
      if (typeof blockhash !== 'string') throw new RpcError(INVALID_PARAMS, 'Invalid params: blockhash must be a string');
      return wrap(chain.isBlockhashValid(blockhash));
    },
    getMinimumBalanceForRentExemption: ([size]) => {
      if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0) throw new RpcError(INVALID_PARAMS, 'Invalid params: size must be a non-negative integer');
      return chain.svm.minimumBalanceForRentExemption(BigInt(size));
    },
    getBalance: ([address]) => wrap(chain.lamports(addressParam(address))),
    getAccountInfo: ([address, config]) => wrap(accountJson(chain, addressParam(address), accountConfig(config))),
    getMultipleAccounts: ([addresses, config]) => {
      if (!Array.isArray(addresses) || addresses.length > 100) throw new RpcError(INVALID_PARAMS, 'Invalid params: expected up to 100 addresses');
      const cfg = accountConfig(config);
      return wrap(addresses.map((a) => accountJson(chain, addressParam(a), cfg)));
    },
    getTokenAccountBalance: ([address]) => {
      const t = chain.tokenAccount(addressParam(address));
      if (!t) throw new RpcError(INVALID_PARAMS, 'Invalid param: could not find account');
      return wrap(uiAmount(t.amount, chain.mintAccount(t.mint)?.decimals ?? 0));
    },
    sendTransaction: ([wire, config]) => sendTransaction(chain, wire, (config ?? {}) as SendConfig),
    simulateTransaction: ([wire, config]) => {
      const cfg = (config ?? {}) as { encoding?: string; sigVerify?: boolean; replaceRecentBlockhash?: boolean; innerInstructions?: boolean };
      if (cfg.sigVerify && cfg.replaceRecentBlockhash) throw new RpcError(INVALID_PARAMS, 'Invalid params: sigVerify may not be used with replaceRecentBlockhash');
      const decoded = transactionParam(wire, cfg.encoding);
      const sim = chain.simulate(decoded, { sigVerify: cfg.sigVerify ?? false, replaceRecentBlockhash: cfg.replaceRecentBlockhash ?? false });
      return wrap({
        err: sim.err,
        logs: sim.logs,
        accounts: null,
        unitsConsumed: sim.unitsConsumed,
        returnData: null,
        ...(cfg.innerInstructions ? { innerInstructions: sim.innerInstructions } : {}),
        ...(cfg.replaceRecentBlockhash ? { replacementBlockhash: (({ blockhash, lastValidBlockHeight }) => ({ blockhash, lastValidBlockHeight }))(chain.latestBlockhash()) } : {}),
      });
    },
    getSignatureStatuses: ([signatures]) => {
      if (!Array.isArray(signatures) || signatures.length > 256) throw new RpcError(INVALID_PARAMS, 'Invalid params: expected up to 256 signatures');
      return wrap(
        signatures.map((s) => {
          const e = typeof s === 'string' ? chain.transaction(s) : undefined;
          if (!e) return null;
          return { slot: e.slot, confirmations: null, err: e.err, confirmationStatus: 'finalized', status: e.err === null ? { Ok: null } : { Err: e.err } };
        }),
      );
    },
    getSignaturesForAddress: ([address, config]) => {
      const cfg = (config ?? {}) as { limit?: number; before?: string; until?: string };
      const limit = cfg.limit ?? 1000;
      if (!Number.isSafeInteger(limit) || limit < 1 || limit > 1000) throw new RpcError(INVALID_PARAMS, 'Invalid limit; max 1000');
      let list = chain.history(addressParam(address));
      if (cfg.before) {
        const i = list.findIndex((e) => e.signature === cfg.before);
        list = i < 0 ? [] : list.slice(i + 1);
      }
      if (cfg.until) {
        const i = list.findIndex((e) => e.signature === cfg.until);
        if (i >= 0) list = list.slice(0, i);
      }
      return list.slice(0, limit).map((e) => ({ signature: e.signature, slot: e.slot, err: e.err, memo: null, blockTime: e.blockTime, confirmationStatus: 'finalized' }));
    },
    getTransaction: ([signature, config]) => {
      const cfg = (typeof config === 'string' ? { encoding: config } : (config ?? {})) as { encoding?: string; maxSupportedTransactionVersion?: number };
      if (typeof signature !== 'string') throw new RpcError(INVALID_PARAMS, 'Invalid params: signature must be a string');
      const e = chain.transaction(signature);
      if (!e) return null;
      if (e.version === 0 && cfg.maxSupportedTransactionVersion === undefined) {
        throw new RpcError(
          UNSUPPORTED_TRANSACTION_VERSION,
          'Transaction version (0) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": 0',
        );
      }
      return transactionJson(e, cfg.encoding ?? 'json');
    },
  };
}

// ---------------------------------------------------------------- sendTransaction

interface SendConfig {
  encoding?: string;
  skipPreflight?: boolean;
  preflightCommitment?: string;
}

/**
 * agave's sendTransaction: decode, verify signatures, run the preflight simulation
 * unless skipPreflight, then broadcast and answer the signature at once. Whether it
 * later lands is for getSignatureStatuses to tell: with skipPreflight a transaction
 * that cannot land (expired blockhash, unfunded fee payer) is still accepted, and
 * simply never appears.
 */
function sendTransaction(chain: SvmChain, wire: unknown, cfg: SendConfig): string {
  const decoded = transactionParam(wire, cfg.encoding ?? 'base58');
  if (!cfg.skipPreflight) {
    const known = chain.transaction(decoded.signature);
    if (known) throw preflightError({ err: 'AlreadyProcessed', logs: [], unitsConsumed: 0n });
    const sigOk = chain.simulate(decoded, { sigVerify: true });
    if (sigOk.err === 'SignatureFailure') throw new RpcError(TRANSACTION_SIGNATURE_VERIFICATION_FAILURE, 'Transaction signature verification failure');
    if (sigOk.err !== null) throw preflightError(sigOk);
  }
  const outcome = chain.submit(decoded);
  return outcome.kind === 'landed' ? outcome.entry.signature : outcome.signature;
}

function preflightError(sim: { err: unknown; logs: string[]; unitsConsumed: bigint }): RpcError {
  return new RpcError(SEND_TRANSACTION_PREFLIGHT_FAILURE, `Transaction simulation failed: ${describeTxError(sim.err as string)}`, {
    accounts: null,
    err: sim.err,
    innerInstructions: null,
    logs: sim.logs,
    replacementBlockhash: null,
    returnData: null,
    unitsConsumed: sim.unitsConsumed,
  });
}

// ---------------------------------------------------------------- params

function addressParam(value: unknown): string {
  if (typeof value !== 'string' || !isAddress(value)) throw new RpcError(INVALID_PARAMS, 'Invalid param: Invalid');
  return value;
}

function transactionParam(wire: unknown, encoding: string | undefined): DecodedTx {
  if (typeof wire !== 'string') throw new RpcError(INVALID_PARAMS, 'Invalid params: transaction must be a string');
  let bytes: Uint8Array;
  if (encoding === 'base64') bytes = new Uint8Array(Buffer.from(wire, 'base64'));
  else if (encoding === undefined || encoding === 'base58') bytes = base58.decode(wire);
  else throw new RpcError(INVALID_PARAMS, `Invalid params: unsupported encoding: ${encoding}. Supported encodings: base58, base64`);
  try {
    return decodeTransaction(bytes);
  } catch (err) {
    throw new RpcError(INVALID_PARAMS, `failed to deserialize transaction: ${err instanceof Error ? err.message : String(err)}`);
  }
}

interface AccountConfig {
  encoding: string;
  dataSlice?: { offset: number; length: number };
}

function accountConfig(config: unknown): AccountConfig {
  const c = (config ?? {}) as { encoding?: string; dataSlice?: { offset: number; length: number } };
  const encoding = c.encoding ?? 'binary';
  if (!['binary', 'base58', 'base64', 'jsonParsed'].includes(encoding)) {
    throw new RpcError(INVALID_PARAMS, `Invalid params: encoding ${encoding} is not supported by this devnet (use base64)`);
  }
  return { encoding, dataSlice: c.dataSlice };
}

// ---------------------------------------------------------------- JSON shapes

function accountJson(chain: SvmChain, address: string, cfg: AccountConfig): unknown {
  const a = chain.account(address);
  if (!a) return null;
  let data: unknown;
  const slice = (d: Uint8Array) => (cfg.dataSlice ? d.subarray(cfg.dataSlice.offset, cfg.dataSlice.offset + cfg.dataSlice.length) : d);
  if (cfg.encoding === 'jsonParsed') data = parsedAccountData(chain, address, a.data.length) ?? [Buffer.from(a.data).toString('base64'), 'base64'];
  else if (cfg.encoding === 'base64') data = [Buffer.from(slice(a.data)).toString('base64'), 'base64'];
  else if (cfg.encoding === 'base58') data = [base58.encode(slice(a.data)), 'base58'];
  else data = base58.encode(slice(a.data));
  return { data, executable: a.executable, lamports: a.lamports, owner: a.owner, rentEpoch: a.rentEpoch, space: BigInt(a.data.length) };
}

/** agave's jsonParsed view of classic SPL token accounts and mints (other accounts fall back to base64, as agave does). */
function parsedAccountData(chain: SvmChain, address: string, space: number): unknown {
  const t = chain.tokenAccount(address);
  if (t) {
    const decimals = chain.mintAccount(t.mint)?.decimals ?? 0;
    const info: Record<string, unknown> = {
      isNative: t.isNative !== null,
      mint: t.mint,
      owner: t.owner,
      state: t.state === 2 ? 'frozen' : 'initialized',
      tokenAmount: uiAmount(t.amount, decimals),
    };
    if (t.delegate) {
      info.delegate = t.delegate;
      info.delegatedAmount = uiAmount(t.delegatedAmount, decimals);
    }
    return { program: 'spl-token', parsed: { info, type: 'account' }, space: BigInt(space) };
  }
  const m = chain.mintAccount(address);
  if (m) {
    return {
      program: 'spl-token',
      parsed: { info: { decimals: m.decimals, freezeAuthority: m.freezeAuthority, isInitialized: m.isInitialized, mintAuthority: m.mintAuthority, supply: m.supply.toString() }, type: 'mint' },
      space: BigInt(space),
    };
  }
  return undefined;
}

function transactionJson(e: LedgerEntry, encoding: string): unknown {
  let transaction: unknown;
  if (encoding === 'base64') transaction = [Buffer.from(e.wire).toString('base64'), 'base64'];
  else if (encoding === 'base58') transaction = [base58.encode(e.wire), 'base58'];
  else if (encoding === 'json') transaction = uiTransaction(decodeTransaction(e.wire));
  else throw new RpcError(INVALID_PARAMS, `Invalid params: unsupported encoding: ${encoding}`);
  return {
    slot: e.slot,
    blockTime: e.blockTime,
    transaction,
    meta: {
      err: e.err,
      status: e.err === null ? { Ok: null } : { Err: e.err },
      fee: e.fee,
      preBalances: e.preBalances,
      postBalances: e.postBalances,
      innerInstructions: e.innerInstructions,
      logMessages: e.logs,
      preTokenBalances: e.preTokenBalances,
      postTokenBalances: e.postTokenBalances,
      rewards: [],
      loadedAddresses: { writable: [], readonly: [] },
      computeUnitsConsumed: e.unitsConsumed,
    },
    version: e.version,
  };
}

/** agave's `json` transaction encoding: signatures and the message with base58 instruction data. */
function uiTransaction(d: DecodedTx): unknown {
  const signatures = Object.values(d.tx.signatures).map((s) => base58.encode(s ?? new Uint8Array(64)));
  return {
    signatures,
    message: {
      accountKeys: d.staticAccounts,
      header: {
        numRequiredSignatures: d.header.numSignerAccounts,
        numReadonlySignedAccounts: d.header.numReadonlySignerAccounts,
        numReadonlyUnsignedAccounts: d.header.numReadonlyNonSignerAccounts,
      },
      recentBlockhash: d.blockhash,
      instructions: d.instructions.map((ix) => ({
        programIdIndex: ix.programAddressIndex,
        accounts: ix.accountIndices ?? [],
        data: base58.encode(ix.data ?? new Uint8Array()),
        stackHeight: null,
      })),
      ...(d.version === 0 ? { addressTableLookups: d.addressTableLookups.map((l) => ({ accountKey: l.lookupTableAddress, writableIndexes: l.writableIndexes, readonlyIndexes: l.readonlyIndexes })) } : {}),
    },
  };
}

// ---------------------------------------------------------------- wire

/**
 * JSON text with bigints written as bare integers: Solana's u64s are JSON numbers,
 * some beyond 2^53 (rentEpoch = u64::MAX), which kit's parser reads back losslessly.
 */
export function stringifyJson(value: unknown): string {
  if (typeof value === 'bigint') return value.toString();
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : stringifyJson(v))).join(',')}]`;
  if (typeof value === 'object') {
    const parts: string[] = [];
    for (const [k, v] of Object.entries(value)) if (v !== undefined) parts.push(`${JSON.stringify(k)}:${stringifyJson(v)}`);
    return `{${parts.join(',')}}`;
  }
  return JSON.stringify(value);
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(stringifyJson(body));
}

