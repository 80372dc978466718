/**
 * A process of its own that opens a page in the agent's browser and keeps it open until its
 * standard input closes, for tests that need the browser run as another user (chromium's own
 * sandbox works only for a user other than root). Usage:
 * `node test/browser/browser-pool-child.mjs URL dist` runs the compiled modules of dist/ (when
 * they are current, see `bin/compiled.js`), and
 * `node --import tsx test/browser/browser-pool-child.mjs URL src` the TypeScript sources.
 * Plain JavaScript, so that with dist/ no compiler loads: starting one as another user was most of
 * the time the process took to open its page. The pool uses chromium's own sandbox.
 * Prints one JSON line when the page is open (what the tool said), and `closed` when the browser
 * is closed.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const [url, from] = process.argv.slice(2);
if (!url || (from !== 'dist' && from !== 'src')) {
  process.stderr.write('usage: browser-pool-child.mjs URL dist|src\n');
  process.exit(2);
}
const modulePath = (name) => (from === 'dist' ? `../../dist/browser/${name}.js` : `../../src/browser/${name}.ts`);
const { BrowserPool } = await import(modulePath('browser-pool'));
const { defaultBrowserSettings } = await import(modulePath('browser-settings'));
const { createBrowserTool } = await import(modulePath('browser-tool'));

const pool = new BrowserPool({ isolation: { kind: 'chromium-sandbox' } });
const session = pool.session('test:child', { ...defaultBrowserSettings, allowPrivateNetwork: true }, join(tmpdir(), 'browser-pool-child-downloads'));
const tool = createBrowserTool();
const result = await tool.execute(tool.parameters.parse({ action: 'navigate', url }), { signal: new globalThis.AbortController().signal, cwd: tmpdir(), toolCallId: 'child', surfaces: { browser: session } });
process.stdout.write(`${JSON.stringify({ result })}\n`);
process.stdin.resume();
process.stdin.on('end', () => {
  void pool.closeAll().then(() => {
    process.stdout.write('closed\n');
    process.exit(0);
  });
});
