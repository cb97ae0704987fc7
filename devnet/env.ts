/**
 * The environment that points a service at a running devnet, as an operator
 * points one at an external network: what `npm run devnet` writes to
 * DATA_DIR/devnet.env for every instance, and what the tests' rigs start
 * their services with (test/support/harness.ts). Every variable is one the
 * configuration takes with X402_NETWORK set (devnet/env.test.ts checks it).
 */
import type { Devnet } from './index.js';
import type { SvmDevnet } from './svm-devnet.js';

/** What of a devnet its environment names. */
export type DevnetRail = Pick<Devnet, 'network' | 'payTo' | 'facilitatorUrl' | 'asset' | 'assetName' | 'assetVersion' | 'decimals' | 'rpcUrl'> & {
  svm?: Pick<SvmDevnet, 'network' | 'payTo' | 'rpcUrl'>;
};

/**
 * The payment rail: network, payee, facilitator, the RPC the reconciler
 * reads, the token with its EIP-712 domain and decimals (31337 is no network
 * the configuration knows, so all are named), and the Solana rail when the
 * devnet runs one (its mint is Solana Devnet's USDC, the network's default).
 */
export function devnetRailEnv(devnet: DevnetRail): Record<string, string> {
  return {
    X402_NETWORK: devnet.network,
    X402_PAY_TO: devnet.payTo,
    X402_FACILITATOR_URL: devnet.facilitatorUrl,
    X402_RPC_URL: devnet.rpcUrl,
    X402_ASSET: devnet.asset,
    X402_ASSET_NAME: devnet.assetName,
    X402_ASSET_VERSION: devnet.assetVersion,
    X402_ASSET_DECIMALS: String(devnet.decimals),
    ...(devnet.svm && { X402_SVM_NETWORK: devnet.svm.network, X402_SVM_PAY_TO: devnet.svm.payTo, X402_SVM_RPC_URL: devnet.svm.rpcUrl }),
  };
}

/**
 * `NAME='value'` lines after `#` comments: a file that POSIX sh reads with
 * `set -a && . ./devnet.env && set +a` and dotenv readers (docker compose's
 * env_file, node --env-file) read too. Single quotes keep a value's spaces
 * ("USD Coin"); a value that holds one is refused rather than escaped in a
 * way only sh would read.
 */
export function envFileText(env: Record<string, string>, comments: readonly string[] = []): string {
  const lines = comments.map((c) => `# ${c}`);
  for (const [name, value] of Object.entries(env)) {
    if (!/^[A-Z][A-Z0-9_]*$/.test(name)) throw new Error(`${name} is not an environment variable name`);
    if (/['\n\r]/.test(value)) throw new Error(`the value of ${name} holds a quote or a line break`);
    lines.push(`${name}='${value}'`);
  }
  return lines.join('\n') + '\n';
}
