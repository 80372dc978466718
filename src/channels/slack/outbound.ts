/**
 * Neutral outbound operations as Web API calls: send (rendered, split, then the files, one upload
 * each; every part in the conversation's thread, the last text chunk carrying the buttons), edit,
 * the working indicator (an assistant thread's status, a reaction elsewhere), and notices for
 * button presses. A reply's preview in a thread is a native text stream where the workspace has
 * one (`stream.ts`), finished by the final text; elsewhere it is posted and edited. `replyTo`
 * is not used: Slack replies are threads, and the address already says which thread (or none) the
 * conversation is.
 */
import type { webApi } from '@slack/bolt';
import { DeliveryError, type ChannelAction, type ConversationAddress, type OutboundMessage, type SentMessage } from '../types.ts';
import { blocksWithButtons, type SlackBlock } from './blocks.ts';
import type { CallSlack } from './call-slack.ts';
import { slackChunks, threadParams } from './message-parts.ts';
import { slackErrorCode } from './slack-errors.ts';
import type { SlackAssistant } from './assistant.ts';
import type { SlackStreams } from './stream.ts';
import type { TypingIndicator } from './typing-indicator.ts';
import { createSendSlackFile } from './upload.ts';

/** Slack's outbound operations for one bot. */
export interface SlackOutbound {
  send(address: ConversationAddress, message: OutboundMessage): Promise<SentMessage>;
  /** Edits one message: a text too long for one message keeps only its first chunk. */
  edit(address: ConversationAddress, messageId: string, message: OutboundMessage): Promise<void>;
  typing(address: ConversationAddress): Promise<void>;
  stopTyping(address: ConversationAddress): Promise<void>;
  answerAction(action: ChannelAction, text?: string): Promise<void>;
}

/** What the outbound operations need. */
export interface SlackOutboundOptions {
  client: webApi.WebClient;
  call: CallSlack;
  indicator: TypingIndicator;
  /** Native streams for previews in threads. */
  streams: SlackStreams;
  /** Assistant threads' status (the working indicator there). */
  assistant: SlackAssistant;
  /** The reaction shown while a turn works (a Slack emoji name, no colons). */
  workingReaction: string;
  /** The largest file the bot may send, in bytes (larger ones are refused). */
  maxFileBytes: number;
  log(line: string): void;
}

/** Reaction errors that mean the wanted state holds already (or the message is gone). */
const harmlessReactionErrors = new Set(['already_reacted', 'no_reaction', 'message_not_found']);

/** Outbound operations over `client`, each call through `call` (rate-limit retries, scrubbed errors). */
export function createSlackOutbound(options: SlackOutboundOptions): SlackOutbound {
  const { client, call, indicator, streams, assistant, log } = options;
  const sendFile = createSendSlackFile(client, call, options.maxFileBytes);

  async function post(address: ConversationAddress, text: string, blocks: SlackBlock[] | undefined): Promise<string> {
    const result = await call('chat.postMessage', () =>
      client.chat.postMessage({ channel: address.conversationId, text, mrkdwn: true, ...threadParams(address), ...(blocks ? { blocks } : {}) }),
    );
    if (typeof result.ts !== 'string') throw new DeliveryError('Slack chat.postMessage answered without a ts', { retryable: false });
    return result.ts;
  }

  // Without `blocks`, chat.update keeps a message's old blocks (and with them the old text and
  // buttons on screen), so an edit always says which blocks the message has now: none, or these.
  async function update(address: ConversationAddress, ts: string, text: string, blocks: SlackBlock[] | undefined): Promise<void> {
    await call('chat.update', () => client.chat.update({ channel: address.conversationId, ts, text, blocks: blocks ?? [] }));
  }

  /** Edits `ts` into `text`; false when Slack will not edit it any more, so the caller sends anew. */
  async function replaceWith(address: ConversationAddress, ts: string, text: string, blocks: SlackBlock[] | undefined): Promise<boolean> {
    try {
      await update(address, ts, text, blocks);
      return true;
    } catch (error) {
      if (error instanceof DeliveryError && error.retryable) throw error;
      log(`slack: message ${ts} could not be edited (${slackErrorCode(error) ?? 'refused'}); sending anew`);
      return false;
    }
  }

  async function react(method: 'reactions.add' | 'reactions.remove', target: { channel: string; timestamp: string }): Promise<void> {
    try {
      await call(method, () => client.reactions[method === 'reactions.add' ? 'add' : 'remove']({ ...target, name: options.workingReaction }));
    } catch (error) {
      if (!harmlessReactionErrors.has(slackErrorCode(error) ?? '')) throw error;
    }
  }

  return {
    async send(address, message) {
      // A preview in a thread: a native stream where the workspace has one.
      if (message.preview && message.replace === undefined && (message.files ?? []).length === 0) {
        const ts = await streams.start(address, message.text);
        if (ts !== undefined) return { ids: [ts] };
      }
      const files = message.files ?? [];
      // Files alone: no text part at all (Slack refuses an empty message).
      const chunks = files.length > 0 && message.text.trim() === '' ? [] : slackChunks(message.text);
      // A shared file carries no buttons: they stay with the text, or are left out without it.
      if (chunks.length === 0 && (message.buttons ?? []).length > 0) log('slack: buttons left out (a message of files alone cannot carry them)');
      const ids: string[] = [];
      /** Notes a delivered part (the caller records progress of a long reply). */
      const delivered = (id: string) => {
        ids.push(id);
        message.onPart?.(ids, chunks.length + files.length);
      };
      for (let index = message.skipParts ?? 0; index < chunks.length + files.length; index++) {
        const text = chunks[index];
        const blocks = text !== undefined && index === chunks.length - 1 ? blocksWithButtons(text, message.buttons) : undefined;
        try {
          if (text === undefined) {
            delivered(await sendFile(address, files[index - chunks.length]!));
            continue;
          }
          // The answer ends its streamed preview: appended as the stream stops when it only grew
          // (one chunk, no buttons), else the stopped stream is edited like any preview.
          if (index === 0 && message.replace !== undefined && streams.isLive(message.replace)) {
            const simple = chunks.length === 1 && blocks === undefined;
            if ((await streams.finish(address, message.replace, simple ? message.text : undefined)) === 'finished') {
              delivered(message.replace);
              continue;
            }
          }
          // A stream an earlier process left is stopped before the edit (see `stream.ts`).
          if (index === 0 && message.replace !== undefined) await streams.adopt(address, message.replace);
          if (index === 0 && message.replace !== undefined && (await replaceWith(address, message.replace, text, blocks))) {
            delivered(message.replace);
            continue;
          }
          delivered(await post(address, text, blocks));
        } catch (error) {
          throw error instanceof DeliveryError ? error.withDelivered(ids) : error;
        }
      }
      return { ids };
    },

    async edit(address, messageId, message) {
      if (streams.isLive(messageId)) {
        if (message.preview && (await streams.append(address, messageId, message.text))) return;
        // Not a continuation: the stream is stopped and the message edited from here on.
        if (streams.isLive(messageId)) await streams.finish(address, messageId, undefined);
      } else await streams.adopt(address, messageId);
      const [first] = slackChunks(message.text);
      await update(address, messageId, first!, blocksWithButtons(first!, message.buttons));
    },

    async typing(address) {
      if (await assistant.showStatus(address)) return;
      const target = indicator.startTarget(address);
      if (target) await react('reactions.add', target);
    },

    async stopTyping(address) {
      if (await assistant.clearStatus(address)) return;
      const target = indicator.stopTarget(address);
      if (target) await react('reactions.remove', target);
    },

    // A notice only the presser sees, posted with the bot token rather than the press's
    // response_url: it works for as long as the bot is in the conversation, not just 30 minutes.
    async answerAction(action, text) {
      if (text === undefined || text.trim() === '') return;
      const [mrkdwn] = slackChunks(text);
      await call('chat.postEphemeral', () =>
        client.chat.postEphemeral({ channel: action.address.conversationId, user: action.sender.id, text: mrkdwn!, ...threadParams(action.address) }),
      );
    },
  };
}
