/**
 * The x402 payment-identifier extension as a buyer's client sends it: every
 * payment the client signs carries `id`, the secret (never on chain) that
 * later proves who may receive the stored result again.
 */
import type { x402Client } from '@x402/fetch';
import { appendPaymentIdentifierToExtensions } from '@x402/extensions/payment-identifier';
import type { PaymentPayload, PaymentRequired } from './harness.js';

export function sendPaymentIdentifier(client: x402Client, id: string): x402Client {
  client.registerExtension({
    key: 'payment-identifier',
    enrichPaymentPayload: async (p: PaymentPayload, pr: PaymentRequired) => ({ ...p, extensions: appendPaymentIdentifierToExtensions(structuredClone({ ...pr.extensions, ...p.extensions }), id) }),
  });
  return client;
}
