/**
 * Session log records: one JSON record per line. Entries are written with `type`, `id`,
 * `parentId` and `timestamp` first, so loading can place an entry in the tree by reading the
 * start of its line and leave parsing the rest until the entry is used (see {@link EntryIndex}).
 * Unreadable records (a line torn by a crash, a record from a newer version) are reported and
 * skipped, never thrown, so one bad line cannot lock a conversation out.
 */
import { EntryIndex } from './entry-index.ts';
import { entryShapeProblem } from './entry-shape.ts';
import type { LeafRecord, SessionEntry, SessionHeader } from './types.ts';

/** What a log amounts to once read. */
export interface LoadedSession {
  header: SessionHeader;
  entries: EntryIndex;
  leafId: string | null;
}

const ENTRY_TYPES = new Set(['message', 'compaction', 'model_change', 'custom']);
/** The start of an entry line as {@link serializeEntry} writes it. */
const ENTRY_START = /^\{"type":"(message|compaction|model_change|custom)","id":"([^"\\]+)","parentId":(?:null|"([^"\\]+)"),"timestamp":/;

/** The record of `entry`: its JSON with `type`, `id`, `parentId` and `timestamp` first. */
export function serializeEntry(entry: SessionEntry): string {
  const { type, id, parentId, timestamp, ...content } = entry;
  return JSON.stringify({ type, id, parentId, timestamp, ...content });
}

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
  const entries = new EntryIndex(sessionId, onWarning);
  let leafId: string | null = null;
  const skip = (index: number, reason: string) =>
    onWarning(`Session ${sessionId}: skipped record ${index + 1} of ${records.length} (${reason})`);

  for (let index = 0; index < records.length; index++) {
    const line = records[index]!;
    // Only the last line can be torn by a crash, so it is always parsed in full; a line not
    // ending in `}` cannot be a whole record either.
    const start = index < records.length - 1 && line.endsWith('}') ? ENTRY_START.exec(line) : null;
    if (start) {
      const [, type, id, parentId = null] = start as unknown as [string, SessionEntry['type'], string, string | undefined];
      const problem = placementProblem(id, parentId, entries);
      if (problem) skip(index, problem);
      else {
        entries.addRecord(id, parentId, type, line);
        leafId = id;
      }
      continue;
    }

    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch (error) {
      skip(index, `unreadable: ${(error as Error).message}`);
      continue;
    }
    const type = typeof record === 'object' && record !== null ? (record as { type?: unknown }).type : undefined;
    if (type === 'session') {
      if (header) skip(index, 'second header');
      else if (entries.size > 0) skip(index, 'header after entries');
      else header = record as SessionHeader;
    } else if (type === 'leaf') {
      const targetId = (record as LeafRecord).targetId;
      if (targetId === null || (typeof targetId === 'string' && entries.has(targetId))) leafId = targetId;
      else skip(index, `leaf move to unknown entry ${String(targetId)}`);
    } else if (typeof type === 'string' && ENTRY_TYPES.has(type)) {
      const entry = record as SessionEntry;
      const problem = entryShapeProblem(entry) ?? placementProblem(entry.id, entry.parentId, entries);
      if (problem) skip(index, problem);
      else {
        entries.add(entry);
        leafId = entry.id;
      }
    } else {
      skip(index, `unknown record type ${JSON.stringify(type)}`);
    }
  }

  if (!header) {
    onWarning(`Session ${sessionId}: no header record; assuming one`);
    header = { type: 'session', version: 1, id: sessionId, createdAt: entries.first()?.timestamp ?? fallbackCreatedAt };
  } else if (header.version !== 1) {
    onWarning(`Session ${sessionId}: header version ${String(header.version)} is not 1; reading it as version 1`);
  }
  return { header, entries, leafId };
}

/** Why an entry with `id` and `parentId` cannot join `entries`, or `undefined` when it can. */
function placementProblem(id: string, parentId: string | null, entries: EntryIndex): string | undefined {
  if (entries.has(id)) return `duplicate entry id ${id}`;
  // Parents are written before their children, so a parent not seen yet is damage.
  if (parentId !== null && (typeof parentId !== 'string' || !entries.has(parentId))) return `entry ${id} has unknown parent ${String(parentId)}`;
  return undefined;
}
