/**
 * Approve-to-continue through the real gateway process (the fake Bot API, the real Anthropic SDK
 * against the fake model, which reports each call's tokens): a member's turn refused at their
 * daily cap is told so (once an hour: later refusals are silent, and in the log), and the admin gets the question in their direct messages with an inline
 * keyboard. A member's or a stranger's press is refused; the admin's "Allow one more turn" answers
 * the refused message once; "Raise today's cap" raises it and answers; "Deny" tells the member.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reviewMarker } from '../../src/agent/reviewer.ts';
import { startGateway, type GatewayProcess } from '../helpers/gateway-process.ts';
import { findBotMessage, findFinalBotMessage, startTelegramGatewayFakes, type TelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';

const admin = { id: 8201, first_name: 'Ada' };
const member = { id: 8202, first_name: 'Mo' };
const stranger = { id: 8203, first_name: 'Sly' };
const wait = 30_000;

describe("a spending cap's question to the admins (Telegram, through the gateway)", () => {
  let fakes: TelegramGatewayFakes;
  let gateway: GatewayProcess;

  beforeAll(async () => {
    fakes = await startTelegramGatewayFakes('operator-budget-asks-e2e-');
    // The member may talk to the bot; a person who is not an admin has $1 a day by default.
    writeFileSync(join(fakes.home, 'operator.json'), JSON.stringify({ dmPolicy: { telegram: 'allowlist' }, allowlists: { telegram: { users: [String(member.id)] } } }));
    gateway = await startGateway({ home: fakes.home, env: fakes.env([admin.id]) }, wait);
    // The admin has talked to the bot: the questions reach their chat.
    fakes.model.setDefault({ text: 'Hello, Ada.' });
    fakes.telegram.pushUpdate(fakes.telegram.textMessage({ chatId: admin.id, text: 'hi', from: admin }));
    await findFinalBotMessage(fakes.telegram, gateway, admin.id, 'Hello, Ada.', wait);
  });

  afterAll(async () => {
    await gateway?.stop();
    await fakes?.close();
  });

  /** Presses `data` on message `messageId` in `chatId` as `from`; resolves to the notice the press got. */
  async function press(chatId: number, from: { id: number; first_name: string }, data: string, messageId: number): Promise<string | undefined> {
    const update = fakes.telegram.callbackQuery({ chatId, from, data, messageId });
    fakes.telegram.pushUpdate(update);
    const answer = await fakes.telegram.waitFor((fake) => fake.answeredCallbacks.find((answered) => answered.id === update.callback_query!.id), wait);
    return answer.text;
  }

  /** How many turns' model requests answered `text` (the background reviewer's, which read the conversation, are not counted). */
  const asked = (text: string) => fakes.model.requests.filter((request) => !JSON.stringify(request.body).includes(reviewMarker) && JSON.stringify(request.body.messages.at(-1)).includes(text)).length;

  /**
   * The member says `text`, which their cap refuses; resolves to the admin's copy of the question
   * and its buttons. The member hears the cap's reason once an hour (`refusals`: the how many-th
   * refusal of theirs this is): the first time, with the text checked; after that silently, as the
   * log shows.
   */
  async function refused(text: string, spent: string, refusals = 1) {
    const { telegram } = fakes;
    const copies = telegram.messages(admin.id).length;
    const notices = telegram.messages(member.id).filter((message) => message.text.startsWith('Not answered:')).length;
    telegram.pushUpdate(telegram.textMessage({ chatId: member.id, text, from: member }));
    if (refusals === 1) {
      const refusal = await findBotMessage(telegram, gateway, member.id, `Not answered: this person's spending cap of ${spent}`, wait);
      expect(refusal.text).toMatch(/; it resets at \d{4}-\d\d-\d\d 00:00 UTC\. An admin has been asked to allow more\.$/);
    } else {
      await gateway.output.waitFor(new RegExp(`(?:[\\s\\S]*?"message\\.refused"[^\\n]*"telegram:dm:${member.id}"){${refusals}}`), { stream: 'stderr', timeoutMs: wait });
      expect(telegram.messages(member.id).filter((message) => message.text.startsWith('Not answered:'))).toHaveLength(notices);
    }
    const copy = await telegram.waitFor((fake) => fake.messages(admin.id).slice(copies).find((message) => message.text?.startsWith('A spending cap stopped a turn in telegram:dm:8202, for Mo (telegram:8202)')), wait);
    expect(copy.text).toContain(`spending cap of ${spent}`);
    const buttons = (copy.replyMarkup as { inline_keyboard: { text: string; callback_data: string }[][] }).inline_keyboard.flat();
    const id = /^budget:once@([0-9a-f]{8})$/.exec(buttons[0]!.callback_data)![1]!;
    return { copy, buttons, id };
  }

  it('answers the refused message once after the admin allows one more turn; nobody else can', async () => {
    const { model, telegram } = fakes;
    // Each answer costs $0.30 + $0.45 = $0.75 at claude-sonnet-4-6's prices (short of the context
    // window, so no compaction follows), and a call reserves about $0.49; the background
    // reviewer's calls cost a hundredth of a cent.
    model.setDefault({ text: 'Noted.' });
    model.enqueue({ text: 'Here is the summary.', usage: { input: 100_000, output: 30_000 } });
    telegram.pushUpdate(telegram.textMessage({ chatId: member.id, text: 'summarise the notes', from: member }));
    await findFinalBotMessage(telegram, gateway, member.id, 'Here is the summary.', wait);

    const { copy, buttons, id } = await refused('and the minutes?', '$1.00 a day is reached ($0.750');
    expect(asked('and the minutes?')).toBe(0);
    expect(buttons.map((button) => [button.text, button.callback_data])).toEqual([
      ['Allow one more turn', `budget:once@${id}`],
      ['Deny', `budget:deny@${id}`],
      ["Raise today's cap by $1.00", `budget:raise@${id}`],
    ]);
    expect(await press(member.id, member, `budget:once@${id}`, copy.messageId)).toBe('Only an admin can answer this.');
    expect(await press(stranger.id, stranger, `budget:once@${id}`, copy.messageId)).toBe('Only an admin can answer this.');
    telegram.pushUpdate(telegram.textMessage({ chatId: member.id, text: `/budget allow ${id}`, from: member }));
    await findBotMessage(telegram, gateway, member.id, 'Only an admin can answer this.', wait);
    expect(asked('and the minutes?')).toBe(0);

    model.enqueue({ text: 'The minutes, in short.', usage: { input: 100_000, output: 30_000 } });
    expect(await press(admin.id, admin, `budget:once@${id}`, copy.messageId)).toBe('Allowed one more turn in telegram:dm:8202; the message is answered now.');
    await findFinalBotMessage(telegram, gateway, member.id, 'The minutes, in short.', wait);
    expect(asked('and the minutes?')).toBe(1);
    expect(await press(admin.id, admin, `budget:deny@${id}`, copy.messageId)).toBe('That was answered already, or its cap has reset.');
    expect(telegram.messages(member.id).filter((message) => message.text === 'The minutes, in short.')).toHaveLength(1);
  });

  it("raises today's cap and answers, and a denial tells the member", async () => {
    const { model, telegram } = fakes;
    // $1.50 spent: a raise to $2.00 lets one more call through, the one after is refused.
    // Refused again within the hour for the same reason: the member is not told again; the admins are asked.
    const raised = await refused('one more thing', '$1.00 a day is reached ($1.50 spent', 2);
    model.enqueue({ text: 'The one more thing.', usage: { input: 100_000, output: 30_000 } });
    expect(await press(admin.id, admin, `budget:raise@${raised.id}`, raised.copy.messageId)).toBe("Raised: person telegram:8202's cap is $2.00 today; the message is answered now.");
    await findFinalBotMessage(telegram, gateway, member.id, 'The one more thing.', wait);
    expect(asked('one more thing')).toBe(1);

    const denied = await refused('and another', '$2.00 a day is reached ($2.25 spent', 3);
    expect(await press(admin.id, admin, `budget:deny@${denied.id}`, denied.copy.messageId)).toBe('Denied: telegram:dm:8202 stays at its cap.');
    await findBotMessage(telegram, gateway, member.id, 'An admin kept the spending cap: it resets at', wait);
    expect(asked('and another')).toBe(0);
  });
});
