/**
 * An HTTP answer's body as fetch hands it over: its Content-Encoding undone
 * and its text read as UTF-8 without a leading byte order mark. Our HTTP
 * clients run on node:http (a deadline over the whole exchange, a size
 * bound, no web streams), which does neither; a server, or a proxy in front
 * of it, may compress whatever the request asked for, and some servers start
 * their JSON with a byte order mark that JSON.parse refuses.
 */
import { brotliDecompressSync, constants as zlibConstants, gunzipSync, inflateRawSync, inflateSync } from 'node:zlib';

type Decoder = (bytes: Buffer, maxOutputLength: number) => Buffer;

const gunzip: Decoder = (b, maxOutputLength) => gunzipSync(b, { finishFlush: zlibConstants.Z_SYNC_FLUSH, maxOutputLength });

/** Decoders by content coding, as fetch has them; lenient at the end of the data, as fetch is. */
const DECODERS = new Map<string, Decoder>([
  ['gzip', gunzip],
  ['x-gzip', gunzip],
  // RFC 9110's deflate is the zlib format; some servers send raw deflate, which fetch reads too (told apart by the zlib header's method nibble).
  ['deflate', (b, maxOutputLength) => ((b[0]! & 0x0f) === 0x08 ? inflateSync : inflateRawSync)(b, { finishFlush: zlibConstants.Z_SYNC_FLUSH, maxOutputLength })],
  ['br', (b, maxOutputLength) => brotliDecompressSync(b, { finishFlush: zlibConstants.BROTLI_OPERATION_FLUSH, maxOutputLength })],
]);

/**
 * `bytes` with `contentEncoding` undone, last coding first, as fetch decodes
 * them; with any coding fetch does not know, the bytes as they came. Throws
 * when the data does not decode, and with code `ERR_BUFFER_TOO_LARGE`
 * (`isOverDecodedLimit`) when a decoded step would pass `maxDecodedBytes`.
 */
export function undoContentCoding(bytes: Buffer, contentEncoding: string | undefined, maxDecodedBytes: number): Buffer {
  if (!contentEncoding || bytes.length === 0) return bytes;
  const decoders = contentEncoding
    .toLowerCase()
    .split(',')
    .map((c) => DECODERS.get(c.trim()));
  if (decoders.some((d) => d === undefined)) return bytes;
  for (const decode of decoders.reverse()) bytes = decode!(bytes, maxDecodedBytes);
  return bytes;
}

/** Whether undoContentCoding failed because the decoded body passed its bound (not because the data was broken). */
export const isOverDecodedLimit = (e: unknown): boolean => (e as NodeJS.ErrnoException | null)?.code === 'ERR_BUFFER_TOO_LARGE';

const UTF8 = new TextDecoder();

/** UTF-8 text as fetch's `text()` and `json()` (and the x402 SDK, through TextDecoder) read it: a leading byte order mark dropped. */
export const utf8Text = (bytes: Uint8Array): string => UTF8.decode(bytes);
