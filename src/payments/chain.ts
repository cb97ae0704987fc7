/**
 * Reads the chain's own record of an EIP-3009 authorization. The token's
 * `authorizationState` flips only when the transfer is mined, which makes it
 * the authority on whether an attempt with an unknown settle outcome was paid.
 */
import { createPublicClient, http, parseAbi, parseAbiItem, type Hex } from 'viem';

export interface ChainReader {
  /** True when the authorization (payer, nonce) has been used on `asset`. */
  authorizationUsed(asset: Hex, authorizer: Hex, nonce: Hex): Promise<boolean>;
  /** The transaction that used the authorization, when the node can find its log. */
  authorizationTransaction(asset: Hex, authorizer: Hex, nonce: Hex): Promise<Hex | undefined>;
}

const ABI = parseAbi(['function authorizationState(address authorizer, bytes32 nonce) view returns (bool)']);
const AUTHORIZATION_USED = parseAbiItem('event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)');

export function rpcChainReader(rpcUrl: string, opts: { timeoutMs?: number; logLookbackBlocks?: bigint } = {}): ChainReader {
  const client = createPublicClient({ transport: http(rpcUrl, { timeout: opts.timeoutMs ?? 10_000, retryCount: 1 }) });
  const lookback = opts.logLookbackBlocks ?? 50_000n;
  return {
    async authorizationUsed(asset, authorizer, nonce) {
      return client.readContract({ address: asset, abi: ABI, functionName: 'authorizationState', args: [authorizer, nonce] });
    },
    async authorizationTransaction(asset, authorizer, nonce) {
      const latest = await client.getBlockNumber();
      const fromBlock = latest > lookback ? latest - lookback : 0n;
      const logs = await client.getLogs({ address: asset, event: AUTHORIZATION_USED, args: { authorizer, nonce }, fromBlock, toBlock: latest });
      return logs[0]?.transactionHash ?? undefined;
    },
  };
}
