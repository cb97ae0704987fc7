/**
 * The devnet operator's signing key (receipts and offers, src/commitments).
 * Unlike the anvil accounts it is not a well-known test key: it is generated
 * once and kept in DATA_DIR/devnet.json with the rest of the devnet's facts,
 * so the published signer address, and every receipt already handed out,
 * stays valid across restarts of the same data directory.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import type { Hex } from 'viem';
import { generatePrivateKey } from 'viem/accounts';

const KEY = /^0x[0-9a-f]{64}$/;

/** The key stored in `devnetFile` (a devnet.json), or a new one when there is none. */
export function devnetSigningKey(devnetFile: string): Hex {
  if (existsSync(devnetFile)) {
    try {
      const stored = (JSON.parse(readFileSync(devnetFile, 'utf8')) as { signingKey?: unknown }).signingKey;
      if (typeof stored === 'string' && KEY.test(stored)) return stored as Hex;
    } catch {
      // An unreadable devnet.json is rewritten at start-up; a new key goes with it.
    }
  }
  return generatePrivateKey();
}

/**
 * The devnet's MPP_SECRET_KEY (MPP challenge ids, src/payments/mpp.ts), kept
 * in devnet.json beside the signing key so challenges issued before a restart
 * of the same data directory still verify.
 */
export function devnetMppSecret(devnetFile: string): string {
  if (existsSync(devnetFile)) {
    try {
      const stored = (JSON.parse(readFileSync(devnetFile, 'utf8')) as { mppSecretKey?: unknown }).mppSecretKey;
      if (typeof stored === 'string' && /^[0-9a-f]{64}$/.test(stored)) return stored;
    } catch {
      // As above: a new one goes with the rewritten file.
    }
  }
  return randomBytes(32).toString('hex');
}
