/** A browser pool over Debian's chromium and a way to call the `browser` tool as the engine does. */
import { execFileSync } from 'node:child_process';
import { BrowserPool } from '../../src/browser/browser-pool.ts';
import type { BrowserSession } from '../../src/browser/browser-session.ts';
import { defaultBrowserSettings, type BrowserSettings } from '../../src/browser/browser-settings.ts';
import { createBrowserTool } from '../../src/browser/browser-tool.ts';
import type { ToolOutput, TurnContext } from '../../src/tools/tool.ts';
import { callTool, textOf } from '../tools/tool-harness.ts';

export { textOf };

/** Settings for tests: local pages are on 127.0.0.1, so the private network is allowed. */
export function testSettings(overrides: Partial<BrowserSettings> = {}): BrowserSettings {
  return { ...defaultBrowserSettings, allowPrivateNetwork: true, ...overrides };
}

export const browserTool = createBrowserTool();

/** Calls the tool on `session`, as a conversation's agent would. */
export function browse(session: BrowserSession | undefined, args: Record<string, unknown>, turn?: TurnContext): Promise<ToolOutput> {
  return callTool(browserTool, args, { cwd: process.cwd(), surfaces: session ? { browser: session } : undefined, turn });
}

/** A pool whose sessions download into `folder`. */
export function testPool(): BrowserPool {
  return new BrowserPool();
}

/** The ref of the first line of the session's latest snapshot that contains `label`. */
export function refOf(snapshot: string, label: string): string {
  const line = snapshot.split('\n').find((entry) => entry.includes(label) && entry.includes('[ref='));
  const ref = line && /\[ref=([a-z0-9]+)\]/i.exec(line)?.[1];
  if (!ref) throw new Error(`no ref for ${label} in:\n${snapshot}`);
  return ref;
}

/**
 * Process ids of the browsers this process started: their first processes (chromium itself, or
 * the bubblewrap it runs in; killing that ends the chromium inside).
 */
export function chromiumChildren(): number[] {
  const out = execFileSync('ps', ['-o', 'pid=,comm=', '--ppid', String(process.pid)], { encoding: 'utf8' });
  return out
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter(([, command]) => command !== undefined && (command.includes('chrom') || command === 'bwrap'))
    .map(([pid]) => Number(pid));
}
