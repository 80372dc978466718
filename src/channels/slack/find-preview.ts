/**
 * The bot's own unfinished preview in a conversation, read back from Slack. A process killed after
 * Slack took a preview, before it heard the preview's ts, cannot note it; the turn run again after
 * the restart looks for it here and finishes it instead of leaving it beside a new one. The
 * history scopes the bot needs for message events (`channels:history`, `im:history`, ...) allow
 * `conversations.history` and, in a thread, `conversations.replies`.
 */
import type { webApi } from '@slack/bolt';
import type { ConversationAddress } from '../types.ts';
import type { CallSlack } from './call-slack.ts';
import type { SlackIdentity } from './inbound.ts';

/** A message as the history lists it (the fields read here). */
interface ListedMessage {
  ts?: string;
  text?: string;
  user?: string;
  bot_id?: string;
}

/**
 * The ts of the newest message the bot posted in `address` at `since` (ms) or later whose text ends
 * with `marker`, or undefined when there is none.
 */
export async function findSlackPreview(
  client: webApi.WebClient,
  call: CallSlack,
  bot: SlackIdentity,
  address: ConversationAddress,
  options: { since: number; marker: string },
): Promise<string | undefined> {
  const oldest = (Math.max(0, options.since) / 1000).toFixed(6);
  const channel = address.conversationId;
  const listed =
    address.threadId !== undefined
      ? await call('conversations.replies', () => client.conversations.replies({ channel, ts: address.threadId!, oldest, limit: 100 }))
      : await call('conversations.history', () => client.conversations.history({ channel, oldest, limit: 100 }));
  const messages = (listed.messages ?? []) as ListedMessage[];
  const marker = options.marker.trim();
  const mine = messages.filter(
    (message) => typeof message.ts === 'string' && (message.user === bot.userId || (bot.botId !== '' && message.bot_id === bot.botId)) && (message.text ?? '').trimEnd().endsWith(marker),
  );
  // Newest first: what a turn sent last is what it would have gone on editing.
  return mine.sort((a, b) => Number(b.ts) - Number(a.ts))[0]?.ts;
}
