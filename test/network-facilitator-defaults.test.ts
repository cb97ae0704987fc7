/**
 * From devnet to testnet to mainnet in one variable or two: with
 * X402_FACILITATOR_URL unset, a known network picks its facilitator —
 * CDP's when CDP keys are set, else on Base Sepolia the public testnet
 * facilitator — and Base mainnet with neither stops with one line saying to
 * set the CDP keys or X402_FACILITATOR_URL. A listed URL always wins.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CDP_FACILITATOR_URL, ConfigError, KNOWN_NETWORKS, loadConfig, TESTNET_FACILITATOR_URL } from '../src/config.js';
import { cdpEd25519Secret } from './support/cdp-key.js';
import { railNames } from '../src/payments/rails.js';

const PAY_TO = '0x' + '2'.repeat(40);

const CDP = { CDP_API_KEY_ID: 'organizations/o/apiKeys/k', CDP_API_KEY_SECRET: cdpEd25519Secret() };

function refusal(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (e) {
    assert.ok(e instanceof ConfigError, String(e));
    assert.ok(!e.message.includes('\n'), 'one line');
    return e;
  }
  assert.fail('loadConfig accepted ' + JSON.stringify(Object.keys(env)));
}

test('the facilitators are the ones the x402 sources name (www host: the bare x402.org answers 308)', () => {
  assert.equal(TESTNET_FACILITATOR_URL, 'https://www.x402.org/facilitator');
  assert.equal(CDP_FACILITATOR_URL, 'https://api.cdp.coinbase.com/platform/v2/x402');
  assert.equal(KNOWN_NETWORKS['eip155:84532']!.testnet, true);
  assert.equal(KNOWN_NETWORKS['eip155:8453']!.testnet, false);
});

test('Base Sepolia with network and payee only: the public testnet facilitator, Base Sepolia USDC, no credentials', () => {
  const p = loadConfig({ X402_NETWORK: 'eip155:84532', X402_PAY_TO: PAY_TO }).payment!;
  assert.deepEqual(p.facilitatorUrls, [TESTNET_FACILITATOR_URL]);
  assert.equal(p.asset.address, '0x036CbD53842c5426634e7929541eC2318f3dCF7e');
  assert.equal(p.rpcUrl, 'https://sepolia.base.org');
  assert.deepEqual(p.facilitatorAuth, {});
});

test('Base with CDP keys: CDP\'s facilitator; on Base Sepolia the keys choose CDP too (no JWT minted for another host)', () => {
  const base = loadConfig({ X402_NETWORK: 'eip155:8453', X402_PAY_TO: PAY_TO, ...CDP }).payment!;
  assert.deepEqual(base.facilitatorUrls, [CDP_FACILITATOR_URL]);
  assert.equal(base.asset.address, '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913');
  assert.equal(base.facilitatorAuth.cdp?.apiKeyId, CDP.CDP_API_KEY_ID);
  assert.deepEqual(loadConfig({ X402_NETWORK: 'eip155:84532', X402_PAY_TO: PAY_TO, ...CDP }).payment!.facilitatorUrls, [CDP_FACILITATOR_URL]);
});

test('Base without CDP keys or a facilitator URL stops with one line naming both ways out', () => {
  const e = refusal({ X402_NETWORK: 'eip155:8453', X402_PAY_TO: PAY_TO });
  assert.equal(e.variable, 'X402_FACILITATOR_URL');
  assert.match(e.message, /CDP_API_KEY_ID and CDP_API_KEY_SECRET/);
  assert.match(e.message, /or X402_FACILITATOR_URL/);
  // Half a key pair is not "keys set": the pair's own check names what is missing.
  assert.equal(refusal({ X402_NETWORK: 'eip155:8453', X402_PAY_TO: PAY_TO, CDP_API_KEY_ID: CDP.CDP_API_KEY_ID }).variable, 'CDP_API_KEY_SECRET');
});

test('X402_FACILITATOR_URL, when set, is used as given on every network, with or without keys', () => {
  const own = 'https://facilitator.example/x402';
  assert.deepEqual(loadConfig({ X402_NETWORK: 'eip155:84532', X402_PAY_TO: PAY_TO, X402_FACILITATOR_URL: own }).payment!.facilitatorUrls, [own]);
  assert.deepEqual(loadConfig({ X402_NETWORK: 'eip155:8453', X402_PAY_TO: PAY_TO, X402_FACILITATOR_URL: own }).payment!.facilitatorUrls, [own]);
  assert.deepEqual(loadConfig({ X402_NETWORK: 'eip155:8453', X402_PAY_TO: PAY_TO, X402_FACILITATOR_URL: own, ...CDP }).payment!.facilitatorUrls, [own]);
});

test('a network this service does not know must still name its facilitator', () => {
  const e = refusal({ X402_NETWORK: 'eip155:10', X402_PAY_TO: PAY_TO, X402_ASSET: '0x' + '3'.repeat(40), X402_RPC_URL: 'https://rpc.example' });
  assert.equal(e.variable, 'X402_FACILITATOR_URL');
  assert.match(e.message, /is required/);
});

test('Solana beside Base: X402_SVM_NETWORK adds the rail with its USDC and public RPC; every mistake stops start-up with one line naming the variable', () => {
  const SOL_PAY_TO = 'CBWSDFwN7FnPmEjSgCFSz1Lzw3pGRj72iXcZWk9dEXHQ';
  const base = { X402_NETWORK: 'eip155:84532', X402_PAY_TO: PAY_TO };
  assert.equal(loadConfig(base).payment!.solana, undefined, 'not configured: EVM only');
  const s = loadConfig({ ...base, X402_SVM_NETWORK: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1', X402_SVM_PAY_TO: SOL_PAY_TO }).payment!.solana!;
  assert.deepEqual([s.network, s.payTo, s.asset.address, s.asset.decimals, s.rpcUrl], ['solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1', SOL_PAY_TO, '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU', 6, 'https://api.devnet.solana.com']);
  const main = { ...base, X402_SVM_NETWORK: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp', X402_SVM_PAY_TO: SOL_PAY_TO };
  assert.equal(loadConfig(main).payment!.solana!.asset.address, 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v');
  // What the front page says: the chains by their names.
  assert.equal(railNames(loadConfig(main).payment!), 'Base Sepolia or Solana');
  assert.equal(railNames(loadConfig(base).payment!), 'Base Sepolia');
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ X402_NETWORK: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp', X402_PAY_TO: PAY_TO }, /^X402_NETWORK: .*X402_SVM_NETWORK/],
    [{ ...base, X402_SVM_NETWORK: 'solana:mainnet' }, /^X402_SVM_NETWORK: must be solana:5eykt/],
    [{ ...base, X402_SVM_NETWORK: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp' }, /^X402_SVM_PAY_TO: is required/],
    [{ ...main, X402_SVM_PAY_TO: PAY_TO }, /^X402_SVM_PAY_TO: is not a base58 Solana address/],
    [{ ...main, X402_SVM_PAY_TO: '1111111111111111111111111111111' }, /^X402_SVM_PAY_TO: is not a base58 Solana address/],
    [{ ...base, X402_SVM_PAY_TO: SOL_PAY_TO }, /^X402_SVM_PAY_TO: is set but X402_SVM_NETWORK is not/],
    [{ ...main, X402_SVM_ASSET: SOL_PAY_TO }, /^X402_SVM_ASSET: differs from Solana's USDC/],
    [{ ...main, X402_SVM_RPC_URL: 'ftp://x' }, /^X402_SVM_RPC_URL: must be http or https/],
    [{ X402_SVM_NETWORK: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp' }, /^X402_SVM_NETWORK: is set but X402_NETWORK is not/],
    [{ DEVNET_SVM: 'yes' }, /^DEVNET_SVM: must be 0 or 1/],
    [{ ...base, DEVNET_SVM: '0' }, /^DEVNET_SVM: is set but X402_NETWORK is too/],
  ];
  for (const [env, why] of cases) assert.match(refusal(env).message, why, JSON.stringify(env));
  assert.equal(loadConfig({ ...main, X402_SVM_ASSET: SOL_PAY_TO, X402_ALLOW_CUSTOM_ASSET: '1', X402_SVM_ASSET_DECIMALS: '9' }).payment!.solana!.asset.decimals, 9);
  assert.equal(loadConfig({ DEVNET_SVM: '0' }).devnetSvm, false);
  assert.equal(loadConfig({}).devnetSvm, true);
});
