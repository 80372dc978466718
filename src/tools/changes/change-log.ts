/**
 * A session's file changes, kept in the store so `/undo` works after a restart: an append-only
 * log of small change records and undo marks, replayed on read, and each content kept once under
 * a key of its own (a change's "before" is usually the previous change's "after": that one is
 * referred to, not stored again). The newest {@link maxChanges} count; once the log holds half as
 * many again it is rewritten without the older ones, whose contents are deleted.
 *
 * Recording never makes a tool wait: a change is stored in the background, in order, and every
 * read of the log waits for what is still being stored. A change that could not be stored is
 * reported by the next `/undo` or `/diff`.
 */
import { randomUUID } from 'node:crypto';
import { errorMessage } from '../../core/errors.ts';
import type { Store } from '../../store/store.ts';
import { maxKeptChars, type ChangeRecorder, type ChangeReport, type FileChange } from './file-change.ts';

/** Changes kept per session; the oldest are dropped. */
export const maxChanges = 100;

/** Logs with changes still being stored: a shutdown waits for them ({@link flushChangeLogs}). */
const storing = new Set<ChangeLog>();

/** Waits until every change recorded in this process is stored (at shutdown). */
export async function flushChangeLogs(): Promise<void> {
  await Promise.all([...storing].map((log) => log.flush()));
}

/** How many paths' last contents a log remembers to refer to instead of storing again. */
const rememberedPaths = 8;

/** Resolves in a later turn of the event loop. */
const nextTick = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A record of the log. */
type LogRecord = { type: 'change'; change: FileChange } | { type: 'undone'; ids: string[]; time: number };

/** One session's change log (see the file's comment). */
export class ChangeLog {
  readonly #store: Store;
  readonly #key: string;
  /** Where a rewrite is written before it replaces the log (beside it: the log's key is a file, not a folder). */
  readonly #rewriteKey: string;
  readonly #contentPrefix: string;
  /** Records in the log, known once it was read (or counted from the start); drives the rewrite. */
  #records: number | undefined;
  /** The changes being stored, in order. */
  #storing: Promise<void> = Promise.resolve();
  /** Why changes could not be stored since the log was last read. */
  #failures: string[] = [];
  /** Each path's last stored "after", so the next change's equal "before" refers to it. */
  readonly #lastAfter = new Map<string, { key: string; content: string }>();

  /** `session` is the session key as one store key segment, e.g. `telegram%3Adm%3A42`. */
  constructor(store: Store, session: string) {
    this.#store = store;
    this.#key = `changes:${session}`;
    this.#rewriteKey = `changes-rewrite:${session}`;
    this.#contentPrefix = `change-contents:${session}:`;
  }

  /** A recorder for the tools of one turn. */
  forTurn(turn: string): ChangeRecorder {
    return {
      record: async (change) => {
        this.record(change, turn);
      },
    };
  }

  /** Records a change made in `turn`, in the background (see the file's comment). */
  record(report: ChangeReport, turn: string): void {
    const id = randomUUID().slice(0, 8);
    const time = Date.now();
    // After the tool's own work has returned (the filesystem store writes synchronously, so
    // within the same tick the storing would still be on the tool's time).
    storing.add(this);
    const stored = this.#storing.then(() =>
      nextTick().then(() => this.#store.withLock(this.#key, () => this.#persist(id, report, turn, time))).catch((error: unknown) => {
        this.#failures.push(`a change to ${report.path} by ${report.tool} could not be recorded (${errorMessage(error)})`);
      }),
    );
    this.#storing = stored;
    void stored.then(() => {
      if (this.#storing === stored) storing.delete(this);
    });
  }

  /** Resolves once every change recorded so far is stored (or has failed to be). */
  flush(): Promise<void> {
    return this.#storing;
  }

  /** Marks changes undone (each at most once: a mark for an undone change changes nothing). */
  async markUndone(ids: readonly string[]): Promise<void> {
    await this.#storing;
    if (ids.length > 0) await this.#store.withLock(this.#key, () => this.#append({ type: 'undone', ids: [...ids], time: Date.now() }));
  }

  /** The kept changes, oldest first, with their undo marks, once everything recorded is stored. */
  async changes(): Promise<FileChange[]> {
    await this.#storing;
    return this.#store.withLock(this.#key, async () => (await this.#read()).changes);
  }

  /** Why changes could not be stored since this was last asked (and forgets them). */
  takeFailures(): string[] {
    return this.#failures.splice(0);
  }

  /** A content a change refers to (its `before` or `after`). */
  async content(key: string): Promise<string> {
    const text = await this.#store.get<string>(key);
    if (typeof text !== 'string') throw new Error('the content of this change is no longer stored');
    return text;
  }

  async #persist(id: string, report: ChangeReport, turn: string, time: number): Promise<void> {
    const change: FileChange = { id, path: report.path, before: null, after: null, tool: report.tool, turn, time };
    if ((report.before?.length ?? 0) > maxKeptChars || (report.after?.length ?? 0) > maxKeptChars) {
      change.omitted = true;
      this.#lastAfter.delete(report.path);
    } else {
      const last = this.#lastAfter.get(report.path);
      if (report.before !== null) change.before = last && last.content === report.before ? last.key : await this.#keep(`${id}-before`, report.before);
      if (report.after !== null) {
        change.after = await this.#keep(`${id}-after`, report.after);
        this.#lastAfter.delete(report.path);
        this.#lastAfter.set(report.path, { key: change.after, content: report.after });
        if (this.#lastAfter.size > rememberedPaths) this.#lastAfter.delete(this.#lastAfter.keys().next().value!);
      } else this.#lastAfter.delete(report.path);
    }
    await this.#append({ type: 'change', change });
  }

  async #keep(name: string, content: string): Promise<string> {
    const key = `${this.#contentPrefix}${name}`;
    await this.#store.set(key, content);
    return key;
  }

  async #append(record: LogRecord): Promise<void> {
    await this.#store.append(this.#key, JSON.stringify(record));
    this.#records = this.#records === undefined ? (await this.#store.readLog(this.#key)).length : this.#records + 1;
    if (this.#records > maxChanges * 1.5) await this.#rewrite();
  }

  async #read(): Promise<{ changes: FileChange[]; dropped: FileChange[] }> {
    const lines = await this.#store.readLog(this.#key);
    const byId = new Map<string, FileChange>();
    for (const line of lines) {
      let record: LogRecord;
      try {
        record = JSON.parse(line) as LogRecord;
      } catch {
        continue;
      }
      if (record.type === 'change') byId.set(record.change.id, record.change);
      else if (record.type === 'undone') {
        for (const id of record.ids) {
          const change = byId.get(id);
          if (change && change.undone === undefined) change.undone = record.time;
        }
      }
    }
    this.#records = lines.length;
    const all = [...byId.values()];
    return { changes: all.slice(-maxChanges), dropped: all.slice(0, -maxChanges) };
  }

  /** Rewrites the log with the kept changes alone (their marks folded in), swaps it in, and deletes what only dropped changes used. */
  async #rewrite(): Promise<void> {
    const { changes, dropped } = await this.#read();
    await this.#store.deleteLog(this.#rewriteKey);
    for (const change of changes) await this.#store.append(this.#rewriteKey, JSON.stringify({ type: 'change', change } satisfies LogRecord));
    await this.#store.moveLog(this.#rewriteKey, this.#key);
    this.#records = changes.length;
    const used = new Set(changes.flatMap((change) => [change.before, change.after]));
    for (const change of dropped) {
      for (const key of [change.before, change.after]) if (key !== null && !used.has(key)) await this.#store.delete(key);
    }
  }
}
