/**
 * One HTTP/1.1 exchange written byte for byte on a TCP socket, for the tests
 * that send what `fetch` will not: a Host of our choosing, an absolute-form
 * request target, a malformed head. The request should say
 * `Connection: close`; the answer is read to the end of the connection.
 */
import net from 'node:net';

export interface RawAnswer {
  status: number;
  /** Header names in lower case, each with every value it was sent with. */
  headers: Map<string, string[]>;
  body: Buffer;
}

/** The first value of a header, or undefined. */
export function headerOf(a: RawAnswer, name: string): string | undefined {
  return a.headers.get(name.toLowerCase())?.[0];
}

/** The head lines and a body, joined as HTTP/1.1 frames them (Content-Length added when there is a body). */
export function rawRequest(lines: readonly string[], body?: string | Buffer): Buffer {
  const bytes = body === undefined ? undefined : Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8');
  const head = [...lines, ...(bytes ? [`Content-Length: ${bytes.byteLength}`] : []), 'Connection: close'].join('\r\n') + '\r\n\r\n';
  return Buffer.concat([Buffer.from(head, 'latin1'), bytes ?? Buffer.alloc(0)]);
}

/** Writes `request` to 127.0.0.1:`port` and parses what comes back (fails after `timeoutMs`). */
export function rawExchange(port: number, request: Buffer, timeoutMs = 10_000): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete answer within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      try {
        resolve(parseAnswer(Buffer.concat(chunks)));
      } catch (e) {
        reject(e);
      }
    });
    socket.write(request);
  });
}

function parseAnswer(bytes: Buffer): RawAnswer {
  const end = bytes.indexOf('\r\n\r\n');
  if (end < 0) throw new Error(`no complete head in ${JSON.stringify(bytes.toString('latin1').slice(0, 200))}`);
  const [statusLine, ...lines] = bytes.subarray(0, end).toString('latin1').split('\r\n');
  const status = /^HTTP\/1\.[01] ([0-9]{3})/.exec(statusLine ?? '');
  if (!status) throw new Error(`not an HTTP status line: ${JSON.stringify(statusLine)}`);
  const headers = new Map<string, string[]>();
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim().toLowerCase();
    headers.set(name, [...(headers.get(name) ?? []), line.slice(colon + 1).trim()]);
  }
  let body = bytes.subarray(end + 4);
  if (/chunked/i.test(headers.get('transfer-encoding')?.join(',') ?? '')) body = unchunk(body);
  return { status: Number(status[1]), headers, body };
}

function unchunk(bytes: Buffer): Buffer {
  const out: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = bytes.indexOf('\r\n', at);
    if (eol < 0) break;
    const size = parseInt(bytes.subarray(at, eol).toString('latin1'), 16);
    if (!(size > 0)) break;
    out.push(bytes.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
  return Buffer.concat(out);
}
