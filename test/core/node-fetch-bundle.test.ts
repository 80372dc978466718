/**
 * node-fetch bundled as bin/build.js bundles it (its plugin and alias), into a module of its own:
 * its requests reach a real server as before, Basic credentials included, it refuses a relative
 * address, and it never calls Node's `url.parse()` (deprecated on Node 24, which printed a
 * DeprecationWarning from the bundle into the gateway's log). Listed with the process tests: it
 * runs rolldown's native build, as bin/build.js does.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as NodeFetch from 'node-fetch';
import { build } from 'rolldown';
import { afterAll, describe, expect, it } from 'vitest';
import { nodeFetchUrlPlugin } from '../../bin/node-fetch-url-plugin.js';

const folder = mkdtempSync(join(tmpdir(), 'operator-node-fetch-bundle-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('node-fetch in the bundle', () => {
  it("makes its requests without Node's url.parse()", async () => {
    const outfile = join(folder, 'node-fetch.mjs');
    await build({
      input: 'node-fetch-entry',
      output: { file: outfile, format: 'es' },
      platform: 'node',
      logLevel: 'silent',
      resolve: { alias: { 'whatwg-url': resolve('src/core/whatwg-url-native.ts') } },
      plugins: [{ name: 'entry', resolveId: (id) => (id === 'node-fetch-entry' ? id : null), load: (id) => (id === 'node-fetch-entry' ? "export { default, Request } from 'node-fetch';" : null) }, nodeFetchUrlPlugin()],
    });
    // Node's url module, as a CommonJS require sees it: a call to its parse() would count here.
    const url = createRequire(import.meta.url)('node:url') as { parse: (...args: unknown[]) => unknown };
    const original = url.parse;
    let calls = 0;
    url.parse = (...args: unknown[]) => {
      calls++;
      return original(...args);
    };
    const seen: Pick<IncomingMessage, 'url' | 'headers'>[] = [];
    const server = createServer((request, response) => {
      seen.push({ url: request.url, headers: request.headers });
      response.end('ok');
    });
    try {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as AddressInfo;
      const { default: nodeFetch, Request } = (await import(pathToFileURL(outfile).href)) as typeof NodeFetch;
      const answer = await nodeFetch(`http://user:secret@127.0.0.1:${port}/path?q=1`);
      expect(await answer.text()).toBe('ok');
      expect(seen.map((entry) => entry.url)).toEqual(['/path?q=1']);
      expect(seen[0]!.headers.authorization).toBe(`Basic ${Buffer.from('user:secret').toString('base64')}`);
      expect(new Request(`http://127.0.0.1:${port}/a?b=1`).url).toBe(`http://127.0.0.1:${port}/a?b=1`);
      await expect(nodeFetch('relative/path')).rejects.toThrow('Only absolute URLs are supported');
      expect(calls).toBe(0);
    } finally {
      url.parse = original;
      server.close();
    }
  });
});
