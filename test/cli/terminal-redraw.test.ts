/**
 * The in-place redraw of streamed Markdown on a terminal (`operator chat` in a pseudo-terminal,
 * against the fake model server): it erases exactly the rows the raw text took, wrapped lines
 * included, and leaves text raw where erasing could hit something else: a block taller than the
 * screen, and the rest of an answer the person typed into.
 */
import { describe, expect, it } from 'vitest';
import { chatSuite } from './chat-under-test.ts';
import { screenAfter } from './virtual-screen.ts';

const suite = chatSuite();

describe('redrawing streamed Markdown on a terminal', () => {
  it('erases wrapped raw lines exactly and leaves a block taller than the screen raw', async () => {
    const code = ['```', ...Array.from({ length: 12 }, (_, index) => `line ${index + 1}`), '```'].join('\n');
    const paragraph = 'This **paragraph** is long enough to wrap over three rows of a narrow terminal window.';
    suite.server().enqueue({ text: `${paragraph}\n\n${code}\n\nEND-OF-ANSWER` });
    const chat = suite.startInTerminal({}, { columns: 40, rows: 10 });
    chat.send('explain');
    await chat.output.waitFor(/END-OF-ANSWER[\s\S]*END-OF-ANSWER/);
    const screen = screenAfter(chat.output.stdout(), 40);
    const rendered = 'This paragraph is long enough to wrap over three rows of a narrow terminal window.';
    expect(screen).toEqual([
      'explain',
      rendered.slice(0, 40),
      rendered.slice(40, 80),
      rendered.slice(80),
      '',
      ...code.split('\n'),
      '',
      'END-OF-ANSWER',
      '',
    ]);
    chat.send('/exit');
    expect(await chat.exited).toBe(0);
  });

  it('leaves the rest of an answer raw once the person types into it', async () => {
    const text = 'First **para**.\n\nSecond **part** still going';
    suite.server().enqueue({ text, firstChunkSize: text.indexOf('going'), stallAfterEvents: { events: 4, ms: 60_000 } }, { text: 'More.' });
    const chat = suite.startInTerminal();
    chat.send('go on');
    await chat.output.waitFor('Second **part** still');
    chat.send('and more');
    await chat.output.waitFor('(queued)');
    chat.child.stdin.write('\x03');
    await chat.output.waitFor('(aborted');
    const screen = screenAfter(chat.output.stdout());
    // The typed line's echo lands after the raw text, which stays as it was: nothing is erased.
    expect(screen.slice(0, 5)).toEqual(['go on', 'First para.', '', 'Second **part** still and more', '  (queued)']);
    // The terminal echoes Ctrl+C as ^C (echoctl) where the cursor is.
    expect(screen[5]).toMatch(/^(\^C)? {2}\(aborted; Ctrl\+C again to exit\)$/);
    chat.send('/exit');
    expect(await chat.exited).toBe(0);
  });
});
