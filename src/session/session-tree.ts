/**
 * One session: an append-only tree of entries stored as the log `sessions:<id>`, with a movable
 * leaf. Appending writes exactly one record, so it costs the same at entry 10 and at entry
 * 10,000; rewinding and branching only move the leaf.
 */
import type { Message } from '../llm/types.ts';
import type { Store } from '../store/store.ts';
import { buildContextFromPath } from './build-context.ts';
import { assertValidSessionId, createEntryId } from './ids.ts';
import { EntryIndex } from './entry-index.ts';
import { replayRecords, serializeEntry } from './session-records.ts';
import type { LeafRecord, MessageEntry, NewEntry, SessionContext, SessionEntry, SessionHeader } from './types.ts';

/** Collaborators and settings of a {@link SessionTree}. */
export interface SessionTreeOptions {
  /** Clock for timestamps, in milliseconds since the epoch. Defaults to `Date.now`. */
  now?: () => number;
  /**
   * Told about damage met while loading or reading entries (skipped records, unreadable entries,
   * a compaction pointing off the branch). Defaults to `console.warn`.
   */
  onWarning?: (message: string) => void;
  /** Entry id generator; drawn again while the id is taken. Defaults to 8 random hex digits. */
  generateId?: () => string;
  /** Working folder written into the header of a session this call creates. */
  cwd?: string;
}

/** What a new session starts with (see {@link SessionTree.create}). */
export interface SessionSeed {
  forkedFrom?: SessionHeader['forkedFrom'];
  /** Entries to copy in, root first, ids and parents kept; the leaf ends on the last one. */
  entries?: readonly SessionEntry[];
}

/** The store key of the log of session `sessionId`. */
export function sessionLogKey(sessionId: string): string {
  return `sessions:${sessionId}`;
}

/**
 * A session tree in memory, backed by its log in a {@link Store}. Keep one instance per session
 * per process: two instances of one session would each append from their own leaf.
 */
export class SessionTree {
  private leaf: string | null = null;
  /** Appends and leaf moves of this tree, one after another. */
  private queue: Promise<unknown> = Promise.resolve();
  private readonly now: () => number;
  private readonly generateId: () => string;
  private readonly onWarning: (message: string) => void;

  private constructor(
    private readonly store: Store,
    /** The header record the log starts with. */
    readonly header: SessionHeader,
    private readonly entryIndex: EntryIndex,
    options: SessionTreeOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.generateId = options.generateId ?? createEntryId;
    this.onWarning = warningSink(options);
  }

  /**
   * Loads session `sessionId`, creating it (writing its header) when its log is empty.
   * Unreadable records are skipped with a warning; loading never fails on them.
   */
  static async open(store: Store, sessionId: string, options: SessionTreeOptions = {}): Promise<SessionTree> {
    return (await SessionTree.load(store, sessionId, options)) ?? SessionTree.create(store, sessionId, {}, options);
  }

  /** Loads session `sessionId`, or `null` when its log is empty. */
  static async load(store: Store, sessionId: string, options: SessionTreeOptions = {}): Promise<SessionTree | null> {
    assertValidSessionId(sessionId);
    const records = await store.readLog(sessionLogKey(sessionId));
    const loaded = replayRecords(sessionId, records, warningSink(options), (options.now ?? Date.now)());
    if (!loaded) return null;
    const tree = new SessionTree(store, loaded.header, loaded.entries, options);
    tree.leaf = loaded.leafId;
    return tree;
  }

  /**
   * Creates session `sessionId`: writes its header, then the `seed` entries one record each.
   *
   * @throws Error when the session already has records.
   */
  static async create(store: Store, sessionId: string, seed: SessionSeed = {}, options: SessionTreeOptions = {}): Promise<SessionTree> {
    assertValidSessionId(sessionId);
    const logKey = sessionLogKey(sessionId);
    if ((await store.readLog(logKey)).length > 0) throw new Error(`Session ${sessionId} already exists`);
    const header: SessionHeader = { type: 'session', version: 1, id: sessionId, createdAt: (options.now ?? Date.now)() };
    if (options.cwd !== undefined) header.cwd = options.cwd;
    if (seed.forkedFrom) header.forkedFrom = seed.forkedFrom;
    await store.append(logKey, JSON.stringify(header));
    const tree = new SessionTree(store, header, new EntryIndex(sessionId, warningSink(options)), options);
    for (const entry of seed.entries ?? []) {
      const record = serializeEntry(entry);
      await store.append(logKey, record);
      tree.entryIndex.add(JSON.parse(record) as SessionEntry);
      tree.leaf = entry.id;
    }
    return tree;
  }

  /** The session id. */
  get id(): string {
    return this.header.id;
  }

  /** The tip of the active branch, or `null` before the first entry. */
  get leafId(): string | null {
    return this.leaf;
  }

  /** Number of message entries in the whole tree, all branches. */
  get messageCount(): number {
    return this.entryIndex.messageCount;
  }

  /** Every entry of every branch, in the order written. Treat them as read-only values. */
  entries(): readonly SessionEntry[] {
    return this.entryIndex.all();
  }

  /** The entry with `id`, if any. */
  getEntry(id: string): SessionEntry | undefined {
    return this.entryIndex.get(id);
  }

  /**
   * Appends `entry` under the current leaf and moves the leaf to it. Writes exactly one record.
   * Concurrent calls are applied one after another.
   */
  append(entry: NewEntry): Promise<SessionEntry> {
    return this.enqueue(async () => {
      let id = this.generateId();
      while (this.entryIndex.has(id)) id = this.generateId();
      const stored = { ...entry, id, parentId: this.leaf, timestamp: this.now() } as SessionEntry;
      // Messages are values: callers never change one after handing it over, so the tree keeps
      // the object itself rather than a copy parsed back from the record (a turn's hot path).
      await this.store.append(sessionLogKey(this.id), serializeEntry(stored));
      this.entryIndex.add(stored);
      this.leaf = stored.id;
      return stored;
    });
  }

  /** Appends a message entry (see {@link append}). */
  appendMessage(message: Message): Promise<MessageEntry> {
    return this.append({ type: 'message', message }) as Promise<MessageEntry>;
  }

  /**
   * Moves the leaf to entry `id` (rewind, or switch to another branch); `null` moves it before
   * the first entry. The next append branches from there. Persists one leaf record.
   *
   * @throws Error when `id` is not an entry of this session.
   */
  setLeaf(id: string | null): Promise<void> {
    return this.enqueue(async () => {
      if (id !== null && !this.entryIndex.has(id)) throw new Error(`Session ${this.id} has no entry ${id}`);
      if (id === this.leaf) return;
      const record: LeafRecord = { type: 'leaf', targetId: id, timestamp: this.now() };
      await this.store.append(sessionLogKey(this.id), JSON.stringify(record));
      this.leaf = id;
    });
  }

  /** The active branch: entries from the root to the leaf. */
  branch(): SessionEntry[] {
    return this.pathTo(this.leaf);
  }

  /**
   * Entries from the root to entry `id` (empty for `null`).
   *
   * @throws Error when `id` is not an entry of this session.
   */
  pathTo(id: string | null): SessionEntry[] {
    return this.entryIndex.pathTo(id);
  }

  /** What the active branch amounts to for the model (see {@link buildContextFromPath}). */
  buildContext(): SessionContext {
    return buildContextFromPath(this.entryIndex.contextPathTo(this.leaf), this.onWarning);
  }

  private enqueue<T>(operation: () => Promise<T>): Promise<T> {
    const result = this.queue.then(operation);
    this.queue = result.catch(() => undefined);
    return result;
  }
}

function warningSink(options: SessionTreeOptions): (message: string) => void {
  return options.onWarning ?? ((message) => console.warn(message));
}
