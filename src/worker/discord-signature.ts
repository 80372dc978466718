/**
 * Discord's request signing for an Interactions Endpoint URL: `X-Signature-Ed25519` is the hex
 * Ed25519 signature of `X-Signature-Timestamp` followed by the raw body, made with the
 * application's key; its public half is the portal's "Public Key" (hex), `DISCORD_PUBLIC_KEY`.
 * Checked with WebCrypto, which workerd has natively. Discord sends bad signatures on purpose
 * when the URL is saved and whenever it likes after, and removes the URL of an app that takes one.
 */

/** Checks one request's signature over its timestamp and raw body. */
export type DiscordSignatureCheck = (signatureHex: string, timestamp: string, body: Uint8Array) => Promise<boolean>;

/** Imported keys by their hex, so a key is imported once per isolate. */
const imported = new Map<string, Promise<CryptoKey>>();

/** The bytes of a hex string of exactly `length` bytes, or undefined. */
function hexBytes(hex: string, length: number): Uint8Array | undefined {
  if (hex.length !== length * 2 || !/^[0-9a-fA-F]*$/.test(hex)) return undefined;
  return Uint8Array.from({ length }, (_, index) => Number.parseInt(hex.slice(index * 2, index * 2 + 2), 16));
}

/**
 * The check for the public key `publicKeyHex`, or undefined when it is not one (32 bytes as 64
 * hex digits).
 *
 * @example
 * const check = discordSignatureCheck(env.DISCORD_PUBLIC_KEY);
 * if (!(await check(signature, timestamp, bytes))) return new Response('invalid request signature', { status: 401 });
 */
export function discordSignatureCheck(publicKeyHex: string): DiscordSignatureCheck | undefined {
  const raw = hexBytes(publicKeyHex.trim(), 32);
  if (!raw) return undefined;
  return async (signatureHex, timestamp, body) => {
    const signature = hexBytes(signatureHex, 64);
    if (!signature) return false;
    let key = imported.get(publicKeyHex);
    if (!key) {
      key = crypto.subtle.importKey('raw', raw, { name: 'Ed25519' }, false, ['verify']);
      imported.set(publicKeyHex, key);
      key.catch(() => imported.delete(publicKeyHex));
    }
    const stamp = new TextEncoder().encode(timestamp);
    const signed = new Uint8Array(stamp.length + body.length);
    signed.set(stamp);
    signed.set(body, stamp.length);
    try {
      return await crypto.subtle.verify({ name: 'Ed25519' }, await key, signature, signed);
    } catch {
      return false;
    }
  };
}
