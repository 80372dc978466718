/**
 * Streamed replies on Slack (issue 36): the time until the first words of an answer are visible
 * in the thread, with native streams (`chat.startStream` / `appendStream` / `stopStream`) against
 * the preview posted and edited with `chat.update` (the fake refusing streaming, as a workspace
 * without it does), in the same run, alternating; and the platform requests each reply costs.
 *
 * Both sides run the real Slack adapter (its WebClient over HTTP) and the gateway's real preview
 * logic (`ReplyStream`, edits throttled to Slack's `editIntervalMs`) against the fake Slack in
 * this process, fed an answer of {@link ANSWER_CHARS} characters, {@link TOKEN_CHARS} at a time
 * every {@link TOKEN_MS} ms (a model's pace), then finished by the final text replacing the
 * preview as the gateway sends it. The floor, per reply: when the preview's first words were
 * there to show (its minimum length pushed) plus a bare `chat.postMessage` round trip to the same
 * fake, measured in the same run.
 */
import { webApi } from '@slack/bolt';
import { createSlackChannel } from '../src/channels/slack/index.ts';
import type { ChannelAdapter, ConversationAddress } from '../src/channels/types.ts';
import { ReplyStream } from '../src/gateway/reply-stream.ts';
import { startFakeSlackServer, type FakeSlack } from '../test/fakes/fake-slack-server.ts';
import { elapsedMs, median, type BenchResult } from './lib.ts';

const REPLIES = 15;
const WARMUP = 3;
const ANSWER_CHARS = 600;
const TOKEN_CHARS = 8;
const TOKEN_MS = 20;
/** The characters a preview needs before it is shown (`ReplyStream`'s minimum). */
const PREVIEW_MIN = 24;
const FLOOR_CALLS = 30;
const channel = 'D0BENCH01';

interface Side {
  slack: FakeSlack;
  adapter: ChannelAdapter;
  client: webApi.WebClient;
}

async function side(refuse: boolean): Promise<Side> {
  const slack = await startFakeSlackServer();
  if (refuse) slack.refuseStreaming();
  const adapter = createSlackChannel({ botToken: slack.bot.token, signingSecret: slack.signingSecret, apiUrl: slack.apiUrl, log: () => {} });
  await adapter.start({ onMessage: async () => {}, onAction: async () => {} });
  const client = new webApi.WebClient(slack.bot.token, { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });
  return { slack, adapter, client };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One reply streamed into a fresh thread: ms until first visible, ms until its first words were pushed, requests it took. */
async function reply({ slack, adapter }: Side, answer: string): Promise<{ visibleMs: number; readyMs: number; requests: number }> {
  const parent = slack.personMessage({ channel, text: 'a question' });
  const address: ConversationAddress = { platform: 'slack', conversationId: channel, threadId: String(parent.ts) };
  const callsBefore = slack.calls.length;
  const stream = new ReplyStream(adapter, address);
  const start = process.hrtime.bigint();
  const visible = slack.waitFor((fake) => fake.botMessages(channel, address.threadId).some((message) => message.text.trim() !== '') || undefined, 30_000).then(() => elapsedMs(start));
  let readyMs = 0;
  for (let at = 0; at < answer.length; at += TOKEN_CHARS) {
    stream.push(answer.slice(at, at + TOKEN_CHARS));
    if (readyMs === 0 && at + TOKEN_CHARS >= PREVIEW_MIN) readyMs = elapsedMs(start);
    await sleep(TOKEN_MS);
  }
  const previewId = await stream.close();
  await adapter.send(address, { text: answer, ...(previewId !== undefined ? { replace: previewId } : {}) });
  const visibleMs = await visible;
  const shown = slack.botMessages(channel, address.threadId);
  if (shown.length !== 1 || shown[0]!.text.trim() !== answer) throw new Error(`slack-stream bench: the reply was not one message with the answer (${shown.length} messages)`);
  return { visibleMs, readyMs, requests: slack.calls.length - callsBefore };
}

/** A bare chat.postMessage round trip to `side`'s fake, median over {@link FLOOR_CALLS}. */
async function postFloorMs({ client }: Side): Promise<number> {
  const samples: number[] = [];
  for (let index = 0; index < FLOOR_CALLS; index++) {
    const start = process.hrtime.bigint();
    await client.chat.postMessage({ channel: 'D0FLOOR01', text: 'floor' });
    samples.push(elapsedMs(start));
  }
  return median(samples.slice(5));
}

export default async function run(): Promise<BenchResult[]> {
  const streaming = await side(false);
  const editing = await side(true);
  const words = 'the plan for the week starts with writing then review and a day of rest '.repeat(20);
  const answer = words.slice(0, ANSWER_CHARS).trim();
  const results = { stream: [] as Awaited<ReturnType<typeof reply>>[], update: [] as Awaited<ReturnType<typeof reply>>[] };
  try {
    const floors = { stream: await postFloorMs(streaming), update: await postFloorMs(editing) };
    for (let index = 0; index < WARMUP + REPLIES; index++) {
      // Alternating, so both see the same machine.
      const a = await reply(streaming, answer);
      const b = await reply(editing, answer);
      if (index >= WARMUP) {
        results.stream.push(a);
        results.update.push(b);
      }
    }
    if (streaming.slack.callsOf('chat.startStream').some((call) => call.error)) throw new Error('slack-stream bench: streaming was refused on the streaming side');
    const visible = (mode: 'stream' | 'update') => median(results[mode].map((r) => r.visibleMs));
    const overFloor = (mode: 'stream' | 'update') => median(results[mode].map((r) => r.visibleMs / (r.readyMs + floors[mode])));
    const requests = (mode: 'stream' | 'update') => median(results[mode].map((r) => r.requests));
    return [
      { name: 'first visible words, native stream (median)', value: visible('stream'), unit: 'ms', note: `${REPLIES} replies of ${answer.length} chars, ${TOKEN_CHARS} chars every ${TOKEN_MS} ms` },
      { name: 'first visible words, chat.update previews (median)', value: visible('update'), unit: 'ms' },
      { name: 'first visible words, stream / chat.update', value: visible('stream') / visible('update'), unit: 'x', target: '<= 1.2', pass: visible('stream') / visible('update') <= 1.2 },
      { name: 'first visible words over floor, native stream', value: overFloor('stream'), unit: 'x', target: '<= 1.5', pass: overFloor('stream') <= 1.5, note: `floor: first words pushed + bare chat.postMessage (${floors.stream.toFixed(2)} ms)` },
      { name: 'first visible words over floor, chat.update previews', value: overFloor('update'), unit: 'x', target: '<= 1.5', pass: overFloor('update') <= 1.5, note: `bare chat.postMessage ${floors.update.toFixed(2)} ms` },
      { name: 'platform requests per reply, native stream (median)', value: requests('stream'), unit: 'requests', note: 'chat.startStream, appendStream per edit interval, stopStream with the rest' },
      { name: 'platform requests per reply, chat.update previews (median)', value: requests('update'), unit: 'requests', note: 'the refused chat.startStream asked once per process (not in these replies), postMessage, chat.update per edit interval, the final chat.update' },
    ];
  } finally {
    for (const { adapter, slack } of [streaming, editing]) {
      await adapter.stop();
      await slack.close();
    }
  }
}
