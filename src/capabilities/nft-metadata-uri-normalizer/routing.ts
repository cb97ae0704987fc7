/** How the outcome router recognises an NFT metadata URI objective and builds its native bodies. */
import type { ErrorDetail } from '../../errors.js';
import { has, isObject, pick, need, notAList, type RoutingDescriptor, type UnitDraft } from '../../catalog/routing.js';
import { readUris, isGatewayUrl } from '../../catalog/objective-text.js';

/** Schemes only an NFT-style identifier uses. */
const NFT_SCHEME = /^\s*(?:ipfs|ipns|ar):\/\/|^\s*data:/i;
const TOKEN_ID_WORDS = /\btoken[ _-]?id\s*[:=#]?\s*(0x[0-9a-fA-F]+|[0-9]+)\b/i;

export const nftRouting: RoutingDescriptor = {
  outcome: 'Syntactic normalization of NFT metadata URIs (ipfs://, ipns://, ar://, data:, gateway and http(s) URLs), one paid call per URI; nothing is fetched.',
  names: ['uri normalizer', 'nft metadata', 'tokenuri', 'token uri', 'metadata uri'],
  keywords: [/\bnfts?\b/, /\btoken ?uris?\b/, /\bmetadata uris?\b/, /\berc-?(?:721|1155)\b/, /\bipfs\b/, /\bipns\b/, /\barweave\b/, /\bcids?\b/, /\bnormali[sz]\w* (?:the |this |my |these |an? )?(?:uris?|urls?|links?)\b/],
  terms: {
    en: ['nft*', 'token uri*', 'tokenuri', 'metadata uri*', 'ipfs', 'ipns', 'arweave', 'erc-721', 'erc721', 'erc-1155', 'erc1155'],
    es: ['uri de metadatos', 'uri de los metadatos', 'metadatos del token', 'metadatos de nft', 'uri del token', 'normalizar la uri', 'normaliza la uri', 'normalizar uri', 'normaliza esta uri', 'normalizar esta uri'],
    pt: ['uri de metadados', 'uri dos metadados', 'metadados do token', 'metadados de nft', 'uri do token', 'normalizar a uri', 'normalize a uri', 'normalizar uri', 'normalize esta uri', 'normalizar esta uri'],
    fr: ['uri de metadonnees', 'uri des metadonnees', 'metadonnees du jeton', 'metadonnees nft', 'uri du jeton', "normaliser l'uri", "normalise l'uri", 'normaliser cette uri', 'normalisez cette uri', "normalisez l'uri"],
    de: ['metadaten-uri', 'metadaten uri', 'metadatenuri', 'token-uri', 'uri normalisier*', 'normalisiere die uri', 'normalisiere diese uri', 'uri des tokens', 'token-metadaten'],
    it: ['uri dei metadati', 'uri di metadati', 'metadati del token', 'metadati nft', "uri del token", "normalizza l'uri", "normalizzare l'uri", 'normalizza questa uri', 'normalizzare questa uri', 'normalizza la uri'],
    nl: ['metadata-uri', 'metadata uri', 'metadata van de token', 'token-uri', 'uri normaliser*', 'normaliseer de uri', 'normaliseer deze uri'],
    zh: ['元数据uri', '元數據uri', '元数据 uri', '代币uri', '令牌uri', '代幣uri', 'uri规范化', 'uri标准化', '规范化uri', '标准化uri', '规范化这个uri', '规范化 uri', '标准化 uri', '元数据链接'],
    ja: ['メタデータuri', 'メタデータのuri', 'トークンuri', 'uriの正規化', 'uriを正規化', 'uri を正規化', 'メタデータ uri'],
    ko: ['메타데이터 uri', '토큰 uri', 'uri 정규화', 'uri를 정규화', 'uri을 정규화', '메타데이터uri'],
  },
  textSignal: (objective) => (readUris(objective).some((u) => u.kind === 'nft') ? 'an ipfs://, ipns://, ar://, data: URI or a CID in the objective' : undefined),
  fieldAliases: { token_uri: 'uri', tokenuri: 'uri', tokenURI: 'uri', metadata_uri: 'uri', token_uris: 'uris' },
  reads: ['uri', 'uris', 'token_id', 'ipfs_gateway'],
  requiredInputs: ['uri'],
  optionalInputs: ['token_id', 'ipfs_gateway', 'uris'],
  batch: 'inputs.uris: an array of URI strings or {uri, token_id?}; or several URIs written in the objective. One step per URI.',
  detect: (inputs) => has(inputs, 'uri') || has(inputs, 'uris'),
  evident: (inputs) => Array.isArray(inputs.uris) || (typeof inputs.uri === 'string' && (NFT_SCHEME.test(inputs.uri) || isGatewayUrl(inputs.uri))),
  extract(ctx) {
    const { inputs, at } = ctx;
    const units: UnitDraft[] = [];
    const assumptions: string[] = [];
    const shared = pick(inputs, ['token_id', 'ipfs_gateway']);
    if (!ctx.fromItems && shared.token_id === undefined) {
      const m = TOKEN_ID_WORDS.exec(ctx.objective);
      if (m) {
        shared.token_id = m[1];
        assumptions.push(`token_id ${m[1]} read from the objective.`);
      }
    }
    if (has(inputs, 'uris')) {
      if (!Array.isArray(inputs.uris)) return notAList(at, 'uris', 'URI strings');
      const invalid: ErrorDetail[] = [];
      inputs.uris.forEach((u, i) => {
        const here = `${at}/uris/${i}`;
        if (typeof u === 'string') units.push({ at: here, body: { uri: u, ...shared } });
        else if (isObject(u)) units.push({ at: here, body: { ...shared, ...u } });
        else invalid.push({ path: here, rule: 'type', message: 'a URI string or {uri, token_id?}' });
      });
      if (invalid.length) return { kind: 'invalid', details: invalid };
    }
    if (has(inputs, 'uri')) {
      units.push({ at, body: { uri: inputs.uri, ...shared } });
    } else if (units.length === 0 && !ctx.fromItems) {
      const found = readUris(ctx.objective).filter((u) => u.kind === 'nft' || isGatewayUrl(u.value) || !ctx.isOwnUrl(u.value));
      for (const u of found) units.push({ at: '/objective', body: { uri: u.value, ...shared } });
      if (found.length) assumptions.push(`URI${found.length === 1 ? '' : 's'} read from the objective: ${found.length}.`);
    }
    if (units.length === 0) return { kind: 'missing', missing: [need(at, 'uri', 'the metadata URI exactly as tokenURI / uri returns it (or write it in the objective)')] };
    return { kind: 'units', units, assumptions };
  },
  evidence: ['deterministic'],
  expectedLatencyMs: 5,
  example: () => ({ objective: 'Normalize the NFT metadata URI ipfs://ipfs/QmZHKZDavkvNfA9gSAg7HALv8jF7BJaKjUc9U2LSuvUySB' }),
};
