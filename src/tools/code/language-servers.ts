/**
 * The language servers of the process, one per project folder: started on the first call about
 * that folder, stopped after they sat idle (10 minutes by default) and when the runtime closes. A
 * server that died is replaced on the next call. The server module (and its JSON-RPC client) is
 * loaded only when the first server starts.
 */
import { safeEnv } from '../safe-env.ts';
import { CodeServerError } from './code-server-error.ts';
import type { LanguageServer } from './language-server.ts';
import { serverInstall, type ServerInstall } from './server-install.ts';

/** Options of {@link LanguageServers}. */
export interface LanguageServersOptions {
  /** Where the servers' allowlisted environment comes from (see `safeEnv`). Default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Default: operator's own `typescript-language-server` and `typescript` (see `serverInstall`). */
  install?: ServerInstall;
  /** A server unused this long is stopped, in ms. Default 10 minutes. */
  idleMs?: number;
  /** Most servers running at once; starting one more stops the least recently used idle one. Default 3. */
  maxServers?: number;
  /** Longest wait for one answer, in ms. Default 30 s. */
  requestTimeoutMs?: number;
  /** Longest wait for a server to start, in ms. Default 60 s. */
  startTimeoutMs?: number;
}

interface Entry {
  starting: Promise<LanguageServer>;
  server?: LanguageServer;
  /** Calls using it now: it is not stopped for idleness while any runs. */
  busy: number;
  usedAt: number;
  idle?: NodeJS.Timeout;
}

/** A running server, as {@link LanguageServers.list} shows it. */
export interface RunningServer {
  root: string;
  pid: number | undefined;
}

/** The pool of language servers, by project folder. */
export class LanguageServers {
  readonly #options: LanguageServersOptions;
  readonly #entries = new Map<string, Entry>();
  #closed = false;

  constructor(options: LanguageServersOptions = {}) {
    this.#options = options;
  }

  /**
   * Runs `work` with the server of `root` (an absolute, real project folder), starting it if
   * none runs there or the last one died.
   */
  async use<T>(root: string, work: (server: LanguageServer) => Promise<T>): Promise<T> {
    if (this.#closed) throw new CodeServerError('the language servers were stopped: operator is shutting down');
    let entry = this.#entries.get(root);
    if (entry?.server && !entry.server.running) {
      this.#forget(root, entry);
      entry = undefined;
    }
    if (!entry) entry = this.#start(root);
    entry.busy++;
    if (entry.idle) clearTimeout(entry.idle);
    try {
      const server = await entry.starting;
      return await work(server);
    } finally {
      entry.busy--;
      entry.usedAt = Date.now();
      if (entry.busy === 0 && this.#entries.get(root) === entry) {
        entry.idle = setTimeout(() => void this.#stopEntry(root, entry), this.#options.idleMs ?? 10 * 60_000);
        entry.idle.unref();
      }
    }
  }

  /** The servers running now. */
  list(): RunningServer[] {
    return [...this.#entries.entries()].flatMap(([root, entry]) => (entry.server?.running ? [{ root, pid: entry.server.pid }] : []));
  }

  /** Stops every server (`shutdown`, `exit`, then a kill after the grace period); later calls fail. */
  async closeAll(): Promise<void> {
    this.#closed = true;
    await Promise.all([...this.#entries.keys()].map((root) => this.#stopEntry(root, this.#entries.get(root)!)));
  }

  #start(root: string): Entry {
    this.#makeRoom();
    const entry: Entry = { busy: 0, usedAt: Date.now(), starting: this.#launch(root, () => entry) };
    entry.starting.catch(() => this.#forget(root, entry));
    this.#entries.set(root, entry);
    return entry;
  }

  async #launch(root: string, self: () => Entry): Promise<LanguageServer> {
    const install = this.#options.install ?? serverInstall();
    if (!install) throw new CodeServerError('no TypeScript language server is installed here (typescript-language-server and typescript)');
    const { LanguageServer } = await import('./language-server.ts');
    const server = await LanguageServer.start({
      root,
      install,
      env: safeEnv(this.#options.env ?? process.env),
      requestTimeoutMs: this.#options.requestTimeoutMs,
      startTimeoutMs: this.#options.startTimeoutMs,
    });
    const entry = self();
    entry.server = server;
    void server.exited.then(() => this.#forget(root, entry));
    if (this.#closed) {
      await server.stop();
      throw new CodeServerError('the language servers were stopped: operator is shutting down');
    }
    return server;
  }

  /** Stops the least recently used idle servers while there are too many. */
  #makeRoom(): void {
    const max = this.#options.maxServers ?? 3;
    while (this.#entries.size >= max) {
      const idle = [...this.#entries.entries()].filter(([, entry]) => entry.busy === 0).sort(([, a], [, b]) => a.usedAt - b.usedAt)[0];
      if (!idle) return;
      void this.#stopEntry(idle[0], idle[1]);
    }
  }

  async #stopEntry(root: string, entry: Entry): Promise<void> {
    this.#forget(root, entry);
    const server = await entry.starting.catch(() => undefined);
    await server?.stop();
  }

  #forget(root: string, entry: Entry): void {
    if (entry.idle) clearTimeout(entry.idle);
    if (this.#entries.get(root) === entry) this.#entries.delete(root);
  }
}
