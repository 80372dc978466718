/**
 * Where the file tools' work happens: in a file worker (see `worker/main.js`) that runs inside the
 * seat's sandbox and sees only that seat's folders, one per conversation and view, kept while the
 * conversation uses it and closed when idle. The gateway process itself never opens a path, a
 * glob or a pattern the model chose: it sends them to the worker.
 */
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { packageRoot } from '../../core/package-root.ts';
import { isInside } from '../../guardrails/real-path.ts';
import type { Sandbox } from '../sandbox/sandbox.ts';
import { FileWorker, type FileCallOptions } from './file-worker.ts';

/** What one conversation's file worker may see. */
export interface FileView {
  /** Working directory: relative paths resolve against it. */
  cwd: string;
  /** The folders the tools may use. */
  roots: readonly string[];
  /** Whether the roots are writable (a seat without `write` or `shell` sees them read-only). */
  writable: boolean;
  /** Folders and files covered wherever a root would show them (beyond those always hidden). */
  hidden: readonly string[];
}

/** Options of {@link FileAccess}. */
export interface FileAccessOptions {
  /** The sandbox the workers run in (bubblewrap, or none for the owner where it cannot run). */
  sandbox: Sandbox;
  /** Entries no worker ever sees: OPERATOR_HOME's private entries, `.env` files. */
  hidden?: readonly string[];
  /** Milliseconds a worker is kept without calls. Default 60,000. */
  idleMs?: number;
  /** Workers kept at once; past it the least recently used idle one is closed. Default 32. */
  maxWorkers?: number;
  /** A call's time limit when it gives none. Default {@link defaultFileCallTimeoutMs}. */
  timeoutMs?: number;
}

/** Time limit of a call when the tool gives none. */
export const defaultFileCallTimeoutMs = 30_000;

// Plain JavaScript, run from the sources both when they run and when the build does (never bundled).
const workerMain = join(packageRoot, 'src', 'tools', 'files', 'worker', 'main.js');
const workerFolder = dirname(workerMain);
/** picomatch, which the worker matches globs with: its package folder is shown to it read-only. */
const picomatchEntry = createRequire(import.meta.url).resolve('picomatch');
const picomatchFolder = dirname(picomatchEntry);
/** Node's own installation, when it is not under /usr (which every sandbox shows). */
const nodeFolders = isInside('/usr', process.execPath) ? [] : [resolve(dirname(process.execPath), '..')];

/** The file workers of one process. */
export class FileAccess {
  readonly #sandbox: Sandbox;
  readonly #hidden: readonly string[];
  readonly #idleMs: number;
  readonly #maxWorkers: number;
  readonly #timeoutMs: number;
  readonly #workers = new Map<string, FileWorker>();
  #sweeper: NodeJS.Timeout | undefined;

  constructor(options: FileAccessOptions) {
    this.#sandbox = options.sandbox;
    this.#hidden = options.hidden ?? [];
    this.#idleMs = options.idleMs ?? 60_000;
    this.#maxWorkers = options.maxWorkers ?? 32;
    this.#timeoutMs = options.timeoutMs ?? defaultFileCallTimeoutMs;
  }

  /** `bubblewrap` when the workers are confined by the operating system, `none` when not. */
  get kind(): Sandbox['kind'] {
    return this.#sandbox.kind;
  }

  /**
   * Runs `op` in the worker of conversation `key` with `view` (started when there is none). Rejects
   * with the worker's error (its `code` kept), with `FileWorkerTimeoutError` past the time limit,
   * or with the signal's reason when aborted.
   */
  call<Result>(key: string, view: FileView, op: string, args: Record<string, unknown>, options: Partial<FileCallOptions> = {}): Promise<Result> {
    const worker = this.#worker(key, view);
    // A snapshot lives in its worker until the command it was taken for is compared: keep it.
    if (op === 'snapshotTake') worker.snapshots++;
    else if (op === 'snapshotCompare' || op === 'snapshotDrop') worker.snapshots = Math.max(0, worker.snapshots - 1);
    return worker.call<Result>(op, args, { signal: options.signal, timeoutMs: options.timeoutMs ?? this.#timeoutMs }).finally(() => {
      worker.lastUsed = Date.now();
    });
  }

  /** Ends every worker. */
  closeAll(): void {
    for (const worker of this.#workers.values()) worker.close();
    this.#workers.clear();
    if (this.#sweeper) clearInterval(this.#sweeper);
    this.#sweeper = undefined;
  }

  #worker(key: string, view: FileView): FileWorker {
    const id = JSON.stringify([key, view.cwd, view.roots, view.writable, view.hidden]);
    const known = this.#workers.get(id);
    if (known?.alive) {
      // Most recently used last, for eviction.
      this.#workers.delete(id);
      this.#workers.set(id, known);
      return known;
    }
    this.#workers.delete(id);
    this.#evict();
    const worker = new FileWorker(this.#spec(view));
    this.#workers.set(id, worker);
    this.#sweep();
    return worker;
  }

  #spec(view: FileView) {
    const roots = [...view.roots];
    return this.#sandbox.programSpec({
      argv: [process.execPath, '--max-old-space-size=1024', workerMain, JSON.stringify({ picomatch: picomatchEntry })],
      cwd: view.cwd,
      writable: view.writable ? roots : [],
      readOnly: [...(view.writable ? [] : roots), workerFolder, picomatchFolder, ...nodeFolders],
      network: false,
      hidden: [...this.#hidden, ...view.hidden],
      system: 'minimal',
      scratch: false,
    });
  }

  #evict(): void {
    if (this.#workers.size < this.#maxWorkers) return;
    for (const [id, worker] of this.#workers) {
      if (worker.busy || worker.snapshots > 0) continue;
      worker.close();
      this.#workers.delete(id);
      if (this.#workers.size < this.#maxWorkers) return;
    }
  }

  /** Closes idle workers now and then; the timer never keeps the process alive. */
  #sweep(): void {
    if (this.#sweeper) return;
    this.#sweeper = setInterval(() => {
      const now = Date.now();
      for (const [id, worker] of this.#workers) {
        if (!worker.alive || (!worker.busy && worker.snapshots === 0 && now - worker.lastUsed > this.#idleMs)) {
          worker.close();
          this.#workers.delete(id);
        }
      }
      if (this.#workers.size === 0 && this.#sweeper) {
        clearInterval(this.#sweeper);
        this.#sweeper = undefined;
      }
    }, Math.max(1_000, Math.floor(this.#idleMs / 2)));
    this.#sweeper.unref();
  }
}
