/**
 * One conversation's browser: a Playwright context of its own (cookies, storage and tabs apart
 * from every other conversation's), opened on the first browser action, closed when idle, on
 * `/new`, `/stop`, at shutdown, or to make room for another conversation. Its actions run one at
 * a time. A browser that crashed is reported, and opened again by the next action.
 */
import { basename, join } from 'node:path';
import type { BrowserContext, Download, Page } from 'playwright-core';
import type { LiveState, LiveSurface } from '../tools/tool.ts';
import type { BrowserIsolation } from './browser-isolation.ts';
import type { BrowserSettings } from './browser-settings.ts';
import { captureLiveState } from './browser-state.ts';
import { makePrivateFolder } from '../core/private-modes.ts';

/** What a session needs from its pool. */
export interface SessionHost {
  /** A fresh context for `session` (launching the browser, making room under the cap). */
  openContext(session: BrowserSession): Promise<BrowserContext>;
  /** `session` closed its context. */
  closed(session: BrowserSession): void;
  /** How the browser is kept apart from the gateway. */
  readonly isolation: BrowserIsolation;
}

/** The tabs of a session, as actions see them. */
export interface Tabs {
  context: BrowserContext;
  pages: readonly Page[];
  active: Page;
}

/** Things to tell the model with the next action's result (a download, a dialog, a refused request). */
const maxNotes = 10;

/** One conversation's browser. */
export class BrowserSession implements LiveSurface {
  readonly tool = 'browser';
  readonly key: string;
  settings: BrowserSettings;
  /** Where downloads are saved (the conversation's temp folder). */
  readonly downloads: string;
  /** When it was last used (ms since the epoch); the pool closes idle sessions. */
  lastUsed = 0;
  /** An action is running (the pool does not close a busy session to make room). */
  busy = false;
  readonly #host: SessionHost;
  #context: BrowserContext | undefined;
  #opening: Promise<BrowserContext> | undefined;
  #pages: Page[] = [];
  #active: Page | undefined;
  #notes: string[] = [];
  #lost: string | undefined;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(host: SessionHost, key: string, settings: BrowserSettings, downloads: string) {
    this.#host = host;
    this.key = key;
    this.settings = settings;
    this.downloads = downloads;
  }

  /** Whether the browser runs without any sandbox here (then it is the owner's alone). */
  get unconfined(): boolean {
    return this.#host.isolation.kind === 'none';
  }

  /** Whether a context is open. */
  get isOpen(): boolean {
    return this.#context !== undefined;
  }

  /**
   * Runs `work` on the tabs, opening the browser (and a first tab) if needed; one action at a
   * time. Resolves with its result and what happened meanwhile that the model should know.
   */
  use<T>(work: (tabs: Tabs) => Promise<T>): Promise<{ value: T; notes: string[] }> {
    const run = this.#queue.then(async () => {
      this.busy = true;
      try {
        const notes: string[] = [];
        if (this.#lost) notes.push(this.#lost);
        this.#lost = undefined;
        const tabs = await this.#tabs();
        const value = await work(tabs);
        notes.push(...this.#notes.splice(0));
        return { value, notes };
      } finally {
        this.busy = false;
        this.lastUsed = Date.now();
      }
    });
    this.#queue = run.catch(() => undefined);
    return run;
  }

  /** The tabs now, without opening anything (undefined when closed). */
  current(): Tabs | undefined {
    if (!this.#context || !this.#active) return undefined;
    return { context: this.#context, pages: this.#pages, active: this.#active };
  }

  /** Makes `page` the active tab. */
  activate(page: Page): void {
    if (this.#pages.includes(page)) this.#active = page;
  }

  async liveState(signal: AbortSignal): Promise<LiveState | undefined> {
    if (this.#lost && !this.#context) return { text: `<browser>\n${this.#lost}\n</browser>`, images: [] };
    const tabs = this.current();
    if (!tabs) return undefined;
    // Never beside an action: the state is of the page as the last action left it.
    await this.#queue;
    if (signal.aborted) return undefined;
    return captureLiveState(tabs, this.settings);
  }

  /** Closes the context; `reason`, when given, is told to the model with its next browser action. */
  async close(reason?: string): Promise<void> {
    const context = this.#context ?? (await this.#opening?.catch(() => undefined));
    this.#context = undefined;
    this.#opening = undefined;
    this.#pages = [];
    this.#active = undefined;
    this.#notes = [];
    if (reason) this.#lost = reason;
    if (!context) return;
    this.#host.closed(this);
    await context.close().catch(() => undefined);
  }

  /** The browser process ended under this session: told to the model, opened again by the next action. */
  crashed(): void {
    if (!this.#context) return;
    this.#context = undefined;
    this.#pages = [];
    this.#active = undefined;
    this.#lost = 'The browser stopped unexpectedly (its process ended); its tabs were lost. It starts again with the next browser action.';
    this.#host.closed(this);
  }

  /** Adds something to tell the model with the next result. */
  note(text: string): void {
    if (this.#notes.length < maxNotes) this.#notes.push(text);
  }

  async #tabs(): Promise<Tabs> {
    if (!this.#context) {
      this.#opening ??= this.#open();
      try {
        this.#context = await this.#opening;
      } finally {
        this.#opening = undefined;
      }
    }
    if (!this.#active || this.#active.isClosed()) {
      this.#active = this.#pages.find((page) => !page.isClosed()) ?? (await this.#context.newPage());
    }
    return { context: this.#context, pages: this.#pages, active: this.#active };
  }

  async #open(): Promise<BrowserContext> {
    const context = await this.#host.openContext(this);
    context.on('page', (page) => this.#adopt(page));
    for (const page of context.pages()) this.#adopt(page);
    return context;
  }

  /** Tracks a new tab (the agent's, or one a page opened): it becomes the active one. */
  #adopt(page: Page): void {
    if (this.#pages.includes(page)) return;
    this.#pages.push(page);
    const opener = this.#active;
    this.#active = page;
    if (opener) this.note(`A new tab opened (${this.#pages.length}); it is now the active one.`);
    page.on('close', () => {
      this.#pages = this.#pages.filter((other) => other !== page);
      if (this.#active === page) this.#active = this.#pages.at(-1);
    });
    page.on('crash', () => this.note(`Tab ${this.#pages.indexOf(page) + 1} crashed; reload it or close it.`));
    page.on('dialog', (dialog) => {
      this.note(`The page showed a ${dialog.type()} dialog: "${dialog.message().slice(0, 200)}" (dismissed).`);
      void dialog.dismiss().catch(() => undefined);
    });
    page.on('download', (download) => void this.#save(download));
  }

  async #save(download: Download): Promise<void> {
    const name = safeName(download.suggestedFilename());
    const path = join(this.downloads, name);
    try {
      await makePrivateFolder(this.downloads);
      await download.saveAs(path);
      this.note(`Downloaded ${name} to ${path}.`);
    } catch (error) {
      this.note(`The download of ${name} failed: ${(error as Error).message.split('\n')[0]}`);
    }
  }
}

/** A download's name as a plain file name: no folders, no control or reserved characters. */
function safeName(name: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is removed
  const plain = basename(name).replace(/[\u0000-\u001f<>:"/\\|?*]/g, '_').replace(/^\.+/, '').slice(0, 150);
  return plain === '' ? 'download' : plain;
}
