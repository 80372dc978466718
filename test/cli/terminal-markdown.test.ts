/**
 * The agent's Markdown in the terminal chat (`operator chat` run for real against the fake model
 * server). To a pipe: plain text, no escape sequence, each block written once complete. In a
 * terminal: the text shows raw as it streams and each block is redrawn rendered, in colour unless
 * NO_COLOR is set; a TERM=dumb terminal is written to like a pipe.
 */
import { describe, expect, it } from 'vitest';
import { chatSuite } from './chat-under-test.ts';
import { screenAfter } from './virtual-screen.ts';

const suite = chatSuite();

const answer = [
  '# Release plan',
  '',
  'Ship **on Friday** with `npm publish`, see [the notes](https://example.com/notes).',
  '',
  '- check the **tests**',
  '- [x] tag it',
  '',
  '| step | owner |',
  '|------|------:|',
  '| build | ana |',
  '',
  '```sh',
  'npm run build',
  '```',
  '',
  'END-OF-ANSWER',
].join('\n');

// eslint-disable-next-line no-control-regex -- escape sequences are what is matched
const sgr = /\x1b\[[0-9;]*m/;

describe('Markdown in the terminal chat', () => {
  it('is plain readable text without escape sequences when stdout is not a terminal', async () => {
    suite.server().enqueue({ text: answer });
    const chat = suite.start();
    chat.send('plan the release');
    await chat.output.waitFor('END-OF-ANSWER');
    const stdout = chat.output.stdout();
    expect(stdout).not.toContain('\x1b');
    expect(stdout).toContain(
      [
        '# Release plan',
        '',
        'Ship on Friday with `npm publish`, see the notes (https://example.com/notes).',
        '',
        '- check the tests',
        '- [x] tag it',
        '',
        '| step  | owner |',
        '|-------|------:|',
        '| build |   ana |',
        '',
        '```sh',
        'npm run build',
        '```',
        '',
        'END-OF-ANSWER',
        '',
      ].join('\n'),
    );
    chat.send('/exit');
    expect(await chat.exited).toBe(0);
  });

  it('shows each block as soon as it is complete, while the answer still streams', async () => {
    const text = '# Plan\n\nFirst **step** done.\n\nSecond part that never arrives';
    // The first text delta ends three letters into the second paragraph; then the model stalls.
    suite.server().enqueue({ text, firstChunkSize: text.indexOf('Second') + 3, stallAfterEvents: { events: 4, ms: 60_000 } });
    const chat = suite.start();
    chat.send('tell me slowly');
    await chat.output.waitFor('First step done.');
    expect(chat.output.stdout()).toContain('# Plan\n\nFirst step done.\n');
    expect(chat.output.stdout()).not.toContain('Sec');
    chat.child.kill('SIGINT');
    await chat.output.waitFor('(aborted');
    chat.child.kill('SIGINT');
    expect(await chat.exited).toBe(130);
  });

  it('streams raw and redraws each block rendered in colour on a terminal', async () => {
    suite.server().enqueue({ text: answer });
    const chat = suite.startInTerminal();
    chat.send('plan the release');
    // Raw while it streams, then once more rendered when the answer ends.
    await chat.output.waitFor(/END-OF-ANSWER[\s\S]*END-OF-ANSWER/);
    const output = chat.output.stdout();
    expect(output).toContain('**on Friday**');
    expect(output).toMatch(sgr);
    expect(output).toContain('\x1b[1mon Friday\x1b[22m');
    const screen = screenAfter(output);
    expect(screen.join('\n')).not.toContain('**');
    expect(screen).toEqual(
      expect.arrayContaining([
        'Release plan',
        'Ship on Friday with npm publish, see the notes (https://example.com/notes).',
        '• check the tests',
        '• [x] tag it',
        'step  │ owner',
        'build │   ana',
        '    npm run build',
        'END-OF-ANSWER',
      ]),
    );
    chat.send('/exit');
    expect(await chat.exited).toBe(0);
  });

  it('renders without colour on a terminal when NO_COLOR is set', async () => {
    suite.server().enqueue({ text: answer });
    const chat = suite.startInTerminal({ NO_COLOR: '1' });
    chat.send('plan the release');
    await chat.output.waitFor(/END-OF-ANSWER[\s\S]*END-OF-ANSWER/);
    const output = chat.output.stdout();
    expect(output).not.toMatch(sgr);
    const screen = screenAfter(output);
    expect(screen.join('\n')).not.toContain('**');
    expect(screen).toEqual(expect.arrayContaining(['# Release plan', 'Ship on Friday with `npm publish`, see the notes (https://example.com/notes).', '- check the tests', '| build |   ana |']));
    chat.send('/exit');
    expect(await chat.exited).toBe(0);
  });

  it('writes plain blocks without any escape sequence on a TERM=dumb terminal', async () => {
    suite.server().enqueue({ text: answer });
    const chat = suite.startInTerminal({ TERM: 'dumb' });
    chat.send('plan the release');
    await chat.output.waitFor('END-OF-ANSWER');
    const output = chat.output.stdout();
    expect(output).not.toContain('\x1b');
    expect(output).not.toContain('**');
    expect(output).toContain('Ship on Friday with `npm publish`, see the notes (https://example.com/notes).\r\n');
    chat.send('/exit');
    expect(await chat.exited).toBe(0);
  });
});
