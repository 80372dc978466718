/**
 * Discord's REST API over fetch, for Workers: the Node channel's client (discord.js) does not load
 * in workerd. The base is `DISCORD_API_URL` (as on Node, the API root without its version:
 * default `https://discord.com/api`) with `/v10`. Calls to the bot's routes carry
 * `Authorization: Bot <token>`; an interaction's webhook routes are authorised by the token in
 * their path and carry none. Discord's errors (`{ message, code }`, 429 with `retry_after`)
 * become {@link DeliveryError}s that name the operation and Discord's code, never the path.
 */
import { DeliveryError } from '../channels/types.ts';
import { failedAnswer, fetchForDelivery, retryAfterMsOf, type PlatformCall } from './delivery-fetch.ts';

/** Discord's API root unless `DISCORD_API_URL` says otherwise. */
export const defaultDiscordApiUrl = 'https://discord.com/api';

/** One REST call. */
export interface DiscordRequest {
  /** Named after Discord's documentation (`createMessage`, `editOriginalResponse`), for errors. */
  operation: string;
  method: 'GET' | 'POST' | 'PATCH';
  /** Below `/v10`, e.g. `/channels/1/messages`. */
  path: string;
  body?: unknown;
  /** Sent with the bot token (else authorised by the path's interaction token). */
  botAuth: boolean;
}

/** Calls Discord; resolves with the answer's JSON (undefined for 204). */
export type DiscordRest = <T>(request: DiscordRequest) => Promise<T>;

/** Options of {@link createDiscordRest}. */
export interface DiscordRestOptions {
  apiUrl?: string;
  /** Needed for bot routes only. Never logged. */
  botToken?: string;
  /** Further secrets the texts must not carry (an interaction's token). */
  secrets?: readonly string[];
}

/** Discord asks bots to say who they are (`DiscordBot (url, version)`). */
const userAgent = 'DiscordBot (https://discord.com/developers/docs/intro, 10) operator-workers';

/**
 * A {@link DiscordRest} for one bot (and interaction).
 *
 * @example
 * const discord = createDiscordRest({ apiUrl: env.DISCORD_API_URL, botToken: env.DISCORD_BOT_TOKEN });
 * const sent = await discord<{ id: string }>({ operation: 'createMessage', method: 'POST', path: `/channels/${id}/messages`, body: { content: 'hi' }, botAuth: true });
 */
export function createDiscordRest(options: DiscordRestOptions): DiscordRest {
  const base = `${(options.apiUrl ?? defaultDiscordApiUrl).replace(/\/+$/, '')}/v10`;
  const secrets = [...(options.botToken ? [options.botToken] : []), ...(options.secrets ?? [])];
  return async <T>(request: DiscordRequest): Promise<T> => {
    const call: PlatformCall = { platform: 'Discord', operation: request.operation, secrets };
    if (request.botAuth && !options.botToken) throw new DeliveryError(`Discord ${request.operation} needs the bot token (DISCORD_BOT_TOKEN)`, { retryable: false });
    const headers: Record<string, string> = { 'user-agent': userAgent };
    if (request.botAuth) headers.authorization = `Bot ${options.botToken}`;
    if (request.body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetchForDelivery(call, `${base}${request.path}`, {
      method: request.method,
      headers,
      ...(request.body !== undefined ? { body: JSON.stringify(request.body) } : {}),
    });
    if (response.status === 204) return undefined as T;
    const text = await response.text();
    let answer: unknown;
    try {
      answer = text === '' ? undefined : JSON.parse(text);
    } catch {
      answer = undefined;
    }
    if (response.ok) return answer as T;
    const error = (answer ?? {}) as { message?: unknown; code?: unknown; retry_after?: unknown };
    const code = typeof error.code === 'number' && error.code !== 0 ? ` (code ${error.code})` : '';
    const detail = `${typeof error.message === 'string' ? error.message : ''}${code}`.trim();
    throw failedAnswer(call, response.status, detail, retryAfterMsOf(response, error.retry_after));
  };
}
