/**
 * Reading a session log back: one JSON record per line, checked just enough to be safe to index.
 * Unreadable records (a line torn by a crash, a record from a newer version) are reported and
 * skipped, never thrown, so one bad line cannot lock a conversation out.
 */
import type { LeafRecord, SessionEntry, SessionHeader } from './types.ts';

/** What a log amounts to once read. */
export interface LoadedSession {
  header: SessionHeader;
  /** Entries in log order; a parent always comes before its children. */
  entries: SessionEntry[];
  leafId: string | null;
}

const ENTRY_TYPES = new Set(['message', 'compaction', 'model_change', 'custom']);

/**
 * Replays the `records` of session `sessionId`. Returns `null` for an empty log.
 *
 * @param fallbackCreatedAt creation time to assume when the header is missing.
 */
export function replayRecords(
  sessionId: string,
  records: readonly string[],
  onWarning: (message: string) => void,
  fallbackCreatedAt: number,
): LoadedSession | null {
  if (records.length === 0) return null;
  let header: SessionHeader | undefined;
  const entries: SessionEntry[] = [];
  const known = new Set<string>();
  let leafId: string | null = null;
  const skip = (index: number, reason: string) =>
    onWarning(`Session ${sessionId}: skipped record ${index + 1} of ${records.length} (${reason})`);

  for (let index = 0; index < records.length; index++) {
    let record: unknown;
    try {
      record = JSON.parse(records[index]!);
    } catch (error) {
      skip(index, `unreadable: ${(error as Error).message}`);
      continue;
    }
    const type = typeof record === 'object' && record !== null ? (record as { type?: unknown }).type : undefined;
    if (type === 'session') {
      if (header) skip(index, 'second header');
      else if (entries.length > 0) skip(index, 'header after entries');
      else header = record as SessionHeader;
    } else if (type === 'leaf') {
      const targetId = (record as LeafRecord).targetId;
      if (targetId === null || (typeof targetId === 'string' && known.has(targetId))) leafId = targetId;
      else skip(index, `leaf move to unknown entry ${String(targetId)}`);
    } else if (typeof type === 'string' && ENTRY_TYPES.has(type)) {
      const problem = entryProblem(record as SessionEntry, known);
      if (problem) {
        skip(index, problem);
        continue;
      }
      const entry = record as SessionEntry;
      entries.push(entry);
      known.add(entry.id);
      leafId = entry.id;
    } else {
      skip(index, `unknown record type ${JSON.stringify(type)}`);
    }
  }

  if (!header) {
    onWarning(`Session ${sessionId}: no header record; assuming one`);
    header = { type: 'session', version: 1, id: sessionId, createdAt: entries[0]?.timestamp ?? fallbackCreatedAt };
  } else if (header.version !== 1) {
    onWarning(`Session ${sessionId}: header version ${String(header.version)} is not 1; reading it as version 1`);
  }
  return { header, entries, leafId };
}

/** Why `entry` cannot be indexed, or `undefined` when it can. */
function entryProblem(entry: SessionEntry, known: ReadonlySet<string>): string | undefined {
  if (typeof entry.id !== 'string' || entry.id === '') return 'entry without id';
  if (known.has(entry.id)) return `duplicate entry id ${entry.id}`;
  // Parents are written before their children, so a parent not seen yet is damage.
  if (entry.parentId !== null && (typeof entry.parentId !== 'string' || !known.has(entry.parentId))) {
    return `entry ${entry.id} has unknown parent ${String(entry.parentId)}`;
  }
  if (typeof entry.timestamp !== 'number') return `entry ${entry.id} without timestamp`;
  switch (entry.type) {
    case 'message':
      return typeof entry.message === 'object' && entry.message !== null && Array.isArray(entry.message.content)
        ? undefined
        : `message entry ${entry.id} without a message`;
    case 'compaction':
      return typeof entry.summary === 'string' && typeof entry.firstKeptEntryId === 'string'
        ? undefined
        : `compaction entry ${entry.id} without summary`;
    case 'model_change':
      return typeof entry.model === 'string' ? undefined : `model change ${entry.id} without model`;
    case 'custom':
      return typeof entry.customType === 'string' ? undefined : `custom entry ${entry.id} without customType`;
  }
}
