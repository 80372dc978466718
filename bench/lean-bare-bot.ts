/**
 * The bare bot of the lean benchmark (`lean.bench.ts`): what a person writes to put a Claude
 * model behind a Telegram bot with the same two SDKs operator uses, and nothing else. A grammY
 * `Bot` long-polls with `bot.start()`; each text message makes one streaming Anthropic SDK call
 * (a short system prompt and the message, no history) and the text is sent back with
 * `ctx.reply`. Both SDKs run with their defaults (grammY's Node build, the SDK's own fetch),
 * apart from where they connect and the SDK's retries (none).
 *
 * Concurrency: the handler starts the turn and returns without waiting for it, so chats are
 * answered side by side, as operator answers them. A plain awaited handler under `bot.start()`
 * answers one message at a time (grammY's polling loop waits for the middleware): a burst then
 * measures round trips rather than what a turn costs, and a bot that makes everyone wait for
 * whoever wrote first is not one people keep. grammY's concurrent runner (`@grammyjs/runner`)
 * is not among operator's dependencies; not awaiting is the smallest change with the same effect.
 * Measured here, same run: 1,000 chats at once 329/535/832 turns/s in three rounds against
 * 216/289/337 awaited; the first round is what the issue measured for its bare bot (305-330).
 *
 * Replaying operator's request (`LEAN_MODEL_BODY_FILE`, a JSON request body operator sent the
 * fake model): the same bot sends that body instead of its own small one, with the person's
 * text in place of the last user message's text, so the model request weighs what operator's
 * weighs (its system prompt and tool definitions) and the rest of the turn is this bot's. The
 * body is read and parsed once at start; each turn copies only the messages it changes.
 *
 * Environment: `TELEGRAM_BOT_TOKEN`, `TELEGRAM_API_ROOT`, `ANTHROPIC_BASE_URL`, optionally
 * `LEAN_MODEL_BODY_FILE`. The benchmark runs it as JavaScript compiled by esbuild, by default
 * bundled with its SDKs into one module, as operator's dist/ holds them (`lean-bots.ts`), so
 * neither bot is charged for compiling TypeScript at start and both load their SDKs the same way.
 */
import Anthropic from '@anthropic-ai/sdk';
import { Bot, HttpError, type Context } from 'grammy';
import { readFileSync } from 'node:fs';

const anthropic = new Anthropic({ apiKey: 'bench-key', baseURL: process.env.ANTHROPIC_BASE_URL, maxRetries: 0 });
const bot = new Bot(process.env.TELEGRAM_BOT_TOKEN ?? '', { client: { apiRoot: process.env.TELEGRAM_API_ROOT } });
const replayedFile = process.env.LEAN_MODEL_BODY_FILE;
const replayed = replayedFile ? (JSON.parse(readFileSync(replayedFile, 'utf8')) as Anthropic.MessageCreateParams) : undefined;

/** The bot's own request: a short system prompt and the message, no history. */
function ownRequest(text: string): Anthropic.MessageCreateParamsStreaming {
  return {
    // operator's default model (the SDK writes a warning on every call naming a deprecated one).
    model: 'claude-sonnet-4-6',
    max_tokens: 1024,
    system: 'You are a helpful assistant in a Telegram chat. Answer briefly.',
    messages: [{ role: 'user', content: text }],
    stream: true,
  };
}

/**
 * operator's captured request with `text` as its last user message: the last text block of that
 * message takes the text (its other blocks and their cache markers stay as operator sent them);
 * a body ending otherwise gets a user message appended.
 */
function replayedRequest(body: Anthropic.MessageCreateParams, text: string): Anthropic.MessageCreateParamsStreaming {
  const messages = [...body.messages];
  const last = messages.at(-1);
  const content = last?.role === 'user' ? last.content : undefined;
  if (typeof content === 'string') messages[messages.length - 1] = { role: 'user', content: text };
  else if (content?.some((block) => block.type === 'text')) {
    const blocks = [...content];
    const index = blocks.findLastIndex((block) => block.type === 'text');
    blocks[index] = { ...(blocks[index] as Anthropic.TextBlockParam), text };
    messages[messages.length - 1] = { role: 'user', content: blocks };
  } else messages.push({ role: 'user', content: text });
  return { ...body, messages, stream: true };
}

async function answer(ctx: Context, text: string): Promise<void> {
  const stream = await anthropic.messages.create(replayed ? replayedRequest(replayed, text) : ownRequest(text));
  let reply = '';
  for await (const event of stream) if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') reply += event.delta.text;
  await ctx.reply(reply);
}

/** An error with what caused it (grammY's HttpError keeps the network error in `error`, fetch's in `cause`). */
function failure(error: unknown): string {
  const inner = error instanceof HttpError ? error.error : error instanceof Error ? error.cause : undefined;
  const cause = inner instanceof Error && inner.cause instanceof Error ? `${String(inner)}: ${String(inner.cause)}` : String(inner);
  return inner === undefined ? String(error) : `${String(error)} (${cause})`;
}

bot.on('message:text', (ctx) => {
  answer(ctx, ctx.message.text).catch((error: unknown) => process.stderr.write(`bare bot: ${failure(error)}\n`));
});
process.once('SIGTERM', () => void bot.stop().finally(() => process.exit(0)));
void bot.start();
