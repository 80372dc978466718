/**
 * The chaos run's judge: what the fake model answers, and how the chats' final state is counted
 * (so that a run of a broken gateway cannot pass because the counting missed it).
 */
import { describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../fakes/fake-model-server.ts';
import { answerTo, chaosReply, countAnswers, type ChatOutcome } from './chaos-answers.ts';

const chat = (sent: string[], botTexts: string[], sentAsKilled?: boolean[]): Map<number, ChatOutcome> => new Map([[1, { sent, botTexts, ...(sentAsKilled && { sentAsKilled }) }]]);
const request = (messages: { role: string; content: unknown }[]) => ({ body: { messages } }) as unknown as RecordedRequest;

describe('the chaos model', () => {
  it('answers the tokens of every user message after the last assistant message that said something, in order', () => {
    const reply = chaosReply(request([
      { role: 'user', content: 'm1-c1 please answer' },
      { role: 'assistant', content: answerTo(['m1-c1']) },
      { role: 'user', content: 'm2-c1 please answer' },
      { role: 'assistant', content: '' },
      { role: 'user', content: [{ type: 'text', text: 'm3-c1 please answer' }] },
    ]), 5);
    expect(reply).toMatchObject({ text: answerTo(['m2-c1', 'm3-c1']), delayMs: 5 });
  });
});

describe('counting a chaos run', () => {
  it('counts whole answers, batched ones included, as answered once', () => {
    const count = countAnswers(chat(['m1-c1', 'm2-c1', 'm3-c1'], [answerTo(['m1-c1']), answerTo(['m2-c1', 'm3-c1'])]));
    expect(count).toMatchObject({ sent: 3, acknowledged: 3, once: 3, lost: [], twice: [], dangling: [], other: [], outOfOrder: [] });
  });

  it('finds a lost message, one answered twice and one whose answer came out of order', () => {
    const count = countAnswers(chat(['m1-c1', 'm2-c1', 'm3-c1', 'm4-c1'], [answerTo(['m2-c1']), answerTo(['m1-c1']), answerTo(['m2-c1']), answerTo(['m4-c1'])]));
    expect(count).toMatchObject({ once: 2, lost: ['m3-c1'], twice: ['m2-c1'], outOfOrder: ['c1'] });
  });

  it('counts an unanswered message that was never acknowledged, or in flight at a kill, apart from the lost', () => {
    const count = countAnswers(chat(['m1-c1', 'm2-c1', 'm3-c1'], []), { acceptance: (token) => (token === 'm1-c1' ? 'notAccepted' : token === 'm2-c1' ? 'inFlight' : 'acknowledged') });
    expect(count).toMatchObject({ acknowledged: 2, lost: ['m3-c1'], notAccepted: ['m1-c1'], inFlight: ['m2-c1'] });
  });

  it('finds an unfinished preview, orphaned when the platform took it just before a kill', () => {
    const preview = `${answerTo(['m1-c1']).slice(0, 40)} …`;
    expect(countAnswers(chat(['m1-c1'], [preview, answerTo(['m1-c1'])]))).toMatchObject({ once: 1, dangling: [`c1: ${preview}`], orphaned: [] });
    expect(countAnswers(chat(['m1-c1'], [preview, answerTo(['m1-c1'])], [true, false]))).toMatchObject({ once: 1, dangling: [], orphaned: [`c1: ${preview}`] });
  });

  it('counts a partial answer without the marker, a failure notice and another chat\'s tokens as other messages', () => {
    const count = countAnswers(chat(['m1-c1'], [answerTo(['m1-c1']).slice(0, 50), 'Sorry, something went wrong.', answerTo(['m9-c2'])]));
    expect(count.other).toHaveLength(3);
    expect(count.lost).toEqual(['m1-c1']);
  });

  it('with interrupt, takes a stopped answer as its message\'s only when a newer message\'s answer follows it', () => {
    const stopped = answerTo(['m1-c1']).slice(0, 50);
    expect(countAnswers(chat(['m1-c1', 'm2-c1'], [stopped, answerTo(['m2-c1'])]), { interrupted: true })).toMatchObject({ once: 2, stopped: 1, other: [] });
    const last = countAnswers(chat(['m1-c1', 'm2-c1'], [answerTo(['m1-c1']), answerTo(['m2-c1']).slice(0, 50)]), { interrupted: true });
    expect(last).toMatchObject({ once: 1, stopped: 0, lost: ['m2-c1'] });
    expect(last.other).toHaveLength(1);
  });
});
