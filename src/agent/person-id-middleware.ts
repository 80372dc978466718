/**
 * Tells the provider which person a call serves, as an opaque id (Anthropic `metadata.user_id`,
 * OpenAI `safety_identifier`), so abuse can be traced to one person rather than to the whole key.
 * The id is an HMAC of the person's platform id under a key of this installation: stable per
 * person, and no one without the key can tell whose it is (a plain hash of a numeric Telegram id
 * could be reversed by trying them all).
 */
import { createHmac } from 'node:crypto';
import type { ModelMiddleware } from '../llm/middleware.ts';
import type { TurnContext } from '../tools/tool.ts';

/** The opaque id of `platform:senderId` under `key` (32 hex characters). */
export function personId(key: string, turn: Pick<TurnContext, 'platform' | 'senderId'>): string {
  return createHmac('sha256', key).update(`${turn.platform}:${turn.senderId}`).digest('hex').slice(0, 32);
}

/** Sets the request's `metadata.userId` to the turn's person, unless the request names one already. */
export function personIdMiddleware(key: string, turn: Pick<TurnContext, 'platform' | 'senderId'>): ModelMiddleware {
  const userId = personId(key, turn);
  return {
    name: 'person-id',
    beforeRequest: (request) => (request.metadata?.userId !== undefined ? request : { ...request, metadata: { ...request.metadata, userId } }),
  };
}
