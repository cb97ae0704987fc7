import { readFileSync } from 'node:fs';
import { Receipt } from 'mppx';
import { Mppx } from 'mppx/client';
import { assets, charge } from 'mppx/evm/client';
import { privateKeyToAccount } from 'viem/accounts';

// Written by `npm start`: the devnet's token (address, decimals, EIP-712 name and version) and funded buyer, and where the service listens.
const dataDir = process.env.DATA_DIR ?? 'data';
const devnet = JSON.parse(readFileSync(`${dataDir}/devnet.json`, 'utf8'));
const { url } = JSON.parse(readFileSync(`${dataDir}/service.json`, 'utf8'));

// mppx signs an EIP-3009 authorization for the token's EIP-712 domain, and pays only the tokens listed here, up to maxAmount.
const usdc = assets.define({
  network: devnet.network,
  address: devnet.asset,
  decimals: devnet.decimals,
  transfer: { type: 'eip3009', name: devnet.assetName, version: devnet.assetVersion },
});
const account = privateKeyToAccount(devnet.buyer.privateKey);
const mppx = Mppx.create({ methods: [charge({ account, currencies: [usdc], maxAmount: '0.10' })], polyfill: false });

const res = await mppx.fetch(`${url}/x402/v1/accessibility-contrast-calculator`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ foreground: '#000000', background: '#ffffff', large_text: false }),
});
console.log(res.status, await res.json());
console.log(Receipt.fromResponse(res));
