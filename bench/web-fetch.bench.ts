/**
 * `web_fetch`: a 1 MB article page (text, tables, code, links, navigation, sidebars, inline
 * scripts and styles) fetched from a local server and turned into markdown. The floor is a bare
 * `fetch` of the same page in the same run; the conversion alone and a cached second fetch are
 * reported beside it.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { htmlToMarkdown } from '../src/tools/net/html-to-markdown.ts';
import { createWebFetchTool } from '../src/tools/net/web-fetch.ts';
import type { TurnContext } from '../src/tools/tool.ts';
import { median, sample, type BenchResult } from './lib.ts';

export default async function run(): Promise<BenchResult[]> {
  const page = articlePage(1_000_000);
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': String(Buffer.byteLength(page)) }).end(page);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/report`;
  try {
    const tool = createWebFetchTool({ allowPrivateNetwork: true });
    let conversation = 0;
    const call = async (sessionKey: string) => {
      const turn: TurnContext = { sessionKey, platform: 'web', senderId: 'bench', admin: true, scheduled: false };
      const output = await tool.execute({ url }, { signal: new AbortController().signal, cwd: process.cwd(), toolCallId: 'bench', turn });
      const text = typeof output === 'string' ? output : String(output.content);
      if (!text.startsWith('Fetched ')) throw new Error(`web_fetch failed: ${text.slice(0, 300)}`);
      return text;
    };
    const floor = median(await sample(20, () => fetch(url).then((response) => response.text()), 5));
    // A new conversation each time, so each call misses the cache and does the whole work.
    const cold = median(await sample(20, () => call(`bench:${conversation++}`), 3));
    const convert = median(await sample(20, () => htmlToMarkdown(page, new URL(url)), 3));
    const first = await call('bench:cached');
    const cached = median(await sample(20, () => call('bench:cached'), 3));
    const markdownChars = Number(/, (\d+) characters/.exec(first)?.[1] ?? Number.NaN);
    return [
      { name: 'bare fetch of a 1 MB page (floor, median of 20)', value: floor, unit: 'ms' },
      {
        name: 'web_fetch of a 1 MB page to markdown (median of 20)',
        value: cold,
        unit: 'ms',
        target: '<= 100 ms',
        pass: cold <= 100,
        note: `${(cold - floor).toFixed(0)} ms over the floor; guarded request, decoding, conversion, cut`,
      },
      { name: 'HTML to markdown alone, 1 MB (median of 20)', value: convert, unit: 'ms', note: 'mdream, main content only' },
      {
        name: 'markdown of the 1 MB page',
        value: markdownChars / 1024,
        unit: 'K characters',
        note: `${((markdownChars / Buffer.byteLength(page)) * 100).toFixed(0)}% of the HTML; the model gets the first 20,000 by default`,
      },
      { name: 'web_fetch again in the same conversation (cached, median of 20)', value: cached, unit: 'ms' },
    ];
  } finally {
    server.closeAllConnections();
    server.close();
  }
}

/**
 * A deterministic article page of about `bytes`: a head with a big style sheet and an inline data
 * script, a navigation bar, the article (sections of paragraphs with links, bold and code, lists,
 * tables, code blocks, ads with scripts) in `<main>`, a sidebar and a footer.
 */
function articlePage(bytes: number): string {
  let seed = 42;
  const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
  const words = ('the of and gateway request latency server client cache policy address network page article table value report quarterly ' +
    'revenue growth market analysis system design memory thread process signal timeout error response header body content markdown reader model agent tool result').split(' ');
  const sentence = () => {
    const text = Array.from({ length: 8 + Math.floor(random() * 14) }, () => words[Math.floor(random() * words.length)]).join(' ');
    return `${text[0]!.toUpperCase()}${text.slice(1)}.`;
  };
  const paragraph = () => {
    let text = '';
    for (let i = 3 + Math.floor(random() * 5); i > 0; i--) {
      text += `${sentence()} `;
      if (random() < 0.3) text += `<a href="https://example.com/ref/${Math.floor(random() * 1e6)}">${sentence().slice(0, 30)}</a> `;
      if (random() < 0.2) text += `<strong>${sentence().slice(0, 20)}</strong> `;
      if (random() < 0.1) text += `<code>fn_${Math.floor(random() * 1000)}()</code> `;
    }
    return `<p>${text}</p>`;
  };
  const links = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `<li><a href="/${prefix}/${i}">${prefix} ${i}</a></li>`).join('');
  const data = JSON.stringify(Array.from({ length: 400 }, (_, id) => ({ id, name: `item${id}`, tags: ['a', 'b', 'c'] })));
  const head = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Quarterly report on gateway latency</title><style>${'.c{color:red;margin:0 auto;padding:4px}\n'.repeat(400)}</style><script>window.__DATA__=${data};</script><script src="/app.js"></script></head><body>`;
  const nav = `<header class="site-header"><a href="/">Home</a><nav><ul>${links('section', 60)}</ul></nav></header>`;
  const tail = `<aside class="sidebar"><h3>Related</h3><ul>${links('related', 40)}</ul></aside></div><footer><p>Copyright</p><ul>${links('legal', 30)}</ul></footer><script>${'console.log("tracking");\n'.repeat(300)}</script></body></html>`;
  let article = '<div class="layout"><main><article><h1>Quarterly report on gateway latency</h1>';
  for (let section = 1; head.length + nav.length + article.length + tail.length < bytes; section++) {
    article += `<h2 id="s${section}">Section ${section}: ${sentence().slice(0, 40)}</h2>`;
    for (let i = 0; i < 4; i++) article += paragraph();
    if (section % 3 === 0) article += `<ul>${Array.from({ length: 6 }, () => `<li>${sentence()}</li>`).join('')}</ul>`;
    if (section % 4 === 0) {
      const rows = Array.from({ length: 12 }, (_, r) => `<tr><td>region-${r}</td><td>${Math.floor(random() * 1e6)}</td><td>${(random() * 50).toFixed(1)}</td><td>${(random() * 500).toFixed(1)}</td></tr>`);
      article += `<table><thead><tr><th>Region</th><th>Requests</th><th>p50 ms</th><th>p99 ms</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
    }
    if (section % 5 === 0) article += `<pre><code>const x = ${Math.floor(random() * 100)};\nfunction go() {\n  return x * 2;\n}\n</code></pre>`;
    if (section % 6 === 0) article += `<div class="ad"><script>ads.push(${section})</script><img src="/ad/${section}.png" alt="ad"></div>`;
  }
  return `${head}${nav}${article}</article></main>${tail}`;
}
