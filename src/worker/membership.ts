/**
 * The bot's own place in a conversation changed, on Workers (Telegram's `my_chat_member` about the
 * bot, Slack's `channel_left` / `group_left` / `member_left_channel` for the bot's user, as the
 * channels map them): the conversation's object pauses its jobs (or, unblocked, resumes them), as
 * on Node. The webhook is answered 200 once that is on record, 503 when the object could not take
 * it (the platform delivers it again; pausing a paused job changes nothing).
 *
 * A job lives in the object of the conversation it was made in. The chat's own conversation is
 * told; a forum topic's or a Slack thread's is a conversation of its own that no event names, so
 * its jobs are paused by the scheduler's own rule instead, after their deliveries fail in a row.
 */
import type { MembershipChange } from '../channels/types.ts';
import { errorMessage } from '../core/errors.ts';
import type { WorkerEnv } from './worker-env.ts';

/** Tells the objects of `sessionKeys` about `change` and answers its webhook. */
export async function workerMembership(env: WorkerEnv, change: MembershipChange, sessionKeys: readonly string[]): Promise<Response> {
  const { raw: _raw, ...wire } = change;
  try {
    for (const sessionKey of sessionKeys) await env.CONVERSATIONS.get(env.CONVERSATIONS.idFromName(sessionKey)).membershipChanged(wire);
  } catch (error) {
    console.error(`${change.label}: the bot's ${change.kind} not taken (${errorMessage(error)}); the platform will deliver it again`);
    return new Response('not taken now, deliver again', { status: 503 });
  }
  return new Response('ok');
}
