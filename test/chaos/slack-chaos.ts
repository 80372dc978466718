/**
 * The chaos run's Slack: the fake Slack's Events API over HTTP. Each event is posted, signed, and
 * retried as Slack does, on a schedule compressed 30 times: Slack retries an event that did not
 * get a 200 within 3 seconds up to three times (nearly at once, after a minute, after five
 * minutes, with `X-Slack-Retry-Num` and `X-Slack-Retry-Reason`); here after 0.1 s, 2 s and 10 s,
 * each post waiting at most 3 s. An event still without a 200 after that is given up, as Slack
 * does, and counted as not accepted. Slack does not promise an order; a conversation's events are
 * posted one after another here, so its order is defined. Acknowledged: a 200.
 */
import { startSlackGatewayFakes } from '../helpers/slack-gateway-fakes.ts';
import type { ChaosPlatform } from './chaos-driver.ts';

/** When Slack tries an event again after its first post, ms (Slack's 0 s, 60 s and 300 s compressed 30 times, the first a moment later). */
const retryAfterMs = [100, 2_000, 10_000];
/** How long Slack waits for an answer. */
const answerTimeoutMs = 3_000;

/** The Slack platform, with its fakes started (the gateway is not). */
export async function slackPlatform(): Promise<ChaosPlatform> {
  const fakes = await startSlackGatewayFakes('operator-chaos-slack-');
  const { slack } = fakes;
  const channelOf = (chat: number) => `D0CHAOS${chat}`;
  const acknowledged = new Set<string>();
  const chains = new Map<number, Promise<void>>();
  let pending = 0;
  let redeliveries = 0;
  /** Posts that did not get a 200, by what happened instead. */
  const failures = new Map<string, number>();
  const failed = (kind: string) => failures.set(kind, (failures.get(kind) ?? 0) + 1);
  let givenUp = 0;

  /** Posts one event until it gets a 200 or Slack would give up. */
  const deliver = async (request: ReturnType<typeof slack.envelope>, token: string) => {
    for (let attempt = 0; attempt <= retryAfterMs.length; attempt++) {
      if (attempt > 0) {
        redeliveries++;
        await new Promise((resolve) => setTimeout(resolve, retryAfterMs[attempt - 1]! - (retryAfterMs[attempt - 2] ?? 0)));
      }
      const retry = attempt > 0 ? { retryNum: attempt, retryReason: 'http_error' } : {};
      const status = await fakes.post(request, { ...retry, timeoutMs: answerTimeoutMs }).then(
        (result) => result.status,
        (error: unknown) => failureKind(error),
      );
      if (status === 200) return void acknowledged.add(token);
      failed(typeof status === 'number' ? `HTTP ${status}` : status);
    }
    givenUp++;
  };
  return {
    model: fakes.model,
    home: fakes.home,
    start: () => fakes.startGateway([]),
    send(chat, text, token) {
      const request = slack.envelope(slack.personMessage({ channel: channelOf(chat), text, from: { id: `U0CHAOS${chat}`, name: `P${chat}` } }));
      pending++;
      chains.set(chat, (chains.get(chat) ?? Promise.resolve()).then(() => deliver(request, token)).finally(() => pending--));
    },
    delivering: () => pending > 0,
    botMessages: (chat) => slack.botMessages(channelOf(chat)).map(({ text, edits, createdAt, ts }) => ({ text, edits, createdAt, noteKey: `${channelOf(chat)}:${ts}` })),
    activity: () => slack.calls.length,
    delivery: (token) => ({ acknowledged: acknowledged.has(token) }),
    redeliveries: () => redeliveries,
    deliveryNotes: () => `Slack posts without a 200: ${[...failures].map(([kind, times]) => `${times} ${kind}`).join(', ') || 'none'}; ${givenUp} events given up after the third retry`,
    calls: () => slack.calls.map((call) => `${call.method} ${String(call.params.channel)} ${String(call.params.ts ?? '')} ${String(call.params.text ?? '').slice(0, 30)}`),
    close: () => fakes.close(),
  };
}

/** What kept a post from its answer: the gateway not listening, not answering within 3 s, or gone while answering. */
function failureKind(error: unknown): string {
  const cause = (error as { cause?: { code?: string } }).cause;
  if (error instanceof DOMException && (error.name === 'TimeoutError' || error.name === 'AbortError')) return 'not answered within 3 s';
  if (cause?.code === 'ECONNREFUSED') return 'refused (gateway down)';
  return 'connection closed before the answer';
}
