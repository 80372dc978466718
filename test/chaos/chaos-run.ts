/**
 * A chaos run over the fake Telegram: the real gateway process answers messages in many chats
 * while it is killed (SIGKILL) at random moments and started again on the same OPERATOR_HOME.
 * Webhook updates are delivered like Telegram does (again and again until a 200), long-poll
 * updates stay with the fake until the gateway confirms them. At the end every message must be
 * answered by exactly one whole answer, in order per chat, with no preview left unfinished.
 */
import type { Update } from 'grammy/types';
import { freePort } from '../helpers/free-port.ts';
import { startGateway, type StartedGateway } from '../helpers/gateway-process.ts';
import { startTelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { between, seededRandom } from './random.ts';
import { chaosReply, countAnswers, type ChaosCount, type ChatOutcome } from './chaos-answers.ts';

/** What to run. */
export interface ChaosOptions {
  mode: 'webhook' | 'polling';
  /** Messages to send in all. */
  messages: number;
  /** Chats they are spread over. */
  chats: number;
  /** SIGKILLs while they are sent and answered. */
  kills: number;
  seed: number;
  busyMode?: 'followUp' | 'steer' | 'interrupt';
  /** Share of messages followed at once by one or two more in the same chat (follow-ups). */
  burstShare?: number;
  /** Pause between streamed pieces of every answer (default 15 ms: a turn takes about 0.3 s). */
  streamDelayMs?: number;
  /** Longest wait for the last answers once everything was sent (default 60 s). */
  settleMs?: number;
}

/** What a chaos run found, and how it went. */
export interface ChaosSummary extends ChaosCount {
  /** The platform the run went through (default Telegram). */
  platform?: string;
  options: ChaosOptions;
  kills: number;
  wallMs: number;
  /** Webhook deliveries refused or failed (the gateway down, or refusing), each tried again. */
  redeliveries: number;
  /** With `CHAOS_DEBUG=1`: every chat, the bot's calls and what each gateway process printed. */
  debug?: { chats: [number, ChatOutcome][]; output: string; calls: string[] };
}

/** Runs one chaos run and counts what the chats show at the end. */
export async function runTelegramChaos(options: ChaosOptions): Promise<ChaosSummary> {
  const started = performance.now();
  const random = seededRandom(options.seed);
  const fakes = await startTelegramGatewayFakes('operator-chaos-');
  const { telegram, model } = fakes;
  model.setDefault((request) => chaosReply(request, options.streamDelayMs ?? 15));
  writeFileSync(join(fakes.home, 'operator.json'), JSON.stringify({ busyMode: options.busyMode ?? 'followUp' }));
  const secret = 'chaos-secret-1';
  const port = options.mode === 'webhook' ? await freePort() : undefined;
  const env = {
    ...fakes.env([]),
    OPERATOR_DM_POLICY: 'open',
    ...(port !== undefined && { TELEGRAM_WEBHOOK_URL: `http://127.0.0.1:${port}/webhooks/telegram`, TELEGRAM_WEBHOOK_SECRET: secret }),
  };
  const start = () => startGateway({ home: fakes.home, env, ...(port !== undefined && { port }) }, 30_000);
  let gateway: StartedGateway | undefined = await start();
  const chats = new Map<number, ChatOutcome>();
  const deliveries: Promise<void>[] = [];
  /** Per chat, the delivery of its last update: a chat's updates go one after another. */
  const chatQueues = new Map<number, Promise<void>>();
  let redeliveries = 0;
  let kills = 0;
  const earlierOutput: string[] = [];
  const killTimes: number[] = [];
  let stopped = false;

  /**
   * Posts an update until the gateway takes it (200), as Telegram retries a webhook; the updates
   * of one chat go one after another (Telegram does not promise an order across its connections,
   * so a chat's order is only defined when its updates come in order).
   */
  const deliver = async (update: Update) => {
    for (;;) {
      const status = await telegram.postWebhook(update).catch(() => 0);
      if (status === 200 || stopped) return;
      redeliveries++;
      await new Promise((resolve) => setTimeout(resolve, 100 + between(random, 0, 200)));
    }
  };
  const send = (chat: number, index: number) => {
    const token = `m${index}-c${chat}`;
    const outcome = chats.get(chat) ?? { sent: [], botTexts: [] };
    outcome.sent.push(token);
    chats.set(chat, outcome);
    const update = telegram.textMessage({ chatId: chat, text: `${token} please answer`, from: { id: chat, first_name: `P${chat}` } });
    if (options.mode === 'webhook') {
      const next = (chatQueues.get(chat) ?? Promise.resolve()).then(() => deliver(update));
      chatQueues.set(chat, next);
      deliveries.push(next);
    }
    else telegram.pushUpdate(update);
  };

  // Kills at random moments while messages go out and turns stream.
  const sendingMs = options.messages * 30;
  const killAt = Array.from({ length: options.kills }, () => between(random, 300, sendingMs + 1_500)).sort((a, b) => a - b);
  const killer = (async () => {
    const begin = performance.now();
    for (const at of killAt) {
      const wait = at - (performance.now() - begin);
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      killTimes.push(Date.now());
      await gateway!.kill();
      earlierOutput.push(gateway!.output.all());
      kills++;
      await new Promise((resolve) => setTimeout(resolve, between(random, 50, 400)));
      gateway = await start();
    }
  })();

  const firstChat = 9_000_000 + between(random, 0, 999) * 1_000;
  for (let index = 0; index < options.messages; ) {
    const chat = firstChat + between(random, 1, options.chats);
    const burst = random() < (options.burstShare ?? 0.2) ? between(random, 2, 3) : 1;
    for (let part = 0; part < burst && index < options.messages; part++) send(chat, index++);
    await new Promise((resolve) => setTimeout(resolve, between(random, 5, 55) * burst));
  }
  await killer;
  if (options.mode === 'webhook') await Promise.all(deliveries);

  // Settled: every message answered, or nothing changed for a while.
  const settleBy = performance.now() + (options.settleMs ?? 60_000);
  let lastCalls = -1;
  let quietSince = performance.now();
  while (performance.now() < settleBy) {
    const answered = [...chats.keys()].every((chat) => {
      const texts = telegram.messages(chat).map((message) => message.text).join('\n');
      return chats.get(chat)!.sent.every((token) => texts.includes(`${token} `) || texts.includes(`${token}:`));
    });
    const calls = telegram.calls.length;
    if (calls !== lastCalls) {
      lastCalls = calls;
      quietSince = performance.now();
    }
    if (answered && performance.now() - quietSince > 1_500) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  stopped = true;
  // A preview the fake took less than a second before a kill and never saw edited: the killed
  // process may not have heard its id (it edits a preview it knows within its edit interval).
  const nearKill = (at: number) => killTimes.some((kill) => kill >= at && kill - at < 1_000);
  for (const [chat, outcome] of chats) {
    const messages = telegram.messages(chat);
    outcome.botTexts = messages.map((message) => message.text);
    outcome.sentAsKilled = messages.map((message) => message.edits === 0 && nearKill(message.createdAt));
  }
  const count = countAnswers(chats, { interrupted: options.busyMode === 'interrupt' });
  const debug = !process.env.CHAOS_DEBUG ? undefined : { chats: [...chats.entries()], output: [...earlierOutput, gateway.output.all()].join('\n=== restart ===\n'), calls: telegram.calls.filter((call) => call.method !== 'getUpdates' && call.method !== 'sendChatAction').map((call) => `${call.method} ${String(call.params.chat_id)} ${String(call.params.message_id ?? '')} ${String(call.params.text ?? '').slice(0, 30)}`) };
  await gateway.stop();
  await fakes.close();
  return { ...count, options, kills, wallMs: Math.round(performance.now() - started), redeliveries, ...(debug && { debug }) };
}

/** A one-line summary and the details of what went wrong, for a failed assertion or a report. */
export function describeChaos(summary: ChaosSummary): string {
  const { options } = summary;
  const head = `${summary.platform ?? 'telegram'} ${options.mode}, ${summary.sent} messages in ${options.chats} chats, ${summary.kills} kills, seed ${options.seed} (CHAOS_SEED=${options.seed}): ${summary.once} answered once, ${summary.lost.length} lost, ${summary.twice.length} twice, ${summary.dangling.length} dangling previews (and ${summary.orphaned.length} orphaned by a kill before their id came back), ${summary.other.length} other messages, ${summary.outOfOrder.length} chats out of order, ${summary.stopped} answers stopped by a newer message; ${summary.redeliveries} webhook redeliveries; ${summary.wallMs} ms`;
  const details = [
    summary.lost.length > 0 ? `lost: ${summary.lost.slice(0, 20).join(', ')}` : '',
    summary.twice.length > 0 ? `twice: ${summary.twice.slice(0, 20).join(', ')}` : '',
    summary.dangling.length > 0 ? `dangling: ${summary.dangling.slice(0, 5).join(' | ')}` : '',
    summary.orphaned.length > 0 ? `orphaned: ${summary.orphaned.slice(0, 5).join(' | ')}` : '',
    summary.other.length > 0 ? `other: ${summary.other.slice(0, 5).join(' | ')}` : '',
    summary.outOfOrder.length > 0 ? `out of order: ${summary.outOfOrder.slice(0, 10).join(', ')}` : '',
  ].filter((line) => line !== '');
  return [head, ...details].join('\n');
}
