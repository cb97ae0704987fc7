/**
 * Every environment variable the service reads, with its default and meaning:
 * the one description of the configuration. The README's table is generated
 * from this list (`npm run readme:tables`), and test/readme.test.ts checks
 * that the variables src/config.ts and src/main.ts read are exactly these.
 * Text is Markdown (backticks for code), one line per row.
 */
export interface ConfigVariable {
  names: readonly string[];
  default: string;
  meaning: string;
}

export const CONFIG_VARIABLES: readonly ConfigVariable[] = [
  { names: ["HOST", "PORT"], default: "`127.0.0.1`, `8402`", meaning: "Listen address" },
  { names: ["DATA_DIR"], default: "`./data`", meaning: "SQLite ledger and `devnet.json`" },
  { names: ["DATABASE_URL"], default: "—", meaning: "`postgres://…` selects the PostgreSQL ledger (use it for several instances)" },
  { names: ["X402_NETWORK"], default: "— (devnet)", meaning: "`eip155:8453` (Base) or `eip155:84532` (Base Sepolia); unset starts the local devnet" },
  { names: ["X402_PAY_TO"], default: "—", meaning: "Payee address (required with `X402_NETWORK`)" },
  { names: ["X402_FACILITATOR_URL"], default: "Base Sepolia: `https://www.x402.org/facilitator`; with CDP keys: CDP's; else —", meaning: "Facilitator base URL, or several comma-separated in order of preference (see Several facilitators; required with `X402_NETWORK` except as in Going live)" },
  { names: ["X402_RPC_URL"], default: "Base's public RPC", meaning: "Read-only RPC for reconciling unknown settlements" },
  { names: ["X402_ASSET", "X402_ASSET_NAME", "X402_ASSET_VERSION"], default: "USDC of the network", meaning: "Other EIP-3009 assets (other chains need all three)" },
  { names: ["X402_ASSET_DECIMALS", "X402_ASSET_SYMBOL"], default: "`6`, `USDC`", meaning: "Decimals and symbol of `X402_ASSET`, used where a price is shown in whole tokens (402 messages, pages, discovery); prices themselves are atomic units" },
  { names: ["X402_ALLOW_CUSTOM_ASSET"], default: "`0`", meaning: "`1` accepts an `X402_ASSET` other than the network's USDC on Base or Base Sepolia; otherwise start-up refuses it (a typo would price every call in another token)" },
  { names: ["X402_SVM_NETWORK"], default: "— (devnet: its own Solana runtime)", meaning: "`solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp` (Solana) or `solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1` (Solana Devnet): every paid 402 also offers Solana at the same price (see Solana beside Base). Needs `X402_NETWORK`" },
  { names: ["X402_SVM_PAY_TO"], default: "—", meaning: "Payee wallet on Solana, base58 (required with `X402_SVM_NETWORK`); payments go to its associated token account for the mint, which must exist" },
  { names: ["X402_SVM_ASSET", "X402_SVM_ASSET_DECIMALS"], default: "USDC of the network, `6`", meaning: "Another SPL mint and its decimals (refused unless `X402_ALLOW_CUSTOM_ASSET=1`)" },
  { names: ["X402_SVM_RPC_URL"], default: "the network's public RPC", meaning: "Solana JSON-RPC read to resolve settlements whose outcome is unknown (`isBlockhashValid`, `getSignaturesForAddress`, `getTransaction`)" },
  { names: ["DEVNET_SVM"], default: "`1`", meaning: "Without `X402_NETWORK`: `0` leaves the embedded Solana devnet out (the 402s then offer the EVM devnet only)" },
  { names: ["X402_FACILITATOR_TIMEOUT_MS"], default: "`15000`", meaning: "Per-call facilitator timeout" },
  { names: ["CDP_API_KEY_ID", "CDP_API_KEY_SECRET"], default: "—", meaning: "A CDP Secret API key (both or neither): every facilitator call carries a JWT minted for it (see Facilitator credentials)" },
  { names: ["X402_FACILITATOR_HEADERS"], default: "—", meaning: "JSON object: facilitator origin → headers sent to that origin only, e.g. `{\"https://facilitator.example\":{\"X-API-Key\":\"…\"}}`" },
  { names: ["X402_MAX_TIMEOUT_SECONDS"], default: "`300`", meaning: "Authorization lifetime asked for in the requirements" },
  { names: ["X402_ATTEMPT_LEASE_MS"], default: "`20000` (at least `X402_FACILITATOR_TIMEOUT_MS` + 5000)", meaning: "Lease on an attempt; renewed while a request works on it, so it only lapses when the holder died (PostgreSQL; SQLite releases leases at start-up)" },
  { names: ["LEDGER_TIMEOUT_MS"], default: "`3000`", meaning: "Bound on one ledger operation (PostgreSQL connect/query timeouts on the client side, SQLite lock wait); past it → `503 ledger_unavailable`" },
  { names: ["RECONCILE_INTERVAL_MS"], default: "`15000`", meaning: "How often the reconciler resolves attempts left `unknown` or `settling` from the chain (100 ms to 1 hour). With SQLite it runs only after paid calls and while such attempts remain; with PostgreSQL steadily, since other instances share the ledger" },
  { names: ["PUBLIC_BASE_URL"], default: "— (the request's host if it is one of ours, else the listening address)", meaning: "The origin the service names in every absolute URL it states or signs (402 challenges, MPP realm, signed receipts and offers, MCP, A2A, discovery documents), whatever the request's `Host` says. Set it in production and whenever clients use another name than the listening address (see The service's own origin)" },
  { names: ["ALLOWED_HOSTS"], default: "— (the listening address only)", meaning: "Without `PUBLIC_BASE_URL`: comma-separated `host[:port]` names the service also answers under (`api.example.com,10.0.0.5:8402`; without a port, any port; no wildcards). A request for one of them (in `Host`, an absolute-form target, or `X-Forwarded-Host` with `TRUST_PROXY=1`) is named under it; a host that is neither listed nor the listening address is ignored" },
  { names: ["OUTCOME_ROUTER_COMPOSITE"], default: "`0`", meaning: "`1` enables the paid composite resource `/x402/v1/outcome-router`" },
  { names: ["X402_SETTLEMENT_COST_ATOMIC"], default: "`0`", meaning: "What one settlement costs the operator, in atomic units of the asset (whole number, at most 1000000; CDP past its free tier: `1000` = $0.001): the outcome router's cost of goods (see Going live)" },
  { names: ["X402_SIGNING_KEY"], default: "— (devnet: generated, kept in `devnet.json`)", meaning: "32-byte secp256k1 private key (hex) that signs receipts and quote offers (see Signed receipts); unset with an external network: nothing is signed and the discovery documents say so" },
  { names: ["X402_SIGN_IN_TTL_SECONDS"], default: "`300`", meaning: "How long the `sign-in-with-x` message of a `402` may be signed and sent back to get a paid result again (5 to 300 s; each message is accepted once)" },
  { names: ["MPP_SECRET_KEY"], default: "— (devnet: generated, kept in `devnet.json`)", meaning: "At least 32 bytes; binds the ids of MPP challenges (HMAC; instances sharing it accept each other's). Set: every paid 402 also offers MPP (see MPP beside x402); unset with an external network: x402 only, and the discovery documents say so" },
  { names: ["ADMIN_TOKEN"], default: "—", meaning: "Enables the admin API `/admin/v1/…` (bearer token, at least 16 characters)" },
  { names: ["OPERATOR_WALLETS"], default: "—", meaning: "Comma-separated operator addresses: their payments are not counted as independent revenue. The payee and the well-known test wallets (anvil's and Hardhat's default accounts, the devnet's buyers among them) never count, without configuration" },
  { names: ["OPERATOR_CONTACT"], default: "— (none)", meaning: "How buyers reach the operator: an `https://` URL or an e-mail address, published as OpenAPI `info.contact`" },
  { names: ["HANDLER_WORKERS"], default: "cores − 1 (at least 1)", meaning: "Worker threads that run heavy handlers (entries marked `isolate` in their descriptor: the extractor, the NFT normalizer and the checker when their input carries ≥ 16 KiB of strings, whether called on their own route or as a step of the composite router) off the event loop (`src/isolation`); one pool per process. The default leaves a core to the event loop that answers probes and 402s" },
  { names: ["HANDLER_BUDGET_MS"], default: "`10000`", meaning: "Budget of one call on that pool, from the moment a worker takes it; past it the worker is stopped and replaced and the call fails `503 handler_over_budget` before settlement (nothing charged). Each step of the composite router that runs on the pool has the same budget, and so does composing its answer. Small inputs run inline, unbudgeted" },
  { names: ["LOG_LEVEL"], default: "`info`", meaning: "pino level; one line per request, no payment headers or bodies. Readable coloured lines (pino-pretty) when stdout is a terminal, one JSON object per line otherwise (lines below `warn` kept up to 100 ms and written together, as a buffered access log is; `warn` and worse at once)" },
  { names: ["CORS_ORIGINS"], default: "`*`", meaning: "Origins browsers may call from: `*` or a comma-separated list of exact origins (`https://app.example`). Preflights are answered; `PAYMENT-SIGNATURE` may be sent and `PAYMENT-REQUIRED`, `PAYMENT-RESPONSE` read across origins. No cookies are used, so `*` exposes nothing a non-browser client could not fetch" },
  { names: ["TRUST_PROXY"], default: "`0`", meaning: "`1`: one reverse proxy in front is trusted: `X-Forwarded-Proto`/`X-Forwarded-Host` set the origin of the URLs the service states (402 challenges, documents) when that host is one of ours (see `ALLOWED_HOSTS`; `PUBLIC_BASE_URL` wins over both) and the last `X-Forwarded-For` entry is the client for every per-client limit (see Who counts as one client). `0`: those headers are ignored (a client could otherwise choose our URLs or dodge the limit)" },
  { names: ["RATE_LIMIT_PER_MINUTE"], default: "`600`", meaning: "Free-route requests per client (one host, see Who counts as one client) per minute (fixed window); over it `429 rate_limited` with `Retry-After`. `0` turns it off. Paid routes (every call is paid; their unpaid 402 is cheap), `/healthz`, `/readyz`, `/metrics` and CORS preflights are not limited; `/mcp` and `/a2a` are free endpoints and count, paid tools and skills included" },
  { names: ["REDIS_URL"], default: "— (in memory)", meaning: "`redis://…`: the rate-limit counters live in Redis, shared by every instance using it (checked at start-up; if Redis stops answering later, free requests are let through and a warning is logged once a minute)" },
  { names: ["METRICS_TOKEN"], default: "— (public)", meaning: "At least 16 characters: `GET /metrics` then needs `Authorization: Bearer <token>`" },
  { names: ["SHUTDOWN_DRAIN_MS"], default: "`10000`", meaning: "On SIGTERM/SIGINT: how long requests in flight may take to finish before their connections are closed" },
  { names: ["INTEL_COLLECT_INTERVAL"], default: "— (off)", meaning: "Run the intelligence collectors inside the service this often: seconds (`900`), `15m`/`6h`/`1d`, or ISO 8601 (`PT15M`); 1 minute to 7 days. Unset: only `npm run intel -- collect` runs them" },
  { names: ["INTEL_DISCOVERY_URLS"], default: "—", meaning: "Comma-separated Bazaar-style discovery endpoints (`…/discovery/resources`, CDP format) for the discovery census" },
  { names: ["INTEL_DISCOVERY_ORIGINS"], default: "—", meaning: "Comma-separated origins whose `/.well-known/x402` the discovery census reads" },
  { names: ["INTEL_OPENAPI_URLS"], default: "—", meaning: "Comma-separated OpenAPI documents read for `x-payment-info`" },
  { names: ["INTEL_NPM_PACKAGES"], default: "`@x402/core,@x402/evm,@x402/fetch,@x402/hono,@x402/extensions,x402,x402-fetch,x402-axios`", meaning: "Packages whose releases the releases collector reports" },
  { names: ["INTEL_NPM_REGISTRY"], default: "`https://registry.npmjs.org`", meaning: "npm registry base URL" },
  { names: ["INTEL_RPC_URL"], default: "— (census off)", meaning: "EVM JSON-RPC endpoint of the on-chain census (transfers to the payees discovery found)" },
  { names: ["INTEL_CHAIN_ASSET"], default: "the payment rail's asset", meaning: "Token whose transfers the census counts" },
  { names: ["INTEL_CHAIN_SOURCE_URL"], default: "explorer token page on Base / Base Sepolia", meaning: "Public URL the census cites as its source (required on other chains)" },
  { names: ["INTEL_CHAIN_START_BLOCK"], default: "last 50 × range blocks", meaning: "First block of the first census run (later runs resume from the stored checkpoint)" },
  { names: ["INTEL_CHAIN_BLOCK_RANGE"], default: "`2000`", meaning: "Most blocks per `eth_getLogs` call (50 calls per run at most)" },
  { names: ["INTEL_DUST_ATOMIC"], default: "`1000`", meaning: "Transfers below this many atomic units are dust: excluded from the census's payers and calls" },
  { names: ["INTEL_FETCH_TIMEOUT_MS", "INTEL_FETCH_MAX_BYTES"], default: "`10000`, `8388608`", meaning: "Deadline and size limit of every collector request (over the limit: aborted, nothing written)" },
  { names: ["INTEL_ALLOW_PRIVATE_SOURCES"], default: "`0`", meaning: "`1`: collectors may connect to loopback, private (RFC 1918, CGNAT, unique-local), link-local (the cloud metadata service at `169.254.169.254`) and other non-public addresses, e.g. a registry mirror on the internal network. Otherwise every collector request (sources, npm registry, census RPC) connects only to public addresses (and documentation ranges, which no network is given: an egress proxy may answer on them), checked after DNS resolution on the address connected to; any other fails `private_address` naming the address" },
];
