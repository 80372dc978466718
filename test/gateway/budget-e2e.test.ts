/**
 * Spending caps through the real gateway process (the fake Bot API, the real Anthropic SDK against
 * the fake model, which reports each call's tokens): a tool loop that never ends stops at the
 * conversation's daily cap before the call that would pass it, with the exact accounting in the
 * reply; the spend survives a restart, so the next message is refused without a model call.
 * `/budget pause` stops every model call, and the message that waited is answered once after
 * `/budget resume`; past 80 % of the cap the conversation is told once.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type GatewayProcess } from '../helpers/gateway-process.ts';
import { findBotMessage, findFinalBotMessage, startTelegramGatewayFakes, type TelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';

const admin = { id: 8101, first_name: 'Ada' };
const other = { id: 8102, first_name: 'Oz' };
const wait = 30_000;

describe('spending caps (Telegram, through the gateway)', () => {
  let fakes: TelegramGatewayFakes;
  let gateway: GatewayProcess;

  beforeAll(async () => {
    fakes = await startTelegramGatewayFakes('operator-budget-e2e-');
    // The admin's own conversation, capped at a dollar a day (admins have no person cap).
    writeFileSync(join(fakes.home, 'operator.json'), JSON.stringify({ budgets: { conversation: { day: 1 } } }));
    gateway = await startGateway({ home: fakes.home, env: fakes.env([admin.id, other.id]) }, wait);
  });

  afterAll(async () => {
    await gateway?.stop();
    await fakes?.close();
  });

  it('stops a tool loop that never ends at the cap, before the call that would pass it, and keeps the spend across a restart', async () => {
    const { model, telegram } = fakes;
    // Every answer is one more tool call, each billed 100,000 input and 1,000 output tokens:
    // $0.30 + $0.015 = $0.315 at claude-sonnet-4-6's prices. A call reserves about $0.51 (its
    // prompt uncached and 32,000 output tokens), so the third would not fit under $1.
    model.setDefault({ toolCalls: [{ name: 'list_dir', arguments: { path: '.' } }], usage: { input: 100_000, output: 1_000 } });
    telegram.pushUpdate(telegram.textMessage({ chatId: admin.id, text: 'list the folder forever', from: admin }));
    const refused = await findFinalBotMessage(
      telegram,
      gateway,
      admin.id,
      `Not answered: this conversation's spending cap of $1.00 a day is reached ($0.6300 spent, $0.00 in calls under way); it resets at ${tomorrow()} 00:00 UTC. An admin has been asked to allow more.`,
      wait,
    );
    expect(refused).toBeDefined();
    expect(model.requests).toHaveLength(2);
    telegram.pushUpdate(telegram.textMessage({ chatId: admin.id, text: '/budget', from: admin }));
    const report = await findBotMessage(telegram, gateway, admin.id, 'Spending (UTC):', wait);
    expect(report.text).toContain('this conversation: $0.6300 of $1.00 this day');
    expect(report.text).not.toContain('you (');

    await gateway.stop();
    gateway = await startGateway({ home: fakes.home, env: fakes.env([admin.id, other.id]) }, wait);
    const before = telegram.messages(admin.id).length;
    telegram.pushUpdate(telegram.textMessage({ chatId: admin.id, text: 'and now?', from: admin }));
    const again = `Not answered: this conversation's spending cap of $1.00 a day is reached ($0.6300 spent, $0.00 in calls under way); it resets at ${tomorrow()} 00:00 UTC. An admin has been asked to allow more.`;
    await telegram.waitFor((fake) => fake.messages(admin.id).slice(before).find((message) => message.text === again), wait);
    expect(model.requests).toHaveLength(2);
  });

  it('pauses every model call with /budget pause (admins only) and answers the waiting message once after /budget resume', async () => {
    const { model, telegram } = fakes;
    // Billed 150,000 input and 27,000 output tokens: $0.45 + $0.405 = $0.855, past 80 % of this
    // conversation's $1 (and short of the context window, so no compaction follows).
    model.setDefault({ text: 'Answered after the resume.', usage: { input: 150_000, output: 27_000 } });
    const said = async (from: { id: number; first_name: string }, text: string, reply: string) => {
      telegram.pushUpdate(telegram.textMessage({ chatId: from.id, text, from }));
      return findFinalBotMessage(telegram, gateway, from.id, reply, wait);
    };
    await said(other, '/budget pause', 'Paused all model calls: running turns stop at their next call, and messages wait until /budget resume.');
    const requests = model.requests.length;
    await said(other, 'are you there?', 'Model calls are paused by an admin (/budget pause): this message is answered once they resume.');
    expect(model.requests).toHaveLength(requests);
    await said(other, '/budget resume', 'Model calls go on; the messages that waited are answered now.');
    await findFinalBotMessage(telegram, gateway, other.id, 'Answered after the resume.', wait);
    expect(model.requests).toHaveLength(requests + 1);
    expect(telegram.messages(other.id).filter((message) => message.text === 'Answered after the resume.')).toHaveLength(1);
    // Past `warnAt` (80 %) of the cap: one notice, after the answer.
    const notice = 'Heads-up: This conversation has spent $0.8550 of its $1.00 daily cap (86%); at the cap I stop answering until it resets (/budget shows it).';
    await findFinalBotMessage(telegram, gateway, other.id, notice, wait);
    expect(telegram.messages(other.id).filter((message) => message.text === notice)).toHaveLength(1);
  });
});

/** Tomorrow's UTC date, `2026-12-01`. */
function tomorrow(): string {
  const next = new Date();
  next.setUTCDate(next.getUTCDate() + 1);
  return next.toISOString().slice(0, 10);
}