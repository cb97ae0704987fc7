// A viem transport that speaks JSON-RPC over node:http(s) with a keep-alive
// agent, for the devnet facilitator.
//
// viem's `http()` transport goes through the global fetch (undici), which on
// this workload cost ~0.7 ms of CPU per JSON-RPC call against a local anvil,
// against ~0.25 ms for a plain node:http request on a pooled socket; the
// facilitator makes several calls per settled payment, so the difference is a
// large share of a paid call's CPU. Errors surface as the same viem error
// classes the http transport throws (RpcRequestError for a JSON-RPC error,
// HttpRequestError for a non-2xx answer without one, TimeoutError), so viem's
// error mapping (execution reverted, nonce too low, …) is unchanged.
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { createTransport, HttpRequestError, RpcRequestError, TimeoutError, type EIP1193RequestFn, type Transport } from 'viem';

export interface NodeHttpTransportOptions {
  /** Per-request timeout (viem's http default: 10 s). */
  timeoutMs?: number;
  /** Sockets kept open to the node; requests beyond this queue on the agent. Default 16. */
  maxSockets?: number;
}

/** Largest JSON-RPC answer accepted (a block with many transactions stays far below). */
const MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

/** The transport, and close() to drop its pooled sockets. */
export function nodeHttpTransport(url: string, opts: NodeHttpTransportOptions = {}): { transport: Transport; close(): void } {
  const target = new URL(url);
  const secure = target.protocol === 'https:';
  if (!secure && target.protocol !== 'http:') throw new Error(`nodeHttpTransport: unsupported URL ${url}`);
  const send = secure ? httpsRequest : httpRequest;
  const agent = new (secure ? HttpsAgent : HttpAgent)({ keepAlive: true, maxSockets: opts.maxSockets ?? 16 });
  const timeout = opts.timeoutMs ?? 10_000;
  let nextId = 1;

  const post = (text: string): Promise<{ status: number; body: string }> =>
    new Promise((resolve, reject) => {
      const req = send(
        target,
        {
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) },
          timeout,
        },
        (res: IncomingMessage) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > MAX_RESPONSE_BYTES) {
              res.destroy(new Error(`JSON-RPC answer larger than ${MAX_RESPONSE_BYTES} bytes`));
              return;
            }
            chunks.push(chunk);
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(TIMED_OUT));
      req.on('error', reject);
      req.end(text);
    });

  const transport: Transport = ({ retryCount }) =>
    createTransport({
      key: 'node-http',
      name: 'JSON-RPC over node:http',
      type: 'http',
      retryCount,
      timeout,
      // Typed as viem's generic request function; the result is whatever the node answered.
      request: (async ({ method, params }: { method: string; params?: unknown }) => {
        const body = { method, params };
        let answer: { status: number; body: string };
        try {
          answer = await post(JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }, bigintAsHex));
        } catch (err) {
          if (err === TIMED_OUT) throw new TimeoutError({ body, url });
          throw new HttpRequestError({ body, cause: err as Error, details: (err as Error).message, url });
        }
        let data: { result?: unknown; error?: { code: number; message: string; data?: unknown } } | undefined;
        try {
          data = JSON.parse(answer.body) as typeof data;
        } catch {
          data = undefined;
        }
        if (data && typeof data === 'object' && data.error) throw new RpcRequestError({ body, error: data.error, url, status: answer.status });
        if (answer.status < 200 || answer.status >= 300 || !data || typeof data !== 'object') {
          throw new HttpRequestError({ body, details: answer.body.slice(0, 500) || `status ${answer.status}`, status: answer.status, url });
        }
        return data.result;
      }) as EIP1193RequestFn,
    });
  return { transport, close: () => agent.destroy() };
}

const TIMED_OUT = new Error('JSON-RPC request timed out');

/** JSON has no bigint; JSON-RPC quantities are hex strings (viem formats params before they get here, this is a guard). */
function bigintAsHex(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? `0x${value.toString(16)}` : value;
}
