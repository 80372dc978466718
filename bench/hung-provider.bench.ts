/**
 * A model provider that hangs (issue 31, "Benchmarks"), through the real gateway process
 * (`node bin/operator.js start`), the real Anthropic SDK and grammy against the fake model and
 * the fake Telegram (long polling), both in this process: they only hold connections and answer
 * a few hundred calls, so their CPU stays small beside the gateway's. Three figures:
 *
 * 1. Time from a hung call's start (the fake model receiving it) to the person's first notice
 *    (the fake Telegram receiving it), for 20 conversations, with the default `notifyAfterSeconds`
 *    (15): the target is the setting plus a second.
 * 2. While 520 turns hang on the provider (500 and those 20), the answer time of 20 unrelated
 *    conversations on the same provider, one after another, from the update being queued at the
 *    fake Telegram to the reply arriving there (a long poll is held open, so it hears at once).
 * 3. The gateway's resident memory while they hang, against the same gateway idle after a turn,
 *    and per hanging turn.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { startFakeModelServer, type FakeModelServer } from '../test/fakes/fake-model-server.ts';
import { startFakeTelegramServer, type FakeTelegram } from '../test/fakes/fake-telegram-server.ts';
import { compiledIsFresh, freePort, residentKb, spawnGateway } from './gateway-process.ts';
import { benchHome, elapsedMs, median, quantile, type BenchResult } from './lib.ts';

const HUNG = 500;
const NOTICED = 20;
const UNRELATED = 20;
const NOTIFY_AFTER_SECONDS = 15;
const ANSWER = 'Answered while the others wait.';
const NOTICE = 'slow to answer; still trying';
const TIMEOUT_MS = 180_000;

export default async function hungProviderBench(): Promise<BenchResult[]> {
  const model = await startFakeModelServer();
  const telegram = await startFakeTelegramServer();
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  model.setDefault((request) => (request.rawBody.includes('please hang') ? { text: 'never sent', holdUntil: held } : { text: ANSWER }));
  const home = benchHome('operator-bench-hung-');
  mkdirSync(join(home, 'work'), { recursive: true });
  const port = await freePort();
  const gateway = spawnGateway({
    port,
    env: {
      HOME: home,
      OPERATOR_HOME: home,
      ANTHROPIC_API_KEY: 'bench-key',
      ANTHROPIC_BASE_URL: model.anthropicBaseURL,
      TELEGRAM_BOT_TOKEN: telegram.token,
      TELEGRAM_API_ROOT: telegram.apiRoot,
      OPERATOR_DM_POLICY: 'open',
      OPERATOR_REVIEW_EVERY: '0',
      // The call hangs for the whole run: no first-byte timeout and retry meanwhile.
      OPERATOR_MODEL_FIRST_BYTE_SECONDS: '3600',
      OPERATOR_MODEL_NOTIFY_AFTER_SECONDS: String(NOTIFY_AFTER_SECONDS),
    },
  });
  const compiled = compiledIsFresh() ? 'compiled dist/' : 'sources through tsx';
  try {
    await gateway.ready(60_000);
    const say = (chat: number, text: string) => telegram.pushUpdate(telegram.textMessage({ chatId: chat, text, from: { id: chat, first_name: 'Person' } }));
    // One turn first, so the idle figure is of a gateway that has answered.
    say(9_000_000, 'hello');
    await answered(telegram, 9_000_000, TIMEOUT_MS);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const idleKb = residentKb(gateway.pid);

    // 1. From each hung call's start to its person's notice.
    const noticed = Array.from({ length: NOTICED }, (_, index) => 9_100_000 + index);
    for (const chat of noticed) say(chat, `please hang #${chat}`);
    const seenAt = new Map<number, number>();
    await telegram.waitFor(() => {
      const now = Number(process.hrtime.bigint()) / 1e6;
      for (const chat of noticed) if (!seenAt.has(chat) && telegram.messages(chat).some((message) => message.text.includes(NOTICE))) seenAt.set(chat, now);
      return seenAt.size === noticed.length ? true : undefined;
    }, TIMEOUT_MS);
    const startedAt = callStarts(model, noticed);
    const noticeSeconds = noticed.map((chat) => (seenAt.get(chat)! - startedAt.get(chat)!) / 1000);

    // 2. and 3. 500 more hang; unrelated conversations meanwhile; memory while they wait.
    const hung = Array.from({ length: HUNG }, (_, index) => 9_200_000 + index);
    for (const chat of hung) say(chat, 'please hang');
    await until(() => hanging(model) >= HUNG + NOTICED, TIMEOUT_MS, () => `${hanging(model)} of ${HUNG + NOTICED} calls hang`);
    const answerMs: number[] = [];
    for (let index = 0; index < UNRELATED; index++) {
      const chat = 9_300_000 + index;
      const start = process.hrtime.bigint();
      say(chat, 'anyone home?');
      await answered(telegram, chat, TIMEOUT_MS);
      answerMs.push(elapsedMs(start));
    }
    const hungKb = residentKb(gateway.pid);
    const stillHung = hanging(model);
    const p99 = quantile(answerMs, 0.99);
    const noticeP99 = quantile(noticeSeconds, 0.99);
    return [
      {
        name: `hung call's start to the person's first notice (p50, notifyAfterSeconds ${NOTIFY_AFTER_SECONDS}, ${NOTICED} conversations)`,
        value: median(noticeSeconds),
        unit: 's',
      },
      {
        name: `hung call's start to the person's first notice (p99)`,
        value: noticeP99,
        unit: 's',
        target: `<= ${NOTIFY_AFTER_SECONDS + 1} s`,
        pass: noticeP99 <= NOTIFY_AFTER_SECONDS + 1,
        note: compiled,
      },
      { name: `unrelated conversation's answer while ${stillHung} turns hang on its provider (p50)`, value: median(answerMs), unit: 'ms' },
      {
        name: `unrelated conversation's answer while ${stillHung} turns hang on its provider (p99, ${UNRELATED} in a row)`,
        value: p99,
        unit: 'ms',
        target: '<= 5000 ms',
        pass: p99 <= 5_000,
        note: compiled,
      },
      { name: 'gateway RSS, idle after one turn', value: Math.round(idleKb / 1024), unit: 'MiB' },
      { name: `gateway RSS while ${stillHung} turns hang`, value: Math.round(hungKb / 1024), unit: 'MiB' },
      { name: 'gateway RSS per hanging turn', value: (hungKb - idleKb) / stillHung, unit: 'KiB' },
    ];
  } finally {
    release();
    await gateway.stop();
    await telegram.close();
    await model.close();
    rmSync(home, { recursive: true, force: true });
  }
}

/** Calls of the fake model asking to hang. */
function hanging(model: FakeModelServer): number {
  return model.requests.filter((request) => request.rawBody.includes('please hang')).length;
}

/** When each of `chats`' first hanging call reached the fake model (hrtime ms). */
function callStarts(model: FakeModelServer, chats: readonly number[]): Map<number, number> {
  const starts = new Map<number, number>();
  for (const request of model.requests) {
    if (!request.rawBody.includes('please hang')) continue;
    const chat = chats.find((id) => request.rawBody.includes(`please hang #${id}`));
    if (chat !== undefined && !starts.has(chat)) starts.set(chat, request.receivedAt!);
  }
  return starts;
}

/** Resolves once the bot's reply in `chat` is the fake model's answer. */
function answered(telegram: FakeTelegram, chat: number, timeoutMs: number): Promise<unknown> {
  return telegram.waitFor(() => telegram.messages(chat).some((message) => message.text === ANSWER) || undefined, timeoutMs);
}

/** Polls `done` (it reads the fake model's record, which tells no one of changes). */
async function until(done: () => boolean, timeoutMs: number, what: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
