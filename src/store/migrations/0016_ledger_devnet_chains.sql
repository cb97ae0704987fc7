-- The devnet chains this ledger was used with. A devnet's chain lives only as
-- long as its process (anvil and the Solana runtime keep it in memory), but a
-- new one reuses the network ids, the token address and the funded buyers, so
-- an authorization signed on the old chain is valid on the new one. Each row
-- is one chain (anvil's instanceId, drawn afresh by every anvil) and when the
-- service first started on it; the newest row is the chain the ledger's
-- devnet attempts are driven on (src/payments/devnet-chain.ts).
CREATE TABLE IF NOT EXISTS devnet_chains (
  chain       TEXT PRIMARY KEY,
  adopted_at  BIGINT NOT NULL
);
