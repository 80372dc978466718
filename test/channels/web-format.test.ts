/**
 * What the web chat shows, rendered on the server: Markdown to safe HTML with `marked` (tables
 * included, raw HTML always shown as text), and the approval card's readable lines.
 */
import { describe, expect, it } from 'vitest';
import { approvalCard } from '../../src/channels/web/approval-card.ts';
import { renderWebHtml } from '../../src/channels/web/format/render-html.ts';

describe('web chat: Markdown to HTML', () => {
  it('renders bold, italic, code, fenced code, links, lists, quotes and line breaks', () => {
    expect(renderWebHtml('**b** *i* ~~s~~ `c`')).toBe('<p><strong>b</strong> <em>i</em> <del>s</del> <code>c</code></p>');
    expect(renderWebHtml('```ts\nconst a = 1 < 2;\n```')).toBe('<pre><code data-language="ts">const a = 1 &lt; 2;</code></pre>');
    expect(renderWebHtml('[docs](https://example.com/a_b)')).toBe('<p><a href="https://example.com/a_b" target="_blank" rel="noopener noreferrer">docs</a></p>');
    expect(renderWebHtml('see https://example.com/x.')).toBe('<p>see <a href="https://example.com/x" target="_blank" rel="noopener noreferrer">https://example.com/x</a>.</p>');
    expect(renderWebHtml('- one\n- two\n  - nested')).toBe('<ul><li>one</li><li>two<ul><li>nested</li></ul></li></ul>');
    expect(renderWebHtml('3. three\n4. four')).toBe('<ol start="3"><li>three</li><li>four</li></ol>');
    expect(renderWebHtml('- [x] done\n- [ ] open')).toBe('<ul><li>☑ done</li><li>☐ open</li></ul>');
    expect(renderWebHtml('> quoted\n> on')).toBe('<blockquote><p>quoted<br>on</p></blockquote>');
    expect(renderWebHtml('# Title\n\nfirst line\nsecond line\n\n---')).toBe('<h1>Title</h1><p>first line<br>second line</p><hr>');
  });

  it('renders a reply still streaming: an unclosed fence is code up to the end', () => {
    expect(renderWebHtml('Here:\n\n```sh\nls -la\nrm <x> …')).toBe('<p>Here:</p><pre><code data-language="sh">ls -la\nrm &lt;x&gt; …</code></pre>');
  });

  it('renders a table with its header, body and column alignment (as classes, which the policy allows)', () => {
    const html = renderWebHtml('| Name | Qty | Note |\n|:-----|----:|:----:|\n| **apple** | 3 | `fresh` |\n| pear | 10 | [link](https://example.com) |');
    expect(html).toBe(
      '<div class="table"><table><thead><tr><th class="align-left">Name</th><th class="align-right">Qty</th><th class="align-center">Note</th></tr></thead>' +
        '<tbody><tr><td class="align-left"><strong>apple</strong></td><td class="align-right">3</td><td class="align-center"><code>fresh</code></td></tr>' +
        '<tr><td class="align-left">pear</td><td class="align-right">10</td><td class="align-center"><a href="https://example.com" target="_blank" rel="noopener noreferrer">link</a></td></tr></tbody></table></div>',
    );
    expect(html).not.toContain('style=');
    expect(renderWebHtml('| only |\n|---|')).toBe('<div class="table"><table><thead><tr><th>only</th></tr></thead></table></div>');
  });

  it('escapes HTML in a table cell, header included: it shows as text', () => {
    const html = renderWebHtml('| <b>head</b> | x |\n|---|---|\n| <img src=x onerror=alert(1)> | <script>alert(2)</script> |\n| a &amp; b | "quoted" \'too\' |');
    expect(html).toContain('<th>&lt;b&gt;head&lt;/b&gt;</th>');
    expect(html).toContain('<td>&lt;img src=x onerror=alert(1)&gt;</td>');
    expect(html).toContain('<td>&lt;script&gt;alert(2)&lt;/script&gt;</td>');
    expect(html).toContain('<td>a &amp; b</td><td>&quot;quoted&quot; &#39;too&#39;</td>');
    expect(html).not.toMatch(/<(img|script|b)[\s>]/);
  });

  it('shows raw HTML as text and keeps only http, https and mailto links', () => {
    expect(renderWebHtml('<img src=x onerror=alert(1)>')).toBe('<p>&lt;img src=x onerror=alert(1)&gt;</p>');
    expect(renderWebHtml('<div onclick="x()">block</div>')).toBe('<p>&lt;div onclick=&quot;x()&quot;&gt;block&lt;/div&gt;</p>');
    expect(renderWebHtml('a <span onclick=1>b</span> c')).toBe('<p>a &lt;span onclick=1&gt;b&lt;/span&gt; c</p>');
    expect(renderWebHtml('`<script>`')).toBe('<p><code>&lt;script&gt;</code></p>');
    expect(renderWebHtml('[x](javascript:alert(1))')).toBe('<p>x</p>');
    expect(renderWebHtml('[x](javascript&#58;alert(1))')).not.toContain('<a');
    expect(renderWebHtml('[x](https://a.b/"onmouseover="alert(1))')).not.toMatch(/href="[^"]*"onmouseover/);
    expect(renderWebHtml('[mail](mailto:a@b.c)')).toContain('<a href="mailto:a@b.c"');
    // The page's policy loads no picture from elsewhere: an image is offered as a link.
    expect(renderWebHtml('![chart](https://example.com/c.png)')).toBe('<p><a href="https://example.com/c.png" target="_blank" rel="noopener noreferrer">chart</a></p>');
    expect(renderWebHtml('```<b>\nx\n```')).not.toContain('<b>');
  });
});

describe('web chat: the approval card', () => {
  it('shows a shell command as the command and the other arguments as lines', () => {
    expect(approvalCard({ tool: 'shell', reason: 'runs a command', arguments: { command: 'ls -la /tmp', timeout_ms: 5000 } })).toEqual({
      tool: 'shell',
      reason: 'runs a command',
      lines: [
        { label: 'command', value: 'ls -la /tmp', kind: 'command' },
        { label: 'timeout_ms', value: '5000', kind: 'text' },
      ],
      omitted: 0,
    });
  });

  it('shows paths as paths, multi-line text as code cut to its first lines, and lists one item a line', () => {
    const content = Array.from({ length: 40 }, (_, index) => `line ${index + 1}`).join('\n');
    const card = approvalCard({ tool: 'write_file', reason: 'writes outside the workspace', arguments: { path: '/etc/hosts', content, paths: ['a.ts', 'b.ts'], flags: ['x', 'y'] } });
    expect(card.lines[0]).toEqual({ label: 'path', value: '/etc/hosts', kind: 'path' });
    expect(card.lines[1]?.kind).toBe('code');
    expect(card.lines[1]?.value.split('\n').slice(0, 2)).toEqual(['line 1', 'line 2']);
    expect(card.lines[1]?.value).toMatch(/\n… 24 more lines$/);
    expect(card.lines.slice(2)).toEqual([
      { label: 'paths', value: 'a.ts', kind: 'path' },
      { label: '', value: 'b.ts', kind: 'path' },
      { label: 'flags', value: 'x, y', kind: 'text' },
    ]);
  });

  it('names nested values by their path, never shows JSON, and counts what did not fit', () => {
    const card = approvalCard({ tool: 'deploy', reason: 'ask', arguments: { options: { force: true, target: { dir: '/srv/app' } }, empty: {}, none: null } });
    expect(card.lines).toEqual([
      { label: 'options.force', value: 'true', kind: 'text' },
      { label: 'options.target.dir', value: '/srv/app', kind: 'path' },
      { label: 'empty', value: '(empty)', kind: 'text' },
      { label: 'none', value: 'null', kind: 'text' },
    ]);
    const many = approvalCard({ tool: 'many', reason: 'ask', arguments: Object.fromEntries(Array.from({ length: 30 }, (_, index) => [`a${index}`, index])) });
    expect(many.lines).toHaveLength(24);
    expect(many.omitted).toBe(6);
    for (const line of [...card.lines, ...many.lines]) expect(line.value).not.toMatch(/^[[{]/);
  });
});
