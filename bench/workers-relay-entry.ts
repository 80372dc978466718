/**
 * The floor relay of `gateway-floor-relay.ts` as a Worker, for local workerd: the least a
 * Telegram bot on Workers does per message with the same SDKs. It takes the webhook POST (secret
 * checked, body parsed, 200 at once), replays `MODEL_BODY` (a request body the Worker sent to the
 * model) through the Anthropic SDK, streamed, and sends the text with grammy's `sendMessage`,
 * after the answer (`waitUntil`): no dedupe, no session, no ledger, no storage. Beside the Node
 * relay it shows what workerd itself adds to the same calls; beside the Worker, what operator's
 * own code adds on Workers. Built by `workers-miniflare.ts` (`buildRelay`); never deployed.
 */
import Anthropic from '@anthropic-ai/sdk';
import { Api } from 'grammy/web';

interface RelayEnv {
  SECRET: string;
  ANTHROPIC_BASE_URL: string;
  TELEGRAM_API_ROOT: string;
  TELEGRAM_BOT_TOKEN: string;
  MODEL_BODY: string;
}

let clients: { sdk: Anthropic; api: Api; body: Anthropic.MessageCreateParamsStreaming } | undefined;

async function answer(env: RelayEnv, chatId: number): Promise<void> {
  clients ??= {
    sdk: new Anthropic({ apiKey: 'bench-key', baseURL: env.ANTHROPIC_BASE_URL, maxRetries: 0 }),
    api: new Api(env.TELEGRAM_BOT_TOKEN, { apiRoot: env.TELEGRAM_API_ROOT }),
    body: JSON.parse(env.MODEL_BODY) as Anthropic.MessageCreateParamsStreaming,
  };
  const stream = await clients.sdk.messages.create({ ...clients.body, stream: true });
  let text = '';
  for await (const event of stream) if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') text += event.delta.text;
  await clients.api.sendMessage(chatId, text);
}

export default {
  async fetch(request: Request, env: RelayEnv, ctx: { waitUntil(work: Promise<unknown>): void }): Promise<Response> {
    if (request.method !== 'POST' || request.headers.get('x-telegram-bot-api-secret-token') !== env.SECRET) return new Response(null, { status: 401 });
    const update = (await request.json()) as { message: { chat: { id: number } } };
    ctx.waitUntil(answer(env, update.message.chat.id).catch((error: unknown) => console.error(`relay: ${String(error)}`)));
    return new Response(null, { status: 200 });
  },
};
