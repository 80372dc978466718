/**
 * Telegram end to end, busy modes: what a message sent while its conversation's turn works does
 * under `busyMode` followUp, steer and interrupt, through the real gateway process. Every message
 * is answered, in order, none twice; a follow-up cut off by a crash is answered after the restart
 * from the person's message, and the preview it left is finished, not left dangling.
 *
 * The tests of one mode share a gateway, each in a conversation of its own. That nothing more
 * comes is shown by a message sent after the turn: a conversation's turns run in order, so a turn
 * that should not exist would come before its answer.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFailed } from 'vitest';
import type { FakeModelServer, RecordedRequest } from '../fakes/fake-model-server.ts';
import type { FakeTelegram } from '../fakes/fake-telegram-server.ts';
import type { GatewayProcess } from '../helpers/gateway-process.ts';
import { findBotMessage, startTelegramGateway, startTelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';
import type { TelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';

const wait = 20_000;
/** Each test's person, in a DM of their own: tests that share a gateway share no conversation. */
const people = { followUp: 7007, steerTaken: 7008, steerLate: 7009, interruptSaid: 7010, interruptSilent: 7011 };

/** The user texts of a model request, in order. */
function userTexts(request: RecordedRequest): string[] {
  return (request.body.messages as { role: string; content: string | { type: string; text?: string }[] }[])
    .filter((message) => message.role === 'user')
    .flatMap((message) => (typeof message.content === 'string' ? [message.content] : message.content.flatMap((part) => (part.type === 'text' && part.text ? [part.text] : []))));
}

describe('busy modes through the gateway', () => {
  let fakes: TelegramGatewayFakes;
  let model: FakeModelServer;
  let telegram: FakeTelegram;
  let gateway: GatewayProcess | undefined;
  /** The `busyMode` the running gateway was started with (unset: start a new one). */
  let runningMode: string | undefined;

  /** Spawns the gateway (every person is an admin: their own DM is the owner's seat). */
  const spawn = () => startTelegramGateway(fakes, Object.values(people));
  /**
   * A gateway with `busyMode`: the tests of one mode share it, each in its own conversation; a test
   * of another mode, or after a failed test (which may have left a turn running), gets a new one.
   */
  const start = async (busyMode: string) => {
    onTestFailed(() => void (runningMode = undefined));
    if (gateway && runningMode === busyMode) return gateway;
    await gateway?.stop();
    writeFileSync(join(fakes.home, 'operator.json'), JSON.stringify({ busyMode }));
    gateway = await spawn();
    // Commands registered by an earlier gateway say nothing of this one: its banner does.
    await gateway.ready(wait);
    runningMode = busyMode;
    return gateway;
  };
  const chat = (person: number) => {
    const from = { id: person, first_name: 'Ida' };
    return {
      say: (text: string) => telegram.pushUpdate(telegram.textMessage({ chatId: person, text, from })),
      find: (contains: string) => findBotMessage(telegram, gateway!, person, contains, wait),
      texts: () => telegram.messages(person).map((message) => message.text),
      streaming: (prefix: string) => telegram.waitFor((fake) => fake.messages(person).find((message) => message.text.startsWith(prefix) && message.text.endsWith('…')), wait),
      /** The conversation's first turn that finished as it should (the gateway's `turn.end` log line). */
      turnEnded: () => gateway!.output.waitFor(new RegExp(`"event":"turn\\.end"[^\\n]*"conversation":"telegram:dm:${person}"[^\\n]*"status":"ok"`), { stream: 'all', timeoutMs: wait, label: `the end of a turn in ${person}` }),
    };
  };

  beforeAll(async () => {
    // Edited previews are what these tests watch: a Bot API server without drafts, where DM replies
    // stream by them (as group replies always do; drafts: telegram-drafts-e2e.test.ts).
    fakes = await startTelegramGatewayFakes('operator-busy-modes-', { drafts: 'unknown-method' });
    ({ model, telegram } = fakes);
  });

  // Each test scripts the model afresh and counts only its own requests.
  beforeEach(() => model.reset());

  afterAll(async () => {
    await gateway?.stop();
    await fakes?.close();
  });

  it('followUp: answers a message sent during a turn after it, and after a crash in its answer, once, from the message itself', async () => {
    await start('followUp');
    const person = people.followUp;
    const { say, streaming, texts } = chat(person);
    const first = `First answer, ${'streamed slowly, '.repeat(6)}done.`;
    model.enqueue({ text: first, chunkSize: 4, delayMs: 40 });
    // The follow-up's answer streams and never ends: the gateway dies in the middle of it. Its
    // first piece is long enough for a preview at once.
    model.enqueue({ text: `Second answer, ${'never finished, '.repeat(40)}`, firstChunkSize: 30, chunkSize: 4, delayMs: 200 });
    say('question A');
    await streaming('First answer');
    say('question B');
    // A's answer is delivered when A's turn ends, not when the follow-up's does.
    await telegram.waitFor((fake) => fake.messages(person).find((message) => message.text === first), wait);
    // Killed once the preview has been edited: the gateway has seen it sent and noted it. (A kill
    // between Telegram taking a new message and the gateway hearing back cannot be told apart
    // from a send that never happened; docs/storage.md says so.)
    await telegram.waitFor((fake) => fake.messages(person).find((message) => message.text.startsWith('Second answer') && message.text.endsWith('…') && message.edits > 0), wait);
    await gateway!.kill();

    model.enqueue({ text: 'Second answer, after the restart.' });
    const before = model.requests.length;
    gateway = await spawn();
    // The preview the dead process left becomes the answer: one message, finished (waited for
    // whole: the preview shows the answer with its marker a moment before the final edit).
    await telegram.waitFor((fake) => fake.messages(person).find((message) => message.text === 'Second answer, after the restart.'), wait);
    expect(texts()).toEqual([first, 'Second answer, after the restart.']);
    const replay = model.requests.slice(before);
    expect(replay).toHaveLength(1);
    // Run again from the person's message: B once, as the last user message, and no note.
    expect(userTexts(replay[0]!).filter((text) => text === 'question B')).toHaveLength(1);
    expect(userTexts(replay[0]!).at(-1)).toBe('question B');
    expect(userTexts(replay[0]!).join('\n')).not.toContain('restarted');
  });

  it('steer: a message taken into the running turn is answered by it, once', async () => {
    await start('steer');
    const { say, find, texts, streaming, turnEnded } = chat(people.steerTaken);
    // The turn lists a folder first: the steering message is taken in after that tool round.
    // Its first piece is long enough for a preview at once; the rest takes seconds.
    model.enqueue({ text: 'Let me look at the folder first, one moment.', toolCalls: [{ name: 'list_dir', arguments: { path: '.' } }], firstChunkSize: 26, chunkSize: 4, delayMs: 250 });
    model.enqueue({ text: 'Both answered: A and the steering B.' }, { text: 'C answered.' });
    say('question A');
    // B comes while the first model call still streams (its tool call is seconds away).
    await streaming('Let me look at the folder');
    say('also consider B');
    await find('Both answered');
    // Nothing else comes: B had no turn of its own. A message sent once the turn is over is
    // answered next (a conversation's turns run in order), so a turn of B's would come before it.
    await turnEnded();
    say('and C?');
    await find('C answered.');
    expect(model.requests).toHaveLength(3);
    expect(userTexts(model.requests[1]!)).toEqual(['question A', 'also consider B']);
    expect(userTexts(model.requests[2]!)).toEqual(['question A', 'also consider B', 'and C?']);
    expect(texts().filter((text) => text.includes('Both answered'))).toHaveLength(1);
  });

  it('steer: a message too late for the running turn gets a turn of its own', async () => {
    await start('steer');
    const { say, find, texts, streaming } = chat(people.steerLate);
    const first = `First answer, ${'streamed slowly, '.repeat(6)}done.`;
    model.enqueue({ text: first, chunkSize: 4, delayMs: 40 }, { text: 'Late message answered.' });
    say('question A');
    await streaming('First answer');
    // No tool round is left in this turn: the message cannot be taken in.
    say('late B');
    await find('Late message answered.');
    expect(texts()).toEqual([first, 'Late message answered.']);
    expect(userTexts(model.requests[1]!).at(-1)).toBe('late B');
  });

  it('interrupt: stops the running answer, keeps what it said, and answers the new message next, in order', async () => {
    await start('interrupt');
    const person = people.interruptSaid;
    const { say, texts, streaming } = chat(person);
    const ending = 'NEVER-REACHED';
    model.enqueue({ text: `First answer, ${'going on and on, '.repeat(30)}${ending}`, chunkSize: 4, delayMs: 40 });
    model.enqueue({ text: 'Answer to the interruption.' });
    say('question A');
    await streaming('First answer');
    say('actually, B');
    // The final text, not its streamed preview (which ends with the marker and contains it too).
    await telegram.waitFor((fake) => fake.messages(person).some((message) => message.text === 'Answer to the interruption.'), wait);
    const [stopped, next] = texts();
    expect(stopped).toMatch(/^First answer/);
    expect(stopped).not.toContain(ending);
    expect(stopped!.endsWith('…')).toBe(false);
    expect(next).toBe('Answer to the interruption.');
    expect(texts()).toHaveLength(2);
    expect(userTexts(model.requests[1]!).at(-1)).toBe('actually, B');
  });

  it('interrupt: a turn stopped before it said anything is answered with the interrupting message, once', async () => {
    await start('interrupt');
    const person = people.interruptSilent;
    const { say, find, texts, turnEnded } = chat(person);
    model.enqueue({ text: 'never said', hangMs: 30_000 });
    model.enqueue({ text: 'One answer for both.' }, { text: 'C answered.' });
    say('question A');
    await telegram.waitFor(() => model.requests.length >= 1, wait);
    say('never mind, B');
    await find('One answer for both.');
    // Nothing else comes: A is not answered again. A message sent once the turn is over is
    // answered next (a conversation's turns run in order), so a turn of A's would come before it.
    await turnEnded();
    say('and C?');
    await telegram.waitFor((fake) => fake.messages(person).some((message) => message.text === 'C answered.'), wait);
    expect(texts()).toEqual(['One answer for both.', 'C answered.']);
    expect(model.requests).toHaveLength(3);
    expect(userTexts(model.requests[1]!).slice(-2)).toEqual(['question A', 'never mind, B']);
    expect(userTexts(model.requests[2]!)).toEqual(['question A', 'never mind, B', 'and C?']);
  });
});
