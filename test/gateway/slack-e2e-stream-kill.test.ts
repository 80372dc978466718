/**
 * A native Slack stream (`chat.startStream`) left by a gateway killed with SIGKILL mid-stream: the
 * real gateway process against the fake Slack, restarted on the same OPERATOR_HOME. Whether the
 * killed process had heard the stream's ts (the inbox noted it as the preview) or not (the answer
 * to `chat.startStream` was lost on the way back: Slack took it, the process never heard), the
 * turn run again after the restart finds the stream, stops it and finishes it into the answer: one
 * message in the thread, not streaming, and no stream left beside it.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInbox } from '../../src/gateway/inbox.ts';
import { createStore } from '../../src/store/index.ts';
import type { StartedGateway } from '../helpers/gateway-process.ts';
import { startSlackGatewayFakes, type SlackGatewayFakes } from '../helpers/slack-gateway-fakes.ts';

const admin = { id: 'U0ADMIN01', name: 'Ada' };
const adminDm = 'D0ADMIN01';
const wait = 30_000;

describe('Slack: a stream left by a killed gateway', () => {
  let fakes: SlackGatewayFakes;
  let gateway: StartedGateway | undefined;

  beforeAll(async () => {
    fakes = await startSlackGatewayFakes('operator-slack-stream-kill-');
    gateway = await fakes.startGateway([admin.id]);
  });

  afterAll(async () => {
    await gateway?.stop();
    await fakes?.close();
  });

  /** The preview ids the inbox has on record (read from the store while no gateway runs). */
  async function previewsOnRecord(): Promise<string[]> {
    const store = createStore({ driver: 'fs', base: join(fakes.home, 'state') });
    try {
      return (await createInbox(store).pending()).flatMap((entry) => (entry.previewId === undefined ? [] : [entry.previewId]));
    } finally {
      await store.close();
    }
  }

  /** Opens an assistant thread and asks in it; the answer streams slowly there. */
  async function askInThread(): Promise<string> {
    const { slack, model } = fakes;
    const started = slack.assistantThreadStarted({ channel: adminDm, from: admin });
    expect((await fakes.post(slack.envelope(started))).status).toBe(200);
    const threadTs = (started.assistant_thread as { thread_ts: string }).thread_ts;
    model.enqueue({ text: `First try, ${'streaming slowly, '.repeat(40)}never done.`, chunkSize: 6, delayMs: 100 });
    expect((await fakes.post(slack.envelope(slack.personMessage({ channel: adminDm, from: admin, text: 'tell me a long story', threadTs })))).status).toBe(200);
    return threadTs;
  }

  /** Restarts the gateway and waits until the thread's one bot message is the answer, stopped. */
  async function restartAndFinish(threadTs: string): Promise<void> {
    const { slack, model } = fakes;
    model.enqueue({ text: 'The story, told whole after the restart.' });
    gateway = await fakes.startGateway([admin.id]);
    await slack.waitFor((fake) => fake.botMessages(adminDm, threadTs).find((message) => message.text === 'The story, told whole after the restart.' && !message.streaming), wait);
    // A round trip after it: anything the restart would still send there has gone out by then.
    model.enqueue({ text: 'And the next one.' });
    expect((await fakes.post(slack.envelope(slack.personMessage({ channel: adminDm, from: admin, text: 'next', threadTs })))).status).toBe(200);
    await slack.waitFor((fake) => fake.botMessages(adminDm, threadTs).find((message) => message.text === 'And the next one.' && !message.streaming), wait);
    expect(slack.botMessages(adminDm, threadTs).map((message) => [message.text, message.streaming ?? false])).toEqual([
      ['The story, told whole after the restart.', false],
      ['And the next one.', false],
    ]);
  }

  it('stops the stream whose ts the killed process noted, and finishes it into the answer', async () => {
    const { slack } = fakes;
    const threadTs = await askInThread();
    // The stream grew after it began: its ts was heard, and noted before anything more went out.
    await slack.waitFor((fake) => fake.callsOf('chat.appendStream').find((call) => call.params.channel === adminDm), wait);
    await gateway!.kill();
    gateway = undefined;
    const [stream] = slack.botMessages(adminDm, threadTs);
    expect(stream!.streaming).toBe(true);
    expect(await previewsOnRecord()).toContain(stream!.ts);

    await restartAndFinish(threadTs);
    expect(slack.botMessages(adminDm, threadTs)[0]!.ts).toBe(stream!.ts);
    expect(slack.callsOf('chat.stopStream').map((call) => call.params.ts)).toContain(stream!.ts);
  });

  it('finds the stream whose ts the killed process never heard, and finishes it into the answer', async () => {
    const { slack } = fakes;
    // Slack takes the stream, and the connection drops before the gateway hears its ts.
    slack.failNext('chat.startStream', { dropConnection: true, afterCarryingOut: true });
    const threadTs = await askInThread();
    const stream = await slack.waitFor((fake) => fake.botMessages(adminDm, threadTs).find((message) => message.streaming), wait);
    await gateway!.kill();
    gateway = undefined;

    await restartAndFinish(threadTs);
    // The stream itself became the answer: nothing was left streaming beside it.
    expect(slack.botMessages(adminDm, threadTs)[0]!.ts).toBe(stream.ts);
    expect(slack.callsOf('chat.stopStream').map((call) => call.params.ts)).toContain(stream.ts);
  });
});
