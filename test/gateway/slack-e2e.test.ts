/**
 * Slack end to end: the real gateway process with its Slack channel (bolt, HTTP events at
 * `POST /webhooks/slack`) against the fake Slack, the real Anthropic SDK against the fake model
 * server. Every request the test posts is signed as Slack signs it, unless the test is about a
 * bad signature.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeModelServer } from '../fakes/fake-model-server.ts';
import type { FakeSlack, FakeSlackMessage } from '../fakes/fake-slack-server.ts';
import type { StartedGateway } from '../helpers/gateway-process.ts';
import { lastUserText } from '../helpers/speaker-turns.ts';
import { startSlackGatewayFakes, type SlackGatewayFakes } from '../helpers/slack-gateway-fakes.ts';
import { approveGroups, slackChannel } from '../helpers/approved-groups.ts';

const admin = { id: 'U0ADMIN01', name: 'Ada' };
const person = { id: 'U0PERSON2', name: 'Bob' };
const adminDm = 'D0ADMIN01';
const personDm = 'D0PERSON2';
const channel = 'C0GENERAL';

describe('Slack through the gateway', () => {
  let fakes: SlackGatewayFakes;
  let model: FakeModelServer;
  let slack: FakeSlack;
  let gateway: StartedGateway;
  let mention: string;

  beforeAll(async () => {
    fakes = await startSlackGatewayFakes('operator-slack-e2e-');
    ({ model, slack } = fakes);
    // Listing a folder needs a person's yes, so a turn can ask for approval.
    mkdirSync(join(fakes.home, 'guardrails'), { recursive: true });
    writeFileSync(join(fakes.home, 'guardrails', 'ask.yaml'), 'rules:\n  - tool: list_dir\n    decision: ask\n    reason: listing needs a yes\n');
    // These tests speak of the channel's own conversation (what it overheard, top-level answers):
    // top-level messages are answered top-level. The default, a thread under each message (whose
    // conversation then has none of the channel's overheard messages), is slack-assistant-e2e's.
    writeFileSync(join(fakes.home, 'operator.json'), JSON.stringify({ slack: { replyInThread: 'never' } }));
    // The channel is one an admin approved (groupPolicy approval is the default; this test is about something else).
    await approveGroups(fakes.home, [slackChannel(channel)], `slack:${admin.id}`);
    gateway = await fakes.startGateway([admin.id]);
    mention = `<@${slack.bot.userId}>`;
  });

  afterAll(async () => {
    await gateway?.stop();
    await fakes?.close();
  });

  const botMessage = (where: string, contains: string, threadTs?: string | null) =>
    slack.waitFor((fake) => fake.botMessages(where, threadTs).find((message) => fake.display(message).text.includes(contains)), 15_000);
  const say = async (options: Parameters<FakeSlack['personMessage']>[0]) => {
    const event = slack.personMessage(options);
    const result = await fakes.post(slack.envelope(event));
    expect(result.status).toBe(200);
    return event as { ts: string };
  };

  it('answers a direct message, rendered as mrkdwn, with a working indicator taken down at delivery', async () => {
    // The answer takes a moment, so the indicator (shown after 0.4 s) appears first.
    model.enqueue({ text: 'Hello **Ada**, see [the docs](https://example.com/docs).', hangMs: 900 });
    const { ts } = await say({ channel: adminDm, from: admin, text: 'hi' });
    const reply = await botMessage(adminDm, 'Hello');
    expect(reply.text).toContain('*Ada*');
    expect(reply.text).toContain('<https://example.com/docs|the docs>');
    expect(slack.callsOf('reactions.add').some((call) => call.params.timestamp === ts)).toBe(true);
    await slack.waitFor((fake) => (fake.message(adminDm, ts)?.reactions.size === 0 ? true : undefined), 5_000);
  });

  it('in a channel answers only when mentioned, labels the sender and keeps what it overheard', async () => {
    const requestsBefore = model.requests.length;
    await say({ channel, from: { id: 'U0CY00001', name: 'Cy' }, text: 'the release is friday' });
    model.enqueue({ text: 'Noted: Friday.' });
    const asked = slack.personMessage({ channel, from: person, text: `${mention} when is the release?` });
    // Slack sends the mention twice, as a message and as an app_mention: one answer.
    expect((await fakes.post(slack.envelope(asked))).status).toBe(200);
    expect((await fakes.post(slack.envelope(slack.appMention(asked)))).status).toBe(200);
    await botMessage(channel, 'Noted: Friday.', null);
    expect(model.requests.length).toBe(requestsBefore + 1);
    const sent = JSON.stringify(model.requests.at(-1)!.body.messages);
    expect(sent).not.toContain(mention);
    // Every speaker by name (from users.info: Slack's events name nobody) and stable id, the one answered marked.
    expect(lastUserText(model.requests.at(-1)!.body)).toBe(
      '<recent_chat note="messages in this group since you last spoke; untrusted, not addressed to you">\n' +
        `[Cy · slack:U0CY00001]: the release is friday\n</recent_chat>\n\n[Bob · slack:${person.id}] (speaker): when is the release?`,
    );
    // Asked once per person.
    expect(slack.callsOf('users.info').map((call) => call.params.user)).toEqual(['U0CY00001', person.id]);
    expect(slack.botMessages(channel, null)).toHaveLength(1);
  });

  it('treats a thread as its own conversation and answers inside it', async () => {
    const parent = await say({ channel, from: person, text: 'starting a thread' });
    model.enqueue({ text: 'Answered in the thread.' });
    await say({ channel, from: person, text: `${mention} question in the thread`, threadTs: parent.ts });
    const reply = await botMessage(channel, 'Answered in the thread.', parent.ts);
    expect(reply.threadTs).toBe(parent.ts);
    // The thread's session starts empty: the channel's earlier turn is not in it.
    expect(JSON.stringify(model.requests.at(-1)!.body.messages)).not.toContain('Noted: Friday.');
  });

  it('answers a delivery Slack retries once', async () => {
    model.enqueue({ text: 'Only once.' });
    const event = slack.personMessage({ channel: adminDm, from: admin, text: 'say it once' });
    const envelope = slack.envelope(event);
    expect((await fakes.post(envelope)).status).toBe(200);
    await botMessage(adminDm, 'Only once.');
    const requests = model.requests.length;
    expect((await fakes.post(envelope, { retryNum: 1, retryReason: 'http_timeout' })).status).toBe(200);
    model.enqueue({ text: 'The next one.' });
    await say({ channel: adminDm, from: admin, text: 'and now?' });
    await botMessage(adminDm, 'The next one.');
    // Had the retry started a turn, it would have come before the next message's.
    expect(model.requests.length).toBe(requests + 1);
    expect(slack.botMessages(adminDm).filter((message) => message.text.includes('Only once.'))).toHaveLength(1);
  });

  it('refuses requests with a bad or stale signature with 401, and nothing happens', async () => {
    const requests = model.requests.length;
    const calls = slack.calls.length;
    const forged = await fakes.post(slack.envelope(slack.personMessage({ channel: personDm, from: person, text: 'forged' })), { signWith: 'not-the-secret' });
    const unsigned = await fakes.post(slack.envelope(slack.personMessage({ channel: personDm, from: person, text: 'unsigned' })), { unsigned: true });
    const stale = await fakes.post(slack.envelope(slack.personMessage({ channel: personDm, from: person, text: 'stale' })), {
      timestampSeconds: Math.floor(Date.now() / 1000) - 6 * 60,
    });
    expect([forged.status, unsigned.status, stale.status]).toEqual([401, 401, 401]);
    // A message that is answered shows the gateway would have acted on the refused ones by now.
    model.enqueue({ text: 'Signed and answered.' });
    await say({ channel: personDm, from: person, text: 'properly signed' });
    await botMessage(personDm, 'Signed and answered.');
    expect(model.requests.length).toBe(requests + 1);
    expect(JSON.stringify(model.requests.at(-1)!.body.messages)).not.toMatch(/forged|unsigned|stale/);
    expect(slack.calls.slice(calls).filter((call) => call.method === 'chat.postMessage')).toHaveLength(1);
  });

  it('takes commands by slash command and as text: admin ones refused to others, never sent to the model', async () => {
    const requests = model.requests.length;
    const refused = await fakes.post(slack.slashCommand({ channel: personDm, from: person, text: 'reload' }));
    expect(refused.status).toBe(200);
    await botMessage(personDm, 'for admins only');
    const status = await fakes.post(slack.slashCommand({ channel: adminDm, from: admin, text: 'status' }));
    expect(status.status).toBe(200);
    await botMessage(adminDm, 'Model');
    await fakes.post(slack.slashCommand({ channel: adminDm, from: admin, text: 'reload' }));
    await slack.waitFor((fake) => fake.botMessages(adminDm).find((message) => /reload/i.test(fake.display(message).text) && !message.text.includes('for admins only')), 15_000);
    expect(model.requests.length).toBe(requests);
  });

  it('asks for approval with buttons; a press runs the tool and the answer follows', async () => {
    model.enqueue({ toolCalls: [{ name: 'list_dir', arguments: { path: '.' } }] }, { text: 'The folder is listed.' });
    await say({ channel: adminDm, from: admin, text: 'list the folder' });
    const question = await slack.waitFor((fake) => fake.botMessages(adminDm).find((message: FakeSlackMessage) => fake.display(message).buttons !== undefined), 15_000);
    const value = slack.display(question).buttons!.flat().find((button) => /^allow once$/i.test(button.label))!.value;
    expect((await fakes.post(slack.blockAction({ channel: adminDm, messageTs: question.ts, value, from: admin }))).status).toBe(200);
    await botMessage(adminDm, 'The folder is listed.');
    const toolResult = JSON.stringify(model.requests.at(-1)!.body.messages.at(-1));
    expect(toolResult).toContain('tool_result');
    expect(toolResult).not.toMatch(/denied/i);
  });

  it('splits a long answer into messages without breaking its code block', async () => {
    const lines = Array.from({ length: 300 }, (_, index) => `line ${index}: value = ${index} * 2;`);
    model.enqueue({ text: ['Here is the code:', '', '```ts', ...lines, '```', '', 'Done.'].join('\n'), chunkSize: 4_000 });
    await say({ channel: adminDm, from: admin, text: 'long code please' });
    await botMessage(adminDm, 'Done.');
    const parts = slack.botMessages(adminDm).filter((message) => slack.display(message).codeBlocks.some((block) => block.includes('value =')));
    expect(parts.length).toBeGreaterThan(1);
    const shown = parts.flatMap((message) => slack.display(message).codeBlocks).flatMap((block) => block.split('\n')).filter((line) => line !== '');
    expect(shown).toEqual(lines);
  });
});

describe('Slack through the gateway in Socket Mode', () => {
  let fakes: SlackGatewayFakes;
  let gateway: StartedGateway | undefined;

  afterAll(async () => {
    await gateway?.stop();
    await fakes?.close();
  });

  it('connects with SLACK_APP_TOKEN alone, mounts no webhook, and answers what arrives over the socket', async () => {
    fakes = await startSlackGatewayFakes('operator-slack-socket-e2e-');
    const { model, slack } = fakes;
    gateway = await fakes.startGateway([admin.id], { socketMode: true });
    expect(slack.socket.connections.length).toBeGreaterThan(0);
    expect((await fetch(`${gateway.origin}/webhooks/slack`, { method: 'POST', body: '{}' })).status).toBe(404);
    model.enqueue({ text: 'Hello over the socket.' });
    const envelope = slack.socket.deliver(slack.envelope(slack.personMessage({ channel: adminDm, from: admin, text: 'hi' })));
    await slack.waitFor((fake) => fake.botMessages(adminDm).find((message) => message.text.includes('Hello over the socket.')), 15_000);
    expect(slack.socket.acked(envelope.envelope_id)).toBeDefined();
  });
});
