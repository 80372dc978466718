/**
 * The gateway's daily cap under 20 turns at once, through the real gateway process (the fake Bot
 * API, the real Anthropic SDK against the fake model): 20 people write at the same moment, every
 * model call is held at the provider until the test lets them answer, so all reservations are made
 * while none has settled. Exactly as many calls as the cap holds worst cases go out; every other
 * person is told the cap is reached (with the reservations under way) and no call of theirs leaves;
 * each person gets one answer or one refusal. The spend settled afterwards stays under the cap.
 * Yesterday's spend, already in the store, does not count: a new UTC day starts at zero.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reviewMarker } from '../../src/agent/reviewer.ts';
import { createStoreFromEnv } from '../../src/store/from-env.ts';
import { startGateway, type GatewayProcess } from '../helpers/gateway-process.ts';
import { findBotMessage, startTelegramGatewayFakes, type TelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';

const admin = { id: 8301, first_name: 'Ada' };
const people = Array.from({ length: 20 }, (_, index) => ({ id: 8400 + index, first_name: `P${index}` }));
const wait = 30_000;

/** Today's and yesterday's UTC dates, `2026-11-30`. */
function utcDay(offset: number): string {
  const day = new Date();
  day.setUTCDate(day.getUTCDate() + offset);
  return day.toISOString().slice(0, 10);
}

describe("the gateway's cap under 20 turns at once (Telegram, through the gateway)", () => {
  let fakes: TelegramGatewayFakes;
  let gateway: GatewayProcess;

  beforeAll(async () => {
    fakes = await startTelegramGatewayFakes('operator-budget-parallel-e2e-');
    // $2 a day for the whole gateway; everyone may write in direct messages. Yesterday the gateway
    // spent $100, which must not count today.
    writeFileSync(join(fakes.home, 'operator.json'), JSON.stringify({ budgets: { gateway: { day: 2 } }, dmPolicy: { telegram: 'open' } }));
    const store = createStoreFromEnv({ OPERATOR_HOME: fakes.home });
    await store.set(`spend:gateway:${utcDay(-1)}`, 100);
    await store.close?.();
    gateway = await startGateway({ home: fakes.home, env: fakes.env([admin.id]) }, wait);
  });

  afterAll(async () => {
    await gateway?.stop();
    await fakes?.close();
  });

  it('lets out only the calls whose worst cases fit together, refuses the rest before they leave, and answers each person once', async () => {
    const { model, telegram } = fakes;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    // Each call reserves about $0.49 (its prompt and 32,000 output tokens) and costs $0.315.
    model.setDefault({ text: 'Answered.', usage: { input: 100_000, output: 1_000 }, holdUntil: held });
    for (const person of people) telegram.pushUpdate(telegram.textMessage({ chatId: person.id, text: `hello from ${person.first_name}`, from: person }));

    // As many worst cases as fit under $2 together go out; every other turn is refused at once.
    const turnRequests = () => model.requests.filter((request) => !JSON.stringify(request.body).includes(reviewMarker));
    const refusal = /^Not answered: the gateway's spending cap of \$2\.00 a day is reached \(\$0\.00 spent, \$([\d.]+) in calls under way\)/;
    const refusals = await telegram.waitFor((fake) => {
      const refused = people.filter((person) => fake.messages(person.id).some((message) => refusal.test(message.text)));
      return refused.length > 0 && refused.length + turnRequests().length === people.length ? refused : undefined;
    }, wait);
    const out = turnRequests().length;
    expect(out).toBeGreaterThan(0);
    // Every refusal saw the same reservations under way: all `out` calls' worst cases, which fit
    // under the cap, where one more would not have.
    const reserved = new Set(refusals.map((person) => refusal.exec(telegram.messages(person.id).find((message) => refusal.test(message.text))!.text)![1]));
    expect(reserved.size).toBe(1);
    const underWay = Number([...reserved][0]);
    expect(underWay).toBeLessThanOrEqual(2);
    expect(underWay + underWay / out).toBeGreaterThan(2);

    release();
    const answered = people.filter((person) => !refusals.includes(person));
    for (const person of answered) await findBotMessage(telegram, gateway, person.id, 'Answered.', wait);
    for (const person of people) {
      const said = telegram.messages(person.id).filter((message) => message.text === 'Answered.' || message.text.startsWith('Not answered:'));
      expect(said, `person ${person.first_name}`).toHaveLength(1);
    }
    expect(turnRequests()).toHaveLength(out);

    // What was spent: the answers at $0.315 each, and whatever background calls fitted after them.
    telegram.pushUpdate(telegram.textMessage({ chatId: admin.id, text: '/budget', from: admin }));
    const report = await findBotMessage(telegram, gateway, admin.id, 'the gateway: $', wait);
    const spent = Number(/the gateway: \$([\d.]+) of \$2\.00 this day/.exec(report.text)![1]);
    expect(spent).toBeGreaterThanOrEqual(0.315 * out);
    expect(spent).toBeLessThanOrEqual(2);
  });
});
