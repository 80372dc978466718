/**
 * Discord's side of an app's Interactions Endpoint URL (interactions over HTTP instead of the
 * gateway): the application's Ed25519 key pair, whose public half (hex) is the portal's "Public
 * Key", and interactions signed as Discord signs them: `X-Signature-Ed25519` is the hex signature
 * of `X-Signature-Timestamp` followed by the raw JSON body. A forged request is signed with another
 * key. What the endpoint answers is the interaction's response, taken by the REST routes' own
 * rules (`takeInteractionResponse` in `fake-discord-rest.ts`).
 */
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';

/** An interaction as Discord POSTs it to an endpoint. */
export interface FakeSignedInteraction {
  /** The raw JSON body, exactly as signed. */
  body: string;
  headers: Record<string, string>;
}

/** How to sign one interaction. */
export interface FakeSignOptions {
  /** The `X-Signature-Timestamp` in seconds (default now). */
  timestampSeconds?: number;
  /** Sign with a key that is not the application's (a request Discord did not send). */
  forged?: boolean;
}

function newKeyPair(): { publicKey: KeyObject; privateKey: KeyObject } {
  return generateKeyPairSync('ed25519');
}

/** The raw 32-byte public key as hex (what the developer portal shows). */
function publicKeyHex(key: KeyObject): string {
  const jwk = key.export({ format: 'jwk' });
  return Buffer.from(jwk.x!, 'base64url').toString('hex');
}

/** One application's signing key. */
export class FakeApplicationKey {
  /** The public key as hex: what the portal shows and `DISCORD_PUBLIC_KEY` holds. */
  readonly publicKey: string;
  readonly #privateKey: KeyObject;

  constructor() {
    const pair = newKeyPair();
    this.publicKey = publicKeyHex(pair.publicKey);
    this.#privateKey = pair.privateKey;
  }

  /** `payload` as Discord sends it to the endpoint: its JSON and the signature headers. */
  sign(payload: unknown, options: FakeSignOptions = {}): FakeSignedInteraction {
    const body = JSON.stringify(payload);
    const timestamp = String(options.timestampSeconds ?? Math.floor(Date.now() / 1000));
    const key = options.forged ? newKeyPair().privateKey : this.#privateKey;
    const signature = sign(null, Buffer.from(timestamp + body), key).toString('hex');
    return {
      body,
      headers: { 'content-type': 'application/json', 'user-agent': 'Discord-Interactions/1.0 (+https://discord.com)', 'x-signature-ed25519': signature, 'x-signature-timestamp': timestamp },
    };
  }
}
