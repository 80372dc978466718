/**
 * Drafts in private chats (`sendMessageDraft`): a reply grows in an ephemeral draft Telegram
 * animates, and ends as one `sendMessage` (the ledger's), with no edits and none of the edit
 * rate's flood waits. A server that does not have the method (an older or self-hosted Bot API), or
 * a bot it is not allowed to, refuses it: this bot then streams by edits, rather than a setting
 * the person has to find. The refusal is kept in the adapter's memory (the gateway's store) for
 * the bot and its server, so a restart goes straight to edited previews; it is forgotten after
 * {@link draftRefusalDays} days, when drafts are asked for once more (a server may have gained
 * them). Without a memory it holds for the process.
 */
import type { Api } from 'grammy/web';
import { DeliveryError, type ChannelMemory, type ConversationAddress, type DraftStreaming } from '../types.ts';
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

/** How long a server's refusal of drafts is remembered for a bot, in days. */
export const draftRefusalDays = 7;

/** Draft streaming for one bot, and the recall of a refusal an earlier process met. */
export interface TelegramDrafts extends DraftStreaming {
  /**
   * Reads whether the server at `apiRoot` refused drafts to bot `botId` (known once getMe
   * answered) in an earlier process; called by start, before any reply. A memory that fails to
   * answer is logged, and drafts are tried.
   */
  recall(botId: number, apiRoot: string): Promise<void>;
}

/** The memory's key of the refusal of drafts to bot `botId`. */
const refusalKey = (botId: number) => `drafts-refused:${botId}`;

/**
 * Draft streaming for one bot over `api` (see {@link DraftStreaming}); a refusal is kept in
 * `memory` when given.
 */
export function createTelegramDrafts(api: Api, call: CallTelegram, log: (line: string) => void, mode: TelegramDraftsMode, memory?: ChannelMemory): TelegramDrafts {
  /** Set by a refusal, this process's or one recalled: remembered for this bot. */
  let refused = false;
  /** Where the refusal is kept once met: the bot and its server, known after start's recall. */
  let kept: { botId: number; apiRoot: string } | undefined;
  return {
    async recall(botId, apiRoot) {
      kept = { botId, apiRoot };
      if (mode !== 'auto' || !memory) return;
      // The server it was refused by: another server (TELEGRAM_API_ROOT changed) is asked again.
      const server = await memory.get(refusalKey(botId)).catch((error: unknown) => void log(`telegram: whether drafts were refused before is not known (${error instanceof Error ? error.message : String(error)}); asking`));
      if (server !== apiRoot) return;
      refused = true;
      log('telegram: drafts were refused by this Bot API server before; replies stream by edited previews');
    },
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
        // Kept before the reply goes on by edits, so a process killed from here on remembers it.
        if (kept && memory) {
          await memory
            .set(refusalKey(kept.botId), kept.apiRoot, { ttlSeconds: draftRefusalDays * 86_400 })
            .catch((failure: unknown) => log(`telegram: the refusal of drafts is remembered for this process only (${failure instanceof Error ? failure.message : String(failure)})`));
        }
        return false;
      }
    },
  };
}
