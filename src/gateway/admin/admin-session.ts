/**
 * The console's sessions and their CSRF tokens, both stateless. A session is the web chat's kind
 * of signed value (`SessionSigner`), under a key of its own derived from the admin token, so a
 * web chat session is never an admin session and a new admin token ends every admin session.
 * Each session has its CSRF token: an HMAC of the session value, so it is the same for the whole
 * session, differs between sessions, and needs nothing stored.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { SessionSigner } from '../http/session-signer.ts';

/** How long an admin session lasts: a day (shorter than the web chat's: the console changes things). */
export const adminSessionLifetimeMs = 24 * 60 * 60 * 1000;

/** The session cookie of the console on `port`: cookies are shared across a host's ports, so each gateway names its own. */
export function adminCookieName(port: number | undefined): string {
  return port === undefined ? 'operator_admin' : `operator_admin_${port}`;
}

/** Signs and checks admin sessions and their CSRF tokens for one admin token. */
export class AdminSessions {
  readonly #signer: SessionSigner;
  readonly #csrfKey: Buffer;

  constructor(token: string) {
    // Keys of their own: neither the token nor the web chat's session key signs anything here.
    this.#signer = new SessionSigner(createHmac('sha256', token).update('operator admin session').digest('base64url'));
    this.#csrfKey = createHmac('sha256', token).update('operator admin csrf').digest();
  }

  /** A new session value, valid until `now + adminSessionLifetimeMs`. */
  create(now: number): string {
    return this.#signer.sign(now + adminSessionLifetimeMs);
  }

  /** Whether `value` is a session signed under this token and not expired at `now`. */
  verify(value: string | undefined, now: number): boolean {
    return value !== undefined && this.#signer.verify(value, now);
  }

  /** The CSRF token of the session `value`. */
  csrfOf(value: string): string {
    return createHmac('sha256', this.#csrfKey).update(value).digest('base64url');
  }

  /** Whether `given` is the CSRF token of the session `value` (constant time). */
  csrfMatches(value: string, given: string | undefined): boolean {
    if (given === undefined) return false;
    const expected = Buffer.from(this.csrfOf(value), 'utf8');
    const actual = Buffer.from(given, 'utf8');
    return actual.length === expected.length && timingSafeEqual(actual, expected);
  }
}
