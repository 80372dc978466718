/**
 * A platform's HTTP call on Workers, with its failures as {@link DeliveryError}s the way the Node
 * adapters map theirs: no answer at all (network), 429 (with the wait the platform asked for) and
 * 5xx are worth trying again; any other refusal is final. Nothing is retried here: a send that
 * failed on the network may have arrived, and a rate limit is a wait the delivery ledger can
 * schedule (an alarm) instead of holding the object. Texts name the platform and the operation,
 * never the URL (Discord's webhook paths carry an interaction's token) nor a token.
 */
import { DeliveryError } from '../channels/types.ts';

/** One call as it is named in errors, and the secrets its texts must never carry. */
export interface PlatformCall {
  /** `Slack`, `Discord`. */
  platform: string;
  /** `chat.postMessage`, `editOriginalResponse`. */
  operation: string;
  /** Tokens that could appear in a runtime's error text (bot token, interaction token). */
  secrets: readonly string[];
}

/** `text` with every secret of `call` replaced. */
export function scrubbed(call: PlatformCall, text: string): string {
  return call.secrets.filter((secret) => secret.length >= 4).reduce((result, secret) => result.split(secret).join('<secret>'), text);
}

/**
 * `fetch(url, init)`; a failure to get any answer becomes a retryable {@link DeliveryError}.
 *
 * @example
 * const response = await fetchForDelivery({ platform: 'Slack', operation: 'chat.update', secrets: [token] }, url, init);
 */
export async function fetchForDelivery(call: PlatformCall, url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new DeliveryError(scrubbed(call, `${call.platform} ${call.operation} failed: network error: ${reason}`), { retryable: true });
  }
}

/** The wait in ms a 429 asks for: the body's seconds when the platform gives them there, else `Retry-After`. */
export function retryAfterMsOf(response: Response, bodySeconds?: unknown): number | undefined {
  const seconds = typeof bodySeconds === 'number' ? bodySeconds : Number(response.headers.get('retry-after') ?? Number.NaN);
  return Number.isFinite(seconds) && seconds >= 0 ? Math.ceil(seconds * 1000) : undefined;
}

/**
 * The {@link DeliveryError} of an answer that is not a success: `detail` is what the platform
 * said (its error text or code), `retryAfterMs` the wait a 429 asked for.
 */
export function failedAnswer(call: PlatformCall, status: number, detail: string, retryAfterMs?: number): DeliveryError {
  const retryable = status === 429 || status >= 500;
  const wait = status === 429 && retryAfterMs !== undefined ? `, retry after ${retryAfterMs} ms` : '';
  return new DeliveryError(scrubbed(call, `${call.platform} ${call.operation} failed: HTTP ${status}${detail === '' ? '' : ` ${detail}`}${wait}`), {
    retryable,
    ...(status === 429 && retryAfterMs !== undefined ? { retryAfterMs } : {}),
  });
}
