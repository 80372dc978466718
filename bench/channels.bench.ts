/**
 * The gateway benchmark through Slack and Discord (issue 5), side by side with Telegram's
 * (`gateway.bench.ts`): the real gateway process with one platform, the fake platform in its own
 * process (`channel-fake-process.ts`), the real Anthropic SDK against the fake model answering at
 * once. Slack's messages come as signed Events API POSTs to `/webhooks/slack`; Discord's as
 * MESSAGE_CREATE dispatches over the fake's gateway websocket. Per platform:
 *
 * 1. Throughput: 1,000 conversations (Slack DMs, Discord DM channels) each send one message at
 *    once (Slack: 64 POSTs in flight; Discord: all dispatched at once), the wall time until every
 *    one has its final reply; then warm waves on the same conversations, of which the last counts.
 *    The floor is the same burst through a bare relay on the same SDKs (`channel-floor-relay.ts`).
 * 2. Overhead per turn: sequential turns over 50 warm conversations, each from the message leaving
 *    the benchmark (Slack) or the fake (Discord) to the final reply arriving at the fake, against
 *    a floor measured after every turn: a bare HTTP round trip to the gateway (`GET /healthz`;
 *    for Discord it stands for the websocket frame in, a round trip on the same machine), the bare
 *    SDK call replaying the request that turn sent to the fake model, and a bare send through the
 *    platform's SDK (`chat.postMessage`; discord.js's REST `createMessage`).
 *
 * Discord's own global rate limit (50 requests a second per bot, kept by discord.js in the
 * adapter and the relay alike) bounds its throughput figures: every turn sends one message.
 *
 * `OPERATOR_BENCH_CHANNELS` picks the platforms (default `slack,discord`).
 */
import Anthropic from '@anthropic-ai/sdk';
import { webApi } from '@slack/bolt';
import { REST, Routes } from 'discord.js';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startChannelFakeProcess, type ChannelFakeProcess } from './channel-fake-process.ts';
import { replayLastRequest, startFakeModelProcess, type FakeModelProcess } from './fake-model-process.ts';
import { compiledIsFresh, cpuMs, createHttpClient, freePort, root, spawnGateway, type GatewayProcess } from './gateway-process.ts';
import { benchHome, elapsedMs, median, quantile, type BenchResult } from './lib.ts';
import { keepAliveFetch, loadKeepAliveFetch } from '../src/core/keep-alive-fetch.ts';
import { signature } from '../test/fakes/fake-slack-events.ts';

type Platform = 'slack' | 'discord';

const CONVERSATIONS = 1_000;
const CONCURRENCY = 64;
const WAVE_TIMEOUT_MS = 60_000;
const WARM_WAVES = 2;
const SEQUENTIAL_TURNS = 300;
const SEQUENTIAL_WARMUP = 30;
const SEQUENTIAL_CONVERSATIONS = 50;
const REPLY = 'Sure, done.';
/**
 * Discord allows a bot 50 requests a second (its global rate limit, which discord.js keeps), so
 * sequential Discord turns are spaced to at most 40 a second: faster, the gateway's sends would
 * wait for the limit and the figure would measure Discord's rule, not the gateway.
 */
const DISCORD_TURN_SPACING_MS = 25;
const platforms = (process.env.OPERATOR_BENCH_CHANNELS ?? 'slack,discord').split(',').map((name) => name.trim()) as Platform[];

/** How the benchmark makes a platform's people talk. */
interface Driver {
  /** `count` fresh conversations (channel ids). */
  conversations(count: number): Promise<string[]>;
  /** One message in each conversation; when each left, and how many the receiver refused. */
  deliver(conversations: readonly string[], text: string): Promise<{ sentAt: Map<string, bigint>; refused: number }>;
  close(): void;
}

let slackNumber = 0;

/** Slack: signed Events API envelopes POSTed to `base` (the gateway or the relay). */
function slackDriver(fake: ChannelFakeProcess, base: string): Driver {
  const client = createHttpClient(base, CONCURRENCY);
  const envelope = (channel: string, text: string) => {
    const ts = `${Math.floor(Date.now() / 1000)}.${String(++slackNumber).padStart(6, '0')}`;
    const event = { type: 'message', channel, channel_type: 'im', user: `U${channel.slice(1)}`, text, ts, event_ts: ts, client_msg_id: `cm-${ts}` };
    return JSON.stringify({ token: 'legacy', team_id: 'T0FAKE001', api_app_id: 'A0APP0001', type: 'event_callback', event_id: `Ev${slackNumber}`, event_time: Math.floor(Date.now() / 1000), event });
  };
  return {
    conversations: async (count) => Array.from({ length: count }, () => `D${String(++slackNumber).padStart(9, '0')}`),
    async deliver(conversations, text) {
      const sentAt = new Map<string, bigint>();
      let next = 0;
      let refused = 0;
      const poster = async () => {
        while (next < conversations.length) {
          const channel = conversations[next++]!;
          const body = envelope(channel, text);
          const timestamp = String(Math.floor(Date.now() / 1000));
          const headers = { 'content-type': 'application/json', 'x-slack-request-timestamp': timestamp, 'x-slack-signature': signature(fake.secret, Number(timestamp), body) };
          sentAt.set(channel, process.hrtime.bigint());
          if ((await client.request('POST', '/webhooks/slack', headers, body)) !== 200) refused++;
        }
      };
      await Promise.all(Array.from({ length: Math.min(CONCURRENCY, conversations.length) }, poster));
      return { sentAt, refused };
    },
    close: () => client.close(),
  };
}

/** Discord: the fake dispatches MESSAGE_CREATE to every connected client. */
function discordDriver(fake: ChannelFakeProcess): Driver {
  return {
    conversations: (count) => fake.setup(count),
    deliver: async (conversations, text) => ({ sentAt: await fake.dispatch(conversations, text), refused: 0 }),
    close() {},
  };
}

export default async function run(): Promise<BenchResult[]> {
  const mode = compiledIsFresh() ? 'compiled dist/' : 'sources through tsx: run `npm run build` first for the figures that count';
  const model = await startFakeModelProcess({ text: REPLY, usage: { input: 1200, output: 5, cacheRead: 1000 } });
  const results: BenchResult[] = [];
  try {
    for (const platform of platforms) results.push(...(await measurePlatform(platform, model)));
  } finally {
    await model.close();
  }
  for (const result of results) if (result.pass !== undefined) result.note = result.note ? `${result.note}; ${mode}` : mode;
  return results;
}

async function measurePlatform(platform: Platform, model: FakeModelProcess): Promise<BenchResult[]> {
  const fake = await startChannelFakeProcess(platform, REPLY);
  const home = benchHome(`operator-bench-${platform}-`);
  const port = await freePort();
  const credentials: Record<string, string> =
    platform === 'slack' ? { SLACK_BOT_TOKEN: fake.token, SLACK_SIGNING_SECRET: fake.secret, SLACK_API_URL: fake.apiUrl } : { DISCORD_BOT_TOKEN: fake.token, DISCORD_API_URL: fake.apiUrl };
  const env = { HOME: home, OPERATOR_HOME: home, ANTHROPIC_API_KEY: 'bench-key', ANTHROPIC_BASE_URL: model.anthropicBaseURL, OPERATOR_DM_POLICY: 'open', OPERATOR_REVIEW_EVERY: '0', ...credentials };
  const gateway = spawnGateway({ port, env });
  const driver = platform === 'slack' ? slackDriver(fake, gateway.url) : discordDriver(fake);
  const results: BenchResult[] = [];
  try {
    await gateway.ready();
    const [warm] = await driver.conversations(1);
    await turnWave(driver, fake, [warm!], 'hello');
    const waveConversations = await driver.conversations(CONVERSATIONS);
    const first = await measureWave(platform, 'first', gateway, fake, driver, waveConversations);
    for (let wave = 1; wave < WARM_WAVES; wave++) await measureWave(platform, 'warm', gateway, fake, driver, waveConversations);
    const last = await measureWave(platform, 'warm', gateway, fake, driver, waveConversations);
    results.push(...first, ...last);
    results.push(...(await measureOverhead(platform, gateway, fake, driver, model)));
  } finally {
    driver.close();
    await gateway.stop();
    rmSync(home, { recursive: true, force: true });
  }
  try {
    const floor = await measureFloorWave(platform, fake, model);
    const shares = results
      .filter((result) => result.unit === 'turns/s')
      .map((result) => ({ name: `${result.name.replace(': turns per second', '')}: share of the floor`, value: (100 * result.value) / floor.value, unit: '%' }));
    results.push(floor, ...shares);
  } finally {
    await fake.close();
  }
  return results;
}

/** One message in each conversation; resolves once all are answered. */
async function turnWave(driver: Driver, fake: ChannelFakeProcess, conversations: readonly string[], text: string): Promise<{ sentAt: Map<string, bigint>; refused: number }> {
  fake.reset();
  const answered = fake.replies(conversations, WAVE_TIMEOUT_MS);
  const delivery = await driver.deliver(conversations, text);
  await answered;
  return delivery;
}

async function measureWave(platform: Platform, wave: 'first' | 'warm', gateway: GatewayProcess, fake: ChannelFakeProcess, driver: Driver, conversations: string[]): Promise<BenchResult[]> {
  const gatewayCpu = cpuMs(gateway.pid);
  const fakeCpu = cpuMs(fake.pid);
  const start = process.hrtime.bigint();
  const { refused } = await turnWave(driver, fake, conversations, `message of the ${wave} wave`);
  const wallMs = elapsedMs(start);
  const unanswered = await fake.unanswered(conversations);
  const turnsPerSecond = CONVERSATIONS / (wallMs / 1000);
  const label = `${platform}: ${wave === 'first' ? 'first wave (1,000 new conversations)' : `warm wave (the same 1,000, wave ${WARM_WAVES + 1})`}`;
  return [
    {
      name: `${label}: turns per second`,
      value: turnsPerSecond,
      unit: 'turns/s',
      note: `wall ${wallMs.toFixed(0)} ms; ${refused} refused, ${unanswered} without the reply; CPU per turn: gateway ${((cpuMs(gateway.pid) - gatewayCpu) / CONVERSATIONS).toFixed(2)} ms, fake ${platform} ${((cpuMs(fake.pid) - fakeCpu) / CONVERSATIONS).toFixed(2)} ms`,
    },
  ];
}

/** The same burst through the bare relay, the second of two rounds. */
async function measureFloorWave(platform: Platform, fake: ChannelFakeProcess, model: FakeModelProcess): Promise<BenchResult> {
  const folder = mkdtempSync(join(tmpdir(), 'operator-bench-floor-'));
  const bodyFile = join(folder, 'body.json');
  writeFileSync(bodyFile, await model.lastBody());
  const port = await freePort();
  const relay = spawn(process.execPath, [join(root, 'bin', 'run-ts.js'), join(root, 'bench', 'channel-floor-relay.ts'), platform], {
    env: { PATH: process.env.PATH, PORT: String(port), API_URL: fake.apiUrl, TOKEN: fake.token, SECRET: fake.secret, ANTHROPIC_BASE_URL: model.anthropicBaseURL, MODEL_BODY_FILE: bodyFile },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const driver = platform === 'slack' ? slackDriver(fake, `http://127.0.0.1:${port}`) : discordDriver(fake);
  try {
    await new Promise<void>((resolve, reject) => {
      relay.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve());
      relay.once('exit', (code) => reject(new Error(`floor relay exited with ${code}`)));
    });
    const conversations = await driver.conversations(CONVERSATIONS);
    let turnsPerSecond = 0;
    let relayCpu = 0;
    for (let round = 0; round < 2; round++) {
      const cpuBefore = cpuMs(relay.pid!);
      const start = process.hrtime.bigint();
      const { refused } = await turnWave(driver, fake, conversations, `floor message ${round}`);
      if (refused > 0) throw new Error(`floor relay refused ${refused} messages`);
      turnsPerSecond = CONVERSATIONS / (elapsedMs(start) / 1000);
      relayCpu = (cpuMs(relay.pid!) - cpuBefore) / CONVERSATIONS;
    }
    return {
      name: `${platform}: floor: a bare relay on the same SDKs, 1,000 at once: turns per second`,
      value: turnsPerSecond,
      unit: 'turns/s',
      note: `relay CPU per turn ${relayCpu.toFixed(2)} ms (the second of two rounds)`,
    };
  } finally {
    driver.close();
    relay.kill('SIGTERM');
    await new Promise((resolve) => (relay.exitCode !== null ? resolve(undefined) : relay.once('exit', resolve)));
    rmSync(folder, { recursive: true, force: true });
  }
}

/** Sequential turns, each followed by the floor's three bare round trips. */
async function measureOverhead(platform: Platform, gateway: GatewayProcess, fake: ChannelFakeProcess, driver: Driver, model: FakeModelProcess): Promise<BenchResult[]> {
  const sdk = new Anthropic({ apiKey: 'bench-key', baseURL: model.anthropicBaseURL, maxRetries: 0, fetch: await loadKeepAliveFetch().then(() => keepAliveFetch) });
  const health = createHttpClient(gateway.url, 1);
  const conversations = await driver.conversations(SEQUENTIAL_CONVERSATIONS);
  const [floorConversation] = await driver.conversations(1);
  const bareSend =
    platform === 'slack'
      ? (() => {
          const client = new webApi.WebClient(fake.token, { slackApiUrl: fake.apiUrl, retryConfig: { retries: 0 } });
          return () => client.chat.postMessage({ channel: floorConversation!, text: 'floor' });
        })()
      : (() => {
          const rest = new REST({ api: fake.apiUrl }).setToken(fake.token);
          return () => rest.post(Routes.channelMessages(floorConversation!), { body: { content: 'floor' } });
        })();
  const turns: number[] = [];
  const floors: number[] = [];
  try {
    for (let i = 0; i < SEQUENTIAL_WARMUP + SEQUENTIAL_TURNS; i++) {
      const iteration = process.hrtime.bigint();
      const conversation = conversations[i % SEQUENTIAL_CONVERSATIONS]!;
      const { sentAt } = await turnWave(driver, fake, [conversation], `question ${i}`);
      const turnMs = Number(fake.arrived.get(conversation)! - sentAt.get(conversation)!) / 1e6;

      let t = process.hrtime.bigint();
      if ((await health.request('GET', '/healthz')) !== 200) throw new Error('/healthz did not answer 200');
      const healthMs = elapsedMs(t);
      const sdkMs = await replayLastRequest(sdk, model);
      t = process.hrtime.bigint();
      await bareSend();
      const sendMs = elapsedMs(t);
      const spacing = platform === 'discord' ? DISCORD_TURN_SPACING_MS - elapsedMs(iteration) : 0;
      if (spacing > 0) await new Promise((resolve) => setTimeout(resolve, spacing));
      if (i < SEQUENTIAL_WARMUP) continue;
      turns.push(turnMs);
      floors.push(healthMs + sdkMs + sendMs);
    }
  } finally {
    health.close();
  }
  const p50 = median(turns) - median(floors);
  const p99 = quantile(turns, 0.99) - quantile(floors, 0.99);
  const send = platform === 'slack' ? 'chat.postMessage (Web API client)' : 'createMessage (discord.js REST)';
  return [
    { name: `${platform}: floor: /healthz + bare SDK call + bare ${send}, median`, value: median(floors), unit: 'ms', note: `p99 ${quantile(floors, 0.99).toFixed(2)} ms` },
    { name: `${platform}: gateway turn, message sent to the final reply at the fake, median`, value: median(turns), unit: 'ms', note: `p99 ${quantile(turns, 0.99).toFixed(2)} ms; ${SEQUENTIAL_TURNS} turns in ${SEQUENTIAL_CONVERSATIONS} conversations after ${SEQUENTIAL_WARMUP} warm-up turns` },
    { name: `${platform}: gateway overhead per turn beyond the floor (p50)`, value: p50, unit: 'ms', target: '<= 2 ms', pass: p50 <= 2 },
    { name: `${platform}: gateway overhead per turn beyond the floor (p99)`, value: p99, unit: 'ms', target: '<= 10 ms', pass: p99 <= 10 },
  ];
}
