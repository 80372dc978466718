/**
 * Pairing end to end: the real gateway process against the fake Bot API, with `operator pairing`
 * run as a second process on the same OPERATOR_HOME, from the seats of a stranger, a person who
 * is approved but no admin, the admin, and on a fresh install the first person, made owner.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeTelegram } from '../fakes/fake-telegram-server.ts';
import { startGateway, type StartedGateway } from '../helpers/gateway-process.ts';
import { runOperator } from '../helpers/operator-process.ts';
import { startTelegramGatewayFakes, type TelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';

const waitMs = 15_000;
const told = 'You can talk to me now';

/** The helpers of one gateway's chats. */
function chats(fakes: TelegramGatewayFakes, gateway: () => StartedGateway) {
  const telegram: FakeTelegram = fakes.telegram;
  return {
    /** A direct message from `id`. */
    write: (id: number, text: string) => telegram.pushUpdate(telegram.textMessage({ chatId: id, text, from: { id, first_name: `Person ${id}` } })),
    /** The bot's first message to `id` after the first `after` that contains `text`. */
    async reply(id: number, text: string, after = 0) {
      return telegram
        .waitFor((fake) => fake.messages(id).slice(after).find((message) => message.text.includes(text)), waitMs)
        .catch((error: unknown) => {
          throw new Error(`no message with "${text}" to ${id}: ${String(error)}\n${gateway().output.all()}`);
        });
    },
    /** How many messages the bot sent `id`. */
    count: (id: number) => telegram.messages(id).length,
    /** How many of them contain `text`. */
    countWith: (id: number, text: string) => telegram.messages(id).filter((message) => message.text.includes(text)).length,
    /** The code in the bot's latest pairing message to `id`. */
    code(id: number): string {
      const message = telegram.messages(id).findLast((sent) => sent.text.includes('pairing code'));
      const code = /\n\n([A-HJ-NP-Z2-9]{8})\n\n/.exec(message?.text ?? '')?.[1];
      if (!code) throw new Error(`no pairing code sent to ${id}`);
      return code;
    },
    /** `operator pairing ...` on the gateway's home, as its owner would run it. */
    pairing: (...args: string[]) => runOperator(['pairing', ...args], { HOME: fakes.home, OPERATOR_HOME: fakes.home }),
  };
}

/**
 * `newcomer` asks for a code and `approver` approves it by /pair; resolves once /pair has answered,
 * which it does after a sweep of every notice due (its own and any other still in the store).
 */
async function sweepByPair(chat: ReturnType<typeof chats>, approver: number, newcomer: number): Promise<void> {
  chat.write(newcomer, 'hello, may I?');
  await chat.reply(newcomer, 'pairing code');
  const before = chat.count(approver);
  chat.write(approver, `/pair ${chat.code(newcomer)}`);
  await chat.reply(approver, 'Paired', before);
}

describe('pairing through the gateway, with an admin', () => {
  const admin = 1001;
  const stranger = 2002;
  const approved = 3003;
  const declined = 4004;
  /** Paired last, to make the gateway sweep the notices once more. */
  const latecomer = 7007;
  let fakes: TelegramGatewayFakes;
  let gateway: StartedGateway;
  let chat: ReturnType<typeof chats>;

  beforeAll(async () => {
    fakes = await startTelegramGatewayFakes('operator-pairing-e2e-');
    gateway = await startGateway({ home: fakes.home, env: fakes.env([admin]) }, waitMs);
    chat = chats(fakes, () => gateway);
  });

  afterAll(async () => {
    await gateway?.stop();
    await fakes?.close();
  });

  it("from a stranger's seat: a code, and /pair with one's own code is a stranger's message like any other", async () => {
    chat.write(stranger, 'hello?');
    await chat.reply(stranger, 'pairing code');
    const code = chat.code(stranger);
    const before = chat.count(stranger);
    chat.write(stranger, `/pair ${code}`);
    await chat.reply(stranger, 'pairing code', before);
    expect(chat.code(stranger)).toBe(code);
    expect(chat.countWith(stranger, 'Paired')).toBe(0);
    expect((await chat.pairing('list')).stdout).toMatch(new RegExp(`Waiting for approval:\\n  ${code}  telegram:${stranger} `));
    expect(fakes.model.requests).toHaveLength(0);
  });

  it('approved by `operator pairing approve` while the gateway runs: told once, then answered; still no admin', async () => {
    chat.write(approved, 'hi');
    await chat.reply(approved, 'pairing code');
    const result = await chat.pairing('approve', chat.code(approved));
    expect(result.code).toBe(0);
    await chat.reply(approved, told);

    fakes.model.enqueue({ text: 'Glad to meet you.' });
    chat.write(approved, 'hello again');
    await chat.reply(approved, 'Glad to meet you.');

    // A non-admin cannot approve anyone.
    const before = chat.count(approved);
    chat.write(approved, `/pair ${chat.code(stranger)}`);
    await chat.reply(approved, '/pair is for admins only.', before);
    expect((await chat.pairing('list')).stdout).toContain(chat.code(stranger));
  });

  it("from the admin's seat: /pair approves, the person is told at once, once", async () => {
    const code = chat.code(stranger);
    chat.write(admin, `/pair ${code}`);
    const answer = await chat.reply(admin, 'Paired');
    expect(answer.text).toBe(`Paired: telegram:${stranger} (Person ${stranger}). I'm letting them know they can talk to me now.`);
    await chat.reply(stranger, told);
    fakes.model.enqueue({ text: 'Welcome.' });
    chat.write(stranger, 'may I?');
    await chat.reply(stranger, 'Welcome.');
  });

  it('declined by `operator pairing deny`: the next message is refused, without a new code', async () => {
    chat.write(declined, 'let me in');
    await chat.reply(declined, 'pairing code');
    expect((await chat.pairing('deny', chat.code(declined))).code).toBe(0);
    const before = chat.count(declined);
    chat.write(declined, 'please?');
    const refusal = await chat.reply(declined, 'declined', before);
    expect(refusal.text).toBe('Sorry, an admin of this bot declined your request to talk with me. You can ask for a new pairing code in 24 hours.');
  });

  it("revoked by `operator pairing revoke`: the next message is a stranger's", async () => {
    expect((await chat.pairing('revoke', `telegram:${stranger}`)).code).toBe(0);
    const requests = fakes.model.requests.length;
    const before = chat.count(stranger);
    chat.write(stranger, 'still there?');
    await chat.reply(stranger, 'pairing code', before);
    expect(fakes.model.requests).toHaveLength(requests);
  });

  it('never tells anyone twice', async () => {
    // One sweep more: nothing is sent again. /pair sweeps before it answers (so its person is told
    // at once), which makes the sweep an event to wait for rather than the timer's next round.
    await sweepByPair(chat, admin, latecomer);
    expect(chat.countWith(latecomer, told)).toBe(1);
    expect(chat.countWith(approved, told)).toBe(1);
    expect(chat.countWith(stranger, told)).toBe(1);
    expect(chat.countWith(declined, told)).toBe(0);
  });
});

describe('pairing through the gateway, on a fresh install', () => {
  const first = 5005;
  const second = 6006;
  /** Paired last, to make the gateway sweep the notices once more. */
  const third = 8008;
  let fakes: TelegramGatewayFakes;
  let gateway: StartedGateway;
  let chat: ReturnType<typeof chats>;
  const start = () => startGateway({ home: fakes.home, env: fakes.env([]) }, waitMs);

  beforeAll(async () => {
    fakes = await startTelegramGatewayFakes('operator-pairing-owner-e2e-');
    gateway = await start();
    chat = chats(fakes, () => gateway);
  });

  afterAll(async () => {
    await gateway?.stop();
    await fakes?.close();
  });

  it('makes nobody owner by themselves: /pair from a stranger only gets the code again, even with no admin', async () => {
    chat.write(first, 'hello');
    await chat.reply(first, 'pairing code');
    const before = chat.count(first);
    chat.write(first, `/pair ${chat.code(first)}`);
    await chat.reply(first, 'pairing code', before);
    expect(chat.countWith(first, 'Paired')).toBe(0);
    expect((await chat.pairing('list')).stdout).toContain("This bot has no admin yet: operator pairing approve CODE --owner makes that person the bot's owner.");
  });

  it('approves the owner while the gateway is down; the gateway tells them when it starts, once', async () => {
    expect(await gateway.stop()).toBe(0);
    const result = await chat.pairing('approve', chat.code(first), '--owner');
    expect(result.stdout).toContain(`Paired telegram:${first} Person ${first} as the bot's owner`);
    gateway = await start();
    const notice = await chat.reply(first, told);
    expect(notice.text).toContain('You are my owner');
  });

  it("from the owner's seat: /pair approves the next person", async () => {
    chat.write(second, 'hi');
    await chat.reply(second, 'pairing code');
    chat.write(first, `/pair ${chat.code(second)}`);
    await chat.reply(first, 'Paired');
    const notice = await chat.reply(second, told);
    expect(notice.text).not.toContain('owner');
    // One sweep more (see "never tells anyone twice" above).
    await sweepByPair(chat, first, third);
    expect(chat.countWith(third, told)).toBe(1);
    expect(chat.countWith(first, told)).toBe(1);
    expect(chat.countWith(second, told)).toBe(1);
  });
});
