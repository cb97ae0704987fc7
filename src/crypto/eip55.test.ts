import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getAddress } from 'viem';
import { eip55Address, hasValidEip55Case } from './eip55.js';

/** The examples of EIP-55 itself: mixed case (checksummed), then one case throughout (no checksum). */
const CHECKSUMMED = ['0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359', '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB', '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb'];
const ONE_CASE = ['0x52908400098527886E0F7030069857D2E4169EE7', '0x8617E340B3D01FA5F11F306F4090FD50E238070D', '0xde709f2102306220921060314715629080e2fb77', '0x27b1fdb04752bbc536007a920d24acb045561c26'];

test("EIP-55's examples are accepted, and the checksummed ones are what the checksum gives", () => {
  for (const a of CHECKSUMMED) {
    assert.equal(eip55Address(a.toLowerCase()), a);
    assert.ok(hasValidEip55Case(a), a);
  }
  for (const a of ONE_CASE) assert.ok(hasValidEip55Case(a), a);
});

test('the checksum agrees with viem on random addresses', () => {
  for (let i = 0; i < 200; i++) {
    const lower = `0x${Buffer.from(Array.from({ length: 20 }, () => Math.floor(Math.random() * 256))).toString('hex')}`;
    assert.equal(eip55Address(lower), getAddress(lower));
  }
});

test('one character of the wrong case is refused; one case throughout carries no checksum and is accepted', () => {
  const good = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
  const broken = '0x833589FCD6eDb6E08f4c7C32D4f71b54bdA02913';
  assert.ok(hasValidEip55Case(good));
  assert.equal(hasValidEip55Case(broken), false);
  assert.ok(hasValidEip55Case(good.toLowerCase()));
  assert.ok(hasValidEip55Case(`0x${good.slice(2).toUpperCase()}`));
});
