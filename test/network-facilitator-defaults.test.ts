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
