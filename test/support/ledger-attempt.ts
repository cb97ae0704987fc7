/** A new payment attempt for the ledger tests: unique id and nonce, everything else fixed unless overridden. */
import type { NewAttempt } from '../../src/store/ledger.js';

let n = 0;
export function attempt(over: Partial<NewAttempt> = {}): NewAttempt {
  n++;
  return {
    id: `a${n}-${Math.random()}`,
    network: 'eip155:31337',
    asset: '0xasset',
    payer: '0xpayer',
    nonce: '0x' + String(n).padStart(64, '0'),
    payTo: '0xpayto',
    amount: '1000',
    resource: 'accessibility-contrast-calculator',
    requestFingerprint: 'fp',
    paymentKey: null,
    validBefore: 2_000_000_000,
    payload: '{}',
    requirements: '{}',
    ...over,
  };
}
