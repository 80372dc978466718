/**
 * Session tree entries. A session is an append-only log of entries, each pointing at its parent;
 * the leaf marks the tip of the active branch. Rewinding or branching moves the leaf; nothing
 * already written is rewritten.
 */
import type { Message } from '../llm/types.ts';

interface EntryBase {
  id: string;
  /** The entry this one follows, or `null` for the first entry of a branch from the root. */
  parentId: string | null;
  /** Milliseconds since the epoch. */
  timestamp: number;
}

/** A conversation message. */
export interface MessageEntry extends EntryBase {
  type: 'message';
  message: Message;
}

/**
 * A compaction: everything on the path before `firstKeptEntryId` is replaced, when the context is
 * rebuilt, by `summary`.
 */
export interface CompactionEntry extends EntryBase {
  type: 'compaction';
  summary: string;
  firstKeptEntryId: string;
  /** Context tokens before the compaction. */
  tokensBefore: number;
}

/** The model was changed for the following turns. */
export interface ModelChangeEntry extends EntryBase {
  type: 'model_change';
  model: string;
}

/** Extension data; never sent to the model. */
export interface CustomEntry extends EntryBase {
  type: 'custom';
  customType: string;
  data: unknown;
}

/** Any entry of the tree. */
export type SessionEntry = MessageEntry | CompactionEntry | ModelChangeEntry | CustomEntry;

/** Distributive omit, so each variant keeps its own fields. */
export type NewEntry = SessionEntry extends infer E ? (E extends SessionEntry ? Omit<E, 'id' | 'parentId' | 'timestamp'> : never) : never;

/** What a session's active branch amounts to when sent to the model. */
export interface SessionContext {
  messages: Message[];
  /** Entry id of each message in `messages` (`null` for a synthetic compaction summary). */
  entryIds: (string | null)[];
  /** Last model set on the branch, if any. */
  model?: string;
}

/** The first record of a session log. */
export interface SessionHeader {
  type: 'session';
  version: 1;
  id: string;
  /** Milliseconds since the epoch. */
  createdAt: number;
  /** Working folder of the session, when it has one. */
  cwd?: string;
  /** The session and entry this one was forked from (`entryId` `null` when the branch was empty). */
  forkedFrom?: { sessionId: string; entryId: string | null };
}

/** A leaf move (rewind, branch switch): the leaf becomes `targetId` (`null`: before the first entry). */
export interface LeafRecord {
  type: 'leaf';
  targetId: string | null;
  /** Milliseconds since the epoch. */
  timestamp: number;
}

/** One line of a session log: the header, an entry or a leaf move. */
export type SessionRecord = SessionHeader | SessionEntry | LeafRecord;
