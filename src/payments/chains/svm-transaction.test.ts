/**
 * The Solana payment's local check, byte by byte: transactions assembled
 * here (real ed25519 signatures by node:crypto keys), each breaking one rule
 * of what a buyer-signed payment may be. The gate tests (gate-svm.test.ts)
 * drive the same check with transactions built as the official client does.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import fc from 'fast-check';
import {
  checkSvmPayment,
  ed25519Verify,
  COMPUTE_BUDGET_PROGRAM,
  MAX_COMPUTE_UNIT_LIMIT,
  MAX_COMPUTE_UNIT_PRICE_MICROLAMPORTS,
  MAX_FEE_PAYER_LAMPORTS,
  MEMO_PROGRAM,
  readTransaction,
  TOKEN_2022_PROGRAM,
  TOKEN_PROGRAM,
  type SvmExpectation,
  type SvmPayment,
  type SvmRefusal,
} from './svm-transaction.js';
import { fromBase58, toBase58 } from '../../foundation/base58.js';

interface Key {
  address: string;
  secret: KeyObject;
}
function key(): Key {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
  return { address: toBase58(raw), secret: privateKey };
}
const addr = (label: string) => toBase58(createHash('sha256').update(label).digest());

const feePayer = key();
const buyer = key();
const MINT = addr('mint');
const SOURCE = addr('source');
const DESTINATION = addr('destination');
const want: SvmExpectation = { mint: MINT, decimals: 6, amount: 1000n, feePayer: feePayer.address, destinations: { [TOKEN_PROGRAM]: DESTINATION } };

const shortvec = (n: number) => (n < 0x80 ? [n] : [(n & 0x7f) | 0x80, n >> 7]);
const u32 = (n: number) => [...new Uint8Array(new Uint32Array([n]).buffer)];
const u64 = (n: bigint) => [...new Uint8Array(new BigUint64Array([n]).buffer)];

interface Ix {
  program: string;
  accounts: string[];
  data: number[];
}
const limit = (units = 20_000): Ix => ({ program: COMPUTE_BUDGET_PROGRAM, accounts: [], data: [2, ...u32(units)] });
const price = (micro = 1n): Ix => ({ program: COMPUTE_BUDGET_PROGRAM, accounts: [], data: [3, ...u64(micro)] });
const transfer = (o: { amount?: bigint; decimals?: number; source?: string; mint?: string; destination?: string; authority?: string; program?: string; tag?: number } = {}): Ix => ({
  program: o.program ?? TOKEN_PROGRAM,
  accounts: [o.source ?? SOURCE, o.mint ?? MINT, o.destination ?? DESTINATION, o.authority ?? buyer.address],
  data: [o.tag ?? 12, ...u64(o.amount ?? 1000n), o.decimals ?? 6],
});
const memo = (text = 'abc'): Ix => ({ program: MEMO_PROGRAM, accounts: [], data: [...Buffer.from(text)] });

/** A v0 (or legacy) transaction of these instructions, fee payer first, the buyer second, signed by the buyer. */
function wire(ixs: Ix[], o: { signers?: string[]; version?: 0 | 'legacy'; signWith?: Key; lookups?: number; extraAccounts?: string[]; slots?: number; programIndex?: number } = {}): Uint8Array {
  const signers = o.signers ?? [feePayer.address, buyer.address];
  const accounts = [...signers];
  for (const ix of ixs) for (const a of [...ix.accounts, ix.program]) if (!accounts.includes(a)) accounts.push(a);
  accounts.push(...(o.extraAccounts ?? []));
  const body = [
    ...(o.version === 'legacy' ? [] : [0x80]),
    signers.length,
    0,
    ixs.length ? 1 : 0,
    ...shortvec(accounts.length),
    ...accounts.flatMap((a) => [...fromBase58(a)!]),
    ...fromBase58(addr('blockhash'))!,
    ...shortvec(ixs.length),
    ...ixs.flatMap((ix) => [o.programIndex ?? accounts.indexOf(ix.program), ...shortvec(ix.accounts.length), ...ix.accounts.map((a) => accounts.indexOf(a)), ...shortvec(ix.data.length), ...ix.data]),
    ...(o.version === 'legacy' ? [] : shortvec(o.lookups ?? 0)),
  ];
  const message = Buffer.from(body);
  const slots = o.slots ?? signers.length;
  const sigs: Buffer[] = [];
  for (let i = 0; i < slots; i++) sigs.push(i === 1 ? sign(null, message, (o.signWith ?? buyer).secret) : Buffer.alloc(64));
  return new Uint8Array(Buffer.concat([Buffer.from(shortvec(slots)), ...sigs, message]));
}

/** The checked payment, or the reason it is refused (any code). */
function check(bytes: Uint8Array, expect: SvmExpectation = want): SvmPayment | string {
  const r = verdict(bytes, expect);
  return 'reason' in r ? r.reason : r;
}
function verdict(bytes: Uint8Array, expect: SvmExpectation = want): SvmPayment | SvmRefusal {
  const tx = readTransaction(bytes);
  return typeof tx === 'string' ? { code: 'payment_invalid', reason: tx } : checkSvmPayment(tx, expect);
}

const honest = () => [limit(), price(), transfer(), memo()];

test('the transaction the official client builds passes: payer, source, buyer signature, message hash', () => {
  for (const version of [0, 'legacy'] as const) {
    const r = check(wire(honest(), { version }));
    assert.ok(typeof r !== 'string', String(r));
    assert.equal(r.payer, buyer.address);
    assert.equal(r.source, SOURCE);
    assert.equal(r.blockhash, addr('blockhash'));
    assert.match(r.messageHash, /^[0-9a-f]{64}$/);
  }
  // Token-2022 pays its own associated token account.
  const r = check(wire([limit(), price(), transfer({ program: TOKEN_2022_PROGRAM, destination: addr('ata 2022') }), memo()]), { ...want, destinations: { [TOKEN_2022_PROGRAM]: addr('ata 2022') } });
  assert.ok(typeof r !== 'string', String(r));
});

test('every way a transaction could do more than pay, or pay otherwise, is refused with the reason', () => {
  const cases: Array<[string, Uint8Array, RegExp]> = [
    ['another fee payer', wire(honest(), { signers: [addr('someone'), buyer.address] }), /fee payer must be the facilitator's/],
    ['three signers', wire(honest(), { signers: [feePayer.address, buyer.address, addr('third')] }), /exactly two signers/],
    ['a compute budget instruction naming an account', wire([{ ...limit(), accounts: [buyer.address] }, transfer()]), /compute budget instruction names accounts/],
    ['two compute unit limits', wire([limit(), limit(), transfer()]), /at most one compute unit limit/],
    ['a limit over the maximum', wire([limit(1_400_001), transfer()]), /at most one compute unit limit/],
    ['two prices', wire([price(), price(), transfer()]), /at most one compute unit price/],
    ['another compute budget instruction', wire([{ program: COMPUTE_BUDGET_PROGRAM, accounts: [], data: [1, 0, 0, 0, 0] }, transfer()]), /only compute unit limit and price/],
    ['two memos', wire([transfer(), memo(), memo('x')]), /at most one memo/],
    ['a memo naming an account (a signer it would need)', wire([transfer(), { ...memo(), accounts: [buyer.address] }]), /at most one memo/],
    ['a memo over 256 bytes', wire([transfer(), memo('m'.repeat(257))]), /at most one memo/],
    ['two token instructions', wire([transfer(), transfer({ destination: addr('thief') })]), /exactly one token transfer/],
    ['another program', wire([transfer(), { program: addr('program'), accounts: [buyer.address], data: [1] }]), /only the compute budget, token and memo programs/],
    ['no transfer', wire([limit(), memo()]), /no TransferChecked/],
    ['a plain Transfer (no mint, no decimals)', wire([transfer({ tag: 3 })]), /must be a TransferChecked/],
    ['another mint', wire([transfer({ mint: addr('other mint') })]), /must be of mint/],
    ['other decimals', wire([transfer({ decimals: 9 })]), /must be of mint/],
    ['another amount', wire([transfer({ amount: 999n })]), /does not pay this resource's amount/],
    ['another destination', wire([transfer({ destination: addr('thief') })]), /associated token account/],
    ['Token-2022 to the classic account', wire([transfer({ program: TOKEN_2022_PROGRAM })]), /associated token account/],
    ['the fee payer as source', wire([transfer({ source: feePayer.address })]), /fee payer may not be/],
    ['the fee payer as authority', wire([transfer({ authority: feePayer.address })]), /fee payer may not be/],
    ['an authority that is not the second signer', wire([transfer({ authority: addr('not a signer') })]), /second signer/],
    ['a signature by another key', wire(honest(), { signWith: key() }), /not a valid ed25519 signature/],
  ];
  for (const [what, bytes, why] of cases) {
    const r = check(bytes);
    assert.equal(typeof r, 'string', what);
    assert.match(r as string, why, what);
  }
});

test('the fee payer\'s cost is bounded in every form of compute budget: the product of limit and price, the runtime\'s default limit when none is set', () => {
  // What the fee payer pays: 5,000 per signature, and limit × price rounded up to the lamport.
  const fee = (units: number, micro: bigint) => 10_000n + (BigInt(units) * micro + 999_999n) / 1_000_000n;
  const cases: Array<[string, Ix[], boolean]> = [
    ['the official client\'s budget', honest(), true],
    ['no compute budget at all', [transfer(), memo()], true],
    ['no price, the largest limit', [limit(MAX_COMPUTE_UNIT_LIMIT), transfer(), memo()], true],
    ['a zero price, the largest limit', [limit(MAX_COMPUTE_UNIT_LIMIT), price(0n), transfer(), memo()], true],
    ['a zero limit, the largest price', [limit(0), price(MAX_COMPUTE_UNIT_PRICE_MICROLAMPORTS), transfer(), memo()], true],
    ['exactly at the bound', [limit(20_000), price(500_000n), transfer(), memo()], true],
    ['one micro-lamport over the bound (rounded up)', [limit(20_000), price(500_001n), transfer(), memo()], false],
    ['the largest limit and price', [limit(MAX_COMPUTE_UNIT_LIMIT), price(MAX_COMPUTE_UNIT_PRICE_MICROLAMPORTS), transfer(), memo()], false],
    ['each factor modest, their product not', [limit(200_000), price(60_000n), transfer(), memo()], false],
    ['a price over the facilitator\'s maximum, on one unit', [limit(1), price(MAX_COMPUTE_UNIT_PRICE_MICROLAMPORTS + 1n), transfer(), memo()], false],
    // No limit: the runtime grants up to 200,000 units per instruction, three here.
    ['no limit, a price the official limit would allow', [price(30_000n), transfer(), memo()], false],
    ['no limit, a price within the default limit', [price(16_000n), transfer(), memo()], true],
    ['no limit, the largest price', [price(MAX_COMPUTE_UNIT_PRICE_MICROLAMPORTS), transfer()], false],
    ['the budget after the transfer', [transfer(), memo(), price(MAX_COMPUTE_UNIT_PRICE_MICROLAMPORTS), limit(MAX_COMPUTE_UNIT_LIMIT)], false],
  ];
  for (const [what, ixs, accepted] of cases) {
    const r = verdict(wire(ixs));
    if (accepted) assert.ok(!('reason' in r), `${what}: ${'reason' in r ? r.reason : ''}`);
    else {
      assert.ok('reason' in r, what);
      assert.equal(r.code, 'payment_fee_too_high', `${what}: ${r.reason}`);
      assert.match(r.reason, /fee payer|facilitator's 5000000/, what);
    }
  }
  assert.equal(fee(20_000, 500_000n), MAX_FEE_PAYER_LAMPORTS, 'the bound is a payment at 20,000 units and 500,000 micro-lamports');
  // Any limit and price the runtime and facilitator allow: refused exactly when the fee is over the bound.
  fc.assert(
    fc.property(fc.option(fc.integer({ min: 0, max: MAX_COMPUTE_UNIT_LIMIT }), { nil: undefined }), fc.option(fc.bigInt({ min: 0n, max: MAX_COMPUTE_UNIT_PRICE_MICROLAMPORTS }), { nil: undefined }), (units, micro) => {
      const ixs = [...(units === undefined ? [] : [limit(units)]), ...(micro === undefined ? [] : [price(micro)]), transfer(), memo()];
      const granted = units ?? Math.min(MAX_COMPUTE_UNIT_LIMIT, 200_000 * ixs.length);
      const r = verdict(wire(ixs));
      const over = fee(granted, micro ?? 0n) > MAX_FEE_PAYER_LAMPORTS;
      assert.equal('reason' in r && r.code === 'payment_fee_too_high', over, `${units} units at ${micro}: ${'reason' in r ? r.reason : 'accepted'}`);
      if (!over) assert.ok(!('reason' in r));
    }),
    { numRuns: 300 },
  );
});

test('a fee over the bound on a payment that is wrong otherwise is refused for the other reason', () => {
  const r = verdict(wire([limit(MAX_COMPUTE_UNIT_LIMIT), price(MAX_COMPUTE_UNIT_PRICE_MICROLAMPORTS), transfer({ amount: 1n }), memo()]));
  assert.ok('reason' in r);
  assert.equal(r.code, 'payment_invalid');
});

test('what is not a transaction this service reads is refused before any check', () => {
  const good = wire(honest());
  const cases: Array<[string, Uint8Array, RegExp]> = [
    ['empty', new Uint8Array(0), /could not be read \(truncated\)/],
    ['cut short', good.subarray(0, good.length - 5), /truncated/],
    ['trailing bytes', new Uint8Array([...good, 0]), /trailing bytes/],
    ['a v1 message', (() => {
      const b = Buffer.from(wire(honest()));
      b[1 + 128] = 0x81;
      return new Uint8Array(b);
    })(), /message version 1/],
    ['address lookup tables', wire(honest(), { lookups: 1 }), /could not be read|lookup tables/],
    ['more signature slots than signers', wire(honest(), { slots: 3 }), /signature slots for 2 signers/],
    ['a compact length that never ends', new Uint8Array([0xff, 0xff, 0xff, 0xff]), /bad length/],
  ];
  for (const [what, bytes, why] of cases) {
    const r = readTransaction(bytes);
    assert.equal(typeof r, 'string', what);
    assert.match(r as string, why, what);
  }
  // An instruction pointing past the account list.
  const r = readTransaction(wire([transfer()], { programIndex: 99 }));
  assert.match(String(r), /names an account the message does not list/);
});

test('the buyer signature check agrees with node:crypto verifying through the key object, for signatures made and mangled', () => {
  const keys = Array.from({ length: 4 }, () => generateKeyPairSync('ed25519'));
  const rawKey = (k: KeyObject) => new Uint8Array(k.export({ format: 'der', type: 'spki' }).subarray(12));
  fc.assert(
    fc.property(
      fc.nat(3),
      fc.nat(3),
      fc.uint8Array({ maxLength: 600 }),
      fc.option(fc.record({ where: fc.constantFrom('message', 'signature', 'key'), at: fc.nat(), bit: fc.nat(7) }), { nil: undefined }),
      (signer, claimed, message, flip) => {
        let signature = new Uint8Array(sign(null, message, keys[signer]!.privateKey));
        let key = rawKey(keys[claimed]!.publicKey);
        let signed = message;
        if (flip) {
          const target = flip.where === 'message' ? (signed = new Uint8Array(message)) : flip.where === 'signature' ? (signature = new Uint8Array(signature)) : (key = new Uint8Array(key));
          if (target.length > 0) target[flip.at % target.length]! ^= 1 << flip.bit;
        }
        let expected: boolean;
        try {
          expected = verify(null, signed, { key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), key]), format: 'der', type: 'spki' }, signature);
        } catch {
          expected = false;
        }
        assert.equal(ed25519Verify(toBase58(key), signed, signature), expected);
        if (!flip && signer === claimed) assert.equal(expected, true, 'an untouched signature by the claimed key verifies');
      },
    ),
    { numRuns: 300 },
  );
  assert.equal(ed25519Verify(toBase58(new Uint8Array(31)), new Uint8Array(1), new Uint8Array(64)), false, 'a key of the wrong length');
  assert.equal(ed25519Verify('0OIl', new Uint8Array(1), new Uint8Array(64)), false, 'not base58');
  assert.equal(ed25519Verify(toBase58(rawKey(keys[0]!.publicKey)), new Uint8Array(1), new Uint8Array(63)), false, 'a signature of the wrong length');
});
