/**
 * What every answer tells a browser about how it may be used, in one place.
 *
 * - Every answer, whatever its status, route or writer, carries
 *   `X-Content-Type-Options: nosniff`: a browser takes the Content-Type as
 *   sent and never sniffs a JSON error, a challenge or a result that echoes
 *   the caller's text into HTML or script. The envelope puts it
 *   (src/http/answer-headers.ts, putAnswerHeaders); the answers the app
 *   never sees (a request Node or @hono/node-server refuses before the app
 *   runs) get it from the server (secureServerAnswers).
 * - Every page refuses to be framed by another site (clickjacking): its
 *   Content-Security-Policy ends with `frame-ancestors 'none'` (pageCsp; one
 *   policy, never a second header) and it carries `X-Frame-Options: DENY`
 *   for browsers that predate frame-ancestors (pageHeaders).
 */
import type { Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

export const NO_SNIFF_HEADER = 'X-Content-Type-Options';
export const NO_SNIFF = 'nosniff';

/** A page's Content-Security-Policy: its own directives, then framing by any site refused. */
export function pageCsp(directives: string): string {
  return `${directives}; frame-ancestors 'none'`;
}

/** The headers of an HTML page: its policy (built with pageCsp) and X-Frame-Options. */
export function pageHeaders(csp: string): { 'Content-Security-Policy': string; 'X-Frame-Options': 'DENY' } {
  return { 'Content-Security-Policy': csp, 'X-Frame-Options': 'DENY' };
}

/** Node's own answers to a request it cannot parse, by its parser's error code (as its default clientError handler sends them). */
const CLIENT_ERROR_STATUS: Record<string, string> = {
  HPE_HEADER_OVERFLOW: '431 Request Header Fields Too Large',
  HPE_CHUNK_EXTENSIONS_OVERFLOW: '413 Payload Too Large',
  ERR_HTTP_REQUEST_TIMEOUT: '408 Request Timeout',
};

/**
 * nosniff on the answers the app never writes: @hono/node-server's 400 for a
 * Host or target it cannot make a URL of (its answer goes through the Node
 * response, which starts with the header), and Node's answer to a request its
 * parser refuses (written on the socket, here with the header).
 */
export function secureServerAnswers(server: Server): void {
  server.prependListener('request', (_req, res: ServerResponse) => res.setHeader(NO_SNIFF_HEADER, NO_SNIFF));
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    // As Node's default: nothing to answer on a reset or closed socket, or once an answer has started.
    const answering = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
    if (err.code === 'ECONNRESET' || !socket.writable || answering?.headersSent) {
      socket.destroy();
      return;
    }
    const status = CLIENT_ERROR_STATUS[err.code ?? ''] ?? '400 Bad Request';
    socket.end(`HTTP/1.1 ${status}\r\n${NO_SNIFF_HEADER}: ${NO_SNIFF}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
  });
}
