/**
 * The OpenAI-compatible API's adapter with test handlers standing in for the gateway (as the web
 * chat's harness does): its routes called with real Requests, the gateway's side played by hand
 * (the turn's start and end, what the turn sends). What the real process does end to end is in
 * `test/gateway/api-e2e.test.ts`; here, the orderings a live gateway rarely shows on cue.
 */
import { describe, expect, it } from 'vitest';
import { createApiChannel, type ApiChannel } from '../../src/channels/api/index.ts';
import type { ChannelAction, InboundMessage } from '../../src/channels/types.ts';

interface Harness {
  channel: ApiChannel;
  messages: InboundMessage[];
  actions: ChannelAction[];
  /** Resolves with the next message handed to the gateway. */
  nextMessage(): Promise<InboundMessage>;
}

async function harness(): Promise<Harness> {
  const messages: InboundMessage[] = [];
  const actions: ChannelAction[] = [];
  let waiter: ((message: InboundMessage) => void) | undefined;
  const channel = createApiChannel({ gate: () => undefined, models: async () => ['default'], maxWaitMs: 600_000, log: () => {} });
  await channel.start({
    onMessage: async (message) => {
      messages.push(message);
      waiter?.(message);
    },
    onAction: async (action) => void actions.push(action),
  });
  return { channel, messages, actions, nextMessage: () => new Promise((resolve) => (waiter = resolve)) };
}

function ask(channel: ApiChannel, user: string, content: string): Promise<Response> {
  const route = channel.routes().find((candidate) => candidate.path === '/v1/chat/completions')!;
  return route.handler(new Request('http://127.0.0.1/v1/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'default', user, messages: [{ role: 'user', content }] }) }));
}

const tokens = { input: 10, output: 5, cacheRead: 0, cacheWrite: 0 };
const address = (user: string) => ({ platform: 'api', conversationId: user });

describe('the API adapter', () => {
  it("hands a caller's second request to the gateway only once the first one's turn ended", async () => {
    const { channel, messages, nextMessage } = await harness();
    const firstTaken = nextMessage();
    const first = ask(channel, 'ann', 'one');
    const one = await firstTaken;
    const secondTaken = nextMessage();
    const second = ask(channel, 'ann', 'two');
    const turn = `${one.dedupeKey}#0`;
    channel.turnStarted('api:ann', turn);
    await channel.send(address('ann'), { text: 'Answer one.', idempotencyKey: 'ledger-1' });
    expect(messages).toHaveLength(1);
    channel.turnEnded({ sessionKey: 'api:ann', turnId: turn, status: 'ok', tokens });
    expect(((await (await first).json()) as { choices: { message: { content: string } }[] }).choices[0]?.message.content).toBe('Answer one.');
    const two = await secondTaken;
    expect(two.text).toBe('two');
    channel.turnStarted('api:ann', `${two.dedupeKey}#0`);
    await channel.send(address('ann'), { text: 'Answer two.', idempotencyKey: 'ledger-2' });
    channel.turnEnded({ sessionKey: 'api:ann', turnId: `${two.dedupeKey}#0`, status: 'ok', tokens });
    expect(((await (await second).json()) as { choices: { message: { content: string } }[] }).choices[0]?.message.content).toBe('Answer two.');
  });

  it("drops what another turn of the conversation sends (a scheduled job's), also while a request waits", async () => {
    const { channel, nextMessage } = await harness();
    channel.turnStarted('api:bo', 'job-turn#0');
    const taken = nextMessage();
    const answer = ask(channel, 'bo', 'hello');
    const message = await taken;
    // The job's reply comes while the request waits behind it: not the request's answer.
    await channel.send(address('bo'), { text: 'The job reports in.', idempotencyKey: 'ledger-job' });
    channel.turnEnded({ sessionKey: 'api:bo', turnId: 'job-turn#0', status: 'ok', tokens });
    channel.turnStarted('api:bo', `${message.dedupeKey}#0`);
    await channel.send(address('bo'), { text: 'Hello back.', idempotencyKey: 'ledger-own' });
    channel.turnEnded({ sessionKey: 'api:bo', turnId: `${message.dedupeKey}#0`, status: 'ok', tokens });
    expect(((await (await answer).json()) as { choices: { message: { content: string } }[] }).choices[0]?.message.content).toBe('Hello back.');
  });

  it('denies a question for approval at once, as the caller', async () => {
    const { channel, actions, nextMessage } = await harness();
    const taken = nextMessage();
    const answer = ask(channel, 'cy', 'write it');
    const message = await taken;
    channel.turnStarted('api:cy', `${message.dedupeKey}#0`);
    await channel.send(address('cy'), { text: 'May I write the file?', approval: { tool: 'write_file', arguments: {}, reason: 'writes need a yes' } });
    expect(actions).toEqual([expect.objectContaining({ data: 'deny', sessionKey: 'api:cy', sender: expect.objectContaining({ id: 'cy' }) })]);
    await channel.send(address('cy'), { text: 'I was not allowed to write it.', idempotencyKey: 'ledger-cy' });
    channel.turnEnded({ sessionKey: 'api:cy', turnId: `${message.dedupeKey}#0`, status: 'ok', tokens });
    expect((await answer).status).toBe(200);
  });

  it("answers a failed turn with the status its failure calls for and what the person was told", async () => {
    const { channel, nextMessage } = await harness();
    for (const [failure, status, code, retryAfter] of [
      [{ category: 'PROVIDER', kind: 'RATE_LIMIT', provider: 'anthropic', retryAfterMs: 7_500 }, 429, 'upstream_rate_limited', '8'],
      [{ category: 'BUDGET' }, 429, 'insufficient_quota', null],
      [{ category: 'PROVIDER', kind: 'OVERLOADED', provider: 'openai' }, 503, 'upstream_overloaded', null],
      [{ category: 'PROVIDER', kind: 'CONTEXT_OVERFLOW', provider: 'openai' }, 400, 'context_length_exceeded', null],
      [{ category: 'INTERNAL' }, 500, 'internal_error', null],
    ] as const) {
      const taken = nextMessage();
      const answer = ask(channel, 'di', 'hi');
      const message = await taken;
      channel.turnStarted('api:di', `${message.dedupeKey}#0`);
      await channel.send(address('di'), { text: `Told: ${code}.` });
      channel.turnEnded({ sessionKey: 'api:di', turnId: `${message.dedupeKey}#0`, status: 'error', tokens, failure });
      const response = await answer;
      expect(response.status).toBe(status);
      expect(response.headers.get('retry-after')).toBe(retryAfter);
      expect(await response.json()).toEqual({ error: { message: `Told: ${code}.`, type: expect.any(String), param: null, code } });
    }
  });
});
