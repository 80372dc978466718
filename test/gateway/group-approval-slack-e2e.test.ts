/**
 * Groups need an admin's yes, on Slack, through the real gateway process (bolt over HTTP events
 * against the fake Slack, the real Anthropic SDK against the fake model), under the default
 * `groupPolicy: approval`. Slack names who invited the bot in `member_joined_channel`
 * (`inviter`): an admin's invitation approves the channel at once; anyone else's gets the channel
 * its pairing code, once, and then silence, with nothing reaching the model, until an admin sends
 * `/operator pair CODE`; the channel is then told and answered.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { groupNoticeText } from '../../src/gateway/access/index.ts';
import type { FakeModelServer } from '../fakes/fake-model-server.ts';
import type { FakeSlack } from '../fakes/fake-slack-server.ts';
import type { StartedGateway } from '../helpers/gateway-process.ts';
import { startSlackGatewayFakes, type SlackGatewayFakes } from '../helpers/slack-gateway-fakes.ts';

const admin = { id: 'U0ADMIN01', name: 'Ada' };
const member = { id: 'U0MEMBER2', name: 'Bea' };
const adminDm = 'D0ADMIN01';
const invitedByMember = 'C0BYMEMBR';
const invitedByAdmin = 'C0BYADMIN';
const neverInvited = 'C0NOINVIT';
const wait = 30_000;
const testTimeout = 120_000;

describe("groups need an admin's yes (Slack, through the gateway)", () => {
  let fakes: SlackGatewayFakes;
  let model: FakeModelServer;
  let slack: FakeSlack;
  let gateway: StartedGateway;

  beforeAll(async () => {
    fakes = await startSlackGatewayFakes('operator-group-approval-slack-');
    ({ model, slack } = fakes);
    gateway = await fakes.startGateway([admin.id]);
  }, testTimeout);

  afterAll(async () => {
    await gateway?.stop();
    await fakes?.close();
  });

  const texts = (channel: string) => slack.botMessages(channel).map((message) => slack.display(message).text);
  const botMessage = (channel: string, contains: string) =>
    slack.waitFor((fake) => fake.botMessages(channel).find((message) => fake.display(message).text.includes(contains)), wait).catch((error: unknown) => {
      throw new Error(`no message containing "${contains}" in ${channel}: ${String(error)}\n${gateway.output.all()}`);
    });

  /** Slack's `member_joined_channel` for the bot, invited by `inviter`. */
  async function botJoined(channel: string, inviter: string): Promise<void> {
    const event = { type: 'member_joined_channel', user: slack.bot.userId, channel, channel_type: 'C', team: slack.bot.teamId, inviter, event_ts: `${Math.floor(Date.now() / 1000)}.000100` };
    expect((await fakes.post(slack.envelope(event))).status).toBe(200);
  }

  /** A mention in `channel`, as Slack sends it: a message and an app_mention. */
  async function mention(channel: string, from: { id: string; name: string }, text: string): Promise<void> {
    const message = slack.personMessage({ channel, from, text: `<@${slack.bot.userId}> ${text}` });
    expect((await fakes.post(slack.envelope(message))).status).toBe(200);
    expect((await fakes.post(slack.envelope(slack.appMention(message)))).status).toBe(200);
  }

  /** Waits until the gateway's log shows `count` messages refused in `channel` (or a thread of it). */
  async function refusedIn(channel: string, count: number): Promise<void> {
    // A mention is answered in a thread under it (slack.replyInThread's default), its conversation that thread's.
    const one = `"event":"message\\.refused"[^\\n]*"conversation":"slack:channel:${channel}(?::thread:[0-9.]+)?"`;
    await gateway.output.waitFor(new RegExp(`(?:[\\s\\S]*?${one}){${count}}`), { stream: 'stderr', timeoutMs: wait, label: `${count} refusals in ${channel}` });
  }

  const codeOf = (text: string) => /\/pair ([A-Z0-9]{8})\b/.exec(text)?.[1];

  it('gives a channel a member invited the bot to its code once, then says nothing; nothing reaches the model', async () => {
    await botJoined(invitedByMember, member.id);
    const notice = await botMessage(invitedByMember, '/pair ');
    expect(codeOf(slack.display(notice).text)).toMatch(/^[A-Z0-9]{8}$/);
    await mention(invitedByMember, member, 'what do you know?');
    await mention(invitedByMember, { id: 'U0OTHER03', name: 'Cy' }, 'hello?');
    await refusedIn(invitedByMember, 2);
    expect(texts(invitedByMember)).toHaveLength(1);
    expect(model.requests).toHaveLength(0);
  }, testTimeout);

  it("serves it once an admin sends /operator pair with its code, and tells the channel", async () => {
    const code = codeOf(texts(invitedByMember)[0]!)!;
    expect((await fakes.post(slack.slashCommand({ channel: adminDm, from: admin, text: `pair ${code}` }))).status).toBe(200);
    expect(slack.display(await botMessage(adminDm, 'Approved the group')).text).toContain(`slack:channel:${invitedByMember}`);
    await botMessage(invitedByMember, groupNoticeText);
    model.enqueue({ text: 'Hello, channel.' });
    await mention(invitedByMember, member, 'and now?');
    await botMessage(invitedByMember, 'Hello, channel.');
    expect(model.requests).toHaveLength(1);
  }, testTimeout);

  it('approves a channel at once when an admin invited the bot: no code, answered', async () => {
    await botJoined(invitedByAdmin, admin.id);
    model.enqueue({ text: 'Glad to be here.' });
    await mention(invitedByAdmin, member, 'welcome!');
    await botMessage(invitedByAdmin, 'Glad to be here.');
    expect(texts(invitedByAdmin)).toEqual(['Glad to be here.']);
  }, testTimeout);

  it('gives the code at the first mention in a channel it was never invited to (a message and its app_mention: one code)', async () => {
    const requests = model.requests.length;
    await mention(neverInvited, member, 'psst');
    await botMessage(neverInvited, '/pair ');
    await mention(neverInvited, member, 'psst again');
    await refusedIn(neverInvited, 1);
    expect(texts(neverInvited)).toHaveLength(1);
    expect(model.requests).toHaveLength(requests);
  }, testTimeout);
});
