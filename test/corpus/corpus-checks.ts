/**
 * What the three corpus tests share: the fake model's script (each turn's answer names its turn,
 * a sentinel's is its acknowledgement), what a model request asked, and the checks of the
 * expectations every platform has (`reply`, `media`, `soft`, `silent`).
 */
import { expect, vi } from 'vitest';
import type { FakeModelServer, RecordedRequest } from '../fakes/fake-model-server.ts';
import type { Expectation } from './real-payloads.ts';

/** The text of the last user message of a model request. */
export function lastUserText(request: RecordedRequest): string {
  const messages = request.body.messages as { role: string; content: unknown }[];
  const last = [...messages].reverse().find((message) => message.role === 'user');
  if (!last) return '';
  if (typeof last.content === 'string') return last.content;
  return (last.content as { type: string; text?: string }[]).map((part) => part.text ?? '').join('\n');
}

/** Scripts `model`: a turn asked `sentinel <name>` answers `ack <name>`, any other `answer <n>`. */
export function answerSentinels(model: FakeModelServer): void {
  let answers = 0;
  model.setDefault((request) => {
    const sentinel = /sentinel ([\w-]+)/.exec(lastUserText(request));
    return { text: sentinel ? `ack ${sentinel[1]}` : `answer ${++answers}` };
  });
}

/**
 * Resolves once every turn the gateway began has ended (as many `turn.end` log lines as
 * `turn.start`): what a sample set off in another conversation than its sentinel's (a slash
 * command's turn, say) is then counted for that sample, never for the next one.
 */
export async function turnsSettled(output: { all(): string }, timeoutMs: number): Promise<void> {
  const count = (event: string) => output.all().split(`"event":"${event}"`).length - 1;
  await vi.waitFor(() => expect(count('turn.end')).toBe(count('turn.start')), { timeout: timeoutMs, interval: 20 });
}

/** The model requests after the first `since`, but the sentinel's of sample `name`. */
export function askedFor(model: FakeModelServer, since: number, name: string): string[] {
  return model.requests
    .slice(since)
    .map(lastUserText)
    .filter((text) => !text.includes(`sentinel ${name}`));
}

/** What a sample got: the bot's messages (those in the right place among them), what the model was asked. */
export interface Outcome {
  sent: number;
  inPlace: number;
  asked: string[];
  /** The messages sent, for a failure's message. */
  described: string;
}

/**
 * Checks `outcome` against `expectation` where every platform means the same; false for the
 * platform's own expectations (`notice`, `command`, ...), which the caller checks.
 */
export function checkCommon(expectation: Expectation, outcome: Outcome): boolean {
  const { sent, inPlace, asked, described } = outcome;
  switch (expectation) {
    case 'reply':
    case 'media':
      expect(inPlace, described).toBe(1);
      expect(sent, described).toBe(1);
      return true;
    case 'soft':
      expect(sent, described).toBeLessThanOrEqual(1);
      expect(inPlace, described).toBe(sent);
      return true;
    case 'silent':
      expect(sent, described).toBe(0);
      expect(asked).toEqual([]);
      return true;
    default:
      return false;
  }
}
