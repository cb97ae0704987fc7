// An HTTP proxy in front of a real facilitator that authenticates every request
// the way CDP's facilitator does: `Authorization: Bearer <JWT>` signed by the
// API key (ES256 for an ECDSA key, EdDSA for an Ed25519 key), `kid` and `sub`
// the key id, `iss` "cdp", inside its nbf/exp window, its `uris` claim naming
// exactly the request received ("METHOD host/path"), and a header nonce never
// seen before. Anything else is answered 401 and not forwarded. It records
// every request (headers included) and what it accepted or refused, so tests
// can check what reached which facilitator.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verify, type KeyObject } from 'node:crypto';

export interface SeenRequest {
  method: string;
  /** Path as received, e.g. `/verify`. */
  path: string;
  headers: IncomingHttpHeaders;
  /** The bearer token, when one was sent. */
  jwt?: string;
  accepted: boolean;
  /** Why it was refused. */
  reason?: string;
}

export interface CdpJwtProxyOptions {
  /** Check CDP's JWT with this key id and public key; without it every request is forwarded (recorded only). */
  cdp?: { keyId: string; publicKey: KeyObject };
  /** Refusals quote the request's credentials back, as a careless facilitator might. */
  echoHeaders?: boolean;
}

export interface CdpJwtProxy {
  url: string;
  readonly requests: readonly SeenRequest[];
  readonly accepted: readonly SeenRequest[];
  readonly refused: readonly SeenRequest[];
  /** From now on, check JWTs against this key instead (a rotated or revoked key). */
  trust(publicKey: KeyObject): void;
  close(): Promise<void>;
}

/** Largest allowed JWT life (CDP's library issues two minutes) and clock skew, seconds. */
const MAX_LIFE_S = 120;
const SKEW_S = 5;

function part(s: string): Record<string, unknown> {
  const v: unknown = JSON.parse(Buffer.from(s, 'base64url').toString('utf8'));
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error('not an object');
  return v as Record<string, unknown>;
}

/** Why this request's JWT is not acceptable, or undefined when it is. */
function refusal(jwt: string | undefined, expectedUri: string, keyId: string, publicKey: KeyObject, nonces: Set<string>): string | undefined {
  if (!jwt) return 'no bearer token';
  const parts = jwt.split('.');
  if (parts.length !== 3) return 'not a JWT';
  let header: Record<string, unknown>;
  let claims: Record<string, unknown>;
  try {
    header = part(parts[0]!);
    claims = part(parts[1]!);
  } catch {
    return 'JWT header or claims are not JSON';
  }
  const data = Buffer.from(`${parts[0]}.${parts[1]}`);
  const sig = Buffer.from(parts[2]!, 'base64url');
  const type = publicKey.asymmetricKeyType;
  let good = false;
  if (header.alg === 'ES256' && type === 'ec') good = verify('sha256', data, { key: publicKey, dsaEncoding: 'ieee-p1363' }, sig);
  else if (header.alg === 'EdDSA' && type === 'ed25519') good = verify(null, data, publicKey, sig);
  else return `alg ${String(header.alg)} does not fit the key`;
  if (!good) return 'bad signature';
  if (header.kid !== keyId) return 'kid is not the key id';
  if (claims.sub !== keyId) return 'sub is not the key id';
  if (claims.iss !== 'cdp') return 'iss is not cdp';
  const now = Math.floor(Date.now() / 1000);
  if (typeof claims.nbf !== 'number' || typeof claims.exp !== 'number') return 'nbf/exp missing';
  if (claims.nbf > now + SKEW_S) return 'not yet valid';
  if (claims.exp <= now - SKEW_S) return 'expired';
  if (claims.exp - claims.nbf > MAX_LIFE_S) return 'lives too long';
  const uris = claims.uris;
  if (!Array.isArray(uris) || uris.length !== 1 || uris[0] !== expectedUri) return `uris ${JSON.stringify(uris)} is not ["${expectedUri}"]`;
  if (typeof header.nonce !== 'string' || header.nonce.length < 16) return 'no nonce';
  if (nonces.has(header.nonce)) return 'nonce replayed';
  nonces.add(header.nonce);
  return undefined;
}

/** Authorization and the X- headers: what a careless facilitator would quote back first. */
function credentialHeaders(headers: IncomingHttpHeaders): Record<string, unknown> {
  return Object.fromEntries(Object.entries(headers).filter(([k]) => k === 'authorization' || k.startsWith('x-')));
}

export async function startCdpJwtProxy(upstreamUrl: string, opts: CdpJwtProxyOptions = {}): Promise<CdpJwtProxy> {
  const upstream = upstreamUrl.replace(/\/+$/, '');
  const requests: SeenRequest[] = [];
  const nonces = new Set<string>();
  let publicKey = opts.cdp?.publicKey;

  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const method = req.method ?? 'GET';
    const path = req.url ?? '/';
    const auth = req.headers.authorization;
    const jwt = auth?.startsWith('Bearer ') ? auth.slice('Bearer '.length) : undefined;
    const reason = opts.cdp ? refusal(jwt, `${method} ${req.headers.host}${path}`, opts.cdp.keyId, publicKey!, nonces) : undefined;
    requests.push({ method, path, headers: req.headers, jwt, accepted: reason === undefined, reason });
    if (reason !== undefined) {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ...(opts.echoHeaders && { received: credentialHeaders(req.headers) }), errorType: 'unauthorized', errorMessage: reason }));
      return;
    }
    try {
      const r = await fetch(upstream + path, {
        method,
        headers: { 'content-type': req.headers['content-type'] ?? 'application/json' },
        body: method === 'GET' || method === 'HEAD' ? undefined : body,
      });
      const text = await r.text();
      res.writeHead(r.status, { 'content-type': r.headers.get('content-type') ?? 'application/json' });
      res.end(text);
    } catch (e) {
      res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'upstream unreachable', message: (e as Error).message }));
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    get accepted() {
      return requests.filter((r) => r.accepted);
    },
    get refused() {
      return requests.filter((r) => !r.accepted);
    },
    trust(key) {
      publicKey = key;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
