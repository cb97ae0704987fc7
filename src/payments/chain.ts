/**
 * Reads the chain's own record of an EIP-3009 authorization. The token's
 * `authorizationState` flips only when the transfer is mined, which makes it
 * the authority on whether an attempt with an unknown settle outcome was paid.
 */
import { createPublicClient, http, parseAbi, parseAbiItem, type Hex, type TypedDataDefinition } from 'viem';

export interface AuthorizationState {
  /** The authorization has been used (the transfer is mined). */
  used: boolean;
  /**
   * Timestamp (unix seconds) of the block the state was read at. An unused
   * authorization read at a block whose timestamp is at or past its
   * `validBefore` can never be used: later blocks are never older.
   */
  blockTime: number;
}

export interface ChainReader {
  /** Whether the authorization (payer, nonce) has been used on `asset`, read at one block. */
  authorizationState(asset: Hex, authorizer: Hex, nonce: Hex): Promise<AuthorizationState>;
  /** The transaction that used the authorization, when the node can find its log. */
  authorizationTransaction(asset: Hex, authorizer: Hex, nonce: Hex): Promise<Hex | undefined>;
  /** ERC-1271 / ERC-6492 check of a smart-wallet signature (an eth_call). */
  verifyTypedData(address: Hex, typedData: TypedDataDefinition, signature: Hex): Promise<boolean>;
}

const ABI = parseAbi(['function authorizationState(address authorizer, bytes32 nonce) view returns (bool)']);
const AUTHORIZATION_USED = parseAbiItem('event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)');

export function rpcChainReader(rpcUrl: string, opts: { timeoutMs?: number; logLookbackBlocks?: bigint } = {}): ChainReader {
  const client = createPublicClient({ transport: http(rpcUrl, { timeout: opts.timeoutMs ?? 10_000, retryCount: 1 }) });
  const lookback = opts.logLookbackBlocks ?? 50_000n;
  return {
    async authorizationState(asset, authorizer, nonce) {
      // Never a cached block: a stale "latest" would hide a transfer mined since.
      const block = await client.getBlock({ blockTag: 'latest' });
      const used = await client.readContract({ address: asset, abi: ABI, functionName: 'authorizationState', args: [authorizer, nonce], blockNumber: block.number });
      return { used, blockTime: Number(block.timestamp) };
    },
    async authorizationTransaction(asset, authorizer, nonce) {
      const latest = await client.getBlockNumber({ cacheTime: 0 });
      const fromBlock = latest > lookback ? latest - lookback : 0n;
      const logs = await client.getLogs({ address: asset, event: AUTHORIZATION_USED, args: { authorizer, nonce }, fromBlock, toBlock: latest });
      return logs[0]?.transactionHash ?? undefined;
    },
    async verifyTypedData(address, typedData, signature) {
      return client.verifyTypedData({ address, signature, ...typedData } as Parameters<typeof client.verifyTypedData>[0]);
    },
  };
}
