/**
 * The real Slack payloads of the corpus (`test/fixtures/real-payloads/slack.json`: captured
 * events, bolt's and slack-go's fixtures, the API docs' examples) through the real gateway
 * process and bolt's HTTP receiver, signed as Slack signs them, each handled as its row says:
 * `reply` one answer in the right channel and thread; `soft` at most one, only there; `silent` no
 * answer and no model call; `notice` (a press on a button the bot never sent) acknowledged, no
 * model call, at most one short notice; `command` one answer to the slash command; `challenge`
 * the URL verification echoed. Every request is acknowledged with 200 and the process stays up.
 *
 * A sample is done when a sentinel message sent after it, in the same conversation where it has
 * one, is answered (see the Telegram corpus test for why that is enough).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeModelServer } from '../fakes/fake-model-server.ts';
import type { FakeSlack, FakeSlackMessage, SlackRequest } from '../fakes/fake-slack-server.ts';
import { approveGroups, pairPeople, slackChannel } from '../helpers/approved-groups.ts';
import type { StartedGateway } from '../helpers/gateway-process.ts';
import { startSlackGatewayFakes, type SlackGatewayFakes } from '../helpers/slack-gateway-fakes.ts';
import { answerSentinels, askedFor, checkCommon, turnsSettled } from './corpus-checks.ts';
import { fill, objectsWith, samplesOf, type Sample } from './real-payloads.ts';

const people = { ADMIN: 'U0ADMIN01', S_USER: 'U0PAIRED02', S_OTHER: 'U0MEMBER03' };
const channels = { C_MAIN: 'C0MAIN0001', C_OPEN: 'C0OPEN0002', D_USER: 'D0PAIRED02', D_ADMIN: 'D0ADMIN001', D_SLACKBOT: 'D0SLACKBOT' };
const wait = 30_000;

describe('the real Slack payloads, through the gateway', () => {
  let fakes: SlackGatewayFakes;
  let model: FakeModelServer;
  let slack: FakeSlack;
  let gateway: StartedGateway;
  let number = 0;

  beforeAll(async () => {
    fakes = await startSlackGatewayFakes('operator-corpus-slack-');
    ({ model, slack } = fakes);
    // The open channel answers without a mention.
    // The samples' expected places are those of top-level answers (`where.thread: null`), so the
    // channels answer top-level (slack.replyInThread never; the default threads, see slack-assistant-e2e).
    writeFileSync(join(fakes.home, 'operator.json'), JSON.stringify({ groups: { [`slack:${channels.C_OPEN}`]: { requireMention: false } }, slack: { replyInThread: 'never' } }));
    await approveGroups(fakes.home, [slackChannel(channels.C_MAIN), slackChannel(channels.C_OPEN)], `slack:${people.ADMIN}`);
    await pairPeople(fakes.home, [{ platform: 'slack', userId: people.S_USER, name: 'Paired Person' }]);
    answerSentinels(model);
    gateway = await fakes.startGateway([people.ADMIN]);
  }, 120_000);

  afterAll(async () => {
    await gateway?.stop();
    await fakes?.close();
  });

  /** Slack timestamps: seconds, a dot, six digits; fresh per sample, in order. */
  const ts = (secondsAgo = 0) => `${Math.floor(Date.now() / 1000) - secondsAgo}.${String(++number).padStart(6, '0')}`;

  const placeholders = () => {
    const self = ts();
    return {
      ...people,
      ...channels,
      TEAM: slack.bot.teamId,
      SLACK_BOT: slack.bot.userId,
      NOW: Math.floor(Date.now() / 1000),
      'TS:self': self,
      'TSNODOT:self': self.replace('.', ''),
      'TS:parent': ts(60),
      'TS:old': ts(600),
      EVID: `Ev0CORPUS${++number}`,
      TRIGGER: `${++number}.5678.corpus`,
      FILES: slack.origin,
    };
  };

  /** Every message of the bot standing in the corpus's channels, keyed `channel:ts`. */
  const standing = () =>
    new Map(Object.values(channels).flatMap((channel) => slack.botMessages(channel).map((message): [string, FakeSlackMessage] => [`${channel}:${message.ts}`, message])));

  /** Sends the sentinel after `sample` in its conversation and resolves once it is answered. */
  async function sentinelAfter(sample: Sample, where: { channel?: string; thread?: string | null }, event: Record<string, unknown> | undefined) {
    const text = `sentinel ${sample.name}`;
    const channel = where.channel ?? (typeof event?.channel === 'string' && Object.values(channels).includes(event.channel) && event.channel !== channels.D_SLACKBOT ? event.channel : channels.D_ADMIN);
    const threadTs = where.thread ?? undefined;
    const dm = channel.startsWith('D');
    const from = channel === channels.D_USER ? { id: people.S_USER, name: 'Paired Person' } : { id: people.ADMIN, name: 'Ada' };
    const message = slack.personMessage({ channel, from, text: dm ? text : `<@${slack.bot.userId}> ${text}`, ...(threadTs ? { threadTs } : {}) });
    expect((await fakes.post(slack.envelope(message))).status).toBe(200);
    await slack
      .waitFor((fake) => fake.botMessages(channel).find((reply) => fake.display(reply).text.includes(`ack ${sample.name}`)), wait)
      .catch((error: unknown) => {
        throw new Error(`the sentinel after ${sample.name} was not answered in ${channel}: ${String(error)}\n${gateway.output.all().slice(-4000)}`);
      });
  }

  for (const sample of samplesOf('slack')) {
    it(`${sample.name}: ${sample.expect}`, async () => {
      const values = placeholders();
      const delivered = fill(sample.deliver, values) as Record<string, unknown>[];
      const where = fill(sample.where, values) as { channel?: string; thread?: string | null };
      // The files a payload names are served where it says, to the bot's token.
      for (const file of objectsWith(delivered, 'url_private_download')) {
        const path = new URL(String(file.url_private_download)).pathname;
        slack.addFile({ id: String(file.id), name: String(file.name), mimetype: String(file.mimetype ?? 'application/octet-stream'), bytes: Buffer.from(`${String(file.name)} as shared`), path });
      }
      const modelBefore = model.requests.length;
      const before = new Set(standing().keys());
      const noticesBefore = slack.ephemerals.length + slack.responses.length;
      const results = [];
      for (const payload of delivered) {
        const request: SlackRequest =
          'form' in payload
            ? { kind: 'form', fields: formFields(payload.form as Record<string, unknown>, `${slack.origin}/commands/${++number}`) }
            : { kind: 'json', body: payload };
        results.push(await fakes.post(request));
      }
      for (const result of results) expect(result.status, result.body).toBe(200);
      const fresh = () => [...standing()].filter(([key]) => !before.has(key)).map(([, message]) => message);
      const event = (delivered[0] as { event?: Record<string, unknown> }).event;

      if (sample.expect === 'challenge') {
        const challenge = (delivered[0] as { challenge: string }).challenge;
        expect(results[0]!.body).toContain(challenge);
        expect(model.requests.length).toBe(modelBefore);
        return;
      }
      if (sample.expect === 'reply' || sample.expect === 'command') {
        await slack
          .waitFor(() => fresh().find((message) => message.channel === where.channel) ?? (slack.ephemerals.length + slack.responses.length > noticesBefore), wait)
          .catch((error: unknown) => {
            throw new Error(`no answer in ${where.channel} to ${sample.name}: ${String(error)}\n${gateway.output.all().slice(-4000)}`);
          });
      }
      await sentinelAfter(sample, where, event);
      await turnsSettled(gateway.output, wait);

      const sent = fresh().filter((message) => !slack.display(message).text.includes(`ack ${sample.name}`));
      const notices = slack.ephemerals.length + slack.responses.length - noticesBefore;
      const asked = askedFor(model, modelBefore, sample.name);
      const inPlace = sent.filter(
        (message) => message.channel === where.channel && (where.thread === undefined || (where.thread === null ? message.threadTs === undefined : message.threadTs === where.thread)),
      );
      const described = JSON.stringify(sent.map((message) => ({ channel: message.channel, thread: message.threadTs, text: slack.display(message).text.slice(0, 160) })));
      if (checkCommon(sample.expect, { sent: sent.length, inPlace: inPlace.length, asked, described })) {
        expect(gateway.child.exitCode).toBeNull();
        return;
      }
      switch (sample.expect) {
        case 'command':
          // The answer of a slash command: a message in the channel or a response to its URL.
          expect(sent.length + notices, described).toBe(1);
          expect(inPlace.length, described).toBe(sent.length);
          break;
        case 'notice':
          expect(asked).toEqual([]);
          expect(sent.length + notices, described).toBeLessThanOrEqual(1);
          break;
        default:
          throw new Error(`no check for ${sample.expect}`);
      }
      expect(gateway.child.exitCode).toBeNull();
    }, 90_000);
  }
});

/**
 * A form post's fields as Slack sends them: `payload` as JSON text, the rest as strings; a
 * `response_url` pointed at the fake, so an answer through it stays on this machine.
 */
function formFields(form: Record<string, unknown>, responseUrl: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [name, value] of Object.entries(form)) {
    if (name === 'payload') {
      const payload = { ...(value as Record<string, unknown>), ...('response_url' in (value as object) ? { response_url: responseUrl } : {}) };
      fields.payload = JSON.stringify(payload);
    } else fields[name] = name === 'response_url' ? responseUrl : String(value);
  }
  return fields;
}
