/**
 * One language server process for one project folder, spoken to over JSON-RPC on its stdin and
 * stdout (vscode-jsonrpc). Spawned as the sandbox says (see `server-program.ts`), in a process
 * group of its own so that stopping it takes its children (TypeScript's tsserver) along. Started
 * with `initialize`/`initialized` as its dialect says (see `server-dialects.ts`: TypeScript's is
 * told to run operator's tsserver launcher and no other, since it would otherwise prefer the
 * workspace's own `node_modules/typescript`, and checked to have done so); stopped with
 * `shutdown`/`exit`, then killed after a grace period. A server that dies fails
 * the requests in flight with a clear error; the pool (`language-servers.ts`) starts a new one on
 * the next call.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import path from 'node:path';
import { CancellationTokenSource, ErrorCodes, ResponseError, StreamMessageReader, StreamMessageWriter, createMessageConnection, type MessageConnection } from 'vscode-jsonrpc/node';
import { errorMessage } from '../../core/errors.ts';
import { CodeServerError } from './code-server-error.ts';
import { DiskChanges, type DiskLister } from './disk-changes.ts';
import type { LspDiagnostic, LspHover, LspLocation, LspLocationLink, LspPosition, TsDiagnostic } from './lsp-types.ts';
import { OpenDocuments, type DocumentReader, type DocumentSync } from './open-documents.ts';
import type { ServerDialect } from './server-dialects.ts';
import type { SpawnSpec } from '../sandbox/sandbox.ts';

/** Options of {@link LanguageServer.start}. */
export interface LanguageServerOptions {
  /** The project folder (absolute, real): the server's root and working directory. */
  root: string;
  /** How to spawn it: the sandbox's spec for the server program (see `serverProgram`). */
  spawn: SpawnSpec;
  /** How it is spoken to: TypeScript's, Python's or Go's (see `server-dialects.ts`). */
  dialect: ServerDialect;
  /**
   * operator's process id, which the server watches and exits without; null when the server
   * cannot see it (its own PID namespace), where the sandbox stops it with operator instead.
   */
  parentPid: number | null;
  /** Longest wait for one answer, in ms. Default 30 s. */
  requestTimeoutMs?: number;
  /** Longest wait for the server to start and answer `initialize`, in ms. Default 60 s. */
  startTimeoutMs?: number;
  /** Most documents kept open. Default 20. */
  maxOpenDocuments?: number;
}

/** Errors of the connection itself (the pipe broke, the connection closed), not answers of the server. */
const connectionErrors: ReadonlySet<number> = new Set([
  ErrorCodes.MessageWriteError,
  ErrorCodes.MessageReadError,
  ErrorCodes.PendingResponseRejected,
  ErrorCodes.ConnectionInactive,
]);

/** Bytes of the server's stderr kept, to say why it stopped. */
const stderrTail = 2_000;

/** The TypeScript a server runs, as it says after `initialized`. */
export interface ServerTypescript {
  version: string;
  /** `user-setting` when it runs the tsserver it was told to; `workspace` or `bundled` otherwise. */
  source: string;
}

/** A running language server. */
export class LanguageServer {
  readonly root: string;
  readonly #dialect: ServerDialect;
  readonly #child: ChildProcessByStdio<Writable, Readable, Readable>;
  readonly #connection: MessageConnection;
  readonly #requestTimeoutMs: number;
  readonly #documents: OpenDocuments;
  /** Rejecters of the requests in flight, failed at once when the server dies. */
  readonly #pending = new Set<(error: Error) => void>();
  readonly #exited: Promise<void>;
  #exit: string | undefined;
  #stopping = false;
  #stderr = '';
  /** Document syncs run one at a time, so two calls never open the same document twice. */
  #syncing: Promise<unknown> = Promise.resolve();
  #typescript: ServerTypescript | undefined;
  readonly #typescriptSaid: Promise<ServerTypescript>;
  /** Per document URI, how many times it was opened or changed: the sync a publication follows. */
  readonly #syncs = new Map<string, number>();
  /** Per document URI, the version last sent, which a publication that names one must name. */
  readonly #versions = new Map<string, number>();
  /** Per document URI, what the server last published about it, after which sync. */
  readonly #published = new Map<string, { sync: number; diagnostics: LspDiagnostic[] }>();
  /** Called at each publication. */
  readonly #publications = new Set<() => void>();
  /** The project's files as last listed, for a server told of the disk (see `disk-changes.ts`). */
  readonly #disk: DiskChanges | undefined;

  private constructor(options: LanguageServerOptions) {
    this.root = options.root;
    this.#dialect = options.dialect;
    this.#requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
    this.#documents = new OpenDocuments(options.maxOpenDocuments);
    this.#disk = options.dialect.toldOfDisk ? new DiskChanges(options.root, options.dialect.toldOfDisk) : undefined;
    this.#child = spawn(options.spawn.file, options.spawn.args, {
      cwd: options.spawn.cwd,
      env: options.spawn.env,
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    this.#exited = new Promise((resolve) => {
      const done = (reason: string) => {
        if (this.#exit === undefined) this.#exit = reason;
        for (const fail of [...this.#pending]) fail(this.#stoppedError());
        resolve();
      };
      this.#child.once('error', (error) => done(`could not be started: ${error.message}`));
      this.#child.once('exit', (code, signal) => done(signal ? `was killed by ${signal}` : `exited with code ${code}`));
    });
    this.#child.stdin.on('error', () => undefined);
    this.#child.stderr.setEncoding('utf8');
    this.#child.stderr.on('data', (chunk: string) => {
      this.#stderr = (this.#stderr + chunk).slice(-stderrTail);
    });
    this.#connection = createMessageConnection(new StreamMessageReader(this.#child.stdout), new StreamMessageWriter(this.#child.stdin));
    // What the server asks of its client: settings (none: a server keeps those it was given in
    // `initialize`), capability registrations and progress tokens (accepted), messages to show
    // (ignored).
    this.#connection.onRequest((method, params) => {
      if (method === 'workspace/configuration') {
        const items = (params as { items?: unknown[] } | undefined)?.items ?? [];
        return items.map(() => null);
      }
      return null;
    });
    let said: (typescript: ServerTypescript) => void = () => undefined;
    this.#typescriptSaid = new Promise((resolve) => (said = resolve));
    this.#connection.onNotification((method, params) => {
      if (method === 'textDocument/publishDiagnostics') return this.#publish(params);
      if (method !== '$/typescriptVersion') return;
      const { version, source } = (params ?? {}) as { version?: unknown; source?: unknown };
      this.#typescript = { version: String(version), source: String(source) };
      said(this.#typescript);
    });
    this.#connection.onError(() => undefined);
    this.#connection.listen();
  }

  /**
   * Spawns the server for `options.root` and initializes it. Throws a {@link CodeServerError}
   * (and leaves nothing running) when it cannot.
   */
  static async start(options: LanguageServerOptions): Promise<LanguageServer> {
    const server = new LanguageServer(options);
    const rootUri = OpenDocuments.uriOf(options.root);
    try {
      await server.#request(
        'initialize',
        {
          processId: options.parentPid,
          clientInfo: { name: 'operator' },
          rootUri,
          rootPath: options.root,
          workspaceFolders: [{ uri: rootUri, name: path.basename(options.root) || options.root }],
          capabilities: {
            textDocument: {
              synchronization: { dynamicRegistration: false },
              definition: { linkSupport: true },
              references: {},
              hover: { contentFormat: ['markdown', 'plaintext'] },
            },
            workspace: { configuration: true },
          },
          initializationOptions: options.dialect.initializationOptions,
        },
        undefined,
        options.startTimeoutMs ?? 60_000,
      );
      server.#notify('initialized', {});
      if (options.dialect.settings !== undefined) server.#notify('workspace/didChangeConfiguration', { settings: options.dialect.settings });
      if (!options.dialect.checksTypescript) return server;
      // The server says which TypeScript it runs right after `initialized`. Were it not the one
      // it was told to run (the launcher gone between the check and the start), it is stopped.
      const typescript = await server.#untilStopped(server.#typescriptSaid, options.startTimeoutMs ?? 60_000);
      if (typescript.source !== 'user-setting') {
        throw new CodeServerError(`the TypeScript language server for ${options.root} ran TypeScript from "${typescript.source}", not operator's own; it was stopped`);
      }
      return server;
    } catch (error) {
      await server.stop(0);
      if (error instanceof CodeServerError) throw error;
      throw new CodeServerError(`${server.#name} for ${options.root} could not start: ${errorMessage(error)}`);
    }
  }

  /** "the TypeScript language server", for messages. */
  get #name(): string {
    return `the ${this.#dialect.language} language server`;
  }

  /** What its diagnostics are, for "No ... in <file>" (see `ServerDialect.problems`). */
  get problems(): string {
    return this.#dialect.problems;
  }

  /** The server's process id (its tsserver runs in the same process group). */
  get pid(): number | undefined {
    return this.#child.pid;
  }

  /** The TypeScript it runs, once it said (see {@link ServerTypescript}). */
  get typescript(): ServerTypescript | undefined {
    return this.#typescript;
  }

  /** Whether the process is still running. */
  get running(): boolean {
    return this.#exit === undefined;
  }

  /** Resolves once the process has exited, for whatever reason. */
  get exited(): Promise<void> {
    return this.#exited;
  }

  /**
   * Makes the server see `file` (absolute, real) with `text`, its content just read from disk,
   * and every other open document as it is on disk now, as `reader` finds it (see
   * `open-documents.ts`); a server told of the disk (gopls, see `ServerDialect.toldOfDisk`) also
   * every other file of its project: those `lister` finds made, written or removed since the last
   * call, or the whole folder on the first call and when `lister` fails or is not given.
   */
  async open(file: string, languageId: string, text: string, reader: DocumentReader, lister?: DiskLister): Promise<void> {
    const sync = this.#syncing.then(async () => {
      // Before the documents, so the new version of `file` is checked against the disk as it is now.
      const changes = this.#disk === undefined ? [] : await this.#disk.events(lister);
      if (changes.length > 0) this.#notify('workspace/didChangeWatchedFiles', { changes });
      // After a change on disk `file` is sent again, so a report on it follows the change; with
      // none, the last report on its unchanged text still holds.
      for (const message of await this.#documents.sync(file, languageId, text, reader, changes.length > 0)) this.#send(message);
    });
    this.#syncing = sync.catch(() => undefined);
    await sync;
  }

  /** Where the symbol at `position` of the open `file` is declared. */
  definition(file: string, position: LspPosition, signal?: AbortSignal): Promise<LspLocation | LspLocation[] | LspLocationLink[] | null> {
    return this.#request('textDocument/definition', { textDocument: { uri: OpenDocuments.uriOf(file) }, position }, signal);
  }

  /** Every use of the symbol at `position`, its declaration included. */
  references(file: string, position: LspPosition, signal?: AbortSignal): Promise<LspLocation[] | null> {
    return this.#request('textDocument/references', { textDocument: { uri: OpenDocuments.uriOf(file) }, position, context: { includeDeclaration: true } }, signal);
  }

  /** The type and documentation of the symbol at `position`. */
  hover(file: string, position: LspPosition, signal?: AbortSignal): Promise<LspHover | null> {
    return this.#request('textDocument/hover', { textDocument: { uri: OpenDocuments.uriOf(file) }, position }, signal);
  }

  /**
   * The syntax and type errors of the open `file`, as the compiler reports them now. Asked of
   * tsserver directly (the server's `typescript.tsserverRequest` command) rather than waited for
   * in `textDocument/publishDiagnostics`: the server publishes a file's errors in up to three
   * rounds with nothing to tell the last one, and not at all when they stay empty, so no wait
   * could tell "no errors" from "not checked yet".
   */
  async diagnostics(file: string, signal?: AbortSignal): Promise<TsDiagnostic[]> {
    if (this.#dialect.diagnostics === 'published') return (await this.#publishedFor(file, signal)).map(asTsDiagnostic);
    const all: TsDiagnostic[] = [];
    for (const command of ['syntacticDiagnosticsSync', 'semanticDiagnosticsSync']) {
      const response = await this.#request<{ success?: boolean; message?: string; body?: TsDiagnostic[] } | null>(
        'workspace/executeCommand',
        { command: 'typescript.tsserverRequest', arguments: [command, { file: OpenDocuments.uriOf(file) }] },
        signal,
      );
      if (response?.success === false) throw new CodeServerError(`tsserver refused ${command}: ${response.message ?? 'no reason given'}`);
      all.push(...(response?.body ?? []));
    }
    return all;
  }

  /**
   * Stops the server: `shutdown` and `exit`, then SIGKILL to its process group if it has not
   * exited within `graceMs`. Safe to call more than once, and on a dead server.
   */
  async stop(graceMs = 2_000): Promise<void> {
    if (this.#stopping) return this.#exited;
    this.#stopping = true;
    if (this.running && graceMs > 0) {
      const polite = (async () => {
        await this.#request('shutdown', null, undefined, graceMs).catch(() => undefined);
        if (this.running) this.#notify('exit', null);
      })().catch(() => undefined);
      const timer = new Promise<void>((resolve) => setTimeout(resolve, graceMs).unref());
      await Promise.race([Promise.all([polite, this.#exited]), timer]);
    }
    if (this.running) this.#kill();
    await this.#exited;
    this.#connection.dispose();
  }

  /** Kills the process group at once (the server and its tsserver). */
  #kill(): void {
    const pid = this.#child.pid;
    try {
      if (pid !== undefined) process.kill(-pid, 'SIGKILL');
    } catch {
      this.#child.kill('SIGKILL');
    }
  }

  /** `promise`, failed when the server stops first or `timeoutMs` passes (with `late` as the message). */
  #untilStopped<T>(promise: Promise<T>, timeoutMs: number, late = `${this.#name} did not say which TypeScript it runs within ${Math.round(timeoutMs / 1000)} s`): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new CodeServerError(late)), timeoutMs);
    });
    const stopped = this.#exited.then(() => Promise.reject(this.#stoppedError()));
    return Promise.race([promise, timeout, stopped]).finally(() => clearTimeout(timer));
  }

  #stoppedError(): CodeServerError {
    const why = this.#stderr.trim() ? `; it said: ${this.#stderr.trim().split('\n').slice(-3).join(' | ')}` : '';
    return new CodeServerError(
      `${this.#name} for ${this.root} ${this.#exit ?? 'stopped'} before answering${why}. It is started again on the next call.`,
      { root: this.root },
    );
  }

  #send(message: DocumentSync): void {
    if (message.kind === 'close') {
      this.#syncs.delete(message.uri);
      this.#versions.delete(message.uri);
      this.#published.delete(message.uri);
    } else {
      this.#syncs.set(message.uri, (this.#syncs.get(message.uri) ?? 0) + 1);
      this.#versions.set(message.uri, message.version);
    }
    if (message.kind === 'open') {
      this.#notify('textDocument/didOpen', { textDocument: { uri: message.uri, languageId: message.languageId, version: message.version, text: message.text } });
    } else if (message.kind === 'change') {
      this.#notify('textDocument/didChange', { textDocument: { uri: message.uri, version: message.version }, contentChanges: [{ text: message.text }] });
    } else {
      this.#notify('textDocument/didClose', { textDocument: { uri: message.uri } });
    }
  }

  /**
   * Keeps what the server published about an open document, marked with the sync it follows. One
   * that names another version than the last sent is about an older text (gopls names it; its
   * report on the text before a change can come after the change was sent): left out.
   */
  #publish(params: unknown): void {
    const { uri, diagnostics, version } = (params ?? {}) as { uri?: unknown; diagnostics?: unknown; version?: unknown };
    if (typeof uri !== 'string' || !Array.isArray(diagnostics)) return;
    const sync = this.#syncs.get(uri);
    if (sync === undefined) return;
    if (typeof version === 'number' && version !== this.#versions.get(uri)) return;
    this.#published.set(uri, { sync, diagnostics: diagnostics as LspDiagnostic[] });
    for (const heard of [...this.#publications]) heard();
  }

  /**
   * What the server published about the open `file` after its last change was sent: the server
   * lints a document it was sent and publishes the result, an empty list included, so waiting for
   * that tells "no problems" from "not checked yet".
   */
  #publishedFor(file: string, signal?: AbortSignal): Promise<LspDiagnostic[]> {
    const uri = OpenDocuments.uriOf(file);
    const current = () => {
      const published = this.#published.get(uri);
      return published !== undefined && published.sync === this.#syncs.get(uri) ? published.diagnostics : undefined;
    };
    const now = current();
    if (now !== undefined) return Promise.resolve(now);
    if (signal?.aborted) return Promise.reject(signal.reason);
    let heard: () => void = () => undefined;
    let onAbort: () => void = () => undefined;
    const published = new Promise<LspDiagnostic[]>((resolve, reject) => {
      heard = () => {
        const found = current();
        if (found !== undefined) resolve(found);
      };
      onAbort = () => reject(signal!.reason);
      this.#publications.add(heard);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    const timeoutMs = this.#requestTimeoutMs;
    return this.#untilStopped(published, timeoutMs, `${this.#name} did not report the problems of ${file} within ${Math.round(timeoutMs / 1000)} s`).finally(() => {
      this.#publications.delete(heard);
      signal?.removeEventListener('abort', onAbort);
    });
  }

  #notify(method: string, params: unknown): void {
    if (!this.running) throw this.#stoppedError();
    try {
      void this.#connection.sendNotification(method, params).catch(() => undefined);
    } catch {
      // The connection closed: the exit that follows fails the call.
    }
  }

  /**
   * One request, failed with a {@link CodeServerError} when the server dies or does not answer
   * within `timeoutMs`, and with the abort reason when `signal` aborts (the server is told to
   * cancel).
   */
  #request<Result>(method: string, params: unknown, signal?: AbortSignal, timeoutMs = this.#requestTimeoutMs): Promise<Result> {
    if (!this.running) return Promise.reject(this.#stoppedError());
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<Result>((resolve, reject) => {
      const cancel = new CancellationTokenSource();
      let settled = false;
      const finish = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.#pending.delete(fail);
        cancel.dispose();
        outcome();
      };
      const fail = (error: Error) => finish(() => reject(error));
      const onAbort = () => {
        cancel.cancel();
        finish(() => reject(signal!.reason));
      };
      const timer = setTimeout(() => {
        cancel.cancel();
        fail(new CodeServerError(`${this.#name} did not answer ${method} within ${Math.round(timeoutMs / 1000)} s`));
      }, timeoutMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#pending.add(fail);
      let sent: Promise<Result>;
      try {
        sent = this.#connection.sendRequest<Result>(method, params, cancel.token);
      } catch (error) {
        fail(this.running ? new CodeServerError(`${method} failed: ${errorMessage(error)}`) : this.#stoppedError());
        return;
      }
      sent.then(
        (result) => finish(() => resolve(result)),
        (error: unknown) => {
          const failure = () => new CodeServerError(`${this.#name} failed ${method}: ${errorMessage(error)}`);
          if (error instanceof ResponseError && !connectionErrors.has(error.code)) return fail(failure());
          // The connection may close a moment before the exit is seen: a dying server's
          // requests fail with why it stopped, not with "connection disposed".
          const settle = new Promise<void>((done) => setTimeout(done, 500).unref());
          void Promise.race([this.#exited, settle]).then(() =>
            fail(this.running ? failure() : this.#stoppedError()),
          );
        },
      );
    });
  }
}

/** LSP severities (1 error to 4 hint) as tsserver's categories. */
const categories = ['error', 'error', 'warning', 'message', 'suggestion'] as const;

/** A published diagnostic in tsserver's form: 1-based line and offset, its code named with its source (`pyflakes`). */
function asTsDiagnostic(diagnostic: LspDiagnostic): TsDiagnostic {
  const { start, end } = diagnostic.range;
  const code = [diagnostic.source, diagnostic.code].filter((part) => part !== undefined && part !== '').join(' ');
  return {
    start: { line: start.line + 1, offset: start.character + 1 },
    end: { line: end.line + 1, offset: end.character + 1 },
    text: diagnostic.message,
    ...(code === '' ? {} : { code }),
    category: categories[diagnostic.severity ?? 1] ?? 'error',
  };
}
