/**
 * The bytes of a cached 402 with each answer's own sign-in stamp. A plain 402
 * is encoded once (its PAYMENT-REQUIRED header and its body), with the
 * placeholder stamp (payments/sign-in.ts); every answer carries a stamp of
 * its own, of the same length and ASCII, at the same offset. So an answer
 * is the cached encoding with that slot written over, not the text encoded
 * again: a copy of the body's bytes, and of the header's base64 only the
 * few groups of four that cover the slot. Why: decision 0048.
 */
import { PLACEHOLDER_TEXT, stampText, type SignInStamp } from '../payments/sign-in.js';

/** A UTF-8 body whose stamp is written into a copy of its bytes for each answer. */
export class StampedBody {
  private readonly bytes: Buffer;
  /** The slot's byte offset; -1 when the text holds no declaration (nothing to stamp). */
  private readonly at: number;

  constructor(text: string) {
    this.bytes = Buffer.from(text, 'utf8');
    this.at = this.bytes.indexOf(PLACEHOLDER_TEXT, 0, 'latin1');
  }

  with(stamp: SignInStamp): Uint8Array<ArrayBuffer> {
    const out = Buffer.allocUnsafeSlow(this.bytes.length);
    this.bytes.copy(out);
    if (this.at >= 0) out.write(stampText(stamp), this.at, 'latin1');
    return new Uint8Array(out.buffer, out.byteOffset, out.length);
  }
}

/**
 * Base64 of UTF-8 JSON (PAYMENT-REQUIRED) whose stamp is written for each
 * answer: base64 turns each 3 bytes into 4 characters on their own, so the
 * cached text is kept around the groups the slot touches, and only those are
 * encoded again.
 */
export class StampedBase64 {
  private readonly head: string;
  private readonly tail: string;
  /** The bytes of the groups that hold the slot, and the slot's offset in them. */
  private readonly window: Buffer;
  private readonly at: number;

  constructor(json: string) {
    const bytes = Buffer.from(json, 'utf8');
    const encoded = bytes.toString('base64');
    const slot = bytes.indexOf(PLACEHOLDER_TEXT, 0, 'latin1');
    if (slot < 0) {
      this.head = encoded;
      this.tail = '';
      this.window = Buffer.alloc(0);
      this.at = -1;
      return;
    }
    const from = slot - (slot % 3);
    const to = Math.min(bytes.length, Math.ceil((slot + PLACEHOLDER_TEXT.length) / 3) * 3);
    this.head = encoded.slice(0, (from / 3) * 4);
    // Up to a whole group (or the end, padding included): nothing after `to` depends on the slot.
    this.tail = to === bytes.length ? '' : encoded.slice((to / 3) * 4);
    this.window = Buffer.from(bytes.subarray(from, to));
    this.at = slot - from;
  }

  /** The encoded length: the same for every stamp. */
  get length(): number {
    return this.head.length + Math.ceil(this.window.length / 3) * 4 + this.tail.length;
  }

  with(stamp: SignInStamp): string {
    if (this.at < 0) return this.head;
    // One answer at a time on the event loop: the window is written and read before anything else runs.
    this.window.write(stampText(stamp), this.at, 'latin1');
    return this.head + this.window.toString('base64') + this.tail;
  }
}
