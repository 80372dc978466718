/**
 * How the OpenAI-compatible API puts an answer together from what a turn sends its conversation:
 * deltas from growing previews, the recorded reply's rest, a slow provider's notice kept out of
 * the answer, the words a preview showed before a tool call, and messages after the answer.
 */
import { describe, expect, it } from 'vitest';
import { ApiAnswer, answerOfPreview, restOf } from '../../src/channels/api/api-answer.ts';
import { previewMarker } from '../../src/channels/types.ts';

const preview = (text: string) => `${text} ${previewMarker}`;

function recorded(): { answer: ApiAnswer; deltas: string[]; notices: string[] } {
  const deltas: string[] = [];
  const notices: string[] = [];
  return { answer: new ApiAnswer({ delta: (text) => deltas.push(text), notice: (text) => notices.push(text) }), deltas, notices };
}

describe('the API answer', () => {
  it('gives what each preview adds, then the rest of the recorded reply', () => {
    const { answer, deltas } = recorded();
    answer.preview(preview('The plan for'), undefined);
    answer.preview(preview('The plan for the week'), undefined);
    answer.final('The plan for the week is ready.');
    expect(deltas).toEqual(['The plan for', ' the week', ' is ready.']);
    expect(answer.content).toBe('The plan for the week is ready.');
  });

  it("keeps a slow provider's notice out of the answer and hands it on apart", () => {
    const notice = 'The model provider is slow to answer; still trying.';
    const { answer, deltas, notices } = recorded();
    answer.preview(preview(notice), notice);
    answer.preview(preview(`Partly done\n\n${notice}`), notice);
    answer.preview(preview('Partly done, and now the rest'), undefined);
    answer.final('Partly done, and now the rest.');
    expect(deltas.join('')).toBe('Partly done, and now the rest.');
    expect(notices).toEqual([notice, notice]);
    expect(answerOfPreview(preview(notice), notice)).toBe('');
  });

  it('keeps, when streamed, the words a preview showed before a tool call, and follows them with the final text', () => {
    const { answer, deltas } = recorded();
    answer.preview(preview('Let me check the calendar.'), undefined);
    answer.preview(preview('Let me check the calendar.\n\nYou are free on'), undefined);
    answer.final('You are free on Friday.');
    expect(deltas.join('')).toBe('Let me check the calendar.\n\nYou are free on Friday.');
    // A non-streamed answer is the final text alone.
    expect(answer.content).toBe('You are free on Friday.');
    // The final text after words it does not repeat starts a paragraph of its own.
    expect(restOf('Let me check.', 'Friday.')).toBe('\n\nFriday.');
  });

  it('follows the answer with what comes after it (a spending warning), and keeps aside what came before it', () => {
    const { answer, deltas } = recorded();
    answer.after('Working on 2 subtasks');
    expect(answer.aside).toBe('Working on 2 subtasks');
    answer.final('Done.');
    answer.after('You have used 80% of your daily spending cap.');
    expect(deltas.join('')).toBe('Done.\n\nYou have used 80% of your daily spending cap.');
    expect(answer.content).toBe('Done.\n\nYou have used 80% of your daily spending cap.');
  });

  it('adds nothing for a preview that does not continue what was given', () => {
    const { answer, deltas } = recorded();
    answer.preview(preview('A first draft of this'), undefined);
    answer.preview(preview('Rewritten entirely'), undefined);
    answer.final('A first draft of this answer.');
    expect(deltas).toEqual(['A first draft of this', ' answer.']);
  });
});
