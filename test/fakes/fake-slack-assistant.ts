/**
 * The fake's AI-app methods: `assistant.threads.setStatus`, `setSuggestedPrompts` and `setTitle`
 * (recorded in `state.assistant`, checked as Slack checks them: a channel and thread, one to four
 * prompts), and text streaming with `chat.startStream`, `chat.appendStream` and `chat.stopStream`
 * (a message that grows, then is finished). With `state.streamingRefused` the three stream methods
 * answer `unknown_method`, as in a workspace that does not have them.
 */
import { blocksProblem, fail, messageObject, stringParam, type SlackAnswer, type SlackMethod } from './fake-slack-methods.ts';
import type { FakeSlackMessage, FakeSlackState } from './fake-slack-state.ts';

/** Slack's limit on the Markdown one stream call carries. */
const maxMarkdownLength = 12_000;

const setStatus: SlackMethod = (state, params) => {
  const channel = stringParam(params, 'channel_id');
  const threadTs = stringParam(params, 'thread_ts');
  if (!channel || !threadTs || typeof params.status !== 'string') return fail('invalid_arguments');
  state.assistant.push({ method: 'setStatus', channel, threadTs, status: params.status });
  state.notify();
  return { ok: true };
};

const setSuggestedPrompts: SlackMethod = (state, params) => {
  const channel = stringParam(params, 'channel_id');
  const prompts = params.prompts;
  if (!channel || !Array.isArray(prompts) || prompts.length === 0 || prompts.length > 4) return fail('invalid_arguments');
  const checked = prompts as { title?: unknown; message?: unknown }[];
  if (checked.some((prompt) => typeof prompt.title !== 'string' || prompt.title === '' || typeof prompt.message !== 'string' || prompt.message === '')) return fail('invalid_arguments');
  const threadTs = stringParam(params, 'thread_ts');
  const title = stringParam(params, 'title');
  state.assistant.push({ method: 'setSuggestedPrompts', channel, ...(threadTs ? { threadTs } : {}), ...(title ? { title } : {}), prompts: checked as { title: string; message: string }[] });
  state.notify();
  return { ok: true };
};

const setTitle: SlackMethod = (state, params) => {
  const channel = stringParam(params, 'channel_id');
  const threadTs = stringParam(params, 'thread_ts');
  const title = stringParam(params, 'title');
  if (!channel || !threadTs || !title) return fail('invalid_arguments');
  state.assistant.push({ method: 'setTitle', channel, threadTs, title });
  state.notify();
  return { ok: true };
};

/** The Markdown a stream call carries, or Slack's refusal of it. */
function markdownOf(params: Record<string, unknown>): string | SlackAnswer {
  const text = params.markdown_text;
  if (text === undefined) return '';
  if (typeof text !== 'string') return fail('invalid_arguments');
  return text.length > maxMarkdownLength ? fail('msg_too_long') : text;
}

/** The bot's message still streaming at `channel`/`ts`, or Slack's refusal. */
function streamingMessage(state: FakeSlackState, params: Record<string, unknown>): FakeSlackMessage | SlackAnswer {
  const message = state.message(stringParam(params, 'channel') ?? '', stringParam(params, 'ts') ?? '');
  if (!message) return fail('message_not_found');
  if (message.user !== state.bot.userId) return fail('cant_update_message');
  if (!message.streaming) return fail('message_not_in_streaming_state');
  return message;
}

/** Wraps a stream method: refused where the workspace has no streaming. */
function streamMethod(method: SlackMethod): SlackMethod {
  return (state, params, origin) => (state.streamingRefused ? fail('unknown_method') : method(state, params, origin));
}

const startStream: SlackMethod = (state, params) => {
  const channel = stringParam(params, 'channel');
  if (!channel) return fail('channel_not_found');
  const threadTs = stringParam(params, 'thread_ts');
  if (!threadTs) return fail('invalid_arguments');
  // Outside a DM, Slack must be told whom the stream is for.
  if (!channel.startsWith('D') && (!stringParam(params, 'recipient_user_id') || !stringParam(params, 'recipient_team_id'))) return fail('invalid_arguments');
  const text = markdownOf(params);
  if (typeof text !== 'string') return text;
  const message = state.addMessage({ channel, ts: state.nextTs(), user: state.bot.userId, botId: state.bot.botId, text, threadTs, streaming: true });
  return { ok: true, channel, ts: message.ts };
};

const appendStream: SlackMethod = (state, params) => {
  const message = streamingMessage(state, params);
  if ('ok' in message) return message;
  const text = markdownOf(params);
  if (typeof text !== 'string') return text;
  if (text === '') return fail('invalid_arguments');
  message.text += text;
  message.edits += 1;
  state.notify();
  return { ok: true, channel: message.channel, ts: message.ts };
};

const stopStream: SlackMethod = (state, params) => {
  const message = streamingMessage(state, params);
  if ('ok' in message) return message;
  const text = markdownOf(params);
  if (typeof text !== 'string') return text;
  if (params.blocks !== undefined && blocksProblem(params.blocks)) return { ok: false, error: 'invalid_blocks', errors: [blocksProblem(params.blocks)] };
  message.text += text;
  if (Array.isArray(params.blocks) && params.blocks.length > 0) message.blocks = params.blocks as Record<string, unknown>[];
  message.streaming = false;
  message.edits += 1;
  state.notify();
  return { ok: true, channel: message.channel, ts: message.ts, message: messageObject(state, message) };
};

/** The AI-app methods, by name. */
export const assistantMethods: Record<string, SlackMethod> = {
  'assistant.threads.setStatus': setStatus,
  'assistant.threads.setSuggestedPrompts': setSuggestedPrompts,
  'assistant.threads.setTitle': setTitle,
  'chat.startStream': streamMethod(startStream),
  'chat.appendStream': streamMethod(appendStream),
  'chat.stopStream': streamMethod(stopStream),
};
