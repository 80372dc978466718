/**
 * The throughput floor of the gateway benchmark: the least a Telegram bot on the same SDKs does
 * per message, in a process of its own. It takes Telegram's webhook POST (secret checked, body
 * parsed, 200 at once), replays the request body the gateway sent to the model through the
 * Anthropic SDK (streamed, over the providers' transport) and sends the text it got back with
 * grammy's `sendMessage`: no dedupe, no session, no ledger, no queue. What the gateway does beyond
 * this is its own cost.
 *
 * Started by `gateway.bench.ts` as `node bin/run-ts.js bench/gateway-floor-relay.ts` with
 * `PORT`, `SECRET`, `ANTHROPIC_BASE_URL`, `TELEGRAM_API_ROOT`, `TELEGRAM_BOT_TOKEN` and
 * `MODEL_BODY_FILE` (a JSON request body captured from the gateway); prints `ready` once it listens.
 */
import Anthropic from '@anthropic-ai/sdk';
import { Api, type ApiClientOptions } from 'grammy/web';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { keepAliveFetch, loadKeepAliveFetch } from '../src/core/keep-alive-fetch.ts';

const env = process.env as Record<string, string>;
const body = JSON.parse(readFileSync(env.MODEL_BODY_FILE!, 'utf8')) as Anthropic.MessageCreateParamsStreaming;
const sdk = new Anthropic({ apiKey: 'bench-key', baseURL: env.ANTHROPIC_BASE_URL, maxRetries: 0, fetch: await loadKeepAliveFetch().then(() => keepAliveFetch) });
const api = new Api(env.TELEGRAM_BOT_TOKEN!, { apiRoot: env.TELEGRAM_API_ROOT, fetch: keepAliveFetch as unknown as ApiClientOptions['fetch'] });

async function answer(chatId: number): Promise<void> {
  const stream = await sdk.messages.create({ ...body, stream: true });
  let text = '';
  for await (const event of stream) if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') text += event.delta.text;
  await api.sendMessage(chatId, text);
}

const server = createServer((request, response) => {
  if (request.method !== 'POST' || request.headers['x-telegram-bot-api-secret-token'] !== env.SECRET) {
    response.writeHead(401).end();
    return;
  }
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const update = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { message: { chat: { id: number } } };
    response.writeHead(200).end();
    answer(update.message.chat.id).catch((error: unknown) => process.stderr.write(`relay: ${String(error)}\n`));
  });
});
server.listen(Number(env.PORT), '127.0.0.1', () => process.stdout.write('ready\n'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
