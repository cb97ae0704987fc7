/**
 * How a browser holds the operator's access to the dashboard. A page
 * navigation cannot carry `Authorization: Bearer`, and the token must never
 * sit in a URL (history, logs, Referer). So the operator types ADMIN_TOKEN
 * once into a form (POST, same origin); the answer sets a cookie that holds
 * no secret: an expiry and an HMAC of it under a key derived from
 * ADMIN_TOKEN. Why this shape:
 *
 * - stateless: any instance sharing ADMIN_TOKEN accepts it, nothing is stored;
 * - changing ADMIN_TOKEN ends every session at once;
 * - HttpOnly (no script reads it), SameSite=Strict (no other site's page or
 *   form makes the browser send it, which is what guards the logout form and
 *   every GET against cross-site requests), Secure when the request came
 *   over https (directly or, with TRUST_PROXY, through the proxy), Path=/admin.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

export const SESSION_COOKIE = 'operator_session';
/** A session lasts a working day; then the token is asked again. */
export const SESSION_SECONDS = 12 * 3600;
const VERSION = 'v1';

export class OperatorSessions {
  private readonly key: Buffer;

  constructor(adminToken: string) {
    // A key of its own, so the cookie's MAC is never a MAC under the token itself.
    this.key = createHash('sha256').update(`agent-pay-service operator session\n${adminToken}`, 'utf8').digest();
  }

  private mac(expires: number): string {
    return createHmac('sha256', this.key).update(`${VERSION}.${expires}`).digest('base64url');
  }

  /** A session value good until `nowMs + SESSION_SECONDS`. */
  issue(nowMs: number): string {
    const expires = Math.floor(nowMs / 1000) + SESSION_SECONDS;
    return `${VERSION}.${expires}.${this.mac(expires)}`;
  }

  /** True for a value this token issued that has not expired. */
  valid(value: string | undefined, nowMs: number): boolean {
    const m = /^v1\.([0-9]{1,12})\.([A-Za-z0-9_-]{43})$/.exec(value ?? '');
    if (!m) return false;
    const expires = Number(m[1]);
    const given = Buffer.from(m[2]!, 'base64url');
    const expected = Buffer.from(this.mac(expires), 'base64url');
    // Both 32 bytes (the pattern fixes the length): a constant-time comparison.
    return given.length === expected.length && timingSafeEqual(given, expected) && expires * 1000 > nowMs;
  }

  /** The Set-Cookie value that starts a session. */
  cookie(value: string, secure: boolean): string {
    return `${SESSION_COOKIE}=${value}; Path=/admin; Max-Age=${SESSION_SECONDS}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
  }

  /** The Set-Cookie value that ends it. */
  static clear(secure: boolean): string {
    return `${SESSION_COOKIE}=; Path=/admin; Max-Age=0; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
  }
}
