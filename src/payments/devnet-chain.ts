/**
 * A restarted devnet never silently disagrees with the ledger.
 *
 * The devnet's chains live in memory (anvil, and the Solana runtime beside
 * it), so every new devnet is a new chain under the same network ids
 * (eip155:31337 and Solana Devnet's), with the token at the same address
 * (the same deployer at the same nonce) and the same funded buyers, while
 * the ledger (DATA_DIR/ledger.sqlite, or PostgreSQL) keeps what was paid on
 * the old one. An EIP-3009 authorization signed on the old chain is valid on
 * the new one: left alone, an old attempt that is not final would be
 * verified and settled there on the buyer's retry, or found unused and
 * expired by the reconciler, whatever happened to it on its own chain.
 *
 * So at start-up, on the devnet's EVM network, the chain's identity (anvil's
 * instanceId, drawn afresh by every anvil) is compared with the one the
 * ledger recorded (store/devnet-chains.ts). On another chain, the devnet's
 * attempts that are not final are closed as failed (`devnet_chain_gone`,
 * which a retry is answered with) before anything else runs, and one
 * warning line says how many settled attempts name transactions of a chain
 * that no longer exists and what to do. Settled attempts are left as they
 * are: the ledger is the source of truth for delivery, and nothing checks a
 * settled attempt against the chain again.
 */
import type { Logger } from 'pino';
import { DEVNET_NETWORK, SOLANA_DEVNET, type PaymentConfig } from '../config.js';
import { adoptDevnetChain, type DevnetChainChange } from '../store/devnet-chains.js';
import type { SqlDriver } from '../store/sql-driver.js';

/** failure_code of an attempt closed because the devnet chain it was made on is gone. */
export const DEVNET_CHAIN_GONE = 'devnet_chain_gone';

/** The networks a devnet serves: its EVM chain and, beside it, its Solana runtime (src/payments/rails.ts names them so too). */
const DEVNET_NETWORKS = [DEVNET_NETWORK, SOLANA_DEVNET] as const;

const INSTANCE_ID = /^0x[0-9a-fA-F]{64}$/;

/**
 * The identity of the anvil chain at `rpcUrl`: its `instanceId`, which each
 * anvil process draws at random (and `anvil_reset` draws again), from
 * `anvil_metadata`. Throws when the node does not say (not anvil, down) or
 * serves another chain id.
 */
export async function anvilInstanceId(rpcUrl: string, timeoutMs = 3000): Promise<string> {
  const res = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'anvil_metadata', params: [] }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const body = (await res.json()) as { result?: { instanceId?: unknown; chainId?: unknown }; error?: { message?: string } };
  if (body.error) throw new Error(`anvil_metadata: ${body.error.message ?? 'refused'}`);
  const { instanceId, chainId } = body.result ?? {};
  if (chainId !== Number(DEVNET_NETWORK.split(':')[1])) throw new Error(`anvil_metadata: chain id ${String(chainId)}, not ${DEVNET_NETWORK}'s`);
  if (typeof instanceId !== 'string' || !INSTANCE_ID.test(instanceId)) throw new Error('anvil_metadata: no instanceId');
  return instanceId.toLowerCase();
}

/** The one start-up line when the ledger holds attempts from an earlier devnet chain. */
function earlierChainLine(c: DevnetChainChange): string {
  const closed = c.closed ? `; ${c.closed} unfinished attempt(s) from it were closed as failed (${DEVNET_CHAIN_GONE}) and will never be settled on this chain` : '';
  return (
    `devnet restarted: the ledger holds payments made on an earlier devnet chain that no longer exists (a devnet's chain lives only as long as its process): ` +
    `${c.settled} settled attempt(s) name transactions this chain does not have${closed}. ` +
    'For a ledger that matches the chain, start on an empty DATA_DIR (or database); to keep one chain across restarts of the service, run the devnet apart (npm run devnet; README: Several instances on one devnet)'
  );
}

/**
 * Before the gate or the reconciler runs: on the devnet's EVM network, record
 * the chain the ledger's devnet attempts are driven on, closing those of an
 * earlier chain (see above). Off the devnet, nothing. A chain whose identity
 * cannot be read is said in one warning line and not recorded.
 */
export async function checkDevnetChain(o: { db: SqlDriver; payment: Pick<PaymentConfig, 'network' | 'rpcUrl'>; log: Logger; now: () => number; readChain?: (rpcUrl: string) => Promise<string> }): Promise<DevnetChainChange | undefined> {
  if (o.payment.network !== DEVNET_NETWORK) return undefined;
  let chain: string;
  try {
    chain = await (o.readChain ?? anvilInstanceId)(o.payment.rpcUrl);
  } catch (e) {
    o.log.warn(
      { rpcUrl: o.payment.rpcUrl, err: e instanceof Error ? e.message : String(e) },
      `cannot tell which devnet chain ${o.payment.rpcUrl} is: payments the ledger holds from an earlier devnet chain are not told apart from this one's`,
    );
    return undefined;
  }
  const change = await adoptDevnetChain(o.db, {
    chain,
    networks: DEVNET_NETWORKS,
    failureCode: DEVNET_CHAIN_GONE,
    failureDetail: `made on a devnet chain that no longer exists (${DEVNET_NETWORK} is now chain ${chain}); whatever happened to it there is gone with that chain, and it is never settled on another`,
    now: o.now(),
  });
  if (change && (change.settled > 0 || change.closed > 0)) o.log.warn({ chain, previousChain: change.previous, settled: change.settled, closed: change.closed }, earlierChainLine(change));
  return change;
}
