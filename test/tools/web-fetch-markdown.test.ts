/** How `web_fetch` turns a page into markdown, and tells pages, text and binary apart. */
import { describe, expect, it } from 'vitest';
import { contentKind, decodeBody, parseContentType } from '../../src/tools/net/content-kind.ts';
import { htmlToMarkdown } from '../../src/tools/net/html-to-markdown.ts';

const base = new URL('https://example.com/docs/guide/page.html');

describe('html to markdown', () => {
  it('keeps only <main> (and the title) when the page marks its content', () => {
    const html = `<html><head><title>Guide</title></head><body><header><h1>Site name</h1><nav><a href="/">Home</a></nav></header>
      <main><h1>Getting started</h1><p>${'Install it, then run it. '.repeat(12)}</p></main><div class="promo">Buy now</div></body></html>`;
    const markdown = htmlToMarkdown(html, base);
    expect(markdown.startsWith('Guide\n\n# Getting started\n\nInstall it')).toBe(true);
    expect(markdown).not.toContain('Site name');
    expect(markdown).not.toContain('Buy now');
  });

  it('converts the whole page when <main> is missing or next to empty, dropping navigation, forms and sidebars', () => {
    const html = `<body><nav>Menu</nav><main></main><h1>Title</h1><p>Body text.</p><aside>Related</aside>
      <form><label>Email</label><input name="e"><button>Subscribe</button></form><footer>Legal</footer></body>`;
    expect(htmlToMarkdown(html, base)).toBe('# Title\n\nBody text.\n\nEmail');
    expect(htmlToMarkdown('<p>No headings, no main: just a paragraph.</p>', base)).toBe('No headings, no main: just a paragraph.');
  });

  it('makes links and images absolute, drops javascript: targets and inline image bytes', () => {
    const html =
      '<p><a href="../api.html?x=1&amp;y=2#part">API</a> <a href="/about">About</a> <a href="#top">Top</a> ' +
      '<a href="javascript:alert(1)">Click</a> <a href="mailto:team@example.com">Mail</a> ' +
      `<img alt="chart" src="data:image/png;base64,${'A'.repeat(5_000)}"> <img alt="logo" src="//cdn.example.com/logo.png"></p>`;
    expect(htmlToMarkdown(html, base)).toBe(
      '[API](https://example.com/docs/api.html?x=1&y=2#part) [About](https://example.com/about) [Top](#top) Click ' +
        '[Mail](mailto:team@example.com) ![chart](data:) ![logo](https://cdn.example.com/logo.png)',
    );
  });

  it('keeps code blocks and tables', () => {
    const html = '<pre><code class="language-ts">const a = 1;\nconst b = 2;</code></pre><table><tr><th>k</th><th>v</th></tr><tr><td>a</td><td>1</td></tr></table>';
    expect(htmlToMarkdown(html, base)).toBe('```ts\nconst a = 1;\nconst b = 2;\n```\n\n| k | v |\n| --- | --- |\n| a | 1 |');
  });
});

describe('content kinds', () => {
  const none = new Uint8Array();
  it('knows pages, text and binary by type, and by the first bytes when there is none', () => {
    expect(contentKind(parseContentType('text/html; charset=utf-8'), none)).toBe('html');
    expect(contentKind(parseContentType('application/xhtml+xml'), none)).toBe('html');
    for (const type of ['text/plain', 'text/markdown', 'text/csv', 'application/json', 'application/ld+json', 'application/xml', 'application/rss+xml', 'application/javascript']) {
      expect(contentKind(parseContentType(type), none), type).toBe('text');
    }
    for (const type of ['image/png', 'application/pdf', 'application/octet-stream', 'application/zip', 'video/mp4', 'font/woff2']) {
      expect(contentKind(parseContentType(type), none), type).toBe('binary');
    }
    expect(contentKind(parseContentType(undefined), Buffer.from('<!DOCTYPE html><html>'))).toBe('html');
    expect(contentKind(parseContentType(undefined), Buffer.from('just words'))).toBe('text');
    expect(contentKind(parseContentType(''), Buffer.from([1, 0, 2]))).toBe('binary');
  });

  it('decodes by the declared charset, a page by its <meta charset>, and falls back to UTF-8', () => {
    const latin1 = Buffer.from([0x63, 0x61, 0x66, 0xe9]);
    expect(decodeBody(latin1, parseContentType('text/plain; charset="ISO-8859-1"'), 'text')).toBe('café');
    const page = Buffer.concat([Buffer.from('<meta charset="windows-1252"><p>'), latin1]);
    expect(decodeBody(page, parseContentType('text/html'), 'html')).toBe('<meta charset="windows-1252"><p>café');
    expect(decodeBody(Buffer.from('café'), parseContentType('text/plain; charset=no-such-charset'), 'text')).toBe('café');
  });
});
