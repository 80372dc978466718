/**
 * A protocol-faithful fake of the Telegram Bot API on plain node:http, for real grammy clients:
 * `POST|GET /bot<token>/<method>` (any token) answering `{ ok: true, result }` or
 * `{ ok: false, error_code, description, parameters? }` with the matching HTTP status, a real
 * getUpdates long poll, file downloads at `GET /file/bot<token>/<file_path>`, and webhook
 * delivery with the secret-token header. Tests script it (queue updates, fail or hold the next calls)
 * and read what the bot did (calls, current message texts).
 *
 * @example
 * const telegram = await startFakeTelegramServer();
 * const bot = new Bot(telegram.token, { client: { apiRoot: telegram.apiRoot } });
 * telegram.pushUpdate(telegram.textMessage({ chatId: 42, text: 'hi' }));
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Update, UserFromGetMe } from 'grammy/types';
import { methods, type ApiAnswer } from './fake-telegram-methods.ts';
import { readParams } from './fake-telegram-request.ts';
import { FakeTelegramState, type FakeDraft, type FakeDraftSupport, type FakeFailure, type FakeCallFilter, type FakeSentMessage, type FakeTelegramCall } from './fake-telegram-state.ts';
import { updateBuilders, type FakeUpdateBuilders } from './fake-telegram-updates.ts';
import { deliverToWebhook, type WebhookDelivery, type WebhookDeliveryOptions } from './fake-telegram-webhook.ts';

export type { FakeDraft, FakeDraftSupport, FakeFailure, FakeCallFilter, FakeSentMessage, FakeTelegramCall } from './fake-telegram-state.ts';
export type { FakeMessageOptions, FakeUser } from './fake-telegram-updates.ts';
export type { WebhookDelivery, WebhookDeliveryOptions } from './fake-telegram-webhook.ts';

/** Options of {@link startFakeTelegramServer}. */
export interface FakeTelegramOptions {
  /** Default `operator_test_bot`. */
  botUsername?: string;
  /** Default 7000001. */
  botId?: number;
  /** How sendMessageDraft is answered (default `yes`: drafts are taken). */
  drafts?: FakeDraftSupport;
}

/** A running fake Bot API server. */
export interface FakeTelegram extends FakeUpdateBuilders {
  /** `http://127.0.0.1:<port>`: what grammy's `client.apiRoot` takes. */
  readonly apiRoot: string;
  /** A well-formed token to give the bot (any token is accepted). */
  readonly token: string;
  /** The bot's own user, as getMe answers. */
  readonly bot: UserFromGetMe;
  /** Every method call, in arrival order. */
  readonly calls: readonly FakeTelegramCall[];
  /** The `file_path` of every file download (`GET /file/bot<token>/<path>`), in arrival order. */
  readonly fileDownloads: readonly string[];
  /** The registered webhook, if any. */
  readonly webhook: { url: string; secretToken?: string; allowedUpdates?: string[] } | undefined;
  /** The command menu set by setMyCommands. */
  readonly commands: readonly { command: string; description: string }[];
  /** Callback queries answered with answerCallbackQuery. */
  readonly answeredCallbacks: readonly { id: string; text?: string }[];
  /** How sendMessageDraft is answered now (settable: a server "upgraded" or "downgraded" mid-test). */
  draftSupport: FakeDraftSupport;
  /**
   * What getMe says of privacy mode (settable, as @BotFather's /setprivacy): `true` when it is
   * off and the bot reads every group message; default `false` (Telegram's default: on).
   */
  canReadAllGroupMessages: boolean;
  /** The drafts streamed to a chat, oldest first. */
  drafts(chatId: number): FakeDraft[];
  /** Calls of one method. */
  callsOf(method: string): FakeTelegramCall[];
  /** The bot's messages in a chat (optionally one forum topic), oldest first, as they stand after edits. */
  messages(chatId: number, options?: { threadId?: number }): FakeSentMessage[];
  /** Queues an update for getUpdates (waking a held long poll). Re-pushing a confirmed update redelivers it once. */
  pushUpdate(update: Update): void;
  /**
   * Queues updates written elsewhere (recorded payloads) with fresh update ids, all at once so one
   * getUpdates answers them together; their chats are remembered (a forum stays a forum). Returns
   * the updates as queued.
   */
  pushRaw(...updates: Record<string, unknown>[]): Update[];
  /** Serves a file by id (getFile, then the download), as if a person had sent it. */
  addFile(fileId: string, bytes: Uint8Array, path: string): void;
  /** POSTs an update to the registered webhook like Telegram; `secret` overrides the header (`null`: none). */
  postWebhook(update: Update, options?: { secret?: string | null }): Promise<number>;
  /**
   * From now on, delivers queued updates (`pushUpdate`) to the registered webhook as Telegram
   * does: each is posted until the webhook answers 200, with growing pauses, one chat's updates
   * in order (see `fake-telegram-webhook.ts`). Stops when the server closes.
   */
  deliverToWebhook(options?: WebhookDeliveryOptions): WebhookDelivery;
  /** Answers the next call(s) of `method` (those `failure.when` accepts) with an error, or drops the connection. */
  failNext(method: string, failure: FakeFailure): void;
  /**
   * Holds the next call of `method` (optionally: the next whose parameters `when` accepts): it is
   * recorded with `held: true` but never carried out and never answered, as when the process
   * calling dies before Telegram handles the request. It ends when the caller goes away or the
   * server closes.
   */
  holdNext(method: string, when?: FakeCallFilter): void;
  /** Resolves with the predicate's first truthy value, checked on every change; rejects after `timeoutMs`. */
  waitFor<T>(predicate: (telegram: FakeTelegram) => T | undefined | null | false, timeoutMs?: number): Promise<T>;
  /** Ends held long polls at once (with no updates) and closes the server. */
  close(): Promise<void>;
}

function failureAnswer(failure: Exclude<FakeFailure, { dropConnection: true }>): ApiAnswer {
  const defaults: Record<number, string> = {
    400: 'Bad Request',
    401: 'Unauthorized',
    403: 'Forbidden: bot was blocked by the user',
    404: 'Not Found',
    409: 'Conflict',
    429: `Too Many Requests: retry after ${failure.retryAfter ?? 1}`,
    500: 'Internal Server Error',
    502: 'Bad Gateway',
  };
  return {
    ok: false,
    error_code: failure.status,
    description: failure.description ?? defaults[failure.status] ?? 'Error',
    ...(failure.status === 429 ? { parameters: { retry_after: failure.retryAfter ?? 1 } } : {}),
  };
}

/** Starts a fake Bot API server on a free local port. */
export async function startFakeTelegramServer(options: FakeTelegramOptions = {}): Promise<FakeTelegram> {
  const state = new FakeTelegramState({ id: options.botId ?? 7000001, username: options.botUsername ?? 'operator_test_bot', firstName: 'Operator' });
  state.draftSupport = options.drafts ?? 'yes';
  const inFlight = new Set<AbortController>();
  const deliveries: WebhookDelivery[] = [];
  let heldPoll: AbortController | undefined;
  /** When each connection was opened. */
  const connectedAt = new WeakMap<object, number>();

  async function answerMethod(request: IncomingMessage, response: ServerResponse, method: string, url: URL): Promise<void> {
    const params = await readParams(request, url);
    const call: FakeTelegramCall = { method, params, status: 200, at: Date.now(), connectedAt: connectedAt.get(request.socket) ?? Date.now() };
    state.calls.push(call);
    state.notify();
    if (state.takeHold(method, params)) return hold(call, response);
    const failure = state.takeFailure(method, params);
    if (failure && 'dropConnection' in failure) {
      call.status = 0;
      state.notify();
      response.socket?.destroy();
      return;
    }
    const controller = new AbortController();
    response.on('close', () => controller.abort('closed'));
    inFlight.add(controller);
    let answer: ApiAnswer;
    try {
      if (failure) {
        answer = failureAnswer(failure);
      } else if (!(method in methods)) {
        answer = { ok: false, error_code: 404, description: 'Not Found: method not found' };
      } else {
        if (method === 'getUpdates') {
          heldPoll?.abort('conflict');
          heldPoll = controller;
        }
        answer = await methods[method]!(state, params, controller.signal);
      }
    } finally {
      inFlight.delete(controller);
      if (heldPoll === controller) heldPoll = undefined;
    }
    call.status = answer.ok ? 200 : answer.error_code;
    if (answer.ok && typeof answer.result === 'object' && answer.result !== null && 'message_id' in answer.result) call.messageId = Number(answer.result.message_id);
    state.notify();
    if (!response.writableEnded && !response.destroyed) {
      // The moment the answer is handed to the connection: a test can kill the caller right then.
      response.once('finish', () => {
        call.answered = true;
        call.answeredAt = Date.now();
        state.notify();
      });
      response.writeHead(call.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    }
  }

  /** Keeps the request open, unanswered, until the client goes away or the server closes. */
  async function hold(call: FakeTelegramCall, response: ServerResponse): Promise<void> {
    call.held = true;
    call.status = 0;
    state.notify();
    const controller = new AbortController();
    inFlight.add(controller);
    response.on('close', () => controller.abort('closed'));
    const gone = response.destroyed || !response.socket || response.socket.destroyed;
    if (!gone) await new Promise((resolve) => controller.signal.addEventListener('abort', resolve, { once: true }));
    inFlight.delete(controller);
    response.socket?.destroy();
  }

  function serveFile(response: ServerResponse, filePath: string): void {
    state.fileDownloads.push(filePath);
    const file = [...state.files.values()].find((candidate) => candidate.path === filePath);
    if (!file) {
      response.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: false, error_code: 404, description: 'Not Found' }));
      return;
    }
    response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': file.bytes.length }).end(file.bytes);
  }

  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const file = /^\/file\/bot[^/]+\/(.+)$/.exec(url.pathname);
    if (file && request.method === 'GET') return serveFile(response, decodeURIComponent(file[1]!));
    const call = /^\/bot[^/]+\/([A-Za-z]+)$/.exec(url.pathname);
    if (!call || (request.method !== 'POST' && request.method !== 'GET')) {
      response.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: false, error_code: 404, description: 'Not Found' }));
      return;
    }
    answerMethod(request, response, call[1]!, url).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(400, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ ok: false, error_code: 400, description: `Bad Request: ${String(error)}` }));
    });
  });
  server.on('connection', (socket) => connectedAt.set(socket, Date.now()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const telegram: FakeTelegram = {
    ...updateBuilders(state),
    apiRoot: `http://127.0.0.1:${port}`,
    token: '123456789:AAFakeTokenForTestsOnly_abcdefghijk',
    bot: state.bot,
    get calls() {
      return state.calls;
    },
    get fileDownloads() {
      return state.fileDownloads;
    },
    get webhook() {
      return state.webhook;
    },
    get commands() {
      return state.commands;
    },
    get answeredCallbacks() {
      return state.answeredCallbacks;
    },
    get draftSupport() {
      return state.draftSupport;
    },
    set draftSupport(support) {
      state.draftSupport = support;
    },
    get canReadAllGroupMessages() {
      return state.bot.can_read_all_group_messages;
    },
    set canReadAllGroupMessages(reads) {
      (state.bot as { can_read_all_group_messages: boolean }).can_read_all_group_messages = reads;
    },
    drafts: (chatId) => state.drafts.filter((draft) => draft.chatId === chatId),
    callsOf: (method) => state.calls.filter((call) => call.method === method),
    messages: (chatId, filter) =>
      state.sent.filter((sent) => sent.chatId === chatId && (filter?.threadId === undefined || sent.threadId === filter.threadId)),
    pushUpdate: (update) => state.queueUpdate(update),
    pushRaw(...raw) {
      const updates = raw.map((update) => ({ ...update, update_id: state.nextUpdateId() }) as Update);
      for (const update of updates) rememberChats(state, update);
      for (const update of updates) state.queueUpdate(update);
      return updates;
    },
    addFile: (fileId, bytes, path) => void state.files.set(fileId, { path, bytes }),
    async postWebhook(update, postOptions = {}) {
      if (!state.webhook) throw new Error('no webhook is registered');
      const secret = postOptions.secret === undefined ? state.webhook.secretToken : postOptions.secret;
      const response = await fetch(state.webhook.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(secret ? { 'x-telegram-bot-api-secret-token': secret } : {}) },
        body: JSON.stringify(update),
      });
      await response.arrayBuffer();
      return response.status;
    },
    deliverToWebhook(deliveryOptions) {
      const delivery = deliverToWebhook(state, deliveryOptions);
      deliveries.push(delivery);
      return delivery;
    },
    failNext(method, failure) {
      const queue = state.failures.get(method) ?? [];
      queue.push(failure);
      state.failures.set(method, queue);
    },
    holdNext(method, when = () => true) {
      const queue = state.holds.get(method) ?? [];
      queue.push(when);
      state.holds.set(method, queue);
    },
    waitFor: (predicate, timeoutMs = 30_000) => state.waitFor(() => predicate(telegram), timeoutMs, 'fake Telegram'),
    async close() {
      for (const delivery of deliveries) delivery.stop();
      for (const controller of inFlight) controller.abort('shutdown');
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        setImmediate(() => server.closeAllConnections());
      });
    },
  };
  return telegram;
}

/** Remembers the chats a recorded update's messages are in, so the bot's answers land in the same kind of chat. */
function rememberChats(state: FakeTelegramState, update: Update): void {
  for (const value of Object.values(update)) {
    const chat = (value as { chat?: { id?: unknown; type?: string; title?: string; is_forum?: boolean } } | null)?.chat;
    if (!chat || typeof chat.id !== 'number' || state.chats.has(chat.id)) continue;
    const type = chat.type === 'private' || chat.type === 'group' || chat.type === 'supergroup' || chat.type === 'channel' ? chat.type : chat.id > 0 ? 'private' : 'supergroup';
    state.chats.set(chat.id, { id: chat.id, type, title: chat.title, isForum: chat.is_forum === true });
  }
}
