/**
 * Markdown to Telegram HTML: each construct, escaping, and that everything rendered is accepted by
 * a Telegram-faithful HTML parser (the fake Bot API's).
 */
import { describe, expect, it } from 'vitest';
import { formatTelegramMessage, renderTelegramHtml } from '../../src/channels/telegram/index.ts';
import { parseTelegramHtml } from '../fakes/fake-telegram-html.ts';

describe('renderTelegramHtml', () => {
  it.each([
    ['escapes &, < and >', 'a < b && c > d', 'a &lt; b &amp;&amp; c &gt; d'],
    ['bold, italic, strikethrough, inline code', '**b** _i_ ~~s~~ `x<y`', '<b>b</b> <i>i</i> <s>s</s> <code>x&lt;y</code>'],
    ['links with escaped targets', '[a](https://x.dev/?q=1&r="2")', '<a href="https://x.dev/?q=1&amp;r=&quot;2&quot;">a</a>'],
    ['unsafe link targets as text', '[click](javascript:alert(1))', 'click'],
    ['images as links', '![diagram](https://x.dev/d.png)', '<a href="https://x.dev/d.png">diagram</a>'],
    ['headings as bold lines', '# Title\n\ntext', '<b>Title</b>\n\ntext'],
    ['code blocks with their language', '```ts\nconst a = 1 < 2;\n```', '<pre><code class="language-ts">const a = 1 &lt; 2;</code></pre>'],
    ['code blocks without a language', '```\nplain\n```', '<pre>plain</pre>'],
    ['bullet lists, nested indented', '- a\n- b\n  - c', '• a\n• b\n  • c'],
    ['numbered lists from their start', '3. x\n4. y', '3. x\n4. y'],
    ['task lists', '- [ ] todo\n- [x] done', '• ☐ todo\n• ☑ done'],
    ['blockquotes, nested ones flattened', '> quote\n> > inner', '<blockquote>quote\n\ninner</blockquote>'],
    ['balanced inline HTML Telegram knows', 'an <u>underlined</u> word', 'an <u>underlined</u> word'],
    ['other or unbalanced inline HTML as text', '<b>open <span>x</span>', '&lt;b&gt;open &lt;span&gt;x&lt;/span&gt;'],
    ['line breaks', 'one<br>two', 'one\ntwo'],
    ['character references', 'fish &amp; chips &#x2014; yes', 'fish &amp; chips — yes'],
    ['rules', 'a\n\n---\n\nb', 'a\n\n──────────\n\nb'],
  ])('%s', (_name, markdown, html) => {
    expect(renderTelegramHtml(markdown)).toBe(html);
  });

  it('lays tables out as preformatted text, aligned', () => {
    const html = renderTelegramHtml('| name | n |\n|:--|--:|\n| **alpha** | 1 |\n| b | 200 |');
    expect(html).toBe('<pre>name  |   n\n------+----\nalpha |   1\nb     | 200</pre>');
  });

  it('produces HTML Telegram accepts for tricky input', () => {
    const inputs = [
      '**bold _italic `code` italic_ bold**',
      '[**bold link**](https://x.dev) and <https://auto.link/?a=1&b=2>',
      '> quote with `code` and **bold**\n>\n> ```\n> block <in> quote\n> ```',
      '| a | b |\n|---|---|\n| `<x>` | [l](https://x.dev) |',
      '<u>under **bold** line</u> <tg-spoiler>hidden</tg-spoiler> <ins>x',
      '- item with `code`\n  1. nested **bold**\n     > quoted',
      'stray </i> tags <b> & entities &nbsp; &bogus; &#0;',
      '```html\n<div class="x">&amp;</div>\n```',
      '*',
      '_a **b_ c**',
    ];
    for (const markdown of inputs) {
      const parsed = parseTelegramHtml(renderTelegramHtml(markdown));
      expect(parsed, markdown).toMatchObject({ ok: true });
    }
  });
});

describe('formatTelegramMessage', () => {
  it('splits so each chunk shows at most 4,096 characters, each with a plain-text fallback', () => {
    const markdown = Array.from({ length: 40 }, (_, index) => `**Point ${index}**: ${'see [the docs](https://example.com/page) '.repeat(8)}`).join('\n\n');
    const chunks = formatTelegramMessage(markdown);
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) {
      const parsed = parseTelegramHtml(chunk.html);
      if (!parsed.ok) throw new Error(parsed.description);
      expect(parsed.text.length).toBeLessThanOrEqual(4096);
      expect(chunk.plain.length).toBeLessThanOrEqual(4096);
      expect(chunk.plain).not.toMatch(/<|&amp;/);
    }
    expect(chunks.map((chunk) => parseTelegramHtml(chunk.html)).flatMap((parsed) => (parsed.ok ? parsed.text.match(/Point \d+/g) ?? [] : []))).toHaveLength(40);
  });

  it('keeps link targets in the plain-text fallback', () => {
    expect(formatTelegramMessage('Open [the page](https://x.dev/a) or https://x.dev/b')).toEqual([
      { html: 'Open <a href="https://x.dev/a">the page</a> or <a href="https://x.dev/b">https://x.dev/b</a>', plain: 'Open the page (https://x.dev/a) or https://x.dev/b' },
    ]);
  });
});
