/**
 * The chaos run over the fake Slack (Events API over HTTP): the real gateway process answers DMs
 * in many conversations while it is killed with SIGKILL at random moments and restarted on the
 * same OPERATOR_HOME. Each event is posted, signed, again and again until the gateway answers 200
 * (Slack retries with `X-Slack-Retry-Num`; one conversation's events in order). Counted like the
 * Telegram run (see `chaos-answers.ts`), unfinished previews taken just before a kill apart.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { StartedGateway } from '../helpers/gateway-process.ts';
import { startSlackGatewayFakes } from '../helpers/slack-gateway-fakes.ts';
import { chaosReply, countAnswers, type ChatOutcome } from './chaos-answers.ts';
import type { ChaosOptions, ChaosSummary } from './chaos-run.ts';
import { between, seededRandom } from './random.ts';

/** Runs one chaos run over Slack (`options.mode` is ignored: Slack posts events). */
export async function runSlackChaos(options: Omit<ChaosOptions, 'mode'>): Promise<ChaosSummary> {
  const started = performance.now();
  const random = seededRandom(options.seed);
  const fakes = await startSlackGatewayFakes('operator-chaos-slack-');
  const { slack, model } = fakes;
  model.setDefault((request) => chaosReply(request, options.streamDelayMs ?? 15));
  writeFileSync(join(fakes.home, 'operator.json'), JSON.stringify({ busyMode: options.busyMode ?? 'followUp' }));
  let gateway: StartedGateway = await fakes.startGateway([]);
  const chats = new Map<number, ChatOutcome>();
  const chatQueues = new Map<number, Promise<void>>();
  const deliveries: Promise<void>[] = [];
  let redeliveries = 0;
  let kills = 0;
  const killTimes: number[] = [];
  const channelOf = (chat: number) => `D0CHAOS${chat}`;

  /** Posts an event until the gateway takes it (200), as Slack retries. */
  const deliver = async (request: ReturnType<typeof slack.envelope>) => {
    for (let attempt = 0; ; attempt++) {
      const status = await fakes.post(request, attempt > 0 ? { retryNum: Math.min(attempt, 3), retryReason: 'http_error' } : {}).then((result) => result.status).catch(() => 0);
      if (status === 200) return;
      redeliveries++;
      await new Promise((resolve) => setTimeout(resolve, 100 + between(random, 0, 200)));
    }
  };
  const send = (chat: number, index: number) => {
    const token = `m${index}-c${chat}`;
    const outcome = chats.get(chat) ?? { sent: [], botTexts: [] };
    outcome.sent.push(token);
    chats.set(chat, outcome);
    const request = slack.envelope(slack.personMessage({ channel: channelOf(chat), text: `${token} please answer`, from: { id: `U0CHAOS${chat}`, name: `P${chat}` } }));
    const next = (chatQueues.get(chat) ?? Promise.resolve()).then(() => deliver(request));
    chatQueues.set(chat, next);
    deliveries.push(next);
  };

  const sendingMs = options.messages * 30;
  const killAt = Array.from({ length: options.kills }, () => between(random, 300, sendingMs + 1_500)).sort((a, b) => a - b);
  const killer = (async () => {
    const begin = performance.now();
    for (const at of killAt) {
      const wait = at - (performance.now() - begin);
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      killTimes.push(Date.now());
      await gateway.kill();
      kills++;
      await new Promise((resolve) => setTimeout(resolve, between(random, 50, 400)));
      gateway = await fakes.startGateway([]);
    }
  })();

  for (let index = 0; index < options.messages; ) {
    const chat = 1_000 + between(random, 1, options.chats);
    const burst = random() < (options.burstShare ?? 0.2) ? between(random, 2, 3) : 1;
    for (let part = 0; part < burst && index < options.messages; part++) send(chat, index++);
    await new Promise((resolve) => setTimeout(resolve, between(random, 5, 55) * burst));
  }
  await killer;
  await Promise.all(deliveries);

  const settleBy = performance.now() + (options.settleMs ?? 60_000);
  let lastCalls = -1;
  let quietSince = performance.now();
  while (performance.now() < settleBy) {
    const answered = [...chats].every(([chat, { sent }]) => {
      const texts = slack.botMessages(channelOf(chat)).map((message) => message.text).join('\n');
      return sent.every((token) => texts.includes(`${token} `) || texts.includes(`${token}:`));
    });
    if (slack.calls.length !== lastCalls) {
      lastCalls = slack.calls.length;
      quietSince = performance.now();
    }
    if (answered && performance.now() - quietSince > 1_500) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  // As over Telegram: a preview taken less than a second before a kill and never edited may be one
  // the killed process never heard the ts of.
  const nearKill = (at: number) => killTimes.some((kill) => kill >= at && kill - at < 1_000);
  for (const [chat, outcome] of chats) {
    const messages = slack.botMessages(channelOf(chat));
    outcome.botTexts = messages.map((message) => message.text);
    outcome.sentAsKilled = messages.map((message) => message.edits === 0 && nearKill(message.createdAt));
  }
  const count = countAnswers(chats, { interrupted: options.busyMode === 'interrupt' });
  await gateway.stop();
  await fakes.close();
  return { ...count, platform: 'slack', options: { ...options, mode: 'webhook' }, kills, wallMs: Math.round(performance.now() - started), redeliveries };
}
