/**
 * A process of its own that opens a page in the agent's browser and keeps it open until its
 * standard input closes, for tests that need the browser run as another user (chromium's own
 * sandbox works only for a user other than root). Usage:
 * `node --import tsx test/browser/browser-pool-child.ts URL`: the pool uses chromium's own sandbox.
 * Prints one JSON line when the page is open (what the tool said), and `closed` when the browser
 * is closed.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BrowserPool } from '../../src/browser/browser-pool.ts';
import { defaultBrowserSettings } from '../../src/browser/browser-settings.ts';
import { createBrowserTool } from '../../src/browser/browser-tool.ts';

const [url] = process.argv.slice(2);
if (!url) {
  process.stderr.write('usage: browser-pool-child.ts URL\n');
  process.exit(2);
}
const pool = new BrowserPool({ isolation: { kind: 'chromium-sandbox' } });
const session = pool.session('test:child', { ...defaultBrowserSettings, allowPrivateNetwork: true }, join(tmpdir(), 'browser-pool-child-downloads'));
const tool = createBrowserTool();
const result = await tool.execute(tool.parameters.parse({ action: 'navigate', url }), { signal: new AbortController().signal, cwd: tmpdir(), toolCallId: 'child', surfaces: { browser: session } });
process.stdout.write(`${JSON.stringify({ result })}\n`);
process.stdin.resume();
process.stdin.on('end', () => {
  void pool.closeAll().then(() => {
    process.stdout.write('closed\n');
    process.exit(0);
  });
});
