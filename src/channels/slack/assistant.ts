/**
 * Slack's AI-app threads (the assistant pane, a thread in the person's DM with the app): when one
 * starts (`assistant_thread_started`) the profile's suggested prompts are set on it
 * (`assistant.threads.setSuggestedPrompts`), its first message titles it
 * (`assistant.threads.setTitle`), and while a turn works there the thread shows a status
 * (`assistant.threads.setStatus`, cleared with `''` when the turn ends) instead of the reaction the
 * adapter puts on messages elsewhere. Every DM thread is tried as one (a thread opened before a
 * restart is still one); where Slack refuses the status (no `assistant:write` scope, not an
 * assistant thread) the caller falls back to the reaction. Prompts and titles are conveniences: a
 * failure is logged, never handed on.
 */
import type { webApi } from '@slack/bolt';
import { DeliveryError, type ConversationAddress, type ConversationRef, type InboundMessage, type SuggestedPrompt } from '../types.ts';
import type { CallSlack } from './call-slack.ts';
import { conversationOf } from './conversation.ts';
import { slackErrorCode } from './slack-errors.ts';

/** The fields of an `assistant_thread_started` event read here. */
export interface SlackAssistantThreadEvent {
  type: 'assistant_thread_started';
  assistant_thread: { user_id: string; channel_id: string; thread_ts: string };
}

/** The status shown while a turn works (Slack shows it after the app's name). */
export const workingStatus = 'is thinking…';

/** Slack shows at most four suggested prompts. */
const maxPrompts = 4;

/** The longest title given to a thread, in characters. */
const maxTitleLength = 80;

/** Threads remembered at once (started ones waiting for a title; ones whose status is shown). */
const capacity = 1_000;

/** Refusals that mean no thread of this workspace takes a status. */
const workspaceRefusals = new Set(['unknown_method', 'missing_scope', 'not_allowed_token_type']);

/** The assistant-thread side of one bot. */
export interface SlackAssistant {
  /** A thread was opened: notes it (for its title) and sets the prompts `prompts` gives. */
  threadStarted(event: SlackAssistantThreadEvent, prompts: ((conversation: ConversationRef, senderId: string) => Promise<SuggestedPrompt[]>) | undefined): Promise<void>;
  /** A person's message was handed over: the first one of a thread opened here titles it. */
  titleFrom(message: InboundMessage): Promise<void>;
  /** Shows the working status once per turn; false where the thread takes none (react instead). */
  showStatus(address: ConversationAddress): Promise<boolean>;
  /** Clears a status `showStatus` set; false when it set none. */
  clearStatus(address: ConversationAddress): Promise<boolean>;
}

function keyOf(address: { conversationId: string; threadId?: string }): string {
  return `${address.conversationId}:${address.threadId ?? ''}`;
}

/** A thread's title from its first message: the first line, shortened. */
export function threadTitle(text: string): string {
  const line = text.trim().split('\n')[0]!.trim();
  const chars = Array.from(line);
  return chars.length <= maxTitleLength ? line : `${chars.slice(0, maxTitleLength - 1).join('')}…`;
}

/** Creates the assistant-thread side of one bot. */
export function createSlackAssistant(options: { client: webApi.WebClient; call: CallSlack; log(line: string): void }): SlackAssistant {
  const { client, call, log } = options;
  const untitled = new Set<string>();
  const shown = new Set<string>();
  /** Threads (or, under the empty key, the whole workspace) that refused a status. */
  const refused = new Set<string>();

  function remember(set: Set<string>, key: string): void {
    set.add(key);
    if (set.size > capacity) set.delete(set.values().next().value!);
  }

  const isDmThread = (address: ConversationAddress) => address.threadId !== undefined && address.conversationId.startsWith('D');

  async function setStatus(address: ConversationAddress, status: string): Promise<void> {
    await call('assistant.threads.setStatus', () => client.assistant.threads.setStatus({ channel_id: address.conversationId, thread_ts: address.threadId!, status }));
  }

  return {
    async threadStarted(event, prompts) {
      const thread = event.assistant_thread;
      const conversation = conversationOf({ channel: thread.channel_id, channelType: 'im', userId: thread.user_id, threadTs: thread.thread_ts });
      remember(untitled, keyOf(conversation.address));
      if (!prompts) return;
      try {
        const offered = (await prompts(conversation, thread.user_id)).slice(0, maxPrompts);
        if (offered.length === 0) return;
        await call('assistant.threads.setSuggestedPrompts', () =>
          client.assistant.threads.setSuggestedPrompts({ channel_id: thread.channel_id, thread_ts: thread.thread_ts, prompts: offered }),
        );
      } catch (error) {
        log(`slack: suggested prompts not set in ${thread.channel_id}: ${error instanceof Error ? error.message : String(error)}`);
      }
    },

    async titleFrom(message) {
      const key = keyOf(message.address);
      if (!untitled.delete(key) || message.text.trim() === '') return;
      try {
        await call('assistant.threads.setTitle', () =>
          client.assistant.threads.setTitle({ channel_id: message.address.conversationId, thread_ts: message.address.threadId!, title: threadTitle(message.text) }),
        );
      } catch (error) {
        log(`slack: thread ${message.address.threadId} not titled: ${error instanceof Error ? error.message : String(error)}`);
      }
    },

    async showStatus(address) {
      const key = keyOf(address);
      if (!isDmThread(address) || refused.has('') || refused.has(key)) return false;
      if (shown.has(key)) return true;
      try {
        await setStatus(address, workingStatus);
        remember(shown, key);
        return true;
      } catch (error) {
        if (error instanceof DeliveryError && error.retryable) throw error;
        const code = slackErrorCode(error) ?? 'refused';
        remember(refused, workspaceRefusals.has(code) ? '' : key);
        log(`slack: assistant.threads.setStatus refused (${code}); a reaction shows the work instead`);
        return false;
      }
    },

    async clearStatus(address) {
      if (!shown.delete(keyOf(address))) return false;
      await setStatus(address, '');
      return true;
    },
  };
}
