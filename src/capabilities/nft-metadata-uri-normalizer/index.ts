import type { Capability, InputProblem } from '../../catalog/capability.js';
import type { ErrorDetail } from '../../errors.js';
import {
  MAX_UINT256,
  normalizeGateway,
  normalizeNftUri,
  parseTokenId,
  type NormalizerRequest,
  type NormalizerResponse,
} from './normalize.js';
import { inputSchema, MAX_BODY_BYTES, outputSchema } from './schema.js';
import { nftRouting } from './routing.js';

export type { NormalizerRequest, NormalizerResponse } from './normalize.js';

/** Rules beyond the schema, reported as 400 before any payment step. */
export function checkNormalizerRequest(input: NormalizerRequest): InputProblem | undefined {
  const details: ErrorDetail[] = [];
  if (input.token_id !== undefined) {
    const id = parseTokenId(input.token_id);
    if (id === undefined) {
      details.push({ path: '/token_id', rule: 'pattern', message: 'must be decimal digits or 0x-hex' });
    } else if (id > MAX_UINT256) {
      details.push({ path: '/token_id', rule: 'max_uint256', message: 'must be at most 2^256-1 (uint256)' });
    }
  }
  if (input.ipfs_gateway !== undefined) {
    const g = normalizeGateway(input.ipfs_gateway);
    if (typeof g !== 'string') details.push({ path: '/ipfs_gateway', rule: 'https_origin', message: g.reason });
  }
  if (details.length === 0) return undefined;
  return {
    code: 'invalid_request',
    message: details.map((d) => `${d.path.slice(1)} ${d.message}`).join('; '),
    details,
  };
}

const exampleInputs: Array<{ summary: string; input: NormalizerRequest }> = [
  {
    summary: 'ipfs://ipfs/… (the double-prefix bug) becomes the canonical ipfs:// form; CIDv0 case is kept',
    input: { uri: 'ipfs://ipfs/QmZHKZDavkvNfA9gSAg7HALv8jF7BJaKjUc9U2LSuvUySB' },
  },
  {
    summary: 'A Pinata path-gateway URL is converted to the canonical ipfs:// URI and re-pointed at your gateway',
    input: {
      uri: 'https://rainbow.pinata.cloud/ipfs/QmZHKZDavkvNfA9gSAg7HALv8jF7BJaKjUc9U2LSuvUySB/7.json',
      ipfs_gateway: 'https://dweb.link',
    },
  },
  {
    summary: 'ERC-1155 {id} substitution with token id 314592 (64 lowercase hex digits)',
    input: { uri: 'ipfs://bafybeiasb5vpmaounyilfuxbd3lryvosl4yefqrfahsb2esg46q6tu6y5q/{id}.json', token_id: '314592' },
  },
  {
    summary: 'ar:// with a transaction id and path, and its arweave.net gateway URL',
    input: { uri: 'ar://rgW4h3ffQQzOD8ynnwdl3_YlHxtssqV3aXOregPr7yI/1.json' },
  },
  {
    summary: 'On-chain base64 JSON metadata is decoded and parsed',
    input: { uri: 'data:application/json;base64,eyJuYW1lIjoiVG9rZW4gIzEiLCJpbWFnZSI6ImlwZnM6Ly9RbVlqdGlnN1ZKUTZYc25VanFxSnZqN1FhTWNDQXd0cmdOZGFoU2lGb2ZyRTdvIn0=' },
  },
  {
    summary: 'Plain http is flagged (mutable, insecure) and never upgraded',
    input: { uri: 'HTTP://API.Example.com/Token/12?x=1' },
  },
];

export const nftMetadataUriNormalizer: Capability<NormalizerRequest, NormalizerResponse> = {
  id: 'nft-metadata-uri-normalizer',
  method: 'POST',
  path: '/x402/v1/nft-metadata-uri-normalizer',
  priceAtomic: '1000',
  title: 'NFT metadata URI normalizer',
  summary: 'The canonical form of an NFT metadata URI (IPFS, IPNS, Arweave, data:, http) with gateway URLs, the CID\'s parts and warnings, worked out without fetching anything.',
  description:
    'Normalizes one NFT metadata URI (ERC-721 tokenURI / ERC-1155 uri) without fetching it. Returns the canonical form (ipfs://{cid}{/path}, ipns://, ar://{id}, data:, http(s)) next to the raw value, ' +
    'its kind, a gateway URL on your ipfs_gateway (default https://ipfs.io) or arweave.net, a subdomain gateway URL with the CIDv1 base32 form, the CID with version, multibase, codec and multihash, ' +
    'the path with case, trailing slash, query and fragment kept, ERC-1155 {id} substitution (64 lowercase hex digits, BigInt, up to 2^256-1), whether the metadata is on-chain (data: URIs decoded: text and parsed JSON), ' +
    'whether it is mutable, and stable warning codes. Fixes ipfs://ipfs/…, /ipfs/… paths, bare CIDs, path and subdomain gateway URLs and arweave.net URLs; never lowercases a CIDv0; never produces /ipfs/ipfs/; never upgrades http. ' +
    'A URI that cannot be normalized is still a delivered result (valid=false with error warnings). Deterministic: no network fetches, no model calls.',
  inputSchema,
  outputSchema,
  examples: exampleInputs.map((e) => ({ summary: e.summary, input: e.input, output: normalizeNftUri(e.input) })),
  check: checkNormalizerRequest,
  routing: nftRouting,
  run: normalizeNftUri,
  maxBodyBytes: MAX_BODY_BYTES,
  isolate: 'large-input',
};
