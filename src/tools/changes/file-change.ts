/**
 * A change a tool made to a file, as kept for `/undo` and `/diff`: the file's content before and
 * after (kept apart from the change, by reference; null: the file did not exist), which tool,
 * which turn, when.
 */

/** One recorded change. */
export interface FileChange {
  /** Unique within the session's log. */
  id: string;
  /** Absolute path. */
  path: string;
  /** The stored content before the change (see `ChangeLog.content`); null when the tool created the file. */
  before: string | null;
  /** The stored content the tool left; null when it deleted the file. */
  after: string | null;
  /** `write_file`, `edit_file`, `apply_patch`, `shell`. */
  tool: string;
  /** The turn it was made in (the id of the turn's message in the session). */
  turn: string;
  /** Milliseconds since the epoch. */
  time: number;
  /** When it was undone; unset while it stands. */
  undone?: number;
  /** The contents were larger than {@link maxKeptChars} and not kept: it cannot be undone or shown. */
  omitted?: true;
}

/** What a tool reports of a change it made: the contents themselves. */
export interface ChangeReport {
  path: string;
  before: string | null;
  after: string | null;
  tool: string;
}

/** Where tools report their changes (see `ToolContext.changes`): the turn's view of the session's log. */
export interface ChangeRecorder {
  /**
   * Records a change the tool has made (after it made it). Resolves at once: the change is
   * stored in the background, in order, before the log is next read.
   */
  record(change: ChangeReport): Promise<void>;
}

/** Largest content kept for a change, per side: a larger file's change is recorded without it and cannot be undone. */
export const maxKeptChars = 2 * 1024 * 1024;
