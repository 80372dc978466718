/** The web chat's session values: signed with a key from the token, expiring, not forgeable. */
import { describe, expect, it } from 'vitest';
import { SessionSigner, sessionLifetimeMs } from '../../src/gateway/http/index.ts';

const token = 'a-login-token-of-some-length-1234';
const now = 1_800_000_000_000;

describe('SessionSigner', () => {
  it('accepts its own value until it expires, and not after', () => {
    const signer = new SessionSigner(token);
    const value = signer.sign(now + sessionLifetimeMs);
    expect(signer.verify(value, now)).toBe(true);
    expect(signer.verify(value, now + sessionLifetimeMs - 1)).toBe(true);
    expect(signer.verify(value, now + sessionLifetimeMs)).toBe(false);
    expect(sessionLifetimeMs).toBe(30 * 24 * 60 * 60 * 1000);
  });

  it('survives a restart (a new signer of the same token) and ends when the token changes', () => {
    const value = new SessionSigner(token).sign(now + 1000);
    expect(new SessionSigner(token).verify(value, now)).toBe(true);
    expect(new SessionSigner(`${token}-changed`).verify(value, now)).toBe(false);
  });

  it('refuses a tampered value: a later expiry, another signature, a changed nonce, garbage', () => {
    const signer = new SessionSigner(token);
    const value = signer.sign(now + 1000);
    const [version, expiry, nonce, mac] = value.split('.') as [string, string, string, string];
    const later = (now + sessionLifetimeMs * 10).toString(36);
    const flipped = `${mac.startsWith('A') ? 'B' : 'A'}${mac.slice(1)}`;
    // The last character's low bits are base64 padding: another spelling of the same bytes.
    const respelled = `${mac.slice(0, -1)}${String.fromCharCode(mac.charCodeAt(mac.length - 1) ^ 1)}`;
    for (const forged of [
      `${version}.${later}.${nonce}.${mac}`,
      `${version}.${expiry}.${nonce}.${flipped}`,
      `${version}.${expiry}.${nonce}.${respelled}`,
      `${version}.${expiry}.${nonce}x.${mac}`,
      `v2.${expiry}.${nonce}.${mac}`,
      `${version}.${expiry}.${nonce}`,
      `${version}.${expiry}.${nonce}.`,
      '',
      'garbage',
    ]) {
      expect(signer.verify(forged, now), forged).toBe(false);
    }
    // Each login gets a value of its own.
    expect(signer.sign(now + 1000)).not.toBe(value);
  });
});
