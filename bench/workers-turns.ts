/**
 * Turns driven the same way through any Telegram bot behind a webhook: the Node gateway, the
 * Worker in local workerd, the floor relay. The webhook POST is the clock's start; the reply
 * arriving at the fake Telegram (stamped in its own process, see `gateway-telegram-child.ts`) is
 * its end. Each sequential turn has its floor, as in `gateway.bench.ts`: a bare round trip to the
 * same server (`GET /healthz`), the request that turn sent to the fake model replayed through the
 * bare SDK, and a bare `sendMessage`: the HTTP calls a turn cannot do without.
 */
import Anthropic from '@anthropic-ai/sdk';
import { Api, type ApiClientOptions } from 'grammy/web';
import { readFileSync } from 'node:fs';
import { replayRequest, type FakeModelProcess } from './fake-model-process.ts';
import { cpuMs, createHttpClient } from './gateway-process.ts';
import type { FakeTelegramProcess } from './gateway-telegram-process.ts';
import { elapsedMs } from './lib.ts';
import { REPLY, SECRET, WEBHOOK_PATH, textUpdate } from './telegram-updates.ts';
import { keepAliveFetch, loadKeepAliveFetch } from '../src/core/keep-alive-fetch.ts';

export { REPLY, SECRET, WEBHOOK_PATH, textUpdate } from './telegram-updates.ts';

/** A bot under measurement: where it listens and the process whose CPU it uses. */
export interface Target {
  readonly name: string;
  readonly origin: string;
  readonly pid: number;
}

/** Posts webhooks to `target` over kept-alive connections, as Telegram does (up to `connections` at once). */
export function webhookClient(target: Target, connections: number): {
  post(body: string, secret?: string): Promise<number>;
  /** Deliveries made again after a reset. */
  resets(): number;
  get(path: string): Promise<number>;
  close(): void;
} {
  const client = createHttpClient(target.origin, connections);
  // A fresh connection (no keep-alive) for a delivery the server reset before it answered.
  const fresh = createHttpClient(target.origin, connections, { keepAlive: false });
  let resets = 0;
  const post = (via: typeof client, body: string, secret: string) => via.request('POST', WEBHOOK_PATH, { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': secret }, body);
  return {
    // A reused keep-alive connection the server closed as the request went out is reset before
    // any answer: the update is delivered again, as Telegram redelivers an unacknowledged one
    // (it is taken once: the Worker recognises a redelivery).
    post: (body, secret = SECRET) =>
      post(client, body, secret).catch((error: unknown) => {
        if (!isReset(error)) throw error;
        resets++;
        return post(fresh, body, secret);
      }),
    resets: () => resets,
    get: (path) => client.request('GET', path),
    close: () => {
      client.close();
      fresh.close();
    },
  };
}

/** One sequential turn and its floor, in ms. */
export interface TurnSample {
  turn: number;
  /** The webhook POST until its answer (the message on record). */
  acked: number;
  /** The webhook POST until the fake model had the turn's request. */
  modelReached: number;
  health: number;
  sdk: number;
  send: number;
  floor: number;
}

/** The bare calls of the floor: the SDK and grammy over the transport operator's providers use on Node. */
export async function floorClients(model: Pick<FakeModelProcess, 'anthropicBaseURL'>, telegram: FakeTelegramProcess): Promise<{ sdk: Anthropic; api: Api }> {
  const fetch = await loadKeepAliveFetch().then(() => keepAliveFetch);
  return {
    sdk: new Anthropic({ apiKey: 'bench-key', baseURL: model.anthropicBaseURL, maxRetries: 0, fetch }),
    api: new Api(telegram.token, { apiRoot: telegram.apiRoot, fetch: keepAliveFetch as unknown as ApiClientOptions['fetch'] }),
  };
}

/** A turn's times, from the webhook POST, and the model request it made (the floor replays it). */
export type TurnTiming = Pick<TurnSample, 'turn' | 'acked' | 'modelReached'> & { modelBody: string };

/** One turn in `chat` through `target`: the webhook POST to the reply's arrival, and its stages. */
export async function timeTurn(target: Target, client: ReturnType<typeof webhookClient>, telegram: FakeTelegramProcess, model: Pick<FakeModelProcess, 'lastRequest'>, chat: number, text: string): Promise<TurnTiming> {
  telegram.reset();
  const start = process.hrtime.bigint();
  const status = await client.post(textUpdate(chat, text));
  const acked = elapsedMs(start);
  if (status !== 200) throw new Error(`${target.name}: the webhook answered ${status}`);
  await telegram.replies([chat], 30_000);
  const turn = Number(telegram.arrived.get(chat)! - start) / 1e6;
  const request = await model.lastRequest();
  const modelReached = request.receivedAt === undefined ? Number.NaN : request.receivedAt - Number(start) / 1e6;
  return { turn, acked, modelReached, modelBody: request.body };
}

/**
 * A turn's floor: a `GET /healthz` round trip to `target`, the turn's model request replayed
 * through the bare SDK, and a bare `sendMessage` to `floorChat`. Taken once the target has
 * finished the turn's own work after its reply (the delivery noted and made durable), so that
 * work does not land in the floor: see `workers-overhead.ts` for the order.
 */
export async function timeFloor(target: Target, client: ReturnType<typeof webhookClient>, floor: { sdk: Anthropic; api: Api; floorChat: number }, modelBody: string): Promise<Pick<TurnSample, 'health' | 'sdk' | 'send' | 'floor'>> {
  let t = process.hrtime.bigint();
  const healthStatus = await client.get('/healthz');
  const health = elapsedMs(t);
  if (healthStatus !== 200) throw new Error(`${target.name}: /healthz answered ${healthStatus}`);

  const sdk = await replayRequest(floor.sdk, modelBody);

  t = process.hrtime.bigint();
  await floor.api.sendMessage(floor.floorChat, REPLY, { parse_mode: 'HTML' });
  const send = elapsedMs(t);
  return { health, sdk, send, floor: health + sdk + send };
}

/** What one wave of conversations at once gave. */
export interface WaveResult {
  /** Webhook POST of the first message to the last chat's reply. */
  wallMs: number;
  /** Until every webhook was answered (taken on record). */
  postedMs: number;
  refused: number;
  /** POSTs delivered again after the server reset their connection before answering. */
  resent: number;
  /** Chats whose last bot message is not the whole reply, once all were answered. */
  unanswered: number;
  /** Per chat: webhook POSTs' start to its reply's arrival, ms. */
  latencies: number[];
  turnsPerSecond: number;
  /** CPU time of the target's process over the wave, ms. */
  targetCpuMs: number;
}

/**
 * Every chat of `chats` posts one message at once (`connections` POSTs in flight); resolves once
 * every chat has its reply, or rejects after `timeoutMs`.
 */
export async function wave(target: Target, telegram: FakeTelegramProcess, chats: readonly number[], options: { connections: number; timeoutMs: number; text: string }): Promise<WaveResult> {
  const bodies = chats.map((chat) => textUpdate(chat, options.text));
  const client = webhookClient(target, options.connections);
  const watch = watchProcess(target);
  try {
    telegram.reset();
    const cpuBefore = cpuMs(target.pid);
    const start = process.hrtime.bigint();
    const answered = telegram.replies(chats, options.timeoutMs);
    // Awaited below; if the wave fails before, its later timeout must not go unhandled.
    answered.catch(() => undefined);
    let next = 0;
    let refused = 0;
    const poster = async () => {
      while (next < bodies.length) {
        const status = await client.post(bodies[next++]!);
        if (status !== 200) refused++;
      }
    };
    try {
      await Promise.race([Promise.all(Array.from({ length: options.connections }, poster)), watch.gone]);
    } catch (error) {
      throw watch.explain(error);
    }
    const postedMs = elapsedMs(start);
    await Promise.race([answered, watch.gone]);
    const wallMs = elapsedMs(start);
    const targetCpuMs = cpuMs(target.pid) - cpuBefore;
    const unanswered = await telegram.unanswered(chats);
    const latencies = chats.map((chat) => Number(telegram.arrived.get(chat)! - start) / 1e6);
    return { wallMs, postedMs, refused, resent: client.resets(), unanswered, latencies, turnsPerSecond: chats.length / (wallMs / 1000), targetCpuMs };
  } finally {
    watch.stop();
    client.close();
  }
}

/** A connection reset by the server before it answered. */
function isReset(error: unknown): boolean {
  return (error as { code?: unknown } | undefined)?.code === 'ECONNRESET';
}

/**
 * Watches `target`'s process during a wave: `gone` rejects as soon as it has exited (a crashed or
 * killed server then fails the wave at once, saying so, instead of after the wave's timeout), and
 * `explain` names the exit in the error of a request that failed because of it.
 */
function watchProcess(target: Target): { gone: Promise<never>; explain(error: unknown): unknown; stop(): void } {
  const exited = () => new Error(`${target.name}: its process (pid ${target.pid}) exited during the wave`);
  let timer: ReturnType<typeof setInterval> | undefined;
  const gone = new Promise<never>((_resolve, reject) => {
    timer = setInterval(() => {
      if (!alive(target.pid)) reject(exited());
    }, 250);
  });
  // Nobody may be waiting on it when it rejects (the wave already failed otherwise).
  gone.catch(() => undefined);
  return {
    gone,
    explain: (error) => (alive(target.pid) ? error : new Error(`${exited().message} (${error instanceof Error ? error.message : String(error)})`)),
    stop: () => clearInterval(timer),
  };
}

/** Whether process `pid` is running (not gone, not a zombie). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}
