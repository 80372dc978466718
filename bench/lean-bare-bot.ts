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
 * Environment: `TELEGRAM_BOT_TOKEN`, `TELEGRAM_API_ROOT`, `ANTHROPIC_BASE_URL`. The benchmark
 * runs it as JavaScript compiled by esbuild, by default bundled with its SDKs as operator's dist/
 * bundles them (`lean-bots.ts`), so neither bot is charged for compiling TypeScript at start and
 * both load their SDKs the same way.
 */
import Anthropic from '@anthropic-ai/sdk';
import { Bot, type Context } from 'grammy';

const anthropic = new Anthropic({ apiKey: 'bench-key', baseURL: process.env.ANTHROPIC_BASE_URL, maxRetries: 0 });
const bot = new Bot(process.env.TELEGRAM_BOT_TOKEN ?? '', { client: { apiRoot: process.env.TELEGRAM_API_ROOT } });

async function answer(ctx: Context, text: string): Promise<void> {
  const stream = await anthropic.messages.create({
    // operator's default model (the SDK writes a warning on every call naming a deprecated one).
    model: 'claude-sonnet-4-6',
    max_tokens: 1024,
    system: 'You are a helpful assistant in a Telegram chat. Answer briefly.',
    messages: [{ role: 'user', content: text }],
    stream: true,
  });
  let reply = '';
  for await (const event of stream) if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') reply += event.delta.text;
  await ctx.reply(reply);
}

bot.on('message:text', (ctx) => {
  answer(ctx, ctx.message.text).catch((error: unknown) => process.stderr.write(`bare bot: ${String(error)}\n`));
});
process.once('SIGTERM', () => void bot.stop().finally(() => process.exit(0)));
void bot.start();
