/** A CDP Ed25519 API key secret as CDP issues it: base64 of the 32-byte seed followed by the 32-byte public key. */
import { generateKeyPairSync } from 'node:crypto';

export function cdpEd25519Secret(): string {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const seed = Buffer.from(privateKey.export({ format: 'jwk' }).d!, 'base64url');
  const pub = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url');
  return Buffer.concat([seed, pub]).toString('base64');
}
