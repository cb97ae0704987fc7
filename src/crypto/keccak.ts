/**
 * Keccak-256 (Ethereum's, not SHA3-256), through the native `keccak`
 * binding: the one hash of every EIP-712 digest and address this service
 * computes (decision 0014).
 */
import createKeccak from 'keccak';

/** keccak256(`bytes`), 32 bytes. */
export function keccak256Bytes(bytes: Uint8Array): Uint8Array {
  return createKeccak('keccak256').update(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)).digest();
}
