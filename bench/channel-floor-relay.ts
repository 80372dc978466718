/**
 * The throughput floor of the channel benchmark for Slack and Discord: the least a bot on the
 * same SDKs does per message, in a process of its own (`node bin/run-ts.js
 * bench/channel-floor-relay.ts <slack|discord>`). Slack: the signed Events API POST checked
 * (HMAC of the raw body), answered 200 at once, the gateway's model request replayed through the
 * Anthropic SDK, the text sent with the Web API client's `chat.postMessage`. Discord: a
 * discord.js client with the gateway's intents receives the raw `MESSAGE_CREATE` dispatch (as the adapter does), replays the same model
 * request, and posts the text over discord.js's REST. No dedupe, session, ledger or queue.
 *
 * Environment: `PORT` (Slack), `API_URL`, `TOKEN`, `SECRET` (Slack), `ANTHROPIC_BASE_URL`,
 * `MODEL_BODY_FILE` (a JSON request body captured from the gateway); prints `ready` once it
 * listens or is logged in.
 */
import Anthropic from '@anthropic-ai/sdk';
import { webApi } from '@slack/bolt';
import { Client, Events, GatewayDispatchEvents, GatewayIntentBits, Partials, Routes, type GatewayMessageCreateDispatchData } from 'discord.js';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { keepAliveFetch, loadKeepAliveFetch } from '../src/core/keep-alive-fetch.ts';

const env = process.env as Record<string, string>;
const body = JSON.parse(readFileSync(env.MODEL_BODY_FILE!, 'utf8')) as Anthropic.MessageCreateParamsStreaming;
const sdk = new Anthropic({ apiKey: 'bench-key', baseURL: env.ANTHROPIC_BASE_URL, maxRetries: 0, fetch: await loadKeepAliveFetch().then(() => keepAliveFetch) });

async function modelText(): Promise<string> {
  const stream = await sdk.messages.create({ ...body, stream: true });
  let text = '';
  for await (const event of stream) if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') text += event.delta.text;
  return text;
}

const fail = (error: unknown) => process.stderr.write(`relay: ${String(error)}\n`);

function relaySlack(): void {
  const client = new webApi.WebClient(env.TOKEN, { slackApiUrl: env.API_URL, retryConfig: { retries: 0 } });
  const signed = (timestamp: string, raw: string, signature: string) => {
    const expected = Buffer.from(`v0=${createHmac('sha256', env.SECRET!).update(`v0:${timestamp}:${raw}`).digest('hex')}`);
    const given = Buffer.from(signature);
    return expected.length === given.length && timingSafeEqual(expected, given);
  };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      if (!signed(String(request.headers['x-slack-request-timestamp']), raw, String(request.headers['x-slack-signature']))) {
        response.writeHead(401).end();
        return;
      }
      const { event } = JSON.parse(raw) as { event: { channel: string } };
      response.writeHead(200).end();
      modelText()
        .then((text) => client.chat.postMessage({ channel: event.channel, text }))
        .catch(fail);
    });
  });
  server.listen(Number(env.PORT), '127.0.0.1', () => process.stdout.write('ready\n'));
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}

async function relayDiscord(): Promise<void> {
  const intents = [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.DirectMessages, GatewayIntentBits.MessageContent];
  const client = new Client({ intents, partials: [Partials.Channel], rest: { api: env.API_URL } });
  // The raw dispatch, as the adapter reads it (no message objects built).
  client.ws.on(GatewayDispatchEvents.MessageCreate, (message: GatewayMessageCreateDispatchData) => {
    if (message.author.id === client.user?.id) return;
    modelText()
      .then((text) => client.rest.post(Routes.channelMessages(message.channel_id), { body: { content: text } }))
      .catch(fail);
  });
  client.once(Events.ClientReady, () => process.stdout.write('ready\n'));
  await client.login(env.TOKEN);
  process.on('SIGTERM', () => void client.destroy().finally(() => process.exit(0)));
}

if (process.argv[2] === 'discord') await relayDiscord();
else relaySlack();
