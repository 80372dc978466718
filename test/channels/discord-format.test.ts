/**
 * Discord formatting: Markdown passes through, what Discord does not render is adapted (tables,
 * deep headings, images), and long replies split at 2,000 characters, never inside a code block.
 */
import { describe, expect, it } from 'vitest';
import { discordMaxLength, formatDiscordMessage, toDiscordMarkdown } from '../../src/channels/discord/index.ts';
import { displayedContent } from '../fakes/fake-discord-markdown.ts';

describe('discord format', () => {
  it('passes Discord Markdown through unchanged', () => {
    const text = '# Title\n\n**bold** *italic* ~~strike~~ `code` [link](https://example.com)\n\n- one\n- two\n\n> quoted\n\n```ts\nconst x = 1 | 2;\n```';
    expect(formatDiscordMessage(text)).toEqual([text]);
  });

  it('turns tables into aligned code blocks, keeping the text around them', () => {
    const markdown = 'Before\n\n| Name | Count | Note |\n|:-----|------:|:----:|\n| `a` | 1 | [x](https://e.x) |\n| **long name** | 1000 | y |\n\nAfter';
    expect(toDiscordMarkdown(markdown)).toBe(
      ['Before', '', '```', 'Name       Count  Note', '---------  -----  ----', 'a              1   x', 'long name   1000   y', '```', '', 'After'].join('\n'),
    );
  });

  it('makes deeper headings bold and images links, leaving code alone', () => {
    const markdown = '#### Details\n\nSee ![diagram](https://e.x/d.png) and ![](https://e.x/raw.png)\n\n```\n![kept](x) | a |\n```';
    expect(toDiscordMarkdown(markdown)).toBe('**Details**\n\nSee [diagram](https://e.x/d.png) and https://e.x/raw.png\n\n```\n![kept](x) | a |\n```');
  });

  it('splits long replies at 2,000 characters, closing and reopening a code block', () => {
    const code = Array.from({ length: 150 }, (_, index) => `print(${index}) # line ${index}`);
    const chunks = formatDiscordMessage(['Intro', '', '```python', ...code, '```', '', 'Outro'].join('\n'));
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(discordMaxLength);
    const shown = chunks.map(displayedContent);
    expect(shown.flatMap((content) => content.codeBlocks).flatMap((block) => block.split('\n'))).toEqual(code);
    expect(chunks.slice(1, -1).every((chunk) => chunk.startsWith('```python'))).toBe(true);
    expect(chunks[0]!.startsWith('Intro')).toBe(true);
    expect(chunks.at(-1)!.endsWith('Outro')).toBe(true);
  });

  it('gives no chunks for an empty text', () => {
    expect(formatDiscordMessage('  \n ')).toEqual([]);
  });
});
