/**
 * Drafts in private chats (`sendMessageDraft`): a reply grows in an ephemeral draft Telegram
 * animates, and ends as one `sendMessage` (the ledger's), with no edits and none of the edit
 * rate's flood waits. A server that does not have the method (an older or self-hosted Bot API), or
 * a bot it is not allowed to, refuses it: this bot then streams by edits for the rest of the
 * process (one refused call per start, rather than a setting the person has to find).
 */
import type { Api } from 'grammy/web';
import { DeliveryError, type ConversationAddress, type DraftStreaming } from '../types.ts';
import type { CallTelegram } from './call-telegram.ts';
import { loadFormatter } from './format/load-formatter.ts';
import { telegramDescription, telegramErrorCode } from './telegram-errors.ts';

/** `auto`: drafts in private chats where the server takes them; `off`: edited previews everywhere. */
export type TelegramDraftsMode = 'auto' | 'off';

/**
 * Between two drafts of one reply. Drafts are not messages (no edit rate to keep), but each is
 * still a request: half the edit interval streams visibly smoother at a bounded cost.
 */
export const telegramDraftIntervalMs = 500;

const isParseError = (error: unknown) => /can't parse entities/i.test(telegramDescription(error) ?? '');

/**
 * Whether a failed `sendMessageDraft` says the method itself is unavailable to this bot (unknown
 * method, a mode the bot lacks), rather than something about this one draft. A 404 is an unknown
 * method; a 400 naming the method or drafts is the server refusing them.
 */
function isRefusal(error: unknown): boolean {
  const code = telegramErrorCode(error);
  if (code === 404) return true;
  return code === 400 && /method|draft|not (?:available|supported|allowed)/i.test(telegramDescription(error) ?? '');
}

/** A private chat: Telegram's user chats have positive ids (groups and channels negative). */
function isPrivateChat(address: ConversationAddress): boolean {
  return /^[1-9]\d*$/.test(address.conversationId);
}

/** Draft streaming for one bot over `api` (see {@link DraftStreaming}). */
export function createTelegramDrafts(api: Api, call: CallTelegram, log: (line: string) => void, mode: TelegramDraftsMode): DraftStreaming {
  /** Set by the first refusal: remembered for this bot, for the process. */
  let refused = false;
  return {
    intervalMs: telegramDraftIntervalMs,
    available: (address) => mode === 'auto' && !refused && isPrivateChat(address),
    async show(address, draftId, text) {
      if (refused) return false;
      const chatId = Number(address.conversationId);
      const thread = address.threadId !== undefined ? { message_thread_id: Number(address.threadId) } : {};
      // A draft is worth nothing late: tried once, a rate limit included (the next one follows).
      const draft = (body: string, extra: Record<string, unknown>) => call('sendMessageDraft', () => api.sendMessageDraft(chatId, draftId, body, { ...thread, ...extra }), { once: true });
      try {
        if (text.trim() === '') {
          await draft('', {});
          return true;
        }
        const [chunk] = (await loadFormatter()).formatTelegramMessage(text);
        if (!chunk) return true;
        try {
          await draft(chunk.html, { parse_mode: 'HTML' });
        } catch (error) {
          if (!isParseError(error)) throw error;
          await draft(chunk.plain, {});
        }
        return true;
      } catch (error) {
        if (!(error instanceof DeliveryError) || !isRefusal(error)) throw error;
        refused = true;
        log(`telegram: drafts refused by the Bot API (${telegramDescription(error) ?? error.message}); replies stream by edited previews`);
        return false;
      }
    },
  };
}
