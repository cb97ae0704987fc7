import { readFileSync } from 'node:fs';
import { x402Client, wrapFetchWithPayment, decodePaymentResponseHeader } from '@x402/fetch';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { privateKeyToAccount } from 'viem/accounts';

// Written by `npm start`: the devnet's token and funded buyer, and where the service listens.
const dataDir = process.env.DATA_DIR ?? 'data';
const devnet = JSON.parse(readFileSync(`${dataDir}/devnet.json`, 'utf8'));
const { url } = JSON.parse(readFileSync(`${dataDir}/service.json`, 'utf8'));

const client = new x402Client().register('eip155:*', new ExactEvmScheme(privateKeyToAccount(devnet.buyer.privateKey)));
// Without this line the SDK refuses the devnet token ("rejected by spendControls").
client.setSpendControls({ allowedAssets: [{ network: devnet.network, asset: devnet.asset, maxAmountPerPayment: '100000' }] });
const fetchWithPayment = wrapFetchWithPayment(fetch, client);

const res = await fetchWithPayment(`${url}/x402/v1/accessibility-contrast-calculator`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ foreground: '#000000', background: '#ffffff', large_text: false }),
});
console.log(res.status, await res.json());
console.log(decodePaymentResponseHeader(res.headers.get('payment-response')));
