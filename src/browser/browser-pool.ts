/**
 * The browsers of one process: a chromium launched on first use (one per executable and
 * headless mode), and in it one context per conversation. At most `maxContexts` contexts are
 * open: a new one closes the conversation idle the longest. Idle contexts close after
 * `idleTimeoutSeconds`; all close at shutdown. Playwright is loaded only when a browser is first
 * needed, so start-up pays nothing for it. Chromium runs in the isolation chosen for this machine
 * (see `browser-isolation.ts`), with an allowlisted environment, and downloads into a private
 * folder of the pool's, removed at shutdown.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext } from 'playwright-core';
import { BrowserSession, type SessionHost } from './browser-session.ts';
import { maxScreenshotEdge, type BrowserSettings } from './browser-settings.ts';
import { chooseBrowserIsolation, type BrowserIsolation } from './browser-isolation.ts';
import { launchChromium } from './chromium-launcher.ts';
import { findChromium } from './find-chromium.ts';
import { guardContext, restricts, urlChecker } from './url-guard.ts';

/** Thrown when no browser can run here; its message is what the model is told. */
export class BrowserUnavailableError extends Error {}

/** How often idle contexts are looked for, at most. */
const sweepEveryMs = 30_000;

/** Options of {@link BrowserPool}. */
export interface BrowserPoolOptions {
  log?: (line: string) => void;
  /** Where the system's chromium is looked for (default /usr/bin/chromium). */
  systemChromium?: string;
  /** The gateway's environment: chromium gets its allowlisted part (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  /** Folders the browser's sandbox never shows (OPERATOR_HOME). */
  hidden?: readonly string[];
  /** The isolation to use instead of the one {@link chooseBrowserIsolation} picks. */
  isolation?: BrowserIsolation;
}

/** The browsers of one process and each conversation's session. */
export class BrowserPool implements SessionHost {
  #sessions = new Map<string, BrowserSession>();
  #browsers = new Map<string, Promise<Browser>>();
  /** Sessions with a context open or opening, by the browser they are in. */
  #open = new Map<BrowserSession, string>();
  #sweeper: ReturnType<typeof setInterval> | undefined;
  #closed = false;
  readonly #log: (line: string) => void;
  readonly #systemChromium: string | undefined;
  readonly #env: NodeJS.ProcessEnv;
  readonly #hidden: readonly string[];
  #isolation: BrowserIsolation | undefined;
  /** Whether to try chromium's own sandbox inside bubblewrap (false once refused here). */
  #innerSandbox = true;
  /** The pool's private folder (wrapper script, downloads, chromium's home), made at the first launch. */
  #folder: string | undefined;

  constructor(options: BrowserPoolOptions = {}) {
    this.#log = options.log ?? (() => undefined);
    this.#systemChromium = options.systemChromium;
    this.#env = options.env ?? process.env;
    this.#hidden = options.hidden ?? [];
    this.#isolation = options.isolation;
  }

  /** How chromium is kept apart from the gateway here (decided on first ask, then kept). */
  get isolation(): BrowserIsolation {
    this.#isolation ??= chooseBrowserIsolation({ env: this.#env, hidden: this.#hidden });
    return this.#isolation;
  }

  /** The browser session of conversation `key`, made on first ask; later asks update its settings. */
  session(key: string, settings: BrowserSettings, downloads: string): BrowserSession {
    let session = this.#sessions.get(key);
    if (!session) {
      session = new BrowserSession(this, key, settings, downloads);
      this.#sessions.set(key, session);
    } else session.settings = settings;
    return session;
  }

  /** Contexts open now. */
  get openContexts(): number {
    return this.#open.size;
  }

  async openContext(session: BrowserSession): Promise<BrowserContext> {
    if (this.#closed) throw new BrowserUnavailableError('the gateway is shutting down; the browser is closed');
    const { settings } = session;
    // One context per conversation, also when an older handle of it is still held somewhere.
    const holder = this.#sessions.get(session.key);
    if (holder !== session) {
      if (holder) await holder.close();
      this.#sessions.set(session.key, session);
    }
    await this.#makeRoom(session, settings.maxContexts);
    const lookup = await findChromium(settings.executablePath, this.#systemChromium);
    if ('problem' in lookup) throw new BrowserUnavailableError(`The browser cannot start: ${lookup.problem}.`);
    const launchKey = `${lookup.path}\u0000${settings.headless}`;
    this.#open.set(session, launchKey);
    try {
      const browser = await this.#browser(launchKey, lookup.path, settings.headless);
      const { width, height } = settings.viewport;
      const context = await browser.newContext({
        viewport: { width, height },
        // Screenshots come out at most maxScreenshotEdge px long without resizing them afterwards.
        deviceScaleFactor: Math.min(1, maxScreenshotEdge / Math.max(width, height)),
        acceptDownloads: true,
        serviceWorkers: 'block',
      });
      context.setDefaultTimeout(10_000);
      context.setDefaultNavigationTimeout(30_000);
      if (restricts(settings)) {
        await guardContext(context, urlChecker(settings), (url, reason) => session.note(`A request to ${url.slice(0, 200)} was refused: ${reason}.`));
      }
      this.#ensureSweeper();
      return context;
    } catch (error) {
      this.#open.delete(session);
      throw error;
    }
  }

  closed(session: BrowserSession): void {
    this.#open.delete(session);
  }

  /** Closes sessions idle longer than their `idleTimeoutSeconds`; resolves to how many. */
  async sweep(now = Date.now()): Promise<number> {
    let closed = 0;
    for (const session of [...this.#open.keys()]) {
      if (session.busy || !session.isOpen) continue;
      if (now - session.lastUsed < session.settings.idleTimeoutSeconds * 1000) continue;
      await session.close(`The browser was closed after ${session.settings.idleTimeoutSeconds} s without use; it starts again with the next browser action.`);
      closed++;
    }
    // Closed sessions are forgotten (one per conversation ever seen would add up); an agent that
    // still holds one registers it again when it opens.
    for (const [key, session] of this.#sessions) {
      if (!session.isOpen && !session.busy && now - session.lastUsed >= session.settings.idleTimeoutSeconds * 1000) this.#sessions.delete(key);
    }
    if (this.#open.size === 0) await this.#closeBrowsers();
    return closed;
  }

  /** Closes every session and browser (shutdown). */
  async closeAll(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#sweeper);
    this.#sweeper = undefined;
    await Promise.all([...this.#sessions.values()].map((session) => session.close()));
    await this.#closeBrowsers();
  }

  /** Closes the longest idle other session while `limit` contexts are open. */
  async #makeRoom(session: BrowserSession, limit: number): Promise<void> {
    while (this.#open.size >= limit) {
      const idle = [...this.#open.keys()].filter((other) => other !== session && !other.busy && other.isOpen).sort((a, b) => a.lastUsed - b.lastUsed)[0];
      if (!idle) {
        throw new BrowserUnavailableError(`All ${limit} browsers this gateway may open are in use by other conversations (browser.maxContexts); try again in a moment.`);
      }
      this.#log(`browser: closing the browser of ${idle.key} (idle longest) to open one for ${session.key}`);
      await idle.close('The browser was closed to make room for another conversation (too many open at once); it starts again with the next browser action.');
    }
  }

  #browser(key: string, executablePath: string, headless: boolean): Promise<Browser> {
    let browser = this.#browsers.get(key);
    if (!browser) {
      browser = this.#launch(executablePath, headless);
      this.#browsers.set(key, browser);
      browser.then(
        (running) =>
          running.on('disconnected', () => {
            if (this.#browsers.get(key) === browser) this.#browsers.delete(key);
            for (const [session, where] of this.#open) if (where === key) session.crashed();
          }),
        () => this.#browsers.delete(key),
      );
    }
    return browser;
  }

  async #closeBrowsers(): Promise<void> {
    const browsers = [...this.#browsers.values()];
    this.#browsers.clear();
    await Promise.all(browsers.map(async (pending) => (await pending.catch(() => undefined))?.close().catch(() => undefined)));
    // Downloads were copied to their conversations' folders as they finished: nothing in it is needed.
    // (Unless a browser started meanwhile: it uses the folder.)
    if (this.#folder && this.#browsers.size === 0) {
      rmSync(this.#folder, { recursive: true, force: true });
      this.#folder = undefined;
    }
  }

  async #launch(executablePath: string, headless: boolean): Promise<Browser> {
    const isolation = this.isolation;
    try {
      const launched = await launchChromium({ executablePath, headless, isolation, env: this.#env, hidden: this.#hidden, folder: this.#privateFolder(), innerSandbox: this.#innerSandbox });
      if (isolation.kind === 'bubblewrap' && this.#innerSandbox && !launched.chromiumSandbox) {
        this.#innerSandbox = false;
        this.#log("browser: chromium's own sandbox cannot start inside bubblewrap here (user namespaces refused); chromium runs in bubblewrap without it");
      }
      return launched.browser;
    } catch (error) {
      throw new BrowserUnavailableError(`The browser at ${executablePath} did not start: ${(error as Error).message.split('\n')[0]}`);
    }
  }

  /** The pool's folder, private to this user (mkdtemp makes it 0700): downloads land in it, and chromium's home outside bubblewrap. */
  #privateFolder(): string {
    if (!this.#folder) {
      const folder = mkdtempSync(join(tmpdir(), 'operator-browser-'));
      for (const inside of ['downloads', 'home']) mkdirSync(join(folder, inside), { mode: 0o700 });
      this.#folder = folder;
    }
    return this.#folder;
  }

  #ensureSweeper(): void {
    if (this.#sweeper) return;
    const shortest = Math.min(...[...this.#sessions.values()].map((session) => session.settings.idleTimeoutSeconds * 1000));
    this.#sweeper = setInterval(() => void this.sweep().catch(() => undefined), Math.max(1_000, Math.min(sweepEveryMs, shortest / 4)));
    this.#sweeper.unref();
  }
}

