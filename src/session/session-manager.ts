/**
 * Which session each conversation is in. A session key (`terminal:local`, `telegram:dm:42`)
 * points at its current session through the store value `session-index:<encoded key>`; the
 * sessions themselves are {@link SessionTree}s. Open trees stay cached until evicted.
 */
import type { Store } from '../store/store.ts';
import { assertValidSessionId, createSessionId } from './ids.ts';
import { SessionTree, type SessionTreeOptions } from './session-tree.ts';

/** Settings of a {@link SessionManager}; tree options apply to every tree it opens. */
export interface SessionManagerOptions extends SessionTreeOptions {
  /** Session id generator. Defaults to time-sortable ids (see {@link createSessionId}). */
  generateSessionId?: () => string;
}

/** One session as {@link SessionManager.list} reports it. */
export interface SessionSummary {
  /** The session key whose index holds the session. */
  key: string;
  id: string;
  createdAt: number;
  /** Message entries in the whole tree. */
  messageCount: number;
  /** Whether it is the key's current session. */
  current: boolean;
  forkedFrom?: { sessionId: string; entryId: string | null };
}

/** The stored index of one session key. */
interface SessionIndex {
  current: string;
  /** Every session the key has had, oldest first. */
  sessions: string[];
}

const INDEX_PREFIX = 'session-index:';

/**
 * A session key as one store key segment: percent-encoded, dots included, so `:`, `/` and `..`
 * cannot reach the key structure.
 */
export function encodeSessionKey(key: string): string {
  if (typeof key !== 'string' || key === '') throw new TypeError('A session key must be a non-empty string');
  return encodeURIComponent(key).replace(/\./g, '%2E');
}

/** The session key {@link encodeSessionKey} encoded. */
export function decodeSessionKey(encoded: string): string {
  return decodeURIComponent(encoded);
}

/**
 * Maps session keys to sessions and keeps the open trees. Operations on one key run one at a
 * time (through `store.withLock`), so two messages racing on a new conversation share a session.
 */
export class SessionManager {
  private readonly trees = new Map<string, SessionTree>();
  private readonly generateSessionId: () => string;

  constructor(
    private readonly store: Store,
    private readonly options: SessionManagerOptions = {},
  ) {
    this.generateSessionId = options.generateSessionId ?? (() => createSessionId((options.now ?? Date.now)()));
  }

  /** The current session of `key`, created when the key has none. */
  open(key: string): Promise<SessionTree> {
    return this.locked(key, async (indexKey) => {
      const cached = this.trees.get(key);
      if (cached) return cached;
      const index = await this.store.get<SessionIndex>(indexKey);
      if (!index) return this.startSession(key, indexKey, undefined);
      const tree = this.cachedTree(index.current) ?? (await SessionTree.open(this.store, index.current, this.options));
      this.trees.set(key, tree);
      return tree;
    });
  }

  /** Starts a fresh, empty session for `key` and makes it current. */
  newSession(key: string): Promise<SessionTree> {
    return this.locked(key, async (indexKey) => this.startSession(key, indexKey, await this.store.get<SessionIndex>(indexKey)));
  }

  /**
   * Starts a session for `key` holding a copy of the current session's path to `entryId`
   * (default: its leaf), ids kept, and makes it current. Its header names the source.
   *
   * @throws Error when `entryId` is not an entry of the current session.
   */
  fork(key: string, entryId?: string): Promise<SessionTree> {
    return this.locked(key, async (indexKey) => {
      const index = await this.store.get<SessionIndex>(indexKey);
      const source = this.trees.get(key) ?? (index ? await SessionTree.open(this.store, index.current, this.options) : undefined);
      if (!source && entryId !== undefined) throw new Error(`Session key ${key} has no session to fork`);
      const path = source ? source.pathTo(entryId ?? source.leafId) : [];
      const id = this.generateSessionId();
      const tree = await SessionTree.create(
        this.store,
        id,
        {
          entries: path,
          ...(source ? { forkedFrom: { sessionId: source.id, entryId: path.at(-1)?.id ?? null } } : {}),
        },
        this.options,
      );
      await this.store.set(indexKey, { current: id, sessions: [...(index?.sessions ?? []), id] } satisfies SessionIndex);
      this.trees.set(key, tree);
      return tree;
    });
  }

  /**
   * Makes the stored session `sessionId` the current session of `key`.
   *
   * @throws Error when there is no such session.
   */
  switchSession(key: string, sessionId: string): Promise<SessionTree> {
    assertValidSessionId(sessionId);
    return this.locked(key, async (indexKey) => {
      const tree = this.cachedTree(sessionId) ?? (await SessionTree.load(this.store, sessionId, this.options));
      if (!tree) throw new Error(`No session ${sessionId}`);
      const index = await this.store.get<SessionIndex>(indexKey);
      const sessions = index?.sessions ?? [];
      await this.store.set(indexKey, {
        current: sessionId,
        sessions: sessions.includes(sessionId) ? sessions : [...sessions, sessionId],
      } satisfies SessionIndex);
      this.trees.set(key, tree);
      return tree;
    });
  }

  /**
   * The sessions of `key`, oldest first, or of every key when omitted. Reads each session's log
   * (cached trees excepted), so it costs in proportion to the stored history.
   */
  async list(key?: string): Promise<SessionSummary[]> {
    const keys = key !== undefined ? [key] : (await this.store.list(INDEX_PREFIX)).map((indexKey) => decodeSessionKey(indexKey.slice(INDEX_PREFIX.length)));
    const summaries: SessionSummary[] = [];
    for (const sessionKey of keys) {
      const index = await this.store.get<SessionIndex>(indexKey(sessionKey));
      if (!index) continue;
      for (const id of index.sessions) {
        const tree = this.cachedTree(id) ?? (await SessionTree.load(this.store, id, this.options));
        if (!tree) continue;
        const summary: SessionSummary = { key: sessionKey, id, createdAt: tree.header.createdAt, messageCount: tree.messageCount, current: id === index.current };
        if (tree.header.forkedFrom) summary.forkedFrom = tree.header.forkedFrom;
        summaries.push(summary);
      }
    }
    return summaries;
  }

  /**
   * Drops the cached tree of `key` so an idle conversation leaves memory; the next `open` reloads
   * it from the store. A tree still held elsewhere keeps working but is no longer shared.
   * Returns whether a tree was cached.
   */
  evict(key: string): boolean {
    return this.trees.delete(key);
  }

  /** Session keys whose trees are in memory. */
  cachedKeys(): string[] {
    return [...this.trees.keys()];
  }

  /** The cached tree of session `id`, so two keys on one session share one tree. */
  private cachedTree(id: string): SessionTree | undefined {
    for (const tree of this.trees.values()) if (tree.id === id) return tree;
    return undefined;
  }

  private async startSession(key: string, indexKey: string, index: SessionIndex | null | undefined): Promise<SessionTree> {
    const id = this.generateSessionId();
    // The session is written before the index points at it: a crash in between leaves an
    // unreferenced session, never a reference to nothing.
    const tree = await SessionTree.create(this.store, id, {}, this.options);
    await this.store.set(indexKey, { current: id, sessions: [...(index?.sessions ?? []), id] } satisfies SessionIndex);
    this.trees.set(key, tree);
    return tree;
  }

  private locked<T>(key: string, operation: (indexKey: string) => Promise<T>): Promise<T> {
    const storeKey = indexKey(key);
    return this.store.withLock(storeKey, () => operation(storeKey));
  }
}

function indexKey(sessionKey: string): string {
  return INDEX_PREFIX + encodeSessionKey(sessionKey);
}
