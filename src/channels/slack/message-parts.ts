/**
 * A reply as Slack takes it: Markdown rendered to mrkdwn chunks that fit one message, and the
 * thread it goes in. Shared by the Node channel and the Worker's Slack replies (no Slack SDK here).
 */
import { DeliveryError, type ConversationAddress } from '../types.ts';
import { escapeMrkdwn } from './format/escape-mrkdwn.ts';
import { formatSlackMessage } from './format/format-message.ts';

/** The mrkdwn chunks of a Markdown text; refuses an empty one. */
export function slackChunks(text: string): string[] {
  const chunks = formatSlackMessage(text);
  if (chunks.length > 0) return chunks;
  if (text.trim() === '') throw new DeliveryError('Slack: nothing to send (empty message)', { retryable: false });
  return [escapeMrkdwn(text.trim())];
}

/** `thread_ts` for an address in a thread (nothing otherwise). */
export function threadParams(address: ConversationAddress): { thread_ts?: string } {
  return address.threadId !== undefined ? { thread_ts: address.threadId } : {};
}
