/** The `web_fetch` tool against a real local HTTP server: pages to markdown, limits, refusals, the cache. */
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultTruncationConfig, fallbackCharLimit } from '../../src/agent/truncation.ts';
import type { TurnContext } from '../../src/tools/tool.ts';
import { createWebFetchTool, maxCharsLimit, maxOutputChars, webFetchUserAgent, type WebFetchToolOptions } from '../../src/tools/net/web-fetch.ts';
import { callTool, textOf } from './tool-harness.ts';

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

interface TestServer {
  url: string;
  port: number;
  /** Each request's path and headers, in order. */
  requests: { path: string; headers: IncomingHttpHeaders }[];
  close(): Promise<void>;
}

const servers: Server[] = [];

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function serve(handler: Handler): Promise<TestServer> {
  const requests: TestServer['requests'] = [];
  const server = createServer((request, response) => {
    requests.push({ path: request.url ?? '', headers: request.headers });
    handler(request, response);
  });
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A server answering each path from `routes`: [status, headers, body]. */
function routes(table: Record<string, [number, Record<string, string>, string | Buffer]>): Handler {
  return (request, response) => {
    const route = table[request.url ?? ''];
    if (!route) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('no such page');
      return;
    }
    const [status, headers, body] = route;
    response.writeHead(status, headers).end(body);
  };
}

const open: WebFetchToolOptions = { allowPrivateNetwork: true };
const closed: WebFetchToolOptions = { allowPrivateNetwork: false };

async function fetchText(options: WebFetchToolOptions, args: Record<string, unknown>, turn?: Partial<TurnContext>) {
  const tool = createWebFetchTool(options);
  const output = await callTool(tool, args, { cwd: process.cwd(), ...(turn ? { turn: turn as TurnContext } : {}) });
  return { text: textOf(output), isError: output.isError === true };
}

const article = `<!doctype html><html><head><title>Release notes</title>
<style>body { color: red } .secret-style { display: none }</style>
<script>window.trackingSecret = "do-not-show";</script></head>
<body><nav><a href="/home">Home</a> <a href="/about">About us</a></nav>
<main><h1>Release 2.0</h1><p>We shipped <a href="/docs/upgrade?from=1&amp;to=2">the upgrade guide</a> and <strong>faster</strong> builds.</p>
<h2>Changes</h2><ul><li>New parser</li><li>Smaller bundle</li></ul>
<ol><li>Install</li><li>Run</li></ol>
<table><tr><th>Version</th><th>Date</th></tr><tr><td>2.0</td><td>2025-01-01</td></tr></table>
<script>document.write("inline-script-text")</script></main>
<footer>Copyright footer text</footer></body></html>`;

describe('web_fetch: pages and text', () => {
  it('turns an HTML page into markdown: headings, links made absolute, lists, tables; no scripts, styles or navigation', async () => {
    const server = await serve(routes({ '/notes': [200, { 'content-type': 'text/html; charset=utf-8' }, article] }));
    const { text, isError } = await fetchText(open, { url: `${server.url}/notes` });
    expect(isError).toBe(false);
    const [header, ...rest] = text.split('\n');
    const body = rest.join('\n');
    expect(header).toMatch(new RegExp(`^Fetched ${server.url}/notes \\(200, text/html, \\d+ characters\\)$`));
    expect(body).toContain('# Release 2.0');
    expect(body).toContain('## Changes');
    expect(body).toContain(`[the upgrade guide](${server.url}/docs/upgrade?from=1&to=2)`);
    expect(body).toContain('**faster**');
    expect(body).toMatch(/- New parser\n- Smaller bundle/);
    expect(body).toMatch(/1\. Install\n2\. Run/);
    expect(body).toContain('| 2.0 | 2025-01-01 |');
    for (const gone of ['trackingSecret', 'do-not-show', 'color: red', 'secret-style', 'inline-script-text', 'About us', 'Copyright footer']) expect(body).not.toContain(gone);
  });

  it('returns plain text, markdown and JSON as they are, decoding the declared charset and gzip', async () => {
    const json = JSON.stringify({ name: 'operator', tags: ['a', 'b'] }, null, 2);
    const server = await serve(
      routes({
        '/notes.txt': [200, { 'content-type': 'text/plain' }, 'line one\n<b>not html</b>\n'],
        '/data.json': [200, { 'content-type': 'application/json' }, json],
        '/readme.md': [200, { 'content-type': 'text/markdown; charset=utf-8' }, '# Title\n\n- item\n'],
        '/latin1.txt': [200, { 'content-type': 'text/plain; charset=iso-8859-1' }, Buffer.from([0x63, 0x61, 0x66, 0xe9])],
        '/zipped.txt': [200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' }, gzipSync('compressed text '.repeat(100))],
      }),
    );
    const plain = await fetchText(open, { url: `${server.url}/notes.txt` });
    expect(plain.text).toBe(`Fetched ${server.url}/notes.txt (200, text/plain, 25 characters)\n\nline one\n<b>not html</b>\n`);
    expect((await fetchText(open, { url: `${server.url}/data.json` })).text).toBe(`Fetched ${server.url}/data.json (200, application/json, ${json.length} characters)\n\n${json}`);
    expect((await fetchText(open, { url: `${server.url}/readme.md` })).text).toMatch(/\n\n# Title\n\n- item\n$/);
    expect((await fetchText(open, { url: `${server.url}/latin1.txt` })).text).toMatch(/\n\ncafé$/);
    expect((await fetchText(open, { url: `${server.url}/zipped.txt` })).text).toContain('compressed text compressed text');
  });

  it('cuts at max_chars with a marker saying how much was left out, and keeps within the engine limit', async () => {
    const long = Array.from({ length: 5_000 }, (_, index) => `line ${index} of a long text`).join('\n');
    const server = await serve(routes({ '/long.txt': [200, { 'content-type': 'text/plain' }, long] }));
    const small = await fetchText(open, { url: `${server.url}/long.txt`, max_chars: 1_000 });
    const shown = small.text.split('\n\n')[1]!;
    expect(shown.length).toBeLessThanOrEqual(1_000);
    expect(small.text).toMatch(new RegExp(`\\[\\.\\.\\. cut: ${long.length - shown.length} more characters; offset=${shown.length} reads on; a larger max_chars \\(at most ${maxCharsLimit}\\) shows more at once \\.\\.\\.\\]$`));
    const huge = await fetchText(open, { url: `${server.url}/long.txt`, max_chars: 1_000_000 });
    expect(huge.text.length).toBeLessThanOrEqual(maxOutputChars);
    expect(huge.text).toMatch(/\[\.\.\. cut: \d+ more characters; offset=\d+ reads on \.\.\.\]$/);
    // Reading on from the offset the marker names, to the end, from the cache.
    let offset = shown.length;
    let read = shown;
    for (let calls = 0; calls < 10; calls++) {
      const next = await fetchText(open, { url: `${server.url}/long.txt`, offset, max_chars: maxCharsLimit });
      expect(next.text.startsWith(`Fetched ${server.url}/long.txt (200, text/plain, ${long.length} characters, from character ${offset}`)).toBe(true);
      const part = next.text.slice(next.text.indexOf('\n\n') + 2).replace(/\n\n\[\.\.\. cut: [^\]]*\]$/, '');
      read += part;
      const onward = /offset=(\d+) reads on/.exec(next.text);
      if (!onward) break;
      offset = Number(onward[1]);
    }
    expect(read).toBe(long);
    const past = await fetchText(open, { url: `${server.url}/long.txt`, offset: long.length + 5 });
    expect(past.text).toBe(`Error: offset ${long.length + 5} is past the end of ${server.url}/long.txt (${long.length} characters)`);
    // The engine passes a web_fetch output on whole up to its limit: the tool's own cut is the only one.
    expect(maxOutputChars).toBeLessThanOrEqual(defaultTruncationConfig.charLimits.web_fetch ?? fallbackCharLimit);
  });

  it('follows redirects, relative ones too, and names the final address', async () => {
    const server = await serve(
      routes({
        '/old': [301, { location: '/middle' }, ''],
        '/middle': [302, { location: 'final.txt' }, ''],
        '/final.txt': [200, { 'content-type': 'text/plain' }, 'arrived'],
      }),
    );
    const { text, isError } = await fetchText(open, { url: `${server.url}/old` });
    expect(isError).toBe(false);
    expect(text).toBe(`Fetched ${server.url}/final.txt (200, text/plain, 7 characters)\n\narrived`);
  });
});

describe('web_fetch: refusals and failures', () => {
  it('refuses other schemes and nonsense', async () => {
    expect((await fetchText(open, { url: 'file:///etc/passwd' })).text).toBe('Error: only http and https addresses can be fetched, not file:');
    expect((await fetchText(open, { url: 'example.com/page' })).text).toMatch(/^Error: "example.com\/page" is not a web address/);
  });

  it('refuses loopback and private addresses when allowPrivateNetwork is off, before sending anything', async () => {
    const server = await serve(routes({ '/': [200, { 'content-type': 'text/plain' }, 'secret'] }));
    const literal = await fetchText(closed, { url: `${server.url}/` });
    expect(literal).toEqual({ isError: true, text: `Error: 127.0.0.1:${server.port} is on this machine or a private network, which the agent may not reach (allowPrivateNetwork is off)` });
    expect((await fetchText(closed, { url: 'http://169.254.169.254/latest/meta-data/' })).text).toMatch(/^Error: 169\.254\.169\.254 is on this machine or a private network/);
    expect((await fetchText(closed, { url: `http://[::1]:${server.port}/` })).text).toMatch(/^Error: \[::1\]:\d+ is on this machine or a private network/);
    expect(server.requests).toEqual([]);
  });

  it('checks the address connected to: a name resolving to loopback is refused when the socket connects', async () => {
    const server = await serve(routes({ '/': [200, { 'content-type': 'text/plain' }, 'secret'] }));
    // `localhost` passes every check made on the address as written: only the connect-time lookup catches it.
    const named = await fetchText(closed, { url: `http://localhost:${server.port}/` });
    expect(named.text).toMatch(/^Error: localhost \((127\.0\.0\.1|::1)\) is on this machine or a private network/);
    // A name server that answers with a private address (DNS rebinding): the same refusal.
    const rebound = await fetchText({ ...closed, lookup: async () => ['127.0.0.1'] }, { url: `http://rebind.test:${server.port}/` });
    expect(rebound.text).toBe('Error: rebind.test (127.0.0.1) is on this machine or a private network, which the agent may not reach (allowPrivateNetwork is off)');
    expect(server.requests).toEqual([]);
  });

  it('checks every redirect again: another scheme, a blocked site, allowUrls', async () => {
    const server = await serve(
      routes({
        '/to-file': [302, { location: 'file:///etc/passwd' }, ''],
        '/to-metadata': [302, { location: 'http://169.254.169.254/latest/meta-data/' }, ''],
        '/to-elsewhere': [302, { location: 'http://elsewhere.test/' }, ''],
      }),
    );
    expect((await fetchText(open, { url: `${server.url}/to-file` })).text).toBe('Error: redirected to file:///etc/passwd, but only http and https addresses can be fetched, not file:');
    // Blocked by the list, so nothing is ever sent to the metadata address.
    const blocked = await fetchText({ ...open, blockUrls: ['169.254.169.254'] }, { url: `${server.url}/to-metadata` });
    expect(blocked.text).toBe("Error: redirected to http://169.254.169.254/latest/meta-data/, but 169.254.169.254 is blocked by this gateway's settings (blockUrls)");
    const allowed = await fetchText({ ...open, allowUrls: ['127.0.0.1'] }, { url: `${server.url}/to-elsewhere` });
    expect(allowed.text).toBe('Error: redirected to http://elsewhere.test/, but elsewhere.test is not among the sites this gateway allows (allowUrls)');
  });

  it('stops a redirect loop and too many redirects with their own messages', async () => {
    const server = await serve((request, response) => {
      const url = request.url ?? '';
      if (url === '/a') response.writeHead(302, { location: '/b' }).end();
      else if (url === '/b') response.writeHead(302, { location: '/a' }).end();
      else {
        const hop = Number(url.slice('/hop/'.length));
        response.writeHead(307, { location: `/hop/${hop + 1}` }).end();
      }
    });
    expect((await fetchText(open, { url: `${server.url}/a` })).text).toBe(`Error: redirect loop: ${server.url}/b redirected back to ${server.url}/a, already visited`);
    const many = await fetchText(open, { url: `${server.url}/hop/0` });
    expect(many.text).toBe(`Error: too many redirects: more than 5, starting at ${server.url}/hop/0 (the last went to ${server.url}/hop/6)`);
    expect(server.requests.filter((request) => request.path.startsWith('/hop/'))).toHaveLength(6);
  });

  it('stops reading a body over the download limit, closes the connection and says the page is cut', async () => {
    let closedEarly: Promise<boolean> | undefined;
    const server = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      closedEarly = new Promise((resolve) => response.on('close', () => resolve(!response.writableFinished)));
      const chunk = 'x'.repeat(64 * 1024);
      let sent = 0;
      const pump = () => {
        // 64 MB in all, unless the client hangs up first.
        while (sent < 1_024 && response.write(chunk)) sent++;
        if (sent >= 1_024) response.end();
      };
      response.on('drain', pump);
      pump();
    });
    const { text, isError } = await fetchText({ ...open, maxBytes: 256 * 1024 }, { url: `${server.url}/huge` });
    expect(isError).toBe(false);
    expect(text.split('\n')[1]).toBe('Too large: only the first 256 KB were downloaded, so the end of the page is missing.');
    expect(await closedEarly).toBe(true);
  });

  it('applies the download limit to the decompressed body (a small gzip of a huge text)', async () => {
    const bomb = gzipSync(Buffer.alloc(20 * 1024 * 1024, 'a'));
    const server = await serve(routes({ '/bomb.txt': [200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' }, bomb] }));
    const { text } = await fetchText({ ...open, maxBytes: 256 * 1024 }, { url: `${server.url}/bomb.txt` });
    expect(bomb.length).toBeLessThan(256 * 1024);
    expect(text).toMatch(/^Fetched .* \(200, text\/plain, 262144 characters\)\nToo large: only the first 256 KB were downloaded/);
  });

  it('refuses binary content by its type, naming the type and size, without downloading it', async () => {
    let photoClosedEarly: Promise<boolean> | undefined;
    const server = await serve((request, response) => {
      if (request.url === '/photo.png') {
        // 64 MB announced; the client should hang up at once.
        const chunk = Buffer.alloc(64 * 1024, 1);
        response.writeHead(200, { 'content-type': 'image/png', 'content-length': String(1_024 * chunk.length) });
        let sent = 0;
        const pump = () => {
          while (sent < 1_024 && response.write(chunk)) sent++;
          if (sent >= 1_024) response.end();
        };
        photoClosedEarly = new Promise((resolve) => response.on('close', () => resolve(!response.writableFinished)));
        response.on('drain', pump);
        pump();
        return;
      }
      routes({
        '/report.pdf': [200, { 'content-type': 'application/pdf' }, Buffer.from('%PDF-1.7 ...')],
        '/blob': [200, { 'content-type': 'application/octet-stream', 'content-length': '3' }, Buffer.from([0, 1, 2])],
        '/untyped': [200, {}, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0])],
      })(request, response);
    });
    expect(await fetchText(open, { url: `${server.url}/photo.png` })).toEqual({
      isError: true,
      text: `Error: ${server.url}/photo.png is image/png (64 MB), not a web page or text: web_fetch reads only pages and text`,
    });
    expect(await photoClosedEarly).toBe(true);
    expect((await fetchText(open, { url: `${server.url}/report.pdf` })).text).toBe(`Error: ${server.url}/report.pdf is application/pdf (size not given), not a web page or text: web_fetch reads only pages and text`);
    expect((await fetchText(open, { url: `${server.url}/blob` })).text).toMatch(/\/blob is application\/octet-stream \(3 bytes\)/);
    expect((await fetchText(open, { url: `${server.url}/untyped` })).text).toMatch(/\/untyped is binary data with no content type \(7 bytes\)/);
  });

  it('reports error statuses with the status and a short excerpt', async () => {
    const server = await serve(
      routes({
        '/boom': [500, { 'content-type': 'text/html' }, '<html><body><h1>Internal error</h1><p>The database is down.</p></body></html>'],
        '/long-404': [404, { 'content-type': 'text/plain' }, 'missing '.repeat(200)],
      }),
    );
    const boom = await fetchText(open, { url: `${server.url}/boom` });
    expect(boom).toEqual({ isError: true, text: `Error: ${server.url}/boom answered 500 Internal Server Error: # Internal error The database is down.` });
    const missing = await fetchText(open, { url: `${server.url}/long-404` });
    expect(missing.text).toMatch(new RegExp(`^Error: ${server.url}/long-404 answered 404 Not Found: (missing ){30,}`));
    expect(missing.text.length).toBeLessThan(500);
  });

  it('tells a refused connection, a missing host, a TLS failure and a timeout apart', async () => {
    const gone = await serve(routes({}));
    const port = gone.port;
    await gone.close();
    expect((await fetchText(open, { url: `http://127.0.0.1:${port}/` })).text).toBe(`Error: 127.0.0.1:${port} refused the connection (nothing listens on port ${port})`);
    expect((await fetchText(open, { url: 'http://no-such-host.invalid/' })).text).toMatch(/^Error: no-such-host\.invalid could not be found \(DNS: /);
    const plain = await serve(routes({ '/': [200, { 'content-type': 'text/plain' }, 'not tls'] }));
    expect((await fetchText(open, { url: `https://127.0.0.1:${plain.port}/` })).text).toBe(
      `Error: TLS error with 127.0.0.1:${plain.port}: the server does not speak TLS (wrong version number): is it http, not https? (EPROTO)`,
    );
    const silent = await serve(() => {
      // Never answers.
    });
    const slow = await fetchText({ ...open, timeoutMs: 1_000 }, { url: `${silent.url}/wait` });
    expect(slow.text).toBe(`Error: ${silent.url}/wait took longer than 1 s (the time limit) while waiting for 127.0.0.1:${silent.port} to answer`);
  });

  it('sends no cookies and no credentials, only its own user agent', async () => {
    const server = await serve((request, response) => {
      if (request.url === '/login') response.writeHead(302, { location: '/home', 'set-cookie': 'session=abc123; Path=/' }).end();
      else response.writeHead(200, { 'content-type': 'text/plain', 'set-cookie': 'other=1' }).end('home');
    });
    const { isError } = await fetchText(open, { url: `http://user:hunter2@127.0.0.1:${server.port}/login` });
    expect(isError).toBe(false);
    await fetchText(open, { url: `${server.url}/home?again` });
    expect(server.requests.map((request) => request.path)).toEqual(['/login', '/home', '/home?again']);
    for (const { headers } of server.requests) {
      expect(Object.keys(headers).sort()).toEqual(['accept', 'accept-encoding', 'connection', 'host', 'user-agent']);
      expect(headers['user-agent']).toBe(webFetchUserAgent);
    }
  });

  it('throws the abort reason when the turn is aborted', async () => {
    const controller = new AbortController();
    const reason = new Error('turn stopped');
    // The turn stops while the server is still thinking.
    const server = await serve(() => controller.abort(reason));
    const tool = createWebFetchTool(open);
    await expect(callTool(tool, { url: `${server.url}/` }, { cwd: process.cwd(), signal: controller.signal })).rejects.toBe(reason);
    await expect(callTool(tool, { url: `${server.url}/` }, { cwd: process.cwd(), signal: controller.signal })).rejects.toBe(reason);
    expect(server.requests).toHaveLength(1);
  });
});

describe('web_fetch: the cache', () => {
  it('serves the same address again in the same conversation from memory; another conversation fetches it', async () => {
    const server = await serve(routes({ '/page.txt': [200, { 'content-type': 'text/plain' }, 'cached body'] }));
    const tool = createWebFetchTool(open);
    const turn = (sessionKey: string) => ({ sessionKey, platform: 'telegram', senderId: '1', admin: false, scheduled: false });
    const call = async (sessionKey: string | undefined, extra: Record<string, unknown> = {}) =>
      textOf(await callTool(tool, { url: `${server.url}/page.txt`, ...extra }, { cwd: process.cwd(), ...(sessionKey ? { turn: turn(sessionKey) } : {}) }));
    expect(await call('telegram:dm:1')).toBe(`Fetched ${server.url}/page.txt (200, text/plain, 11 characters)\n\ncached body`);
    expect(await call('telegram:dm:1', { max_chars: 6 })).toMatch(new RegExp(`^Fetched ${server.url}/page.txt \\(200, text/plain, 11 characters, from this conversation's cache: fetched \\d+ s ago\\)\\n\\ncached\\n\\n\\[\\.\\.\\. cut: 5 more characters`));
    expect(server.requests).toHaveLength(1);
    expect(await call('telegram:dm:2')).not.toContain("from this conversation's cache");
    expect(server.requests).toHaveLength(2);
    // The terminal chat has no conversation key: its fetches share one.
    await call(undefined);
    expect(await call(undefined)).toContain("from this conversation's cache");
    expect(server.requests).toHaveLength(3);
  });

  it('does not keep failures', async () => {
    let up = false;
    const server = await serve((_request, response) => {
      if (up) response.writeHead(200, { 'content-type': 'text/plain' }).end('back');
      else response.writeHead(503, { 'content-type': 'text/plain' }).end('later');
    });
    const tool = createWebFetchTool(open);
    expect((await callTool(tool, { url: `${server.url}/` }, { cwd: process.cwd() })).isError).toBe(true);
    up = true;
    expect(textOf(await callTool(tool, { url: `${server.url}/` }, { cwd: process.cwd() }))).toMatch(/\n\nback$/);
  });
});
