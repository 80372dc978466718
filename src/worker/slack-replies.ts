/**
 * Sending on Slack from Workers: the Slack channel's rendering and splitting (Markdown to mrkdwn,
 * chunks that fit a message) over `chat.postMessage` and `chat.update` through fetch
 * (`slack-web-api.ts`), each part in the conversation's thread, as the Node channel sends. What
 * the Workers build does not receive is left out of the capabilities: no buttons (block actions
 * are not taken there), no files (they live on a disk Workers do not have), and no working
 * indicator (Node's is a reaction on the person's latest message, which it remembers from the
 * events it received; the object that sends here does not know it).
 */
import { slackMaxLength } from '../channels/slack/format/format-message.ts';
import { slackChunks, threadParams } from '../channels/slack/message-parts.ts';
import { DeliveryError, type ChannelAdapter, type ChannelCapabilities, type ConversationAddress } from '../channels/types.ts';
import { sendParts } from './send-parts.ts';
import { createSlackApi, slackErrorOf, type SlackApi } from './slack-web-api.ts';

/** Options of {@link createSlackReplies}. */
export interface SlackRepliesOptions {
  /** The bot token (`xoxb-…`). Never logged. */
  token: string;
  /** The Web API base (default `https://slack.com/api`). */
  apiUrl?: string;
  /** Where problems are reported; lines carry no token. */
  log(line: string): void;
}

const capabilities: ChannelCapabilities = {
  edit: true,
  typing: false,
  buttons: false,
  threads: true,
  maxLength: slackMaxLength,
  // chat.update is a Tier 3 method, as on Node (`slack-channel.ts`).
  editIntervalMs: 1_200,
  commandMenu: false,
  maxFileBytes: 0,
};

/**
 * The Slack adapter the Worker answers through (sending only: Slack's events come in at the
 * Worker's `/webhooks/slack`).
 *
 * @example
 * const slack = createSlackReplies({ token: env.SLACK_BOT_TOKEN, apiUrl: env.SLACK_API_URL, log: console.error });
 * const { ids } = await slack.send({ platform: 'slack', conversationId: 'C1' }, { text: '**Done**' });
 */
export function createSlackReplies(options: SlackRepliesOptions): ChannelAdapter {
  const slack: SlackApi = createSlackApi(options);
  const { log } = options;

  async function post(address: ConversationAddress, text: string): Promise<string> {
    const answer = await slack('chat.postMessage', { channel: address.conversationId, text, mrkdwn: true, ...threadParams(address) });
    if (typeof answer.ts !== 'string') throw new DeliveryError('Slack chat.postMessage answered without a ts', { retryable: false });
    return answer.ts;
  }

  // Without `blocks`, chat.update keeps a message's old blocks, so an edit says it has none now.
  async function update(address: ConversationAddress, ts: string, text: string): Promise<void> {
    await slack('chat.update', { channel: address.conversationId, ts, text, blocks: [] });
  }

  /** Edits `ts` into `text`; false when Slack will not edit it any more, so the caller sends anew. */
  async function replaceWith(address: ConversationAddress, ts: string, text: string): Promise<boolean> {
    try {
      await update(address, ts, text);
      return true;
    } catch (error) {
      if (error instanceof DeliveryError && error.retryable) throw error;
      log(`slack: message ${ts} could not be edited (${slackErrorOf(error) ?? 'refused'}); sending anew`);
      return false;
    }
  }

  return {
    platform: 'slack',
    capabilities,
    // Nothing is received through the adapter on Workers: the webhook is the Worker's route.
    async start() {},
    async stop() {},

    async send(address, message) {
      if ((message.files ?? []).length > 0) throw new DeliveryError('Slack: files are not sent from Workers', { retryable: false });
      return sendParts(slackChunks(message.text), message, async (index, text) => {
        const replaced = index === 0 && message.replace !== undefined && (await replaceWith(address, message.replace, text));
        return replaced ? message.replace! : post(address, text);
      });
    },

    async edit(address, messageId, message) {
      const [first] = slackChunks(message.text);
      await update(address, messageId, first!);
    },

    // No indicator on Workers (see above); `capabilities.typing` says so.
    async typing() {},
  };
}
