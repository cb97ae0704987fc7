/**
 * A representative quote request for `npm run bench`: a composition of a
 * batch of colour pairs (read from the objective's text), a field-contract
 * check with top-level fields folded into inputs, and an NFT URI, with
 * buyer_metadata carrying one secret-like key to strip. It exercises every
 * stage of the planner; POST it to /v1/router/quote.
 */
export function benchQuoteInput(): Record<string, unknown> {
  return {
    goal: 'Check WCAG contrast of #000000 on #ffffff and #777777 on #ffffff, whether the producer contract is compatible with the consumer contract, and normalize ipfs://ipfs/QmZHKZDavkvNfA9gSAg7HALv8jF7BJaKjUc9U2LSuvUySB',
    source_fields: [
      { name: 'id', type: 'integer', required: true, nullable: false },
      { name: 'email', type: 'string', required: false, nullable: true },
    ],
    target_fields: [
      { name: 'id', type: 'number', required: true, nullable: false },
      { name: 'email', type: 'string', required: true, nullable: false },
    ],
    max_price: '10000',
    latency: 'interactive',
    buyer_metadata: { agent: 'bench', run: { session_token: 'not-a-real-secret' } },
  };
}
