/**
 * The Bot API methods the fake answers, with the validations and error descriptions of the real
 * API where a client depends on them (empty or too long text, markup Telegram can't parse, a
 * message that is not modified, a message to edit not found, getUpdates while a webhook is set).
 */
import type { Message, MessageEntity } from 'grammy/types';
import { parseTelegramHtml } from './fake-telegram-html.ts';
import type { UploadedFile } from './fake-telegram-request.ts';
import type { FakeSentMessage, FakeTelegramState } from './fake-telegram-state.ts';

/** A Bot API answer body. */
export type ApiAnswer =
  | { ok: true; result: unknown }
  | { ok: false; error_code: number; description: string; parameters?: { retry_after?: number } };

type Params = Record<string, unknown>;
type Method = (state: FakeTelegramState, params: Params, signal: AbortSignal) => ApiAnswer | Promise<ApiAnswer>;

const maxTextLength = 4096;
const chatActions = new Set(['typing', 'upload_photo', 'record_video', 'upload_video', 'record_voice', 'upload_voice', 'upload_document', 'choose_sticker', 'find_location', 'record_video_note', 'upload_video_note']);

function ok(result: unknown): ApiAnswer {
  return { ok: true, result };
}

function badRequest(description: string): ApiAnswer {
  return { ok: false, error_code: 400, description: `Bad Request: ${description}` };
}

function numberParam(params: Params, name: string): number | undefined {
  const value = params[name];
  return typeof value === 'number' ? value : typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : undefined;
}

/** The visible text and entities of a text with its parse mode, or Telegram's refusal. */
function formatted(params: Params, field: 'text' | 'caption'): { text: string; entities: MessageEntity[] } | ApiAnswer {
  const raw = typeof params[field] === 'string' ? (params[field] as string) : '';
  if (params.parse_mode === 'HTML') {
    const parsed = parseTelegramHtml(raw);
    if (!parsed.ok) return { ok: false, error_code: 400, description: parsed.description };
    return { text: parsed.text, entities: parsed.entities };
  }
  return { text: raw, entities: Array.isArray(params[`${field === 'text' ? '' : 'caption_'}entities`]) ? (params[`${field === 'text' ? '' : 'caption_'}entities`] as MessageEntity[]) : [] };
}

function checkKeyboard(markup: unknown): ApiAnswer | undefined {
  const rows = (markup as { inline_keyboard?: unknown } | undefined)?.inline_keyboard;
  if (markup === undefined) return undefined;
  if (!Array.isArray(rows)) return badRequest("can't parse reply keyboard markup JSON object");
  for (const button of rows.flat() as { text?: unknown; callback_data?: unknown }[]) {
    if (typeof button.text !== 'string' || button.text === '') return badRequest('text buttons are unallowed in the inline keyboard');
    if (typeof button.callback_data === 'string' && Buffer.byteLength(button.callback_data) > 64) return badRequest('BUTTON_DATA_INVALID');
  }
  return undefined;
}

function replyTarget(state: FakeTelegramState, chatId: number, params: Params): { id?: number; error?: ApiAnswer } {
  const parameters = params.reply_parameters as { message_id?: number; allow_sending_without_reply?: boolean } | undefined;
  const id = parameters?.message_id ?? numberParam(params, 'reply_to_message_id');
  if (id === undefined) return {};
  if (state.message(chatId, id)) return { id };
  if (parameters?.allow_sending_without_reply || params.allow_sending_without_reply === true) return {};
  return { error: badRequest('message to be replied not found') };
}

/** Records a message the bot sent and returns its `Message` object. */
function storeSent(state: FakeTelegramState, chatId: number, params: Params, content: Partial<FakeSentMessage> & { kind: FakeSentMessage['kind'] }, extra: Record<string, unknown>): Message | ApiAnswer {
  const keyboardError = checkKeyboard(params.reply_markup);
  if (keyboardError) return keyboardError;
  const reply = replyTarget(state, chatId, params);
  if (reply.error) return reply.error;
  const threadId = numberParam(params, 'message_thread_id');
  const messageId = state.nextMessageId(chatId);
  const replied = reply.id === undefined ? undefined : state.message(chatId, reply.id);
  const message = {
    message_id: messageId,
    date: Math.floor(Date.now() / 1000),
    chat: state.chatObject(chatId),
    from: state.bot,
    ...(threadId !== undefined ? { message_thread_id: threadId, is_topic_message: state.chat(chatId).isForum !== false } : {}),
    ...(replied ? { reply_to_message: replied } : {}),
    ...(params.reply_markup !== undefined ? { reply_markup: params.reply_markup } : {}),
    ...extra,
  } as unknown as Message;
  state.rememberMessage(message);
  state.sent.push({
    chatId,
    messageId,
    threadId,
    text: content.text ?? '',
    entities: content.entities ?? [],
    sentText: content.sentText ?? '',
    parseMode: typeof params.parse_mode === 'string' ? params.parse_mode : undefined,
    replyMarkup: params.reply_markup,
    replyToMessageId: reply.id,
    kind: content.kind,
    ...(content.file ? { file: content.file } : {}),
    edits: 0,
    createdAt: Date.now(),
  });
  return message;
}

function isAnswer(value: unknown): value is ApiAnswer {
  return typeof value === 'object' && value !== null && 'ok' in value && typeof (value as { ok: unknown }).ok === 'boolean' && ('result' in value || 'error_code' in value);
}

const sendMessage: Method = (state, params) => {
  const chatId = numberParam(params, 'chat_id');
  if (chatId === undefined) return badRequest('chat_id is empty');
  const text = formatted(params, 'text');
  if ('ok' in text) return text;
  if (text.text.trim() === '') return badRequest('message text is empty');
  if (text.text.length > maxTextLength) return badRequest('message is too long');
  const message = storeSent(state, chatId, params, { kind: 'text', text: text.text, entities: text.entities, sentText: String(params.text) }, {
    text: text.text,
    ...(text.entities.length > 0 ? { entities: text.entities } : {}),
  });
  return isAnswer(message) ? message : ok(message);
};

const editMessageText: Method = (state, params) => {
  const chatId = numberParam(params, 'chat_id');
  const messageId = numberParam(params, 'message_id');
  const record = state.sent.find((sent) => sent.chatId === chatId && sent.messageId === messageId);
  if (chatId === undefined || messageId === undefined || !record) return badRequest('message to edit not found');
  if (record.kind !== 'text') return badRequest('there is no text in the message to edit');
  const text = formatted(params, 'text');
  if ('ok' in text) return text;
  if (text.text.trim() === '') return badRequest('message text is empty');
  if (text.text.length > maxTextLength) return badRequest('message is too long');
  const keyboardError = checkKeyboard(params.reply_markup);
  if (keyboardError) return keyboardError;
  const sameMarkup = JSON.stringify(params.reply_markup ?? null) === JSON.stringify(record.replyMarkup ?? null);
  if (text.text === record.text && JSON.stringify(text.entities) === JSON.stringify(record.entities) && sameMarkup) {
    return badRequest('message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message');
  }
  Object.assign(record, { text: text.text, entities: text.entities, sentText: String(params.text), parseMode: params.parse_mode, replyMarkup: params.reply_markup, edits: record.edits + 1 });
  const previous = state.message(chatId, messageId)!;
  const message = { ...previous, text: text.text, entities: text.entities, edit_date: Math.floor(Date.now() / 1000), reply_markup: params.reply_markup } as Message;
  state.rememberMessage(message);
  return ok(message);
};

/** Drafts go to private chats only, with a non-zero id; empty text is the "Thinking…" placeholder. */
const sendMessageDraft: Method = (state, params) => {
  if (state.draftSupport === 'unknown-method') return { ok: false, error_code: 404, description: 'Not Found: method not found' };
  if (state.draftSupport === 'refused') return badRequest('method sendMessageDraft is not available for this bot');
  const chatId = numberParam(params, 'chat_id');
  if (chatId === undefined) return badRequest('chat_id is empty');
  if (state.chat(chatId).type !== 'private') return badRequest('TEXTDRAFT_PEER_INVALID');
  const draftId = numberParam(params, 'draft_id');
  if (!draftId) return badRequest('draft_id must be non-zero');
  const text = formatted(params, 'text');
  if ('ok' in text) return text;
  if (text.text.length > maxTextLength) return badRequest('message is too long');
  const threadId = numberParam(params, 'message_thread_id');
  state.drafts.push({ chatId, draftId, text: text.text, ...(threadId !== undefined ? { threadId } : {}), at: Date.now() });
  return ok(true);
};

function sendFile(kind: 'photo' | 'document'): Method {
  return (state, params) => {
    const chatId = numberParam(params, 'chat_id');
    if (chatId === undefined) return badRequest('chat_id is empty');
    const input = params[kind];
    if (input === undefined) return badRequest(`there is no ${kind} in the request`);
    const caption = formatted(params, 'caption');
    if ('ok' in caption) return caption;
    const upload = typeof input === 'object' ? (input as UploadedFile) : undefined;
    const fileId = `${kind}-${state.files.size + 1}`;
    if (upload) state.files.set(fileId, { path: `${kind}s/file_${state.files.size}${/\.[A-Za-z0-9]{1,16}$/.exec(upload.name)?.[0] ?? ''}`, bytes: upload.bytes });
    const media = kind === 'photo'
      ? { photo: [{ file_id: upload ? fileId : String(input), file_unique_id: fileId, width: 1, height: 1, file_size: upload?.size }] }
      : { document: { file_id: upload ? fileId : String(input), file_unique_id: fileId, file_name: upload?.name, file_size: upload?.size } };
    const file = upload ? { name: upload.name, bytes: upload.bytes } : undefined;
    const message = storeSent(state, chatId, params, { kind, text: caption.text, entities: caption.entities, sentText: String(params.caption ?? ''), ...(file ? { file } : {}) }, {
      ...media,
      ...(caption.text ? { caption: caption.text } : {}),
    });
    return isAnswer(message) ? message : ok(message);
  };
}

const getUpdates: Method = async (state, params, signal) => {
  if (state.webhook) return { ok: false, error_code: 409, description: "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first" };
  if (Array.isArray(params.allowed_updates)) state.allowedUpdates = params.allowed_updates as string[];
  state.confirm(numberParam(params, 'offset'));
  const limit = Math.min(Math.max(numberParam(params, 'limit') ?? 100, 1), 100);
  const timeoutSeconds = Math.max(Number(params.timeout ?? 0), 0);
  if (!state.hasPendingUpdates() && timeoutSeconds > 0 && !signal.aborted) {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(finish, timeoutSeconds * 1000);
      const unsubscribe = state.subscribe(() => {
        if (state.hasPendingUpdates()) finish();
      });
      signal.addEventListener('abort', finish, { once: true });
      function finish() {
        clearTimeout(timer);
        unsubscribe();
        signal.removeEventListener('abort', finish);
        resolve();
      }
    });
  }
  if (signal.reason === 'conflict') return { ok: false, error_code: 409, description: 'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running' };
  return ok(state.takeUpdates(limit));
};

const getFile: Method = (state, params) => {
  const fileId = String(params.file_id ?? '');
  const file = state.files.get(fileId);
  if (!file) return badRequest('invalid file_id');
  return ok({ file_id: fileId, file_unique_id: fileId, file_size: file.bytes.length, file_path: file.path });
};

/** Every method the fake answers, by name. */
export const methods: Record<string, Method> = {
  getMe: (state) => ok(state.bot),
  getUpdates,
  sendMessage,
  editMessageText,
  sendMessageDraft,
  sendPhoto: sendFile('photo'),
  sendDocument: sendFile('document'),
  getFile,
  sendChatAction: (_state, params) => (chatActions.has(String(params.action)) ? ok(true) : badRequest('wrong parameter action in request')),
  setMyCommands: (state, params) => {
    const commands = Array.isArray(params.commands) ? (params.commands as { command: string; description: string }[]) : [];
    if (commands.some((command) => !/^[a-z0-9_]{1,32}$/.test(command.command))) return badRequest('BOT_COMMAND_INVALID');
    if (commands.some((command) => !command.description || command.description.length > 256)) return badRequest('BOT_COMMAND_DESCRIPTION_INVALID');
    state.commands = commands;
    return ok(true);
  },
  getMyCommands: (state) => ok(state.commands),
  deleteWebhook: (state, params) => {
    state.webhook = undefined;
    if (params.drop_pending_updates === true) state.dropPending();
    return ok(true);
  },
  setWebhook: (state, params) => {
    const url = typeof params.url === 'string' ? params.url : '';
    if (url === '') {
      state.webhook = undefined;
      return ok(true);
    }
    if (!/^https?:\/\//.test(url)) return badRequest('bad webhook: An HTTPS URL must be provided for webhook');
    const secretToken = typeof params.secret_token === 'string' ? params.secret_token : undefined;
    if (secretToken !== undefined && !/^[A-Za-z0-9_-]{1,256}$/.test(secretToken)) return badRequest('bad webhook: Secret token contains unallowed characters');
    state.webhook = { url, secretToken, allowedUpdates: params.allowed_updates as string[] | undefined };
    if (params.drop_pending_updates === true) state.dropPending();
    return ok(true);
  },
  getWebhookInfo: (state) => ok({ url: state.webhook?.url ?? '', has_custom_certificate: false, pending_update_count: 0 }),
  answerCallbackQuery: (state, params) => {
    if (typeof params.callback_query_id !== 'string' || params.callback_query_id === '') return badRequest('query is too old and response timeout expired or query ID is invalid');
    state.answeredCallbacks.push({ id: params.callback_query_id, ...(typeof params.text === 'string' ? { text: params.text } : {}) });
    return ok(true);
  },
};
