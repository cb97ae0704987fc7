/**
 * Environment → typed configuration, read once at start-up.
 *
 * Every problem is reported as a `ConfigError` whose message is one line that
 * names the variable; `main.ts` prints it and exits without a stack trace.
 */
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { fromBase58 } from './foundation/base58.js';
import { hasValidEip55Case } from './crypto/eip55.js';

export class ConfigError extends Error {
  constructor(readonly variable: string, message: string) {
    super(`${variable}: ${message}`);
    this.name = 'ConfigError';
  }
}

export type Hex = `0x${string}`;

/** An EIP-3009 asset the gate asks for. */
export interface AssetConfig {
  address: Hex;
  /** EIP-712 domain name and version, copied into `extra` of the requirements. */
  name: string;
  version: string;
  decimals: number;
  symbol: string;
}

/** Networks this service knows how to price in; anything else must say its asset explicitly. */
export const KNOWN_NETWORKS: Record<string, { label: string; asset: AssetConfig; rpcUrl: string; testnet: boolean }> = {
  'eip155:8453': {
    label: 'Base',
    asset: { address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', name: 'USD Coin', version: '2', decimals: 6, symbol: 'USDC' },
    rpcUrl: 'https://mainnet.base.org',
    testnet: false,
  },
  'eip155:84532': {
    label: 'Base Sepolia',
    asset: { address: '0x036CbD53842c5426634e7929541eC2318f3dCF7e', name: 'USDC', version: '2', decimals: 6, symbol: 'USDC' },
    rpcUrl: 'https://sepolia.base.org',
    testnet: true,
  },
};

/** The public testnet facilitator (no key; testnets only). The www host: the bare x402.org answers 308 (x402 issue 605). */
export const TESTNET_FACILITATOR_URL = 'https://www.x402.org/facilitator';
/** Coinbase's production facilitator (Base and Base Sepolia among others); every call needs CDP_API_KEY_ID/SECRET. */
export const CDP_FACILITATOR_URL = 'https://api.cdp.coinbase.com/platform/v2/x402';

/**
 * X402_FACILITATOR_URL, or when it is unset the facilitator a known network
 * goes live with, so each step from devnet to mainnet is one or two
 * variables: CDP's when CDP keys are set (they are for it, and no token is
 * minted for another host), else on a testnet the public one; Base mainnet
 * with neither stops. Other networks must name theirs.
 */
function facilitatorUrlsOf(env: Env, network: string): string[] {
  const known = KNOWN_NETWORKS[network];
  const listed = httpUrlList(env, 'X402_FACILITATOR_URL', !known);
  if (listed.length || !known) return listed;
  // Presence only: facilitatorAuthOf checks that both keys are set and sound.
  if (env.CDP_API_KEY_ID?.trim() || env.CDP_API_KEY_SECRET?.trim()) return [CDP_FACILITATOR_URL];
  if (known.testnet) return [TESTNET_FACILITATOR_URL];
  throw new ConfigError('X402_FACILITATOR_URL', `is unset and ${known.label} (${network}) has no keyless facilitator: set CDP_API_KEY_ID and CDP_API_KEY_SECRET (CDP's facilitator) or X402_FACILITATOR_URL`);
}

export const DEVNET_NETWORK = 'eip155:31337';

/** A Solana SPL token the gate asks for (`TransferChecked` to the payee's associated token account). */
export interface SvmAssetConfig {
  /** The mint (base58). */
  address: string;
  decimals: number;
  symbol: string;
  name: string;
}

/** The Solana rail, offered beside the EVM one in every 402 when X402_SVM_NETWORK is set (or by the devnet). */
export interface SolanaRailConfig {
  network: string;
  /** The payee's wallet (base58); the transfer goes to its associated token account for the mint. */
  payTo: string;
  asset: SvmAssetConfig;
  /** JSON-RPC endpoint read to resolve settlements whose outcome is unknown. */
  rpcUrl: string;
}

export const SOLANA_MAINNET = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp';
/** Solana Devnet's id, which the embedded devnet's Solana runtime takes too (its clients accept only the public networks' ids). */
export const SOLANA_DEVNET = 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1';

/** The Solana networks the facilitators settle `exact` on, with their USDC and public RPC. */
export const KNOWN_SVM_NETWORKS: Record<string, { label: string; asset: SvmAssetConfig; rpcUrl: string }> = {
  [SOLANA_MAINNET]: {
    label: 'Solana',
    asset: { address: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', decimals: 6, symbol: 'USDC', name: 'USD Coin' },
    rpcUrl: 'https://api.mainnet-beta.solana.com',
  },
  [SOLANA_DEVNET]: {
    label: 'Solana Devnet',
    asset: { address: '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU', decimals: 6, symbol: 'USDC', name: 'USD Coin' },
    rpcUrl: 'https://api.devnet.solana.com',
  },
};

const BASE58_KEY = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

/** A base58 Solana address (32 bytes). */
function solanaAddress(env: Env, name: string): string {
  const raw = env[name];
  if (raw === undefined || raw === '') throw new ConfigError(name, 'is required (a base58 Solana address)');
  if (!BASE58_KEY.test(raw) || fromBase58(raw)?.length !== 32) throw new ConfigError(name, `is not a base58 Solana address (32 bytes): "${raw}"`);
  return raw;
}

/** X402_SVM_NETWORK and its companions: the Solana rail, or undefined when it is not configured. */
function solanaRailOf(env: Env): SolanaRailConfig | undefined {
  const network = env.X402_SVM_NETWORK || undefined;
  if (network === undefined) {
    for (const v of ['X402_SVM_PAY_TO', 'X402_SVM_ASSET', 'X402_SVM_ASSET_DECIMALS', 'X402_SVM_RPC_URL'] as const) {
      if (env[v]) throw new ConfigError(v, 'is set but X402_SVM_NETWORK is not; set X402_SVM_NETWORK (e.g. ' + SOLANA_MAINNET + ') to take payments on Solana');
    }
    return undefined;
  }
  const known = KNOWN_SVM_NETWORKS[network];
  if (!known) throw new ConfigError('X402_SVM_NETWORK', `must be ${SOLANA_MAINNET} (Solana) or ${SOLANA_DEVNET} (Solana Devnet), got "${network}"`);
  const payTo = solanaAddress(env, 'X402_SVM_PAY_TO');
  let asset = known.asset;
  if (!env.X402_SVM_ASSET && env.X402_SVM_ASSET_DECIMALS) throw new ConfigError('X402_SVM_ASSET_DECIMALS', `has no effect without X402_SVM_ASSET (${known.label}'s USDC has its own decimals); unset it, or set X402_SVM_ASSET`);
  if (env.X402_SVM_ASSET) {
    const mint = solanaAddress(env, 'X402_SVM_ASSET');
    if (mint !== known.asset.address && !flag(env, 'X402_ALLOW_CUSTOM_ASSET')) {
      throw new ConfigError('X402_SVM_ASSET', `differs from ${known.label}'s USDC ${known.asset.address}; set X402_ALLOW_CUSTOM_ASSET=1 if that is intended`);
    }
    asset = { address: mint, decimals: int(env, 'X402_SVM_ASSET_DECIMALS', 6, 0, 18), symbol: env.X402_ASSET_SYMBOL || 'USDC', name: 'USD Coin' };
  }
  const rpcUrl = httpUrl(env, 'X402_SVM_RPC_URL', false) ?? known.rpcUrl;
  return { network, payTo, asset, rpcUrl };
}

export interface PaymentConfig {
  network: string;
  payTo: Hex;
  asset: AssetConfig;
  /** X402_FACILITATOR_URL: one or more facilitators, in order of preference (comma-separated). */
  facilitatorUrls: string[];
  /** How each facilitator call authenticates (CDP's per-request JWT, other facilitators' API-key headers). */
  facilitatorAuth: FacilitatorAuth;
  /** JSON-RPC endpoint used only to read `authorizationState` when reconciling unknown settlements. */
  rpcUrl: string;
  /** Per-request timeout for facilitator verify/settle, ms. */
  facilitatorTimeoutMs: number;
  /** `maxTimeoutSeconds` advertised in the requirements (authorization lifetime the client signs). */
  maxTimeoutSeconds: number;
  /** How long a request holds the lease on an attempt before another request may resume it. */
  attemptLeaseMs: number;
  /** The Solana rail beside this one, when configured: one facilitator list serves both. */
  solana?: SolanaRailConfig;
}

/**
 * Credentials for facilitator calls. Secrets: never logged, never echoed in
 * an error (ConfigError messages name the variable, not the value).
 */
export interface FacilitatorAuth {
  /** CDP_API_KEY_ID + CDP_API_KEY_SECRET: a JWT minted per request (CDP's own library). */
  cdp?: { apiKeyId: string; apiKeySecret: string };
  /** Static headers per facilitator origin (other facilitators' API keys). */
  headers?: Record<string, Record<string, string>>;
}

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  databaseUrl: string | undefined;
  publicBaseUrl: string | undefined;
  /** ALLOWED_HOSTS: more host[:port] names the service answers for beside its listening address (src/http/own-origin.ts). */
  allowedHosts: AllowedHost[];
  logLevel: string;
  /**
   * `devnet`: start the local payment rail (anvil + token + facilitator) in-process.
   * `external`: use the network, payee and facilitator given in the environment.
   */
  rail: 'devnet' | 'external';
  /** DEVNET_SVM (default on): the devnet also runs an embedded Solana runtime and offers it as a second rail. */
  devnetSvm: boolean;
  /** Present when rail is external; filled from the devnet when rail is devnet. */
  payment: PaymentConfig | undefined;
  reconcileIntervalMs: number;
  /**
   * Bound on one ledger operation: PostgreSQL connect and query timeouts
   * (client side, so a stalled network cannot hang a request), SQLite's wait
   * for a lock held by another process. Past it the request fails closed (503).
   */
  ledgerTimeoutMs: number;
  /** Facilitator timeout, authorization lifetime and attempt lease: the same for either rail. */
  timings: Pick<PaymentConfig, 'facilitatorTimeoutMs' | 'maxTimeoutSeconds' | 'attemptLeaseMs'>;
  /** Bearer token for /admin/v1/…; the admin API is off when undefined. */
  adminToken: string | undefined;
  /** The operator's own wallets: their payments are not independent revenue. Lower-case addresses. */
  operatorWallets: string[];
  /** OPERATOR_CONTACT: how buyers reach the operator (OpenAPI `info.contact`); omitted when unset. */
  operatorContact: { url: string } | { email: string } | undefined;
  /** OUTCOME_ROUTER_COMPOSITE=1 enables the paid composite resource /x402/v1/outcome-router. */
  outcomeRouterComposite: boolean;
  /**
   * X402_SETTLEMENT_COST_ATOMIC: what one settlement costs the operator, in
   * the asset's atomic units (CDP: 1000 = $0.001 past its free tier). The
   * router counts it as cost of goods (src/router/economics.ts).
   */
  settlementCostAtomic: number;
  /** Handler isolation (src/isolation): worker threads (default cores − 1, at least 1) and the per-call budget of an offloaded call, ms. */
  handlers: { workers: number | undefined; budgetMs: number };
  /** Intelligence collectors (src/intel/collectors): schedule, sources and limits. */
  intel: IntelCollectorConfig;
  operations: OperationsConfig;
  /**
   * X402_SIGNING_KEY: the operator's key for signed receipts and offers
   * (src/commitments). Undefined: the devnet supplies one; an external rail
   * then signs nothing and its discovery documents say so.
   */
  signingKey: Hex | undefined;
  /** X402_SIGN_IN_TTL_SECONDS: how long the sign-in message of a 402 may be signed and sent back (sign-in-with-x's expirationTime). */
  signInLifetimeSeconds: number;
  /**
   * MPP_SECRET_KEY: binds MPP challenge ids (HMAC, src/payments/mpp.ts); at
   * least 32 bytes. Undefined: the devnet supplies one; an external rail then
   * offers no MPP and its discovery documents say so.
   */
  mppSecretKey: string | undefined;
}

/** One ALLOWED_HOSTS entry: a canonical hostname (lower case, IPv6 in brackets, no final dot) and its port, or any port when undefined. */
export interface AllowedHost {
  hostname: string;
  port: number | undefined;
}

/** How the service behaves as a network citizen: CORS, proxies, rate limits, metrics, shutdown. */
export interface OperationsConfig {
  /** CORS_ORIGINS: `*` (default) or the exact origins browsers may call from. */
  corsOrigins: '*' | string[];
  /** TRUST_PROXY=1: take the client address, scheme and host from X-Forwarded-For/Proto/Host. */
  trustProxy: boolean;
  /** RATE_LIMIT_PER_MINUTE: free-route requests per client per minute; 0 turns the limit off. */
  rateLimitPerMinute: number;
  /** REDIS_URL: share the rate-limit counters between instances; in memory when undefined. */
  redisUrl: string | undefined;
  /** METRICS_TOKEN: when set, GET /metrics needs `Authorization: Bearer <token>`. */
  metricsToken: string | undefined;
  /** SHUTDOWN_DRAIN_MS: how long SIGTERM waits for requests in flight before closing their connections. */
  shutdownDrainMs: number;
}

type Env = Record<string, string | undefined>;

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** Default attempt lease: short, because it is renewed while held (see gate). */
const DEFAULT_LEASE_MS = 20_000;
/** Slack a lease keeps beyond one facilitator call. */
const LEASE_MARGIN_MS = 5_000;

function int(env: Env, name: string, def: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  if (!/^[0-9]+$/.test(raw)) throw new ConfigError(name, `must be a whole number, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${n}`);
  return n;
}

/** A 0/1 switch; unset or empty is 0. */
function flag(env: Env, name: string): boolean {
  const raw = env[name] ?? '';
  if (!['', '0', '1'].includes(raw)) throw new ConfigError(name, `must be 0 or 1, got "${raw}"`);
  return raw === '1';
}

function address(env: Env, name: string): Hex {
  const raw = env[name];
  if (raw === undefined || raw === '') throw new ConfigError(name, 'is required (a 0x-prefixed 20-byte address)');
  if (!ADDRESS.test(raw)) throw new ConfigError(name, `is not a 0x-prefixed 20-byte hex address: "${raw}"`);
  if (/^0x0{40}$/.test(raw)) throw new ConfigError(name, 'must not be the zero address');
  return checksummed(name, raw);
}

/**
 * A 0x + 40 hex address whose mixed case must be its EIP-55 checksum: one
 * mistyped character breaks it, and a payee or an asset with a typo would
 * send or price payments elsewhere. One case throughout carries no checksum
 * (EIP-55) and is kept in lower case, which every library accepts (viem
 * takes all upper case for a failed checksum).
 */
function checksummed(name: string, raw: string): Hex {
  if (!hasValidEip55Case(raw)) throw new ConfigError(name, `"${raw}" fails its EIP-55 checksum (its mixed case is not the address's checksum: a mistyped character?); copy it again, or write it all in lower case`);
  const hex = raw.slice(2);
  return (hex === hex.toUpperCase() ? raw.toLowerCase() : raw) as Hex;
}

function httpUrl(env: Env, name: string, required: boolean): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') {
    if (required) throw new ConfigError(name, 'is required (an http:// or https:// URL)');
    return undefined;
  }
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new ConfigError(name, `is not a URL: "${raw}"`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new ConfigError(name, `must be http or https, got "${u.protocol}"`);
  return raw.replace(/\/+$/, '');
}

/** A host[:port] as a Host header carries it: a DNS name (a final dot allowed), an IPv4 address or a bracketed IPv6 address. */
const HOST_AND_PORT = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*\.?)(?::([0-9]{1,5}))?$/;

/**
 * ALLOWED_HOSTS: comma-separated host[:port] names this service answers for
 * (and names in what it signs) beside its listening address. No wildcard:
 * any Host it matched could choose the URLs in signed receipts.
 */
function allowedHostsOf(env: Env): AllowedHost[] {
  const raw = env.ALLOWED_HOSTS ?? '';
  if (raw.trim() === '') return [];
  return raw.split(',').map((entry, i) => {
    const e = entry.trim();
    if (e === '') throw new ConfigError('ALLOWED_HOSTS', `entry ${i + 1} is empty (comma-separated host[:port] list expected, e.g. api.example.com,10.0.0.5:8402)`);
    if (e.includes('*')) throw new ConfigError('ALLOWED_HOSTS', `"${e}": wildcards are not accepted; list each host the service answers for (a Host it matched would choose the URLs it signs)`);
    const m = HOST_AND_PORT.exec(e);
    if (!m) throw new ConfigError('ALLOWED_HOSTS', `"${e}" is not a host[:port] (a DNS name, an IPv4 address or a bracketed IPv6 address, optionally :port; no scheme, user or path)`);
    const port = m[2] === undefined ? undefined : Number(m[2]);
    if (port !== undefined && (port < 1 || port > 65535)) throw new ConfigError('ALLOWED_HOSTS', `"${e}": the port must be between 1 and 65535`);
    let hostname: string;
    try {
      hostname = new URL(`http://${m[1]}`).hostname;
    } catch {
      throw new ConfigError('ALLOWED_HOSTS', `"${e}" is not a host[:port] (a DNS name, an IPv4 address or a bracketed IPv6 address, optionally :port)`);
    }
    return { hostname: hostname.endsWith('.') ? hostname.slice(0, -1) : hostname, port };
  });
}

/** A comma-separated list of http(s) URLs, in order, without duplicates. */
const EMAIL = /^[^\s@<>()",;:]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$/;

/** OPERATOR_CONTACT: an http(s) URL, or an e-mail address (bare or mailto:). */
function operatorContactOf(env: Env): Config['operatorContact'] {
  const raw = (env.OPERATOR_CONTACT ?? '').trim();
  if (raw === '') return undefined;
  const email = raw.replace(/^mailto:/i, '');
  if (EMAIL.test(email)) return { email };
  if (!/^https?:\/\//i.test(raw)) throw new ConfigError('OPERATOR_CONTACT', `must be an http(s) URL or an e-mail address, got "${raw}"`);
  return { url: httpUrl(env, 'OPERATOR_CONTACT', true)! };
}

function httpUrlList(env: Env, name: string, required: boolean): string[] {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') {
    if (required) throw new ConfigError(name, 'is required (one http:// or https:// URL, or several separated by commas)');
    return [];
  }
  const urls = raw.split(',').map((part, i) => {
    const one = part.trim();
    if (one === '') throw new ConfigError(name, `entry ${i + 1} is empty (comma-separated URLs expected)`);
    return httpUrl({ [name]: one }, name, true)!;
  });
  const seen = new Set<string>();
  for (const u of urls) {
    if (seen.has(u)) throw new ConfigError(name, `lists ${u} twice`);
    seen.add(u);
  }
  return urls;
}

/**
 * CDP_API_KEY_SECRET as CDP issues it, in the form CDP's library signs with.
 * ECDSA: a P-256 PEM ("-----BEGIN EC PRIVATE KEY-----", SEC1), often pasted
 * into env files with literal "\n" escapes; the library only imports PKCS#8,
 * so it is converted here. Ed25519: base64 of 64 bytes (seed, then public
 * key), the halves checked against each other as the library's import does.
 * The value is never echoed.
 */
function cdpSecretOf(raw: string): string {
  const secret = raw.trim().replace(/\\r\\n|\\n/g, '\n');
  if (secret.startsWith('-----BEGIN')) {
    let key;
    try {
      key = createPrivateKey({ key: secret, format: 'pem' });
    } catch {
      throw new ConfigError('CDP_API_KEY_SECRET', 'looks like a PEM key but does not parse (an ECDSA key from CDP: "-----BEGIN EC PRIVATE KEY-----" … "-----END EC PRIVATE KEY-----")');
    }
    if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
      throw new ConfigError('CDP_API_KEY_SECRET', 'is a PEM key but not an ECDSA P-256 key (CDP issues P-256 ECDSA or Ed25519 keys)');
    }
    return key.export({ format: 'pem', type: 'pkcs8' }) as string;
  }
  const bytes = /^[A-Za-z0-9+/]+={0,2}$/.test(secret) ? Buffer.from(secret, 'base64') : Buffer.alloc(0);
  if (bytes.length !== 64) {
    throw new ConfigError('CDP_API_KEY_SECRET', 'is neither an ECDSA key (PEM "-----BEGIN EC PRIVATE KEY-----") nor an Ed25519 key (base64 of 64 bytes)');
  }
  const seed = createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, bytes.subarray(0, 32)]), format: 'der', type: 'pkcs8' });
  const derived = createPublicKey(seed).export({ format: 'jwk' }).x;
  if (derived !== bytes.subarray(32).toString('base64url')) {
    throw new ConfigError('CDP_API_KEY_SECRET', 'is 64 bytes of base64 but not an Ed25519 key (its public half does not match its private half)');
  }
  return secret;
}

/** PKCS#8 DER header of an Ed25519 private key: the 32-byte seed follows. */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/** RFC 9110 token: a header name. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Headers the facilitator client sets itself. */
const CLIENT_HEADERS = new Set(['host', 'content-type', 'content-length', 'transfer-encoding', 'connection']);

/**
 * CDP_API_KEY_ID + CDP_API_KEY_SECRET (both or neither) and
 * X402_FACILITATOR_HEADERS (JSON: facilitator origin → header → value).
 * Messages name variables, origins and header names, never a value.
 */
function facilitatorAuthOf(env: Env, facilitatorUrls: string[]): FacilitatorAuth {
  const auth: FacilitatorAuth = {};
  const id = env.CDP_API_KEY_ID?.trim() || undefined;
  const secret = env.CDP_API_KEY_SECRET?.trim() ? env.CDP_API_KEY_SECRET : undefined;
  if (id && !secret) throw new ConfigError('CDP_API_KEY_SECRET', 'is required when CDP_API_KEY_ID is set (both or neither)');
  if (secret && !id) throw new ConfigError('CDP_API_KEY_ID', 'is required when CDP_API_KEY_SECRET is set (both or neither)');
  if (id && secret) {
    if (/[\s\x00-\x1f]/.test(id)) throw new ConfigError('CDP_API_KEY_ID', 'must not contain spaces or control characters');
    auth.cdp = { apiKeyId: id, apiKeySecret: cdpSecretOf(secret) };
  }
  const raw = env.X402_FACILITATOR_HEADERS;
  if (raw === undefined || raw.trim() === '') return auth;
  const name = 'X402_FACILITATOR_HEADERS';
  const example = '{"https://facilitator.example":{"X-API-Key":"…"}}';
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    // JSON.parse's own message quotes the input, which holds secrets.
    throw new ConfigError(name, `is not valid JSON (an object keyed by facilitator origin, e.g. ${example})`);
  }
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (!isObject(parsed)) throw new ConfigError(name, `must be a JSON object keyed by facilitator origin, e.g. ${example}`);
  const origins = new Set(facilitatorUrls.map((u) => new URL(u).origin));
  const headers: Record<string, Record<string, string>> = {};
  for (const [key, value] of Object.entries(parsed)) {
    let origin: string;
    try {
      const u = new URL(key);
      if (u.pathname !== '/' || u.search || u.hash || u.username || u.password) throw new Error('not an origin');
      origin = u.origin;
    } catch {
      throw new ConfigError(name, `key "${key}" is not an origin (scheme://host[:port], no path)`);
    }
    if (!origins.has(origin)) throw new ConfigError(name, `${origin} is not the origin of any X402_FACILITATOR_URL entry; headers go only to a listed facilitator`);
    if (headers[origin]) throw new ConfigError(name, `lists ${origin} twice`);
    if (!isObject(value)) throw new ConfigError(name, `${origin} must map to an object of header names to string values`);
    const seen = new Set<string>();
    const own: Record<string, string> = {};
    for (const [header, v] of Object.entries(value)) {
      const lower = header.toLowerCase();
      if (!HEADER_NAME.test(header)) throw new ConfigError(name, `${origin}: "${header}" is not a valid header name`);
      if (CLIENT_HEADERS.has(lower)) throw new ConfigError(name, `${origin}: ${header} is set by the facilitator client, not here`);
      if (lower === 'authorization' && auth.cdp) throw new ConfigError(name, `${origin}: Authorization is CDP's JWT when CDP_API_KEY_ID is set; set one or the other`);
      if (seen.has(lower)) throw new ConfigError(name, `${origin}: ${header} is given twice`);
      if (typeof v !== 'string') throw new ConfigError(name, `${origin}: the value of ${header} must be a string`);
      if (v === '' || /[\x00-\x08\x0a-\x1f\x7f]/.test(v) || v !== v.trim()) throw new ConfigError(name, `${origin}: the value of ${header} must be non-empty, without control characters or surrounding spaces`);
      seen.add(lower);
      own[header] = v;
    }
    headers[origin] = own;
  }
  auth.headers = headers;
  return auth;
}

/** secp256k1 group order: a private key is 1 ≤ k < n. */
const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

function signingKeyOf(env: Env): Hex | undefined {
  const raw = env.X402_SIGNING_KEY;
  if (raw === undefined || raw === '') return undefined;
  const hex = raw.startsWith('0x') ? raw.slice(2) : raw;
  // Never echo the value: it is a secret.
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) throw new ConfigError('X402_SIGNING_KEY', 'must be a 32-byte secp256k1 private key in hex (64 hex digits, optionally 0x-prefixed)');
  const k = BigInt('0x' + hex);
  if (k === 0n || k >= SECP256K1_N) throw new ConfigError('X402_SIGNING_KEY', 'is not a valid secp256k1 private key (must be between 1 and the curve order)');
  return `0x${hex.toLowerCase()}`;
}

function mppSecretKeyOf(env: Env): string | undefined {
  const raw = env.MPP_SECRET_KEY;
  if (raw === undefined || raw === '') return undefined;
  // Never echo the value: it is a secret.
  if (Buffer.byteLength(raw, 'utf8') < 32) throw new ConfigError('MPP_SECRET_KEY', 'must be at least 32 bytes (a random secret, e.g. 64 hex digits)');
  return raw;
}

function operationsOf(env: Env): OperationsConfig {
  const rawOrigins = (env.CORS_ORIGINS ?? '*').trim();
  let corsOrigins: OperationsConfig['corsOrigins'] = '*';
  if (rawOrigins !== '*' && rawOrigins !== '') {
    corsOrigins = rawOrigins.split(',').map((o) => o.trim()).filter(Boolean).map((o) => {
      let u: URL;
      try {
        u = new URL(o);
      } catch {
        throw new ConfigError('CORS_ORIGINS', `"${o}" is not an origin (comma-separated list like https://app.example, or *)`);
      }
      if ((u.protocol !== 'http:' && u.protocol !== 'https:') || u.origin !== o.replace(/\/+$/, '')) {
        throw new ConfigError('CORS_ORIGINS', `"${o}" is not an origin (scheme://host[:port], no path)`);
      }
      return u.origin;
    });
  }
  const trust = env.TRUST_PROXY ?? '';
  if (!['', '0', '1'].includes(trust)) throw new ConfigError('TRUST_PROXY', `must be 0 or 1, got "${trust}"`);
  const rateLimitPerMinute = int(env, 'RATE_LIMIT_PER_MINUTE', 600, 0, 1_000_000);
  const redisUrl = env.REDIS_URL || undefined;
  if (redisUrl !== undefined && !/^rediss?:\/\/[^\s]+$/.test(redisUrl)) throw new ConfigError('REDIS_URL', 'must start with redis:// or rediss://');
  if (redisUrl !== undefined && rateLimitPerMinute === 0) throw new ConfigError('REDIS_URL', 'has no effect with RATE_LIMIT_PER_MINUTE=0 (Redis only holds the rate-limit counters); unset it, or set a limit');
  const metricsToken = env.METRICS_TOKEN || undefined;
  if (metricsToken !== undefined && metricsToken.length < 16) throw new ConfigError('METRICS_TOKEN', 'must be at least 16 characters');
  return {
    corsOrigins,
    trustProxy: trust === '1',
    rateLimitPerMinute,
    redisUrl,
    metricsToken,
    shutdownDrainMs: int(env, 'SHUTDOWN_DRAIN_MS', 10_000, 0, 600_000),
  };
}

/** The intelligence collectors' settings (src/intel/collectors); every source list is optional. */
export interface IntelCollectorConfig {
  /** INTEL_COLLECT_INTERVAL: run every collector this often inside the service; undefined: only `npm run intel -- collect`. */
  collectIntervalMs: number | undefined;
  /** INTEL_DISCOVERY_URLS: Bazaar-style discovery endpoints (`…/discovery/resources`). */
  discoveryUrls: string[];
  /** INTEL_DISCOVERY_ORIGINS: origins whose `/.well-known/x402` is read. */
  discoveryOrigins: string[];
  /** INTEL_OPENAPI_URLS: OpenAPI documents read for `x-payment-info`. */
  openapiUrls: string[];
  /** INTEL_NPM_PACKAGES: npm packages whose releases are reported; undefined: the collector's default list. */
  npmPackages: string[] | undefined;
  /** INTEL_NPM_REGISTRY: the npm registry base URL. */
  npmRegistry: string | undefined;
  /** INTEL_RPC_URL: EVM JSON-RPC endpoint of the on-chain census; the census is off when undefined. */
  rpcUrl: string | undefined;
  /** INTEL_CHAIN_ASSET: token whose transfers are counted; default: the payment rail's asset. */
  chainAsset: Hex | undefined;
  /** INTEL_CHAIN_SOURCE_URL: public URL cited as the census source; default: the explorer page of a known network's asset. */
  chainSourceUrl: string | undefined;
  /** INTEL_CHAIN_START_BLOCK: first block of the first census run. */
  chainStartBlock: bigint | undefined;
  /** INTEL_CHAIN_BLOCK_RANGE: most blocks per eth_getLogs call. */
  chainBlockRange: number;
  /** INTEL_DUST_ATOMIC: transfers below this many atomic units are dust. */
  dustAtomic: number;
  /** INTEL_FETCH_TIMEOUT_MS / INTEL_FETCH_MAX_BYTES: bounds on every collector request. */
  fetchTimeoutMs: number;
  fetchMaxBytes: number;
  /** INTEL_ALLOW_PRIVATE_SOURCES=1: collectors may connect to loopback, private and link-local addresses (off: public addresses only). */
  allowPrivateSources: boolean;
}

/**
 * A collection interval: whole seconds (`900`), a number with a unit
 * (`90s`, `15m`, `6h`, `1d`) or an ISO 8601 duration (`PT15M`, `PT1H30M`,
 * `P1D`). Between one minute and seven days.
 */
export function parseInterval(name: string, raw: string): number {
  const text = raw.trim();
  let seconds: number | undefined;
  const unit = /^([0-9]+)\s*(s|m|h|d)?$/i.exec(text);
  const iso = /^P(?:([0-9]+)D)?(?:T(?:([0-9]+)H)?(?:([0-9]+)M)?(?:([0-9]+)S)?)?$/i.exec(text);
  if (unit) seconds = Number(unit[1]) * { s: 1, m: 60, h: 3600, d: 86_400 }[(unit[2] ?? 's').toLowerCase() as 's' | 'm' | 'h' | 'd'];
  else if (iso && text.length > 1 && !/T$/i.test(text)) seconds = Number(iso[1] ?? 0) * 86_400 + Number(iso[2] ?? 0) * 3600 + Number(iso[3] ?? 0) * 60 + Number(iso[4] ?? 0);
  if (seconds === undefined) throw new ConfigError(name, `must be seconds (900), a number with a unit (15m, 6h, 1d) or an ISO 8601 duration (PT15M); got "${raw}"`);
  if (seconds < 60 || seconds > 7 * 86_400) throw new ConfigError(name, `must be between 1 minute and 7 days; got ${seconds} s`);
  return seconds * 1000;
}

function urlList(env: Env, name: string): string[] {
  return (env[name] ?? '')
    .split(',')
    .map((u) => u.trim())
    .filter(Boolean)
    .map((u) => {
      const one = httpUrl({ [name]: u }, name, true)!;
      return one;
    });
}

function intelOf(env: Env): IntelCollectorConfig {
  const interval = env.INTEL_COLLECT_INTERVAL;
  const packages = env.INTEL_NPM_PACKAGES;
  const npmPackages =
    packages === undefined || packages.trim() === ''
      ? undefined
      : packages.split(',').map((p) => p.trim()).filter(Boolean).map((p) => {
          if (!/^(@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/.test(p) || p.length > 214) throw new ConfigError('INTEL_NPM_PACKAGES', `"${p}" is not an npm package name (comma-separated list expected)`);
          return p;
        });
  if (!env.INTEL_RPC_URL) {
    for (const v of ['INTEL_CHAIN_ASSET', 'INTEL_CHAIN_SOURCE_URL', 'INTEL_CHAIN_START_BLOCK', 'INTEL_CHAIN_BLOCK_RANGE', 'INTEL_DUST_ATOMIC'] as const) {
      if (env[v]) throw new ConfigError(v, 'has no effect without INTEL_RPC_URL (it sets up the on-chain census, which is off); unset it, or set INTEL_RPC_URL');
    }
  }
  const start = env.INTEL_CHAIN_START_BLOCK;
  if (start !== undefined && start !== '' && !/^[0-9]{1,20}$/.test(start)) throw new ConfigError('INTEL_CHAIN_START_BLOCK', `must be a block number, got "${start}"`);
  return {
    collectIntervalMs: interval === undefined || interval.trim() === '' ? undefined : parseInterval('INTEL_COLLECT_INTERVAL', interval),
    discoveryUrls: urlList(env, 'INTEL_DISCOVERY_URLS'),
    discoveryOrigins: urlList(env, 'INTEL_DISCOVERY_ORIGINS'),
    openapiUrls: urlList(env, 'INTEL_OPENAPI_URLS'),
    npmPackages,
    npmRegistry: httpUrl(env, 'INTEL_NPM_REGISTRY', false),
    rpcUrl: httpUrl(env, 'INTEL_RPC_URL', false),
    chainAsset: env.INTEL_CHAIN_ASSET ? address(env, 'INTEL_CHAIN_ASSET') : undefined,
    chainSourceUrl: httpUrl(env, 'INTEL_CHAIN_SOURCE_URL', false),
    chainStartBlock: start ? BigInt(start) : undefined,
    chainBlockRange: int(env, 'INTEL_CHAIN_BLOCK_RANGE', 2000, 1, 100_000),
    dustAtomic: int(env, 'INTEL_DUST_ATOMIC', 1000, 0, 1_000_000_000),
    fetchTimeoutMs: int(env, 'INTEL_FETCH_TIMEOUT_MS', 10_000, 100, 120_000),
    fetchMaxBytes: int(env, 'INTEL_FETCH_MAX_BYTES', 8 * 1024 * 1024, 1024, 64 * 1024 * 1024),
    allowPrivateSources: flag(env, 'INTEL_ALLOW_PRIVATE_SOURCES'),
  };
}

/** A DNS name: dot-separated labels of letters, digits and inner hyphens. */
const DNS_NAME = /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/;

/** HOST: an IP address or a name to listen on (whether it is one of this machine's is found out at start-up). */
function hostOf(env: Env): string {
  const host = env.HOST || '127.0.0.1';
  if (isIP(host) === 0 && !DNS_NAME.test(host)) throw new ConfigError('HOST', `must be an IP address or a host name to listen on (127.0.0.1, 0.0.0.0, ::), got "${host}"`);
  return host;
}

/**
 * What only an external rail reads. Without X402_NETWORK the devnet supplies
 * the network, payee, asset, facilitator and its credentials, so any of these
 * would be silently ignored there: start-up refuses them instead, as it
 * refuses a payee the devnet would not pay.
 */
const EXTERNAL_RAIL_VARIABLES = [
  'X402_PAY_TO', 'X402_FACILITATOR_URL', 'X402_RPC_URL', 'X402_ASSET', 'X402_ASSET_NAME', 'X402_ASSET_VERSION', 'X402_ASSET_DECIMALS', 'X402_ASSET_SYMBOL', 'X402_ALLOW_CUSTOM_ASSET',
  'X402_FACILITATOR_HEADERS', 'CDP_API_KEY_ID', 'CDP_API_KEY_SECRET', 'X402_SVM_NETWORK', 'X402_SVM_PAY_TO', 'X402_SVM_ASSET', 'X402_SVM_ASSET_DECIMALS', 'X402_SVM_RPC_URL',
] as const;

export function loadConfig(env: Env = process.env): Config {
  const host = hostOf(env);
  const port = int(env, 'PORT', 8402, 0, 65535);
  const dataDir = resolve(env.DATA_DIR || './data');
  const databaseUrl = env.DATABASE_URL || undefined;
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL', 'must start with postgres:// or postgresql:// (leave it unset for the embedded SQLite ledger)');
  }
  const publicBaseUrl = httpUrl(env, 'PUBLIC_BASE_URL', false);
  const allowedHosts = allowedHostsOf(env);
  const logLevel = env.LOG_LEVEL || 'info';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    throw new ConfigError('LOG_LEVEL', `must be one of fatal, error, warn, info, debug, trace, silent; got "${logLevel}"`);
  }
  const facilitatorTimeoutMs = int(env, 'X402_FACILITATOR_TIMEOUT_MS', 15_000, 100, 600_000);
  const maxTimeoutSeconds = int(env, 'X402_MAX_TIMEOUT_SECONDS', 300, 30, 3600);
  // The lease is renewed (heartbeat) while a request holds it, so a crashed
  // instance's lease lapses within seconds. It must still outlast one whole
  // facilitator call, or a duplicate could take it over mid-settle if the
  // renewals themselves stall.
  const minLeaseMs = facilitatorTimeoutMs + LEASE_MARGIN_MS;
  const attemptLeaseMs = int(env, 'X402_ATTEMPT_LEASE_MS', Math.max(DEFAULT_LEASE_MS, minLeaseMs), 500, 3_600_000);
  if (attemptLeaseMs < minLeaseMs) {
    throw new ConfigError('X402_ATTEMPT_LEASE_MS', `must be at least X402_FACILITATOR_TIMEOUT_MS + ${LEASE_MARGIN_MS} (${minLeaseMs}), or a duplicate request could take over a settlement still in flight; got ${attemptLeaseMs}`);
  }
  const ledgerTimeoutMs = int(env, 'LEDGER_TIMEOUT_MS', 3000, 100, 60_000);
  const reconcileIntervalMs = int(env, 'RECONCILE_INTERVAL_MS', 15_000, 100, 3_600_000);

  const adminToken = env.ADMIN_TOKEN || undefined;
  if (adminToken !== undefined && adminToken.length < 16) throw new ConfigError('ADMIN_TOKEN', 'must be at least 16 characters');
  const operatorWallets = (env.OPERATOR_WALLETS ?? '')
    .split(',')
    .map((w) => w.trim())
    .filter(Boolean)
    .map((w) => {
      if (!ADDRESS.test(w)) throw new ConfigError('OPERATOR_WALLETS', `"${w}" is not a 0x-prefixed 20-byte hex address (comma-separated list expected)`);
      return checksummed('OPERATOR_WALLETS', w).toLowerCase();
    });
  const composite = env.OUTCOME_ROUTER_COMPOSITE ?? '';
  if (!['', '0', '1'].includes(composite)) throw new ConfigError('OUTCOME_ROUTER_COMPOSITE', `must be 0 or 1, got "${composite}"`);
  const outcomeRouterComposite = composite === '1';
  // At most one whole USDC: stock clients cap a payment at $1, so a dearer settlement could never be covered (a typo).
  const settlementCostAtomic = int(env, 'X402_SETTLEMENT_COST_ATOMIC', 0, 0, 1_000_000);
  const timings = { facilitatorTimeoutMs, maxTimeoutSeconds, attemptLeaseMs };
  const handlers = {
    workers: env.HANDLER_WORKERS ? int(env, 'HANDLER_WORKERS', 1, 1, 64) : undefined,
    budgetMs: int(env, 'HANDLER_BUDGET_MS', 10_000, 10, 600_000),
  };
  const signingKey = signingKeyOf(env);
  const mppSecretKey = mppSecretKeyOf(env);
  // The SDK's default expiry; the SDK's own validator takes messages up to this old, so more buys nothing but a longer replay window.
  const signInLifetimeSeconds = int(env, 'X402_SIGN_IN_TTL_SECONDS', 300, 5, 300);
  const common = { adminToken, operatorWallets, operatorContact: operatorContactOf(env), outcomeRouterComposite, settlementCostAtomic, timings, handlers, signingKey, signInLifetimeSeconds, mppSecretKey, operations: operationsOf(env), intel: intelOf(env) };

  const devnetSvmFlag = env.DEVNET_SVM ?? '';
  if (!['', '0', '1'].includes(devnetSvmFlag)) throw new ConfigError('DEVNET_SVM', `must be 0 or 1, got "${devnetSvmFlag}"`);
  const network = env.X402_NETWORK || undefined;
  if (network === undefined) {
    // Embedded default: the devnet supplies network, asset, payee and facilitator.
    for (const v of EXTERNAL_RAIL_VARIABLES) {
      if (env[v]) throw new ConfigError(v, 'is set but X402_NETWORK is not: the devnet supplies the payment rail, so it would have no effect; set X402_NETWORK (e.g. eip155:8453) to use an external network, or unset it');
    }
    return { host, port, dataDir, databaseUrl, publicBaseUrl, allowedHosts, logLevel, rail: 'devnet', devnetSvm: devnetSvmFlag !== '0', payment: undefined, reconcileIntervalMs, ledgerTimeoutMs, ...common };
  }
  if (devnetSvmFlag) throw new ConfigError('DEVNET_SVM', 'is set but X402_NETWORK is too: DEVNET_SVM chooses the devnet\'s rails; with an external network set X402_SVM_NETWORK instead');
  if (/^solana:/.test(network)) throw new ConfigError('X402_NETWORK', `must be a CAIP-2 EVM network such as eip155:8453, got "${network}"; a Solana network goes in X402_SVM_NETWORK, beside the EVM one`);
  if (!/^eip155:[0-9]+$/.test(network)) throw new ConfigError('X402_NETWORK', `must be a CAIP-2 EVM network such as eip155:8453, got "${network}"`);
  if (network === 'eip155:1') throw new ConfigError('X402_NETWORK', 'eip155:1 is not supported; use eip155:8453 (Base) or eip155:84532 (Base Sepolia)');
  const known = KNOWN_NETWORKS[network];
  const payTo = address(env, 'X402_PAY_TO');
  const facilitatorUrls = facilitatorUrlsOf(env, network);
  const facilitatorAuth = facilitatorAuthOf(env, facilitatorUrls);

  const customAsset = flag(env, 'X402_ALLOW_CUSTOM_ASSET');
  if (!env.X402_ASSET) {
    for (const v of ['X402_ASSET_NAME', 'X402_ASSET_VERSION', 'X402_ASSET_DECIMALS'] as const) {
      if (env[v]) throw new ConfigError(v, `has no effect without X402_ASSET (the network's USDC has its own); unset it, or set X402_ASSET`);
    }
    if (!env.X402_SVM_ASSET && env.X402_ASSET_SYMBOL) throw new ConfigError('X402_ASSET_SYMBOL', 'has no effect without X402_ASSET or X402_SVM_ASSET (USDC is shown as USDC); unset it, or set the asset it names');
  }
  let asset: AssetConfig;
  if (env.X402_ASSET) {
    const a = address(env, 'X402_ASSET');
    asset = {
      address: a,
      name: env.X402_ASSET_NAME || known?.asset.name || 'USD Coin',
      version: env.X402_ASSET_VERSION || known?.asset.version || '2',
      decimals: int(env, 'X402_ASSET_DECIMALS', 6, 0, 36),
      symbol: env.X402_ASSET_SYMBOL || 'USDC',
    };
    if (known && a.toLowerCase() !== known.asset.address.toLowerCase() && !customAsset) {
      throw new ConfigError('X402_ASSET', `differs from ${known.label}'s USDC ${known.asset.address}; set X402_ALLOW_CUSTOM_ASSET=1 if that is intended`);
    }
  } else if (known) {
    asset = known.asset;
  } else {
    throw new ConfigError('X402_NETWORK', `"${network}" is not a known network (eip155:8453, eip155:84532); set X402_ASSET, X402_ASSET_NAME and X402_ASSET_VERSION to use it`);
  }
  const rpcUrl = httpUrl(env, 'X402_RPC_URL', false) ?? known?.rpcUrl;
  if (!rpcUrl) throw new ConfigError('X402_RPC_URL', `is required for ${network} (the reconciler reads authorizationState from the chain)`);

  return {
    host,
    port,
    dataDir,
    databaseUrl,
    publicBaseUrl,
    allowedHosts,
    logLevel,
    rail: 'external',
    devnetSvm: false,
    payment: { network, payTo, asset, facilitatorUrls, facilitatorAuth, rpcUrl, facilitatorTimeoutMs, maxTimeoutSeconds, attemptLeaseMs, solana: solanaRailOf(env) },
    reconcileIntervalMs,
    ledgerTimeoutMs,
    ...common,
  };
}
