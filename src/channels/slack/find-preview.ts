/**
 * The bot's own unfinished preview in a conversation, read back from Slack. A process killed after
 * Slack took a preview, before it heard the preview's ts, cannot note it; the turn run again after
 * the restart looks for it here and finishes it instead of leaving it beside a new one. The
 * history scopes the bot needs for message events (`channels:history`, `im:history`, ...) allow
 * `conversations.history` and, in a thread, `conversations.replies`. A native stream carries no
 * marker: it is found by the time its note says it began (`stream-notes.ts`).
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

/** The messages the bot posted in `address` at `since` (ms) or later. */
async function botMessagesSince(client: webApi.WebClient, call: CallSlack, bot: SlackIdentity, address: ConversationAddress, since: number): Promise<(ListedMessage & { ts: string })[]> {
  const oldest = (Math.max(0, since) / 1000).toFixed(6);
  const channel = address.conversationId;
  const listed =
    address.threadId !== undefined
      ? await call('conversations.replies', () => client.conversations.replies({ channel, ts: address.threadId!, oldest, limit: 100 }))
      : await call('conversations.history', () => client.conversations.history({ channel, oldest, limit: 100 }));
  const messages = (listed.messages ?? []) as ListedMessage[];
  return messages.filter((message): message is ListedMessage & { ts: string } => typeof message.ts === 'string' && (message.user === bot.userId || (bot.botId !== '' && message.bot_id === bot.botId)));
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
  const marker = options.marker.trim();
  const mine = (await botMessagesSince(client, call, bot, address, options.since)).filter((message) => (message.text ?? '').trimEnd().endsWith(marker));
  // Newest first: what a turn sent last is what it would have gone on editing.
  return mine.sort((a, b) => Number(b.ts) - Number(a.ts))[0]?.ts;
}

/**
 * The ts of the stream begun in `address` at `since` (ms, when it was noted, just before
 * `chat.startStream`): the oldest message the bot posted there since. A stream carries no marker
 * (only the answer is streamed), so its note's time is what tells it: the stream is asked for
 * right after its note, so it is the first of the bot's messages there from then on.
 */
export async function findSlackStream(client: webApi.WebClient, call: CallSlack, bot: SlackIdentity, address: ConversationAddress, since: number): Promise<string | undefined> {
  return (await botMessagesSince(client, call, bot, address, since)).sort((a, b) => Number(a.ts) - Number(b.ts))[0]?.ts;
}
