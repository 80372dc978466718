/**
 * Slack's AI-app threads end to end: the real gateway process (bolt, HTTP events) against the fake
 * Slack and the fake model. A person opens the assistant pane: the thread gets the profile's
 * user-invocable skills as suggested prompts; their first message titles it; while the turn works
 * the thread shows a status, cleared when it ends; the reply's preview is a native stream the
 * answer finishes. Where the workspace refuses `chat.startStream`, the next reply's preview is
 * posted and edited with `chat.update` as before. A channel message is answered in a thread under
 * it (`slack.replyInThread` defaults to `always`), streamed for its sender.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeModelServer } from '../fakes/fake-model-server.ts';
import type { FakeSlack } from '../fakes/fake-slack-server.ts';
import { approveGroups, slackChannel } from '../helpers/approved-groups.ts';
import type { StartedGateway } from '../helpers/gateway-process.ts';
import { startSlackGatewayFakes, type SlackGatewayFakes } from '../helpers/slack-gateway-fakes.ts';

const admin = { id: 'U0ADMIN01', name: 'Ada' };
const adminDm = 'D0ADMIN01';
const channel = 'C0GENERAL';
const wait = 15_000;

/**
 * An answer that waits for `until`, then pauses for a while after its first 28 characters (the
 * events: message_start, ping, content_block_start, the first text delta).
 */
function slowAnswer(text: string, until: Promise<unknown>) {
  return { text, firstChunkSize: 28, chunkSize: 400, stallAfterEvents: { events: 4, ms: 3_000 }, holdUntil: until };
}

describe('Slack assistant threads through the gateway', () => {
  let fakes: SlackGatewayFakes;
  let model: FakeModelServer;
  let slack: FakeSlack;
  let gateway: StartedGateway;

  beforeAll(async () => {
    fakes = await startSlackGatewayFakes('operator-slack-assistant-e2e-');
    ({ model, slack } = fakes);
    mkdirSync(join(fakes.home, 'skills', 'deploy'), { recursive: true });
    writeFileSync(join(fakes.home, 'skills', 'deploy', 'SKILL.md'), '---\nname: deploy\ndescription: Deploy the service\nuser-invocable: true\n---\nDEPLOY-STEPS\n');
    mkdirSync(join(fakes.home, 'skills', 'notes'), { recursive: true });
    writeFileSync(join(fakes.home, 'skills', 'notes', 'SKILL.md'), '---\nname: notes\ndescription: Only the model starts this one\n---\nNOTES\n');
    await approveGroups(fakes.home, [slackChannel(channel)], `slack:${admin.id}`);
    gateway = await fakes.startGateway([admin.id]);
  });

  afterAll(async () => {
    await gateway?.stop();
    await fakes?.close();
  });

  const post = async (event: Record<string, unknown>) => expect((await fakes.post(slack.envelope(event))).status).toBe(200);
  const statusShown = (count: number) => slack.waitFor((fake) => fake.assistant.filter((call) => call.method === 'setStatus' && call.status !== '').length >= count || undefined, wait);

  it('a Slack assistant thread gets status, prompts and a streamed reply, and falls back when the fake refuses chat.startStream', async () => {
    const started = slack.assistantThreadStarted({ channel: adminDm, from: admin });
    await post(started);
    const threadTs = (started.assistant_thread as { thread_ts: string }).thread_ts;
    const prompts = await slack.waitFor((fake) => fake.assistant.find((call) => call.method === 'setSuggestedPrompts'), wait);
    // The profile's user-invocable skills (the home's and the built-in ones), at most four; not the model-only one.
    expect(prompts).toMatchObject({ channel: adminDm, threadTs });
    expect(prompts.prompts).toContainEqual({ title: 'Deploy the service', message: '/deploy' });
    expect(prompts.prompts!.length).toBeLessThanOrEqual(4);
    expect(prompts.prompts!.map((prompt) => prompt.message)).not.toContain('/notes');

    // The model answers only once the thread shows the status, and pauses after the answer's
    // first words: the preview goes out in that pause (a delay, not something measured).
    model.enqueue(slowAnswer('Your week is planned: Monday writing, Tuesday review, Wednesday rest.', statusShown(1)));
    await post(slack.personMessage({ channel: adminDm, from: admin, text: 'Plan my week\nplease', threadTs }));
    const reply = await slack.waitFor((fake) => fake.botMessages(adminDm, threadTs).find((message) => !message.streaming && message.text.endsWith('Wednesday rest.')), wait);
    // Streamed, and finished by the answer's rest as the stream stopped: no edit, no second message.
    expect(reply.text).toBe('Your week is planned: Monday writing, Tuesday review, Wednesday rest.');
    expect(slack.callsOf('chat.startStream').map((call) => call.params.markdown_text)).toEqual(['Your week is planned: Monday']);
    expect(slack.callsOf('chat.stopStream')).toHaveLength(1);
    expect(slack.callsOf('chat.update')).toEqual([]);
    expect(slack.callsOf('chat.postMessage').filter((call) => call.params.channel === adminDm)).toEqual([]);
    expect(slack.botMessages(adminDm, threadTs)).toHaveLength(1);
    await slack.waitFor((fake) => fake.assistant.some((call) => call.method === 'setStatus' && call.status === '') || undefined, wait);
    expect(slack.assistant.filter((call) => call.method === 'setTitle')).toEqual([{ method: 'setTitle', channel: adminDm, threadTs, title: 'Plan my week' }]);
    expect(slack.callsOf('reactions.add')).toEqual([]);

    // A workspace without streaming: the preview is posted, edited, and the answer replaces it.
    slack.refuseStreaming();
    model.enqueue(slowAnswer('Checked once more, and the week is still planned.', statusShown(2)));
    await post(slack.personMessage({ channel: adminDm, from: admin, text: 'Check again', threadTs }));
    const second = await slack.waitFor((fake) => fake.botMessages(adminDm, threadTs).find((message) => message.text === 'Checked once more, and the week is still planned.'), wait);
    expect(slack.callsOf('chat.startStream').map((call) => call.error)).toEqual([undefined, 'unknown_method']);
    expect(slack.callsOf('chat.postMessage').filter((call) => call.params.channel === adminDm)).toHaveLength(1);
    expect(slack.callsOf('chat.update').some((call) => call.params.ts === second.ts)).toBe(true);
    expect(slack.botMessages(adminDm, threadTs)).toHaveLength(2);
  });

  it('answers a channel message in a thread under it', async () => {
    model.enqueue({ text: 'Answered under your message.' });
    const asked = slack.personMessage({ channel, from: admin, text: `<@${slack.bot.userId}> a question` });
    await post(asked);
    const reply = await slack.waitFor((fake) => fake.botMessages(channel, String(asked.ts)).find((message) => fake.display(message).text.includes('Answered under your message.')), wait);
    expect(reply.threadTs).toBe(asked.ts);
    expect(slack.botMessages(channel, null)).toEqual([]);
  });
});
