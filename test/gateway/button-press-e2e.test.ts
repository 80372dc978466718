/**
 * Every press gets an answer: through the real gateway process and the real SDKs against the fake
 * platforms, a press that nothing waits for any more (a Telegram inline-mode message the bot never
 * sent, a press without its message, an old keyboard, a question already decided; a Slack button
 * of a message the gateway did not make; a Discord button or select menu it does not know) is
 * acknowledged, gets one short notice where the platform can show it to the presser alone, and
 * reaches no model. The Telegram presses without a message and the Slack and Discord stale presses
 * are the corpus samples `doc-callback-query-inline-message`, `callback-query-without-message`,
 * `block-actions-stale-button` and `button-press-stale-dm` (real payloads, ids adapted).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { staleButtonNotice } from '../../src/channels/stale-press.ts';
import type { FakeDiscord } from '../fakes/fake-discord-server.ts';
import type { FakeModelServer } from '../fakes/fake-model-server.ts';
import type { FakeSlack } from '../fakes/fake-slack-server.ts';
import type { FakeTelegram } from '../fakes/fake-telegram-server.ts';
import { startDiscordGatewayFakes, type DiscordGatewayFakes } from '../helpers/discord-gateway-fakes.ts';
import type { StartedGateway } from '../helpers/gateway-process.ts';
import { startGateway } from '../helpers/gateway-process.ts';
import { startSlackGatewayFakes, type SlackGatewayFakes } from '../helpers/slack-gateway-fakes.ts';
import { startTelegramGatewayFakes, type TelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';

const wait = 20_000;

describe('Telegram: every callback query is answered', () => {
  let fakes: TelegramGatewayFakes;
  let model: FakeModelServer;
  let telegram: FakeTelegram;
  let gateway: StartedGateway | undefined;
  const admin = 4_001;
  const stranger = 4_002;

  beforeAll(async () => {
    fakes = await startTelegramGatewayFakes('operator-press-telegram-');
    ({ model, telegram } = fakes);
    gateway = await startGateway({ home: fakes.home, env: fakes.env([admin]) }, wait);
  }, wait);

  afterAll(async () => {
    await gateway?.stop();
    await fakes?.close();
  });

  const answerOf = (id: string) =>
    telegram.waitFor((fake) => fake.answeredCallbacks.find((answer) => answer.id === id), wait).catch((error: unknown) => {
      throw new Error(`${String(error)}\n${gateway?.output.all() ?? ''}`);
    });

  it('answers a press on an inline-mode message the bot never sent (corpus: doc-callback-query-inline-message)', async () => {
    const update = telegram.recorded({
      callback_query: {
        id: '4382bfdwdsb323b2d9',
        from: { last_name: 'Test Lastname', id: stranger, first_name: 'Test Firstname', username: 'Testusername', is_bot: false },
        data: 'Data from button callback',
        inline_message_id: '1234csdbsk4839',
        chat_instance: 'ci-inline',
      },
    });
    telegram.pushUpdate(update);
    expect(await answerOf('4382bfdwdsb323b2d9')).toEqual({ id: '4382bfdwdsb323b2d9', text: staleButtonNotice });
  });

  it('answers a press that comes without its message (corpus: callback-query-without-message)', async () => {
    telegram.pushUpdate(telegram.recorded({ callback_query: { from: { first_name: 'John', id: stranger, is_bot: false }, id: 'query-id', chat_instance: 'ci-none' } }));
    expect(await answerOf('query-id')).toEqual({ id: 'query-id', text: staleButtonNotice });
  });

  it("answers a stranger's press on an old keyboard, and a press on a question already decided, with a notice and nothing to the model", async () => {
    const requests = model.requests.length;
    const old = telegram.callbackQuery({ chatId: stranger, from: { id: stranger, first_name: 'Eve' }, data: 'menu:2', messageId: 7 });
    telegram.pushUpdate(old);
    expect(await answerOf(old.callback_query!.id)).toEqual({ id: old.callback_query!.id, text: staleButtonNotice });
    const decided = telegram.callbackQuery({ chatId: admin, from: { id: admin, first_name: 'Ada' }, data: 'approve', messageId: 3 });
    telegram.pushUpdate(decided);
    expect(await answerOf(decided.callback_query!.id)).toEqual({ id: decided.callback_query!.id, text: 'Nothing is waiting for an answer.' });
    expect(model.requests).toHaveLength(requests);
    expect(telegram.callsOf('sendMessage')).toHaveLength(0);
  });

  it('answers a press Telegram delivers again, once more, without acting twice', async () => {
    const press = telegram.callbackQuery({ chatId: admin, from: { id: admin, first_name: 'Ada' }, data: 'deny', messageId: 4 });
    telegram.pushUpdate(press);
    await answerOf(press.callback_query!.id);
    // The same update again (a process that died before confirming it would see it again).
    telegram.pushUpdate(press);
    await telegram.waitFor((fake) => (fake.answeredCallbacks.filter((answer) => answer.id === press.callback_query!.id).length === 2 ? true : undefined), wait);
    expect(telegram.answeredCallbacks.filter((answer) => answer.id === press.callback_query!.id)).toEqual([
      { id: press.callback_query!.id, text: 'Nothing is waiting for an answer.' },
      { id: press.callback_query!.id },
    ]);
  });
});

describe('Slack: every block_actions press is acknowledged', () => {
  let fakes: SlackGatewayFakes;
  let model: FakeModelServer;
  let slack: FakeSlack;
  let gateway: StartedGateway | undefined;
  const person = 'U0PRESS01';
  const channel = 'C0PRESS01';

  beforeAll(async () => {
    fakes = await startSlackGatewayFakes('operator-press-slack-');
    ({ model, slack } = fakes);
    gateway = await fakes.startGateway(['U0ADMIN01']);
  }, wait);

  afterAll(async () => {
    await gateway?.stop();
    await fakes?.close();
  });

  it('acknowledges a press on a button the gateway did not make and tells only the presser (corpus: block-actions-stale-button)', async () => {
    const team = slack.bot.teamId;
    const payload = {
      type: 'block_actions',
      user: { id: person, username: 'primary-owner', name: 'primary-owner', team_id: team },
      api_app_id: 'A111',
      token: 'verification_token',
      container: { type: 'message', message_ts: '111.222', channel_id: channel, is_ephemeral: true },
      trigger_id: '111.222.valid',
      team: { id: team, domain: 'workspace-domain', enterprise_id: 'E111', enterprise_name: 'Sandbox Org' },
      channel: { id: channel, name: 'test-channel' },
      response_url: 'https://hooks.slack.com/actions/T111/111/random-value',
      actions: [{ action_id: 'a', block_id: 'b', text: { type: 'plain_text', text: 'Button', emoji: true }, value: 'click_me_123', type: 'button', action_ts: '1596530385.194939' }],
    };
    const requests = model.requests.length;
    const answer = await fakes.post({ kind: 'form', fields: { payload: JSON.stringify(payload) } });
    expect(answer.status).toBe(200);
    const notice = await slack.waitFor((fake) => fake.callsOf('chat.postEphemeral').find((call) => call.params.user === person), wait);
    expect(notice.params).toMatchObject({ channel, user: person, text: staleButtonNotice });
    expect(model.requests).toHaveLength(requests);
    expect(slack.callsOf('chat.postMessage')).toHaveLength(0);
  });
});

describe('Discord: every component press is acknowledged', () => {
  let fakes: DiscordGatewayFakes;
  let model: FakeModelServer;
  let discord: FakeDiscord;
  let gateway: StartedGateway | undefined;

  beforeAll(async () => {
    fakes = await startDiscordGatewayFakes('operator-press-discord-');
    ({ model, discord } = fakes);
    gateway = await fakes.startGateway([discord.world.person.id]);
  }, wait);

  afterAll(async () => {
    await gateway?.stop();
    await fakes?.close();
  });

  it('acknowledges a button and a select menu it does not know, with a notice only the presser sees (corpus: button-press-stale-dm)', async () => {
    const dm = discord.world.dmChannelId;
    model.enqueue({ text: 'An answer under which an old button sits.' });
    discord.messageCreate({ channelId: dm, content: 'hi' });
    const answer = await discord.waitFor((fake) => fake.botMessages(dm).find((stored) => stored.message.content.includes('old button')), wait);
    const requests = model.requests.length;
    // The corpus sample's custom_id: a button of a message this gateway never made.
    const button = discord.buttonPress({ channelId: dm, messageId: answer.message.id, customId: '1374966298823360614' });
    const select = discord.buttonPress({ channelId: dm, messageId: answer.message.id, customId: 'pick-one', componentType: 3 });
    for (const press of [button, select]) {
      const id = String(press.payload.id);
      await discord.waitFor((fake) => fake.callbacks.find((callback) => callback.interactionId === id && callback.type === 6), wait);
    }
    await discord.waitFor((fake) => (fake.botMessages(dm).filter((stored) => stored.message.content === staleButtonNotice).length === 2 ? true : undefined), wait);
    const notices = discord.botMessages(dm).filter((stored) => stored.message.content === staleButtonNotice);
    expect(notices.every((stored) => (Number(stored.message.flags ?? 0) & 64) !== 0)).toBe(true);
    expect(model.requests).toHaveLength(requests);
  });
});
