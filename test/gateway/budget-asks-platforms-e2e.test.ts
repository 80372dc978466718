/**
 * A spending cap's question to the admins on Slack (Block Kit buttons) and Discord (message
 * components), through the real gateway process and the real SDKs against the fake platforms:
 * the admin's own direct conversation is capped at $1 a day, the turn past it is refused, and the
 * question in the admin's direct messages carries the three answers as the platform's buttons;
 * pressing "Allow one more turn" answers the refused message once. (Telegram's inline keyboard,
 * and the presses of a member and a stranger: `budget-asks-e2e.test.ts`.)
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDiscordGatewayFakes, type DiscordGatewayFakes } from '../helpers/discord-gateway-fakes.ts';
import type { StartedGateway } from '../helpers/gateway-process.ts';
import { startSlackGatewayFakes, type SlackGatewayFakes } from '../helpers/slack-gateway-fakes.ts';

const wait = 20_000;
/** A direct conversation capped at $1 a day (admins have no person cap). */
const capped = JSON.stringify({ budgets: { conversation: { day: 1 } } });
/** $0.30 + $0.45 = $0.75 at claude-sonnet-4-6's prices, short of the context window. */
const usage = { input: 100_000, output: 30_000 };
const labels = ['Allow one more turn', 'Deny', "Raise today's cap by $1.00"];

describe("Slack: a spending cap's question with Block Kit buttons", () => {
  let fakes: SlackGatewayFakes;
  let gateway: StartedGateway | undefined;
  const admin = { id: 'U0BUDGET1', name: 'Ada' };
  const adminDm = 'D0BUDGET1';

  beforeAll(async () => {
    fakes = await startSlackGatewayFakes('operator-budget-asks-slack-');
    writeFileSync(join(fakes.home, 'operator.json'), capped);
    gateway = await fakes.startGateway([admin.id]);
  }, wait);

  afterAll(async () => {
    await gateway?.stop();
    await fakes?.close();
  });

  it('asks in the admin\'s direct messages; "Allow one more turn" answers the refused message', async () => {
    const { model, slack } = fakes;
    const botMessage = (contains: string) => slack.waitFor((fake) => fake.botMessages(adminDm).find((message) => fake.display(message).text.includes(contains)), wait);
    const say = async (text: string) => expect((await fakes.post(slack.envelope(slack.personMessage({ channel: adminDm, from: admin, text })))).status).toBe(200);
    model.setDefault({ text: 'Noted.' });
    model.enqueue({ text: 'First answer.', usage });
    await say('the first question');
    await botMessage('First answer.');
    await say('the second question');
    await botMessage("Not answered: this conversation's spending cap of $1.00 a day is reached");
    const question = await botMessage('A spending cap stopped a turn in slack:dm:');
    const buttons = slack.display(question).buttons!.flat();
    expect(buttons.map((button) => button.label)).toEqual(labels);
    model.enqueue({ text: 'Second answer, allowed.', usage });
    expect((await fakes.post(slack.blockAction({ channel: adminDm, messageTs: question.ts, value: buttons[0]!.value, from: admin }))).status).toBe(200);
    await botMessage('Second answer, allowed.');
    expect(slack.botMessages(adminDm).filter((message) => slack.display(message).text.includes('Second answer, allowed.'))).toHaveLength(1);
  });
});

describe("Discord: a spending cap's question with message components", () => {
  let fakes: DiscordGatewayFakes;
  let gateway: StartedGateway | undefined;

  beforeAll(async () => {
    fakes = await startDiscordGatewayFakes('operator-budget-asks-discord-');
    writeFileSync(join(fakes.home, 'operator.json'), capped);
    gateway = await fakes.startGateway([fakes.discord.world.person.id]);
  }, wait);

  afterAll(async () => {
    await gateway?.stop();
    await fakes?.close();
  });

  it('asks in the admin\'s direct messages; "Allow one more turn" answers the refused message', async () => {
    const { model, discord } = fakes;
    const dm = discord.world.dmChannelId;
    const botMessage = (contains: string) => discord.waitFor((fake) => fake.botMessages(dm).find((stored) => stored.message.content.includes(contains)), wait);
    model.setDefault({ text: 'Noted.' });
    model.enqueue({ text: 'First answer.', usage });
    discord.messageCreate({ channelId: dm, content: 'the first question' });
    await botMessage('First answer.');
    discord.messageCreate({ channelId: dm, content: 'the second question' });
    await botMessage("Not answered: this conversation's spending cap of $1.00 a day is reached");
    const question = await botMessage('A spending cap stopped a turn in discord:dm:');
    const buttons = (question.message.components as { components: { label: string; custom_id: string }[] }[]).flatMap((row) => row.components);
    expect(buttons.map((button) => button.label)).toEqual(labels);
    model.enqueue({ text: 'Second answer, allowed.', usage });
    const press = discord.buttonPress({ channelId: dm, messageId: question.message.id, customId: buttons[0]!.custom_id });
    await discord.waitFor((fake) => fake.callbacks.find((callback) => callback.interactionId === String(press.payload.id)), wait);
    await botMessage('Second answer, allowed.');
    expect(discord.botMessages(dm).filter((stored) => stored.message.content.includes('Second answer, allowed.'))).toHaveLength(1);
  });
});
