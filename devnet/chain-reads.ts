// Read-only chain queries for any EVM RPC and any EIP-3009 token (USDC on Base, the
// devnet's DevUSDC, ...). The devnet tests use them, and so does the service's
// reconciler: when a settlement's outcome is unknown (timeout, lost response), the
// token itself is the source of truth — `authorizationState` flips only when the
// transfer is mined, and the `AuthorizationUsed` log tells which transaction did it.
import { createPublicClient, http, parseAbi, type PublicClient } from 'viem';

export type Hex = `0x${string}`;
export type Address = `0x${string}`;

/** The standard ERC-20 / EIP-3009 surface, as deployed by USDC (FiatToken v2.x). */
export const eip3009ReadAbi = parseAbi([
  'function authorizationState(address authorizer, bytes32 nonce) view returns (bool)',
  'function balanceOf(address account) view returns (uint256)',
  'event Transfer(address indexed from, address indexed to, uint256 value)',
  'event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)',
  'event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce)',
]);

/** Block range for log queries. Public RPCs for real chains cap the range, so pass one there. */
export interface LogRange {
  fromBlock?: bigint;
  toBlock?: bigint;
}

// One client per RPC URL: viem clients are cheap but keep their own caches and
// request ids, and a reconciler may call these in a loop.
const clients = new Map<string, PublicClient>();

/** A (cached) viem public client for `rpcUrl`. No chain is needed for reads. */
export function publicClientFor(rpcUrl: string): PublicClient {
  let client = clients.get(rpcUrl);
  if (!client) {
    client = createPublicClient({ transport: http(rpcUrl, { retryCount: 2 }) });
    clients.set(rpcUrl, client);
  }
  return client;
}

/** EIP-3009 `authorizationState`: true once the nonce was used (transfer mined) or canceled. */
export async function authorizationState(rpcUrl: string, asset: Address, authorizer: Address, nonce: Hex): Promise<boolean> {
  return publicClientFor(rpcUrl).readContract({
    address: asset,
    abi: eip3009ReadAbi,
    functionName: 'authorizationState',
    args: [authorizer, nonce],
  });
}

/**
 * The hash of the transaction that consumed `authorizer`'s authorization `nonce`
 * (its `AuthorizationUsed(authorizer, nonce)` log), or undefined if none was mined in
 * the range. Both event parameters are indexed, so this is an exact topic match.
 * A canceled authorization emits `AuthorizationCanceled` instead and is not reported here.
 */
export async function findAuthorizationUsedTx(
  rpcUrl: string,
  asset: Address,
  authorizer: Address,
  nonce: Hex,
  range: LogRange = {},
): Promise<Hex | undefined> {
  const logs = await publicClientFor(rpcUrl).getLogs({
    address: asset,
    event: eip3009ReadAbi[3],
    args: { authorizer, nonce },
    fromBlock: range.fromBlock ?? 0n,
    toBlock: range.toBlock ?? 'latest',
  });
  // A nonce can be used at most once, so there is at most one matching log (ignoring reorgs).
  const hit = logs.find((l) => !l.removed);
  return hit?.transactionHash ?? undefined;
}

/** ERC-20 `balanceOf`. */
export async function erc20BalanceOf(rpcUrl: string, asset: Address, account: Address): Promise<bigint> {
  return publicClientFor(rpcUrl).readContract({
    address: asset,
    abi: eip3009ReadAbi,
    functionName: 'balanceOf',
    args: [account],
  });
}

export interface TransferLog {
  from: Address;
  to: Address;
  value: bigint;
  txHash: Hex;
  blockNumber: bigint;
  logIndex: number;
}

/** ERC-20 `Transfer` logs of `asset`, optionally filtered by sender and/or recipient, in chain order. */
export async function erc20TransferLogs(
  rpcUrl: string,
  asset: Address,
  filter: { from?: Address; to?: Address } & LogRange = {},
): Promise<TransferLog[]> {
  const logs = await publicClientFor(rpcUrl).getLogs({
    address: asset,
    event: eip3009ReadAbi[2],
    args: { from: filter.from, to: filter.to },
    fromBlock: filter.fromBlock ?? 0n,
    toBlock: filter.toBlock ?? 'latest',
  });
  const out: TransferLog[] = [];
  for (const l of logs) {
    // Pending/removed logs carry nulls; they are not part of the canonical chain.
    if (l.removed || l.transactionHash === null || l.blockNumber === null || l.logIndex === null) continue;
    const { from, to, value } = l.args;
    if (from === undefined || to === undefined || value === undefined) continue;
    out.push({ from, to, value, txHash: l.transactionHash, blockNumber: l.blockNumber, logIndex: l.logIndex });
  }
  return out;
}
