/**
 * JSON Schemas (draft 2020-12) of the NFT metadata URI normalizer.
 *
 * Size decisions: `uri` is at most 65 536 characters so fully on-chain
 * `data:` metadata (base64 JSON with an inline SVG) fits; the request body is
 * at most 128 KiB (MAX_BODY_BYTES), so a `uri` made mostly of escaped or
 * multi-byte characters meets the body limit first.
 */
import type { JsonSchema } from '../../catalog/capability.js';
import { MULTIBASE_NAMES } from './cid.js';
import { DEFAULT_IPFS_GATEWAY, GATEWAY_PATTERN, MAX_DATA_JSON_DEPTH, TOKEN_ID_PATTERN } from './normalize.js';

const MAX_URI_CHARS = 65536;
export const MAX_BODY_BYTES = 128 * 1024;

export const inputSchema: JsonSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  additionalProperties: false,
  required: ['uri'],
  properties: {
    uri: {
      type: 'string',
      minLength: 1,
      maxLength: MAX_URI_CHARS,
      description:
        'The metadata URI exactly as returned by tokenURI / uri (ipfs://, ipns://, ar://, data:, http(s)://, /ipfs/ paths, gateway URLs or a bare CID). Leading/trailing whitespace and NULs are trimmed and reported. A URI that cannot be normalized is a delivered result with valid=false, not a 400.',
    },
    token_id: {
      type: 'string',
      pattern: TOKEN_ID_PATTERN,
      description:
        'Optional token id for ERC-1155 {id} substitution: decimal digits or 0x-hex, at most 2^256-1 (a larger value is rejected with 400 invalid_request, rule max_uint256).',
      examples: ['314592', '0x4cce0'],
    },
    ipfs_gateway: {
      type: 'string',
      pattern: GATEWAY_PATTERN,
      maxLength: 270,
      default: DEFAULT_IPFS_GATEWAY,
      description:
        'An https origin (no path) used to build gateway_url for ipfs:// and ipns:// URIs, and subdomain_gateway_url as {cid}.ipfs.{host}. Default https://ipfs.io (whose subdomain gateway is dweb.link).',
    },
  },
};

const nullableString = { type: ['string', 'null'] } as const;

const warning = {
  type: 'object',
  additionalProperties: false,
  required: ['code', 'severity', 'message'],
  properties: {
    code: { type: 'string', pattern: '^[A-Z][A-Z0-9_]*$', description: 'Stable machine-readable code.' },
    severity: {
      type: 'string',
      enum: ['info', 'warning', 'error'],
      description: 'error: the URI could not be normalized or decoded (valid=false); warning: something to fix or be careful with; info: a change or fact worth knowing.',
    },
    message: { type: 'string' },
  },
};

const ipfs = {
  type: ['object', 'null'],
  additionalProperties: false,
  required: ['cid', 'cid_version', 'multibase', 'input_multibase', 'codec', 'codec_code', 'multihash', 'multihash_code', 'digest_length', 'cid_v1_base32'],
  properties: {
    cid: {
      type: 'string',
      description: 'The CID as used in canonical_uri: a CIDv0 exactly as given (case-sensitive); a CIDv1 in any multibase re-encoded from its bytes as lowercase base32 ("b…").',
    },
    cid_version: { type: 'integer', enum: [0, 1] },
    multibase: { type: 'string', enum: ['base58btc', 'base32'], description: 'Multibase of cid: base58btc for CIDv0, base32 for CIDv1.' },
    input_multibase: {
      type: 'string',
      enum: [...MULTIBASE_NAMES],
      description: 'Multibase the CID was written in, by its name in the multiformats multibase table (a CIDv0 is base58btc without a prefix).',
    },
    codec: { ...nullableString, description: 'Multicodec name (dag-pb, raw, dag-cbor, …) or null when unknown.' },
    codec_code: { type: 'integer', minimum: 0 },
    multihash: { ...nullableString, description: 'Multihash function name (sha2-256, …) or null when unknown.' },
    multihash_code: { type: 'integer', minimum: 0 },
    digest_length: { type: 'integer', minimum: 0 },
    cid_v1_base32: { type: 'string', pattern: '^b[a-z2-7]+$', description: 'The same content as CIDv1 base32 (what subdomain gateways need).' },
  },
};

const ipns = {
  type: ['object', 'null'],
  additionalProperties: false,
  required: ['name', 'name_type', 'key_base36'],
  properties: {
    name: { type: 'string' },
    name_type: { type: 'string', enum: ['key', 'dnslink'] },
    key_base36: { ...nullableString, description: 'For a key: the CIDv1 libp2p-key in base36 (k…).' },
  },
};

const arweave = {
  type: ['object', 'null'],
  additionalProperties: false,
  required: ['transaction_id', 'arns_name'],
  properties: {
    transaction_id: { type: ['string', 'null'], pattern: '^[A-Za-z0-9_-]{43}$' },
    arns_name: { ...nullableString, description: 'Set when ar:// names an ArNS name instead of a 43-character transaction id.' },
  },
};

const http = {
  type: ['object', 'null'],
  additionalProperties: false,
  required: ['host', 'port', 'has_userinfo'],
  properties: {
    host: { type: 'string', description: 'Lowercased host.' },
    port: nullableString,
    has_userinfo: { type: 'boolean' },
  },
};

const data = {
  type: ['object', 'null'],
  additionalProperties: false,
  required: ['media_type', 'media_type_omitted', 'parameters', 'charset', 'encoding', 'byte_length', 'text', 'is_json', 'json'],
  properties: {
    media_type: { type: 'string', description: 'Lowercased media type; text/plain when omitted (RFC 2397).' },
    media_type_omitted: { type: 'boolean' },
    parameters: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'value'],
        properties: { name: { type: 'string' }, value: nullableString },
      },
    },
    charset: { ...nullableString, description: 'Charset used to decode text; null for binary media types.' },
    encoding: { type: 'string', enum: ['base64', 'percent'] },
    byte_length: { type: ['integer', 'null'], minimum: 0, description: 'Decoded size in bytes; null when decoding failed.' },
    text: { ...nullableString, description: 'Decoded text (textual media types only).' },
    is_json: {
      type: 'boolean',
      description: `True when the decoded text was parsed as JSON. Text nested more than ${MAX_DATA_JSON_DEPTH} levels deep is not parsed (warning DATA_JSON_TOO_DEEP) and is returned in text only.`,
    },
    json: { description: `The parsed JSON when is_json is true (at most ${MAX_DATA_JSON_DEPTH} levels deep), otherwise null.` },
  },
};

export const outputSchema: JsonSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  additionalProperties: false,
  required: [
    'raw_uri',
    'canonical_uri',
    'kind',
    'valid',
    'gateway_url',
    'subdomain_gateway_url',
    'path',
    'ipfs',
    'ipns',
    'arweave',
    'http',
    'data',
    'id_substitution',
    'on_chain',
    'mutable',
    'content_addressed',
    'warnings',
    'limitations',
    'evidence',
  ],
  properties: {
    raw_uri: { type: 'string', description: 'The uri exactly as received, before any trimming.' },
    canonical_uri: {
      ...nullableString,
      description:
        'Normalized URI (ipfs://{cid}{/path}, ipns://{name}{/path}, ar://{id}{/path}, data:…, http(s)://…), with {id} substituted when token_id was given. Null when the URI cannot be normalized.',
    },
    kind: { type: 'string', enum: ['ipfs', 'ipns', 'arweave', 'data', 'https', 'http', 'unsupported'] },
    valid: { type: 'boolean', description: 'True when canonical_uri is set and no error-severity warning was raised.' },
    gateway_url: {
      ...nullableString,
      description: 'An http(s) URL to fetch the content: ipfs_gateway path-style for IPFS/IPNS, arweave.net for Arweave, the URL itself for http(s) (plain http is not upgraded); null for data: URIs.',
    },
    subdomain_gateway_url: {
      ...nullableString,
      description: 'https://{cidv1-base32}.ipfs.{host}/… (or {key}.ipns.{host}) when a subdomain form exists.',
    },
    path: {
      ...nullableString,
      description: 'Everything after the CID / name / transaction id / host, byte for byte: path (case and trailing slash kept), query and fragment. Null for data: URIs and when not normalized.',
    },
    ipfs,
    ipns,
    arweave,
    http,
    data,
    id_substitution: {
      type: 'object',
      additionalProperties: false,
      required: ['placeholder_found', 'token_id', 'token_id_decimal', 'token_id_hex', 'applied', 'template_uri'],
      properties: {
        placeholder_found: { type: 'boolean', description: 'The URI contains ERC-1155 {id} (or %7Bid%7D).' },
        token_id: { ...nullableString, description: 'token_id as given.' },
        token_id_decimal: { type: ['string', 'null'], pattern: '^[0-9]+$' },
        token_id_hex: { type: ['string', 'null'], pattern: '^[0-9a-f]{64}$', description: 'The {id} replacement: lowercase hex, no 0x, 64 digits.' },
        applied: { type: 'boolean' },
        template_uri: { ...nullableString, description: 'canonical_uri before {id} substitution.' },
      },
    },
    on_chain: { type: 'boolean', description: 'True for data: URIs: the metadata is in the URI itself.' },
    mutable: {
      type: ['boolean', 'null'],
      description: 'Whether what the URI points to can change: true for ipns, ArNS names, http(s); false for ipfs, Arweave ids, data:. Null when not normalized.',
    },
    content_addressed: { type: 'boolean', description: 'True for IPFS CIDs and Arweave transaction ids.' },
    warnings: { type: 'array', items: warning },
    limitations: { type: 'array', items: { type: 'string' } },
    evidence: {
      type: 'object',
      additionalProperties: false,
      required: ['network_fetches', 'model_calls', 'supplier_payments'],
      properties: {
        network_fetches: { const: 0 },
        model_calls: { const: 0 },
        supplier_payments: { const: 0 },
      },
    },
  },
};
