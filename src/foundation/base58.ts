/** Base58 (Bitcoin's alphabet), as Solana writes addresses, signatures and keys. */
import { getBase58Decoder, getBase58Encoder } from '@solana/kit';

const bytesToText = getBase58Decoder();
const textToBytes = getBase58Encoder();

export const toBase58 = (bytes: Uint8Array): string => bytesToText.decode(bytes);

/** The bytes of a base58 text, or undefined when it is not base58. */
export function fromBase58(s: string): Uint8Array | undefined {
  try {
    return new Uint8Array(textToBytes.encode(s));
  } catch {
    return undefined;
  }
}
