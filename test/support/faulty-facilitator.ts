// Fault-injecting HTTP proxy in front of a real x402 facilitator.
//
// The failure modes a resource server must survive are about *timing and knowledge*,
// not just errors: a settle that fails cleanly, one that never reaches the
// facilitator, and — the nasty one — one that moves the money but whose answer is
// lost. Each mode below reproduces one of those against the real devnet facilitator,
// so tests can check what the service charges, serves and records in each case.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type FacilitatorEndpoint = 'verify' | 'settle' | 'supported';

/**
 * - 'pass'               forward to the real facilitator and relay its answer.
 * - 'down'               destroy the connection at once; nothing is forwarded
 *                        (the client sees a network error, like a crashed host).
 * - 'slow'               wait `slowMs`, then forward and relay.
 * - 'error500'           answer 500 (non-x402 JSON body) without forwarding.
 * - 'settle-false'       answer a well-formed failure without forwarding:
 *                        /settle -> SettleResponse {success:false, errorReason:'injected_failure'},
 *                        /verify -> VerifyResponse {isValid:false, invalidReason:'injected_failure'},
 *                        /supported -> 500.
 * - 'hang-after-forward' forward (so a settle really transfers on chain), then never
 *                        answer — or answer only after `hangMs` if it is finite.
 */
export type FaultMode = 'pass' | 'down' | 'slow' | 'error500' | 'settle-false' | 'hang-after-forward';

export interface FaultOptions {
  /** Delay for 'slow' (default 2000 ms). */
  slowMs?: number;
  /** How long 'hang-after-forward' withholds the real answer (default: forever, until close()). */
  hangMs?: number;
}

/** An answer the real facilitator gave to a forwarded request. */
export interface UpstreamResult {
  endpoint: FacilitatorEndpoint;
  status: number;
  body: unknown;
}

export interface FaultyFacilitator {
  url: string;
  /** One mode for every endpoint, or per endpoint (endpoints left out keep their mode). */
  setMode(mode: FaultMode | Partial<Record<FacilitatorEndpoint, FaultMode>>, options?: FaultOptions): void;
  /** Current mode of an endpoint. */
  modeOf(endpoint: FacilitatorEndpoint): FaultMode;
  /** Requests received per endpoint (whatever the mode did with them). */
  readonly calls: Readonly<Record<FacilitatorEndpoint, number>>;
  /** Requests actually forwarded to the real facilitator per endpoint. */
  readonly forwarded: Readonly<Record<FacilitatorEndpoint, number>>;
  /** Real facilitator answers, in arrival order (including ones withheld from the client). */
  readonly upstream: readonly UpstreamResult[];
  /** Resolves once the real facilitator has answered `count` forwarded requests to `endpoint` (counted since start/reset). */
  waitForUpstream(endpoint: FacilitatorEndpoint, count?: number, timeoutMs?: number): Promise<UpstreamResult[]>;
  /** Zero the counters and the upstream log (modes are kept). */
  resetCalls(): void;
  close(): Promise<void>;
}

const ENDPOINTS: readonly FacilitatorEndpoint[] = ['verify', 'settle', 'supported'];

function zeroCounts(): Record<FacilitatorEndpoint, number> {
  return { verify: 0, settle: 0, supported: 0 };
}

export async function startFaultyFacilitator(targetUrl: string, initial: FaultMode = 'pass'): Promise<FaultyFacilitator> {
  const target = targetUrl.replace(/\/+$/, '');
  const modes: Record<FacilitatorEndpoint, FaultMode> = { verify: initial, settle: initial, supported: initial };
  const options: Required<FaultOptions> = { slowMs: 2000, hangMs: Infinity };
  const calls = zeroCounts();
  const forwarded = zeroCounts();
  const upstream: UpstreamResult[] = [];
  const waiters = new Set<() => void>();
  const timers = new Set<NodeJS.Timeout>();
  let closed = false;

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        timers.delete(t);
        resolve();
      }, ms);
      timers.add(t);
    });

  async function forward(req: IncomingMessage, body: Buffer): Promise<{ status: number; contentType: string; text: string }> {
    const res = await fetch(`${target}${req.url ?? '/'}`, {
      method: req.method,
      headers: { 'content-type': req.headers['content-type'] ?? 'application/json' },
      body: req.method === 'GET' || req.method === 'HEAD' ? undefined : new Uint8Array(body),
    });
    return { status: res.status, contentType: res.headers.get('content-type') ?? 'application/json', text: await res.text() };
  }

  function recordUpstream(endpoint: FacilitatorEndpoint, status: number, text: string): void {
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // keep raw text
    }
    upstream.push({ endpoint, status, body: parsed });
    for (const w of [...waiters]) w();
  }

  function reply(res: ServerResponse, status: number, contentType: string, text: string): void {
    if (res.destroyed || res.writableEnded) return; // client gave up meanwhile
    res.writeHead(status, { 'content-type': contentType });
    res.end(text);
  }

  const json = (v: unknown) => JSON.stringify(v);

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    const endpoint = ENDPOINTS.find((e) => path === `/${e}`);
    if (!endpoint) {
      // Anything else (health checks, ...) is passed through untouched.
      const body = await readBody(req);
      const r = await forward(req, body);
      reply(res, r.status, r.contentType, r.text);
      return;
    }
    calls[endpoint]++;
    const mode = modes[endpoint];

    if (mode === 'down') {
      // Before reading the body, so the request can't have been forwarded anywhere.
      req.socket.destroy();
      return;
    }

    const body = await readBody(req);

    switch (mode) {
      case 'error500':
        reply(res, 500, 'application/json', json({ error: 'injected_failure' }));
        return;
      case 'settle-false': {
        if (endpoint === 'supported') {
          reply(res, 500, 'application/json', json({ error: 'injected_failure' }));
          return;
        }
        const { network, payer } = peekPayment(body);
        const answer =
          endpoint === 'settle'
            ? { success: false, errorReason: 'injected_failure', transaction: '', network, ...(payer ? { payer } : {}) }
            : { isValid: false, invalidReason: 'injected_failure', ...(payer ? { payer } : {}) };
        reply(res, 200, 'application/json', json(answer));
        return;
      }
      case 'slow':
        await sleep(options.slowMs);
        if (closed) return;
        break;
      default:
        break;
    }

    forwarded[endpoint]++;
    let r: { status: number; contentType: string; text: string };
    try {
      r = await forward(req, body);
    } catch (err) {
      reply(res, 502, 'application/json', json({ error: 'upstream_unreachable', message: String(err) }));
      return;
    }
    recordUpstream(endpoint, r.status, r.text);

    if (mode === 'hang-after-forward') {
      // The real facilitator has done its work (for /settle: the transfer is mined);
      // the client never learns it, or learns it late.
      if (!Number.isFinite(options.hangMs)) return; // socket stays open until the client aborts or close()
      await sleep(options.hangMs);
      if (closed) return;
    }
    reply(res, r.status, r.contentType, r.text);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent && !res.destroyed) reply(res, 502, 'application/json', json({ error: String(err) }));
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    setMode(mode, opts) {
      if (typeof mode === 'string') for (const e of ENDPOINTS) modes[e] = mode;
      else for (const e of ENDPOINTS) modes[e] = mode[e] ?? modes[e];
      if (opts?.slowMs !== undefined) options.slowMs = opts.slowMs;
      if (opts?.hangMs !== undefined) options.hangMs = opts.hangMs;
    },
    modeOf: (endpoint) => modes[endpoint],
    calls,
    forwarded,
    upstream,
    waitForUpstream(endpoint, count = 1, timeoutMs = 30_000) {
      const mine = () => upstream.filter((u) => u.endpoint === endpoint);
      if (mine().length >= count) return Promise.resolve(mine());
      return new Promise((resolve, reject) => {
        const check = () => {
          if (mine().length >= count) {
            cleanup();
            resolve(mine());
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`timed out waiting for ${count} upstream ${endpoint} answer(s)`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
      });
    },
    resetCalls() {
      for (const e of ENDPOINTS) {
        calls[e] = 0;
        forwarded[e] = 0;
      }
      upstream.length = 0;
    },
    close() {
      closed = true;
      for (const t of timers) clearTimeout(t);
      timers.clear();
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Drops hung and keep-alive connections; hung clients see a socket error.
        server.closeAllConnections();
      });
    },
  };
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** Best effort: the network and payer of a /verify or /settle body, for realistic injected answers. */
function peekPayment(body: Buffer): { network: string; payer?: string } {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as {
      paymentRequirements?: { network?: unknown };
      paymentPayload?: { payload?: { authorization?: { from?: unknown } } };
    };
    const network = typeof parsed.paymentRequirements?.network === 'string' ? parsed.paymentRequirements.network : '';
    const from = parsed.paymentPayload?.payload?.authorization?.from;
    return { network, payer: typeof from === 'string' ? from : undefined };
  } catch {
    return { network: '' };
  }
}
