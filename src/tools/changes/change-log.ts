/**
 * A session's file changes, kept in the store so `/undo` works after a restart: an append-only
 * log of changes and of undo marks, replayed on read. The newest {@link maxChanges} count; the log
 * is rewritten without the older ones once it holds half as many again, so it never grows without
 * bound.
 */
import { randomUUID } from 'node:crypto';
import type { Store } from '../../store/store.ts';
import { maxKeptChars, type ChangeRecorder, type ChangeReport, type FileChange } from './file-change.ts';

/** Changes kept per session; the oldest are dropped. */
export const maxChanges = 100;

/** A record of the log. */
type LogRecord = { type: 'change'; change: FileChange } | { type: 'undone'; ids: string[]; time: number };

/** One session's change log (see the file's comment). */
export class ChangeLog {
  readonly #store: Store;
  readonly #key: string;
  /** Where a rewrite is written before it replaces the log (beside it: the log's key is a file, not a folder). */
  readonly #rewriteKey: string;
  /** Records in the log, known once it was read (or counted from the start); drives the rewrite. */
  #records: number | undefined;

  /** `session` is the session key as one store key segment, e.g. `telegram%3Adm%3A42`. */
  constructor(store: Store, session: string) {
    this.#store = store;
    this.#key = `changes:${session}`;
    this.#rewriteKey = `changes-rewrite:${session}`;
  }

  /** A recorder for the tools of one turn. */
  forTurn(turn: string): ChangeRecorder {
    return {
      record: async (change) => {
        await this.record(change, turn);
      },
    };
  }

  /** Appends a change made in `turn`. Contents over {@link maxKeptChars} are not kept. */
  async record(report: ChangeReport, turn: string): Promise<FileChange> {
    const tooLarge = (report.before?.length ?? 0) > maxKeptChars || (report.after?.length ?? 0) > maxKeptChars;
    const change: FileChange = { id: randomUUID().slice(0, 8), ...report, turn, time: Date.now() };
    if (tooLarge) Object.assign(change, { before: null, after: null, omitted: true });
    await this.#append({ type: 'change', change });
    return change;
  }

  /** Marks changes undone (each at most once: a mark for an undone change changes nothing). */
  async markUndone(ids: readonly string[]): Promise<void> {
    if (ids.length > 0) await this.#append({ type: 'undone', ids: [...ids], time: Date.now() });
  }

  /** The kept changes, oldest first, with their undo marks. A damaged record is skipped. */
  async changes(): Promise<FileChange[]> {
    return this.#store.withLock(this.#key, async () => (await this.#read()).changes);
  }

  /** Forgets every change (the session's log is deleted). */
  async clear(): Promise<void> {
    await this.#store.withLock(this.#key, async () => {
      await this.#store.deleteLog(this.#key);
      this.#records = 0;
    });
  }

  async #append(record: LogRecord): Promise<void> {
    await this.#store.withLock(this.#key, async () => {
      await this.#store.append(this.#key, JSON.stringify(record));
      if (this.#records === undefined) this.#records = (await this.#store.readLog(this.#key)).length;
      else this.#records++;
      if (this.#records > maxChanges * 1.5) await this.#rewrite();
    });
  }

  async #read(): Promise<{ changes: FileChange[]; records: number }> {
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
      else if (record.type === 'undone') for (const id of record.ids) {
        const change = byId.get(id);
        if (change && change.undone === undefined) change.undone = record.time;
      }
    }
    this.#records = lines.length;
    return { changes: [...byId.values()].slice(-maxChanges), records: lines.length };
  }

  /** Rewrites the log with the kept changes alone (their marks folded in), then swaps it in. */
  async #rewrite(): Promise<void> {
    const { changes } = await this.#read();
    const next = this.#rewriteKey;
    await this.#store.deleteLog(next);
    for (const change of changes) await this.#store.append(next, JSON.stringify({ type: 'change', change } satisfies LogRecord));
    await this.#store.moveLog(next, this.#key);
    this.#records = changes.length;
  }
}
