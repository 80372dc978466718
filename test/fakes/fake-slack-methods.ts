/**
 * The Web API methods the fake answers, with the validations and `error` codes of the real API
 * where a client depends on them: `no_text`, `msg_too_long`, `invalid_blocks` (section text over
 * 3,000 characters, a button label over 75 or value over 2,000, repeated `action_id`s, more than
 * 25 elements or 50 blocks), `message_not_found`, `cant_update_message`, `already_reacted`,
 * `no_reaction`. Like Slack, chat.update without `blocks` keeps the message's blocks. File
 * uploads are in `fake-slack-uploads.ts`.
 */
import type { FakeSlackMessage, FakeSlackState } from './fake-slack-state.ts';
import { assistantMethods } from './fake-slack-assistant.ts';
import { uploadMethods } from './fake-slack-uploads.ts';

/** A Web API answer body (always HTTP 200). */
export type SlackAnswer = { ok: true; [field: string]: unknown } | { ok: false; error: string; [field: string]: unknown };

type Params = Record<string, unknown>;

/** One Web API method: its answer to `params`; `origin` is the fake's (`http://127.0.0.1:<port>`). */
export type SlackMethod = (state: FakeSlackState, params: Params, origin: string) => SlackAnswer;

const maxTextLength = 40_000;

/** Slack's `ok: false` answer with `error`. */
export function fail(error: string): SlackAnswer {
  return { ok: false, error };
}

/** A parameter that is a non-empty string, if it is one. */
export function stringParam(params: Params, name: string): string | undefined {
  const value = params[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Why Slack would refuse these blocks, if it would. */
export function blocksProblem(blocks: unknown): string | undefined {
  if (!Array.isArray(blocks)) return 'blocks must be an array';
  if (blocks.length > 50) return 'no more than 50 items allowed';
  const actionIds = new Set<string>();
  for (const block of blocks as Record<string, unknown>[]) {
    if (block.type === 'section') {
      const text = (block.text as { text?: unknown } | undefined)?.text;
      if (typeof text !== 'string' || text.length === 0) return 'section text is required';
      if (text.length > 3000) return 'section text must be less than 3001 characters';
    } else if (block.type === 'actions') {
      const elements = block.elements as Record<string, unknown>[] | undefined;
      if (!Array.isArray(elements) || elements.length === 0 || elements.length > 25) return 'actions elements must hold 1 to 25 items';
      for (const element of elements) {
        const label = (element.text as { text?: unknown } | undefined)?.text;
        if (element.type !== 'button' || typeof label !== 'string' || label.length === 0 || label.length > 75) return 'button text must be 1 to 75 characters';
        if (typeof element.value === 'string' && element.value.length > 2000) return 'button value must be less than 2001 characters';
        const actionId = String(element.action_id ?? '');
        if (actionIds.has(actionId)) return `action_id ${actionId} is repeated`;
        actionIds.add(actionId);
      }
    } else {
      return `unsupported block type ${String(block.type)}`;
    }
  }
  return undefined;
}

/** The text and blocks of a post or update, or Slack's refusal. */
function content(params: Params, requireSome: boolean): { text?: string; blocks?: Record<string, unknown>[] } | SlackAnswer {
  const text = typeof params.text === 'string' ? params.text : undefined;
  const blocks = params.blocks;
  if (blocks !== undefined && blocksProblem(blocks)) return { ok: false, error: 'invalid_blocks', errors: [blocksProblem(blocks)] };
  const someBlocks = Array.isArray(blocks) && blocks.length > 0;
  if (requireSome && (text === undefined || text.trim() === '') && !someBlocks) return fail('no_text');
  if (text !== undefined && text.length > maxTextLength) return fail('msg_too_long');
  return { ...(text !== undefined ? { text } : {}), ...(blocks !== undefined ? { blocks: blocks as Record<string, unknown>[] } : {}) };
}

function isAnswer(value: object): value is SlackAnswer {
  return 'ok' in value;
}

/** A message as the Web API returns it. */
export function messageObject(state: FakeSlackState, message: FakeSlackMessage): Record<string, unknown> {
  return {
    type: 'message',
    user: message.user,
    ...(message.botId ? { bot_id: message.botId, app_id: state.bot.appId } : {}),
    text: message.text,
    ts: message.ts,
    ...(message.threadTs ? { thread_ts: message.threadTs } : {}),
    ...(message.blocks && message.blocks.length > 0 ? { blocks: message.blocks } : {}),
    team: state.bot.teamId,
    ...(message.edits > 0 ? { edited: { user: message.user, ts: message.ts } } : {}),
  };
}

const postMessage: SlackMethod = (state, params) => {
  const channel = stringParam(params, 'channel');
  if (!channel) return fail('channel_not_found');
  const body = content(params, true);
  if (isAnswer(body)) return body;
  const threadTs = stringParam(params, 'thread_ts');
  const message = state.addMessage({ channel, ts: state.nextTs(), user: state.bot.userId, botId: state.bot.botId, text: body.text ?? '', ...(threadTs ? { threadTs } : {}), ...(body.blocks ? { blocks: body.blocks } : {}) });
  return { ok: true, channel, ts: message.ts, message: messageObject(state, message) };
};

const update: SlackMethod = (state, params) => {
  const channel = stringParam(params, 'channel') ?? '';
  const message = state.message(channel, stringParam(params, 'ts') ?? '');
  if (!message) return fail('message_not_found');
  if (message.user !== state.bot.userId) return fail('cant_update_message');
  const body = content(params, false);
  if (isAnswer(body)) return body;
  const nextText = body.text ?? message.text;
  const nextBlocks = body.blocks ?? message.blocks;
  if (nextText.trim() === '' && !(nextBlocks && nextBlocks.length > 0)) return fail('no_text');
  Object.assign(message, { text: nextText, blocks: nextBlocks, edits: message.edits + 1 });
  state.notify();
  return { ok: true, channel, ts: message.ts, text: message.text, message: messageObject(state, message) };
};

/**
 * `conversations.history` (top-level messages) and `conversations.replies` (a thread, its parent
 * first): newest first, at most `limit` (default 100), those posted at `oldest` (seconds) or
 * later. The fake's ts values do not follow the clock, so `oldest` is compared with when the
 * fake took each message.
 */
const listMessages =
  (thread: boolean): SlackMethod =>
  (state, params) => {
    const channel = stringParam(params, 'channel');
    if (!channel) return fail('channel_not_found');
    const threadTs = stringParam(params, 'ts');
    if (thread && !threadTs) return fail('thread_not_found');
    const oldestMs = Number(stringParam(params, 'oldest') ?? params.oldest ?? 0) * 1000;
    const limit = Number(params.limit ?? 100);
    const listed = state.messages.filter(
      (message) => message.channel === channel && (thread ? message.ts === threadTs || message.threadTs === threadTs : !message.threadTs) && message.createdAt >= oldestMs,
    );
    return { ok: true, messages: listed.slice().reverse().slice(0, limit).map((message) => messageObject(state, message)), has_more: listed.length > limit };
  };

const postEphemeral: SlackMethod = (state, params) => {
  const channel = stringParam(params, 'channel');
  const user = stringParam(params, 'user');
  if (!channel) return fail('channel_not_found');
  if (!user) return fail('user_not_found');
  const body = content(params, true);
  if (isAnswer(body)) return body;
  const threadTs = stringParam(params, 'thread_ts');
  state.ephemerals.push({ channel, user, text: body.text ?? '', ...(threadTs ? { threadTs } : {}) });
  state.notify();
  return { ok: true, message_ts: state.nextTs() };
};

function reaction(adding: boolean): SlackMethod {
  return (state, params) => {
    const name = stringParam(params, 'name');
    if (!name || !/^[a-z0-9_+'-]+$/.test(name)) return fail('invalid_name');
    const message = state.message(stringParam(params, 'channel') ?? '', stringParam(params, 'timestamp') ?? '');
    if (!message) return fail('message_not_found');
    const users = message.reactions.get(name) ?? new Set<string>();
    if (adding === users.has(state.bot.userId)) return fail(adding ? 'already_reacted' : 'no_reaction');
    if (adding) users.add(state.bot.userId);
    else users.delete(state.bot.userId);
    if (users.size > 0) message.reactions.set(name, users);
    else message.reactions.delete(name);
    state.notify();
    return { ok: true };
  };
}

/** The methods, by name. */
export const slackMethods: Record<string, SlackMethod> = {
  'auth.test': (state) => ({
    ok: true,
    url: 'https://fake-workspace.slack.com/',
    team: 'Fake Workspace',
    user: 'operator',
    team_id: state.bot.teamId,
    user_id: state.bot.userId,
    bot_id: state.bot.botId,
    is_enterprise_install: false,
  }),
  'chat.postMessage': postMessage,
  'chat.update': update,
  'conversations.history': listMessages(false),
  'conversations.replies': listMessages(true),
  'chat.postEphemeral': postEphemeral,
  'reactions.add': reaction(true),
  'reactions.remove': reaction(false),
  // A person who posted (their display name as given), as Slack describes a user.
  'users.info': (state, params) => {
    const name = state.people.get(String(params.user ?? ''));
    if (name === undefined) return { ok: false, error: 'user_not_found' };
    const handle = name.toLowerCase().replace(/\s+/g, '.');
    return { ok: true, user: { id: params.user, name: handle, real_name: name, profile: { display_name: name, real_name: name } } };
  },
  ...uploadMethods,
  ...assistantMethods,
};
