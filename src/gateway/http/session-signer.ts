/**
 * The web chat's session: a stateless value signed with HMAC-SHA256 under a key derived from the
 * login token, carrying its expiry. Nothing is stored, so sessions survive restarts; a new token
 * derives a new key, which ends every session at once.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** How long a session lasts: 30 days. */
export const sessionLifetimeMs = 30 * 24 * 60 * 60 * 1000;

const version = 'v1';

/** Signs and checks session values for one token. */
export class SessionSigner {
  readonly #key: Buffer;

  constructor(token: string) {
    // A key of its own, so the token itself never keys anything an attacker sees signed.
    this.#key = createHmac('sha256', token).update('operator web session').digest();
  }

  /**
   * A session value valid until `expiresAt` (ms since the epoch): `v1.<expiry>.<nonce>.<mac>`.
   *
   * @example
   * const signer = new SessionSigner(token);
   * const value = signer.sign(Date.now() + sessionLifetimeMs);
   * signer.verify(value, Date.now()); // true
   */
  sign(expiresAt: number): string {
    const payload = `${version}.${Math.floor(expiresAt).toString(36)}.${randomBytes(9).toString('base64url')}`;
    return `${payload}.${this.#mac(payload)}`;
  }

  /** Whether `value` was signed under this token and has not expired at `now`. */
  verify(value: string, now: number): boolean {
    const parts = value.split('.');
    if (parts.length !== 4 || parts[0] !== version || !/^[0-9a-z]{1,12}$/.test(parts[1]!)) return false;
    // Compared as text: base64 decoding would let several spellings pass for one signature.
    const given = Buffer.from(parts[3]!, 'utf8');
    const expected = Buffer.from(this.#mac(parts.slice(0, 3).join('.')), 'utf8');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return false;
    return Number.parseInt(parts[1]!, 36) > now;
  }

  #mac(payload: string): string {
    return createHmac('sha256', this.#key).update(payload).digest('base64url');
  }
}
