/**
 * What the fake Bot API remembers: chats, every message (the people's and the bot's), files, the
 * update queue with its confirmed offset, the registered webhook and scripted failures. Shared by
 * the method handlers and the update builders.
 */
import type { Message, MessageEntity, Update, UserFromGetMe } from 'grammy/types';
import { ChangeFeed, takeScripted } from './fake-change-feed.ts';

/** One Bot API call as the fake received it. */
export interface FakeTelegramCall {
  method: string;
  /** Parameters after parsing (query, JSON, form or multipart; uploads as `{ name, type, size, bytes }`). */
  params: Record<string, unknown>;
  /** The HTTP status the fake answered with (`0` for a dropped connection or a held call). */
  status: number;
  /** Held by `holdNext`: never carried out, never answered. */
  held?: boolean;
  /** The answer was written to the connection (the caller may not have read it yet). */
  answered?: boolean;
  /** When the fake took the call, its parameters read (ms since the epoch). */
  at: number;
  /** When the connection it came on was opened (ms since the epoch): calls on connections opened while one process lived are that process's. */
  connectedAt: number;
  /** When its answer was handed to the connection (ms since the epoch). */
  answeredAt?: number;
  /** The id of the message its answer names (a message sent or edited). */
  messageId?: number;
}

/** A message the bot sent, as it stands now (after edits). */
export interface FakeSentMessage {
  chatId: number;
  messageId: number;
  threadId?: number;
  /** The visible text (for `parse_mode: 'HTML'` the markup parsed away, as Telegram stores it). */
  text: string;
  /** Entities Telegram derived from the markup, or the ones sent explicitly. */
  entities: MessageEntity[];
  /** The text exactly as the bot sent it (HTML when `parseMode` is `HTML`). */
  sentText: string;
  parseMode?: string;
  replyMarkup?: unknown;
  replyToMessageId?: number;
  kind: 'text' | 'photo' | 'document';
  /** The uploaded file of a photo or document (absent when it was sent by file id or URL). */
  file?: { name: string; bytes: Uint8Array };
  /** How many times it was edited. */
  edits: number;
  /** When the fake took it (ms since the epoch). */
  createdAt: number;
}

/** A draft the bot streamed with sendMessageDraft (ephemeral: never one of `sent`). */
export interface FakeDraft {
  chatId: number;
  draftId: number;
  threadId?: number;
  /** The visible text (markup parsed away); empty for the "Thinking…" placeholder. */
  text: string;
  /** When the fake took it (ms since the epoch). */
  at: number;
}

/**
 * How the fake answers sendMessageDraft: `yes` takes drafts (today's Bot API); `unknown-method`
 * answers as a server from before the method (404); `refused` as one that has it but not for this
 * bot (400).
 */
export type FakeDraftSupport = 'yes' | 'unknown-method' | 'refused';

/** Picks calls by their parameters (for `holdNext`, and `failNext`'s `when`). */
export type FakeCallFilter = (params: Record<string, unknown>) => boolean;

/**
 * An error answer scripted with `failNext`, or a connection dropped without an answer; with
 * `when`, only calls whose parameters it accepts fail (others pass by).
 */
export type FakeFailure =
  | { status: number; description?: string; retryAfter?: number; times?: number; when?: FakeCallFilter }
  | { dropConnection: true; times?: number; when?: FakeCallFilter };

/** What a chat is, as far as the fake knows (learnt from the updates it built). */
export interface FakeChat {
  id: number;
  type: 'private' | 'group' | 'supergroup' | 'channel';
  title?: string;
  isForum?: boolean;
}

interface QueuedUpdate {
  update: Update;
  delivered: boolean;
}

/** The default update types (all but chat_member, message_reaction, message_reaction_count). */
const optInTypes = new Set(['chat_member', 'message_reaction', 'message_reaction_count']);

/** State of one fake Bot API server. */
export class FakeTelegramState extends ChangeFeed {
  readonly bot: UserFromGetMe;
  readonly calls: FakeTelegramCall[] = [];
  readonly sent: FakeSentMessage[] = [];
  readonly chats = new Map<number, FakeChat>();
  readonly files = new Map<string, { path: string; bytes: Uint8Array }>();
  /** The paths of the files downloaded, in order. */
  readonly fileDownloads: string[] = [];
  readonly failures = new Map<string, FakeFailure[]>();
  readonly holds = new Map<string, FakeCallFilter[]>();
  readonly answeredCallbacks: { id: string; text?: string }[] = [];
  readonly drafts: FakeDraft[] = [];
  draftSupport: FakeDraftSupport = 'yes';
  commands: { command: string; description: string }[] = [];
  webhook: { url: string; secretToken?: string; allowedUpdates?: string[] } | undefined;
  allowedUpdates: string[] = [];
  #messages = new Map<number, Map<number, Message>>();
  #messageCounters = new Map<number, number>();
  #updates: QueuedUpdate[] = [];
  #nextUpdateId = 100_000;

  constructor(bot: { id: number; username: string; firstName: string }) {
    super();
    this.bot = {
      id: bot.id,
      is_bot: true,
      first_name: bot.firstName,
      username: bot.username,
      can_join_groups: true,
      can_read_all_group_messages: false,
      supports_inline_queries: false,
      can_connect_to_business: false,
      has_main_web_app: false,
    } as UserFromGetMe;
  }

  /** A fresh update id. */
  nextUpdateId(): number {
    this.#nextUpdateId += 1;
    return this.#nextUpdateId;
  }

  /** The next message id in a chat (ids count per chat, shared by people and the bot). */
  nextMessageId(chatId: number): number {
    const next = (this.#messageCounters.get(chatId) ?? 0) + 1;
    this.#messageCounters.set(chatId, next);
    return next;
  }

  /** The chat with this id; unknown chats are guessed from the id's sign. */
  chat(chatId: number): FakeChat {
    return this.chats.get(chatId) ?? { id: chatId, type: chatId > 0 ? 'private' : 'supergroup' };
  }

  /** The Bot API `Chat` object of a chat. */
  chatObject(chatId: number): Message['chat'] {
    const chat = this.chat(chatId);
    if (chat.type === 'private') return { id: chat.id, type: 'private', first_name: 'Person' };
    return { id: chat.id, type: chat.type, title: chat.title ?? `Chat ${chat.id}`, ...(chat.isForum ? { is_forum: true } : {}) } as Message['chat'];
  }

  rememberMessage(message: Message): void {
    let chat = this.#messages.get(message.chat.id);
    if (!chat) this.#messages.set(message.chat.id, (chat = new Map()));
    chat.set(message.message_id, message);
  }

  message(chatId: number, messageId: number): Message | undefined {
    return this.#messages.get(chatId)?.get(messageId);
  }

  /**
   * Queues an update for getUpdates. An id below the confirmed offset is a redelivery; an update
   * without one (a recorded payload) gets the next id, as Telegram numbers what it sends.
   */
  queueUpdate(update: Update): void {
    if ((update as Partial<Update>).update_id === undefined) update = { ...update, update_id: this.nextUpdateId() };
    this.#updates.push({ update, delivered: false });
    this.notify();
  }

  /** Confirms delivered updates below `offset`; a negative offset keeps only the last `-offset`. */
  confirm(offset: number | undefined): void {
    if (offset === undefined || offset === 0) return;
    if (offset < 0) {
      this.#updates = this.#updates.slice(offset);
      return;
    }
    this.#updates = this.#updates.filter((queued) => queued.update.update_id >= offset || !queued.delivered);
  }

  /** The updates getUpdates would answer now (marked delivered). */
  takeUpdates(limit: number): Update[] {
    const allowed = this.allowedUpdates;
    this.#updates = this.#updates.filter((queued) => this.#isAllowed(queued.update, allowed));
    const batch = this.#updates.slice(0, limit);
    for (const queued of batch) queued.delivered = true;
    return batch.map((queued) => queued.update);
  }

  /** The updates not yet confirmed, oldest first (what a webhook delivery still has to hand over). */
  pendingUpdates(): Update[] {
    return this.#updates.filter((queued) => this.#isAllowed(queued.update, this.webhook?.allowedUpdates ?? this.allowedUpdates)).map((queued) => queued.update);
  }

  /** Confirms one update, as a webhook's 200 does (it leaves the queue). */
  confirmUpdate(updateId: number): void {
    this.#updates = this.#updates.filter((queued) => queued.update.update_id !== updateId);
    this.notify();
  }

  /** Drops every queued update (deleteWebhook/setWebhook with drop_pending_updates). */
  dropPending(): void {
    this.#updates = [];
  }

  hasPendingUpdates(): boolean {
    return this.#updates.some((queued) => this.#isAllowed(queued.update, this.allowedUpdates));
  }

  #isAllowed(update: Update, allowed: string[]): boolean {
    const type = Object.keys(update).find((key) => key !== 'update_id') ?? '';
    return allowed.length === 0 ? !optInTypes.has(type) : allowed.includes(type);
  }

  /** The scripted failure for this call of `method` with `params`, if any (consumed). */
  takeFailure(method: string, params: Record<string, unknown> = {}): FakeFailure | undefined {
    return takeScripted(this.failures, method, (failure) => !failure.when || failure.when(params));
  }

  /** Whether this call of `method` is to be held (the matching hold is consumed). */
  takeHold(method: string, params: Record<string, unknown>): boolean {
    const queue = this.holds.get(method);
    const index = queue?.findIndex((matches) => matches(params)) ?? -1;
    if (index < 0) return false;
    queue!.splice(index, 1);
    return true;
  }
}
