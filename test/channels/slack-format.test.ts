/**
 * Markdown to Slack mrkdwn, and long replies split within the chunk limit without breaking a
 * code block.
 */
import { describe, expect, it } from 'vitest';
import { formatSlackMessage, renderSlackMrkdwn, slackMaxLength } from '../../src/channels/slack/index.ts';
import { displayMrkdwn } from '../fakes/fake-slack-mrkdwn.ts';

describe('renderSlackMrkdwn', () => {
  it.each([
    ['**bold** and __bold__', '*bold* and *bold*'],
    ['*italic* and _italic_', '_italic_ and _italic_'],
    ['~~gone~~', '~gone~'],
    ['***both***', '_*both*_'],
    ['`a < b && c`', '`a &lt; b &amp;&amp; c`'],
    ['[the docs](https://example.com/?a=1&b=2)', '<https://example.com/?a=1&amp;b=2|the docs>'],
    ['<https://example.com>', '<https://example.com>'],
    ['[odd|label](https://example.com/a|b)', '<https://example.com/a%7Cb|odd|label>'],
    ['[local](javascript:alert(1))', 'local'],
    ['5 > 3 & 2 < 4', '5 &gt; 3 &amp; 2 &lt; 4'],
    ['AT&amp;T &#x2014; done', 'AT&amp;T — done'],
    ['# Title\n\ntext', '*Title*\n\ntext'],
    ['> quoted\n> twice', '> quoted\n> twice'],
    ['- one\n- two\n  - nested', '• one\n• two\n    • nested'],
    ['3. three\n4. four', '3. three\n4. four'],
    ['- [x] done\n- [ ] todo', '• ☑ done\n• ☐ todo'],
    ['```ts\nconst a = x < y;\n```', '```\nconst a = x &lt; y;\n```'],
    ['line one  \nline two', 'line one\nline two'],
    ['---', '──────────'],
    ['<b>html</b>', '&lt;b&gt;html&lt;/b&gt;'],
  ])('renders %j', (markdown, mrkdwn) => {
    expect(renderSlackMrkdwn(markdown)).toBe(mrkdwn);
  });

  it('renders a table as a code block with aligned columns', () => {
    const table = '| name | size |\n|:-----|-----:|\n| a.ts | 10 |\n| <b>.ts | 2000 |';
    expect(renderSlackMrkdwn(table)).toBe('```\nname   | size\n-------+-----\na.ts   |   10\n&lt;b&gt;.ts | 2000\n```');
  });

  it('reads back as the text a person sees', () => {
    const shown = displayMrkdwn(renderSlackMrkdwn('**Done**: `x < y` in [main.ts](https://example.com) & _more_'));
    expect(shown.text).toBe('Done: x < y in main.ts & more');
  });
});

describe('formatSlackMessage', () => {
  it('keeps a short message in one chunk', () => {
    expect(formatSlackMessage('Hello **there**')).toEqual(['Hello *there*']);
    expect(formatSlackMessage('   ')).toEqual([]);
  });

  it('splits a long code block within the limit, each chunk a closed code block, escapes counted', () => {
    const lines = Array.from({ length: 300 }, (_, index) => `if (a${index} < b && c > d) return ${index};`);
    const markdown = `Intro.\n\n\`\`\`js\n${lines.join('\n')}\n\`\`\`\n\nOutro.`;
    const chunks = formatSlackMessage(markdown);
    expect(chunks.length).toBeGreaterThan(3);
    for (const chunk of chunks) {
      expect(chunk.length).toBeLessThanOrEqual(slackMaxLength);
      expect((chunk.match(/```/g) ?? []).length % 2).toBe(0);
    }
    const code = chunks.flatMap((chunk) => displayMrkdwn(chunk).codeBlocks).flatMap((block) => block.split('\n'));
    expect(code).toEqual(lines);
    expect(chunks[0]!.startsWith('Intro.')).toBe(true);
    expect(chunks.at(-1)!.endsWith('Outro.')).toBe(true);
  });

  it('splits long prose at paragraph boundaries', () => {
    const paragraphs = Array.from({ length: 8 }, (_, index) => `Paragraph ${index}: ${'lorem ipsum '.repeat(60).trim()}`);
    const chunks = formatSlackMessage(paragraphs.join('\n\n'), 1000);
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.every((chunk) => chunk.length <= 1000)).toBe(true);
    expect(chunks.join('\n\n')).toBe(paragraphs.join('\n\n'));
  });
});
