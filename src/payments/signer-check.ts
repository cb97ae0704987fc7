/**
 * "Did `address` sign `digest`?" for a 65-byte ECDSA signature, answered
 * exactly as the chain's `ecrecover` would (EIP-3009 tokens recover the signer
 * with it), but fast for payers seen before.
 *
 * Why: recovering a public key from a signature costs two full scalar
 * multiplications of points nobody has tables for (≈ 2–3 ms in JavaScript on
 * a small server core), and a paid call is checked by us and then twice by the
 * facilitator. Agents pay again and again from the same wallet, so the key of
 * an address that has signed once is kept (bounded LRU) with a precomputed
 * multiplication table; checking a new signature from it is then an ECDSA
 * verification that also pins the recovery bit, about a third of the cost.
 *
 * Equivalence with ecrecover(digest, v, r, s) == address: ecrecover rebuilds R
 * from r and the parity bit v, then Q = r⁻¹(sR − eG). Q equals the cached key P
 * iff R = s⁻¹(eG + rP) = u1·G + u2·P. So the cached path computes u1·G + u2·P
 * and accepts only when its x is exactly r and its y has the parity v names.
 * The key enters the cache only from a successful recovery for that address.
 */
import { secp256k1 } from '@noble/curves/secp256k1';
import { keccak256, type Hex } from 'viem';

const Point = secp256k1.ProjectivePoint;
const N = secp256k1.CURVE.n;
/** Signatures with s above half the order are malleated copies (EIP-2): refused, as the gate always has. */
export const HALF_N = N >> 1n;

export interface SignerCheckOptions {
  /** Payers whose keys are kept (least recently used leave first). */
  maxKeys?: number;
  /** wNAF window of each kept key's table: bigger is faster per check and larger in memory (4 ≈ 100 KB). */
  windowBits?: number;
}

/** The parts of a 65-byte `r ‖ s ‖ v` signature, or undefined when it is not a well-formed low-s one. */
export function signatureParts(signature: string): { r: bigint; s: bigint; parity: 0 | 1 } | undefined {
  if (!/^0x[0-9a-fA-F]{130}$/.test(signature)) return undefined;
  const r = BigInt('0x' + signature.slice(2, 66));
  const s = BigInt('0x' + signature.slice(66, 130));
  const v = parseInt(signature.slice(130, 132), 16);
  if (v !== 0 && v !== 1 && v !== 27 && v !== 28) return undefined;
  if (r === 0n || r >= N || s === 0n || s > HALF_N) return undefined;
  return { r, s, parity: (v >= 27 ? v - 27 : v) as 0 | 1 };
}

function modN(a: bigint): bigint {
  const m = a % N;
  return m < 0n ? m + N : m;
}

/** a⁻¹ mod N (extended Euclid; a is never 0 here). */
function invN(a: bigint): bigint {
  let [oldR, r] = [modN(a), N];
  let [oldS, s] = [1n, 0n];
  while (r !== 0n) {
    const q = oldR / r;
    [oldR, r] = [r, oldR - q * r];
    [oldS, s] = [s, oldS - q * s];
  }
  return modN(oldS);
}

type KeyPoint = InstanceType<typeof Point>;

function addressOfPoint(p: KeyPoint): string {
  const raw = p.toRawBytes(false); // 0x04 ‖ X ‖ Y
  return ('0x' + keccak256(raw.subarray(1)).slice(26)).toLowerCase();
}

export class SignerCheck {
  private readonly keys = new Map<string, KeyPoint>();
  private readonly maxKeys: number;
  private readonly windowBits: number;
  /** Counts, for benchmarks and tests: how each check was answered. */
  readonly stats = { recovered: 0, cached: 0 };

  constructor(opts: SignerCheckOptions = {}) {
    this.maxKeys = opts.maxKeys ?? 256;
    this.windowBits = opts.windowBits ?? 4;
  }

  /** True when `signature` over the 32-byte `digest` recovers to `address` (case-insensitive). */
  signedBy(digest: Hex, signature: Hex, address: string): boolean {
    const parts = signatureParts(signature);
    if (!parts || !/^0x[0-9a-fA-F]{64}$/.test(digest)) return false;
    const who = address.toLowerCase();
    const known = this.keys.get(who);
    if (known) {
      this.keys.delete(who); // most recently used goes last
      this.keys.set(who, known);
      this.stats.cached++;
      return verifiesAs(known, BigInt(digest), parts);
    }
    this.stats.recovered++;
    let key: KeyPoint;
    try {
      key = new secp256k1.Signature(parts.r, parts.s).addRecoveryBit(parts.parity).recoverPublicKey(digest.slice(2)) as KeyPoint;
    } catch {
      return false;
    }
    if (addressOfPoint(key) !== who) return false;
    this.remember(who, key);
    return true;
  }

  private remember(who: string, key: KeyPoint): void {
    if (this.keys.size >= this.maxKeys) this.keys.delete(this.keys.keys().next().value!);
    // The table is built once per kept key; noble keeps it with the point object.
    key.precompute(this.windowBits, false);
    this.keys.set(who, key);
  }
}

/** u1·G + u2·P has x = r and the parity v names: the same answer as ecrecover → P. */
function verifiesAs(key: KeyPoint, e: bigint, { r, s, parity }: { r: bigint; s: bigint; parity: 0 | 1 }): boolean {
  const w = invN(s);
  const u1 = modN(e * w);
  const u2 = modN(r * w);
  const sum = Point.BASE.multiplyUnsafe(u1).add(key.multiplyUnsafe(u2));
  if (sum.equals(Point.ZERO)) return false;
  const { x, y } = sum.toAffine();
  return x === r && Number(y & 1n) === parity;
}

/**
 * Build the base point's multiplication table now: noble builds it on first
 * use, which put ≈ 60–100 ms of table building inside the first paid
 * request after start-up (seen in the isolation benchmark's profile), holding
 * every other request. The service calls this before it listens.
 */
export function warmSignerCheck(): void {
  Point.BASE.multiply(3n);
  Point.BASE.multiplyUnsafe(3n);
}

/** One per process: the gate and the devnet facilitator share the payers they have seen. */
export const signerCheck = new SignerCheck();
