// The body of a devnet server's request (the facilitator's, the Solana RPC's), bounded.
import type { IncomingMessage } from 'node:http';

/** Largest request body the devnet's servers accept: a payment or a transaction is a few KB at most. */
export const MAX_BODY_BYTES = 1024 * 1024;

export function readBody(req: IncomingMessage, maxBytes = MAX_BODY_BYTES): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        reject(new Error('request body too large'));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
