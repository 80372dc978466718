/**
 * The language servers of the process, one per language, project folder and view (the folders the
 * server may read, see `ServerScope`): a server started for one seat is never used by a seat that sees
 * more or less. Each is started on the first call about its scope, inside the seat's sandbox (see
 * `server-program.ts`), stopped after it sat idle (10 minutes by default) and when the runtime
 * closes. A server that died is replaced on the next call. The server module (and its JSON-RPC
 * client) is loaded, and the tsserver launcher written, only when the first server starts.
 */
import { CodeServerError } from './code-server-error.ts';
import type { LanguageServer, LanguageServerOptions } from './language-server.ts';
import { otherDialects, typescriptDialect } from './server-dialects.ts';
import { installedServerProgram, serverProgram, type ServerScope } from './server-program.ts';
import { isDriven, serverKinds } from './server-kinds.ts';
import { serverInstall, type ServerInstall } from './server-install.ts';
import { launcherPresent, removeTsserverLauncher, writeTsserverLauncher, type TsserverLauncher } from './tsserver-launcher.ts';
import { createNoSandbox } from '../sandbox/no-sandbox.ts';
import { findLanguageServers, type ServerStatus } from './installed-servers.ts';
import type { Sandbox } from '../sandbox/sandbox.ts';

/** Options of {@link LanguageServers}. */
export interface LanguageServersOptions {
  /**
   * Where the servers run: the runtime's sandbox (bubblewrap where it works). Default: none, with
   * the allowlisted environment taken from `env`.
   */
  sandbox?: Sandbox;
  /**
   * Where the default sandbox's allowlisted environment comes from (see `safeEnv`), and whose
   * `PATH` and `HOME` say where other languages' servers are looked for (see `installed-servers.ts`).
   * Default `process.env`.
   */
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
  scope: ServerScope;
  starting: Promise<LanguageServer>;
  server?: LanguageServer;
  /** Calls using it now: it is not stopped for idleness while any runs. */
  busy: number;
  usedAt: number;
  idle?: NodeJS.Timeout;
}

/** A running server, as {@link LanguageServers.list} shows it. */
export interface RunningServer {
  /** Its language: `TypeScript and JavaScript`, `Python`. */
  language: string;
  /** Its project folder. */
  root: string;
  /** The folders it may read. */
  roots: readonly string[];
  /** The process spawned: the server itself, or the sandbox's process that holds it. */
  pid: number | undefined;
}

/** The pool of language servers, by project folder and view. */
export class LanguageServers {
  readonly #options: LanguageServersOptions;
  readonly #sandbox: Sandbox;
  readonly #entries = new Map<string, Entry>();
  #launcher: Promise<TsserverLauncher> | undefined;
  #installed: Promise<ServerStatus[]> | undefined;
  #closed = false;

  constructor(options: LanguageServersOptions = {}) {
    this.#options = options;
    this.#sandbox = options.sandbox ?? createNoSandbox({ env: options.env ?? process.env, reason: 'the language servers were given no sandbox' });
  }

  /** `bubblewrap` when the servers run in the sandbox, `none` when they run as operator's children. */
  get isolation(): Sandbox['kind'] {
    return this.#sandbox.kind;
  }

  /**
   * Runs `work` with the server of `scope` (its project folder and the folders it may read, all
   * absolute and real), starting it if none runs for that scope or the last one died.
   */
  async use<T>(scope: ServerScope, work: (server: LanguageServer) => Promise<T>): Promise<T> {
    if (this.#closed) throw new CodeServerError('the language servers were stopped: operator is shutting down');
    const key = scopeKey(scope);
    let entry = this.#entries.get(key);
    if (entry?.server && !entry.server.running) {
      this.#forget(key, entry);
      entry = undefined;
    }
    if (!entry) entry = this.#start(key, scope);
    entry.busy++;
    if (entry.idle) clearTimeout(entry.idle);
    try {
      const server = await entry.starting;
      return await work(server);
    } finally {
      entry.busy--;
      entry.usedAt = Date.now();
      if (entry.busy === 0 && this.#entries.get(key) === entry) {
        entry.idle = setTimeout(() => void this.#stopEntry(key, entry), this.#options.idleMs ?? 10 * 60_000);
        entry.idle.unref();
      }
    }
  }

  /**
   * How each language's server stands on this machine (see `installed-servers.ts`): looked for
   * once, on the first call about another language than TypeScript or the first `/lsp`; `fresh`
   * looks again (`/lsp`, after something was installed).
   */
  installed(fresh = false): Promise<ServerStatus[]> {
    if (fresh || !this.#installed) {
      this.#installed = findLanguageServers({ sandbox: this.#sandbox, env: this.#options.env ?? process.env, install: this.#options.install });
    }
    return this.#installed;
  }

  /** The servers running now. */
  list(): RunningServer[] {
    return [...this.#entries.values()].flatMap((entry) =>
      entry.server?.running ? [{ language: languageOf(entry.scope), root: entry.scope.project, roots: entry.scope.roots, pid: entry.server.pid }] : [],
    );
  }

  /**
   * Stops every server (`shutdown`, `exit`, then a kill after the grace period) and removes the
   * tsserver launcher; later calls fail.
   */
  async closeAll(): Promise<void> {
    this.#closed = true;
    await Promise.all([...this.#entries.keys()].map((key) => this.#stopEntry(key, this.#entries.get(key)!)));
    const launcher = await this.#launcher?.catch(() => undefined);
    if (launcher) await removeTsserverLauncher(launcher);
  }

  #start(key: string, scope: ServerScope): Entry {
    this.#makeRoom();
    const entry: Entry = { scope, busy: 0, usedAt: Date.now(), starting: this.#launch(key, scope, () => entry) };
    entry.starting.catch(() => this.#forget(key, entry));
    this.#entries.set(key, entry);
    return entry;
  }

  async #launch(key: string, scope: ServerScope, self: () => Entry): Promise<LanguageServer> {
    const { LanguageServer } = await import('./language-server.ts');
    const server = await LanguageServer.start({
      root: scope.project,
      ...(scope.language === undefined || scope.language === 'typescript' ? await this.#typescript(scope) : await this.#other(scope)),
      parentPid: this.#sandbox.kind === 'none' ? process.pid : null,
      requestTimeoutMs: this.#options.requestTimeoutMs,
      startTimeoutMs: this.#options.startTimeoutMs,
    });
    const entry = self();
    entry.server = server;
    void server.exited.then(() => this.#forget(key, entry));
    if (this.#closed) {
      await server.stop();
      throw new CodeServerError('the language servers were stopped: operator is shutting down');
    }
    return server;
  }

  /** How TypeScript's server is run and spoken to: operator's own, with its tsserver launcher. */
  async #typescript(scope: ServerScope): Promise<Pick<LanguageServerOptions, 'spawn' | 'dialect'>> {
    const install = this.#options.install ?? serverInstall();
    if (!install) throw new CodeServerError('no TypeScript language server is installed here (typescript-language-server and typescript)');
    const launcher = await this.#launcherFor(install);
    return { spawn: this.#sandbox.programSpec(serverProgram(install, launcher, scope)), dialect: typescriptDialect(launcher.tsserver) };
  }

  /** How another language's server is run and spoken to: the one this machine has, if the pool drives it. */
  async #other(scope: ServerScope): Promise<Pick<LanguageServerOptions, 'spawn' | 'dialect'>> {
    const status = (await this.installed()).find((entry) => entry.kind.id === scope.language);
    const dialect = status && otherDialects[status.kind.id];
    if (!status || !dialect || !isDriven(status)) throw new CodeServerError(`the code tool drives no ${status?.kind.language ?? scope.language} language server here`);
    return { spawn: this.#sandbox.programSpec(installedServerProgram(status.path!, scope, this.#options.env ?? process.env)), dialect };
  }

  /** The tsserver launcher, written on the first start and again if it was removed since. */
  async #launcherFor(install: ServerInstall): Promise<TsserverLauncher> {
    const pending = this.#launcher;
    const current = await pending?.catch(() => undefined);
    if (current && launcherPresent(current)) return current;
    // Servers starting at once write one launcher between them.
    if (this.#launcher === pending) {
      if (current) await removeTsserverLauncher(current);
      if (this.#launcher === pending) this.#launcher = writeTsserverLauncher(install);
    }
    return await this.#launcher!;
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

  async #stopEntry(key: string, entry: Entry): Promise<void> {
    this.#forget(key, entry);
    const server = await entry.starting.catch(() => undefined);
    await server?.stop();
  }

  #forget(key: string, entry: Entry): void {
    if (entry.idle) clearTimeout(entry.idle);
    if (this.#entries.get(key) === entry) this.#entries.delete(key);
  }
}

/** One key per language, project folder and set of readable folders, whatever their order. */
function scopeKey(scope: ServerScope): string {
  return JSON.stringify([scope.language ?? 'typescript', scope.project, [...new Set(scope.roots)].sort()]);
}

/** How people call the language of `scope`. */
function languageOf(scope: ServerScope): string {
  return serverKinds.find((kind) => kind.id === (scope.language ?? 'typescript'))?.language ?? String(scope.language);
}
