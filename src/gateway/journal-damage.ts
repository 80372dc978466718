/**
 * Damaged journal segments: found while a journal reads its logs back (see `journal.ts`), reported,
 * set aside and repaired, so a damaged log is said out loud once, kept for inspection, never read
 * again, and every record that could be read stays.
 *
 * A segment is damaged when it cannot be read at all (`EIO`, `EACCES`, a folder where the file
 * should be), when lines other than the last one do not parse, or when its last line does not
 * parse (a torn tail: a crash or a full disk cut an append short). A line of nothing but
 * whitespace is not damage. Repair, in an order a crash at any point leaves recoverable:
 * 1. the records kept are written to `journal-repair:<name>:<segment>:<found at, ms>`;
 * 2. the damaged segment is moved to `journal-damaged:<name>:<segment>:<found at>`;
 * 3. the repair log is moved to the segment's key.
 * A repair log found at a start (see {@link pendingRepairs}) is dropped when its damaged copy is
 * not there (step 2 never happened: the segment is examined again); otherwise its records come
 * first: it is moved into place when the segment is gone, or, when the journal appended to the
 * segment's key after step 3 failed, read just before the segment until both expire.
 */
import { errorCode, isStoreUnreachable } from '../store/store-error.ts';
import type { Store } from '../store/store.ts';

/** What a journal found wrong with one of its segments. */
export interface JournalDamage {
  /** The journal's name (`inbox`, `dedupe`, `ledger`). */
  journal: string;
  /** The damaged segment's store key, `journal:<name>:<n>`. */
  segment: string;
  /** `unreadable`: no record could be read; `damaged-records`: lines in it did not parse; `torn-tail`: only its last line did not. */
  kind: 'unreadable' | 'damaged-records' | 'torn-tail';
  /** Lines that did not parse, the torn last one included (0 when unreadable: unknown). */
  damagedRecords: number;
  /** Whether the last line was one of them. */
  tornTail: boolean;
  /** Records read and kept (rewritten into the segment). */
  keptRecords: number;
  /** Damaged records whose key could still be read (see `JournalOptions.salvage`). */
  salvagedKeys: number;
  /** Whether some lost record's key is unknown: anything written in `writtenFrom`..`writtenUntil` may be gone. */
  keysUnknown: boolean;
  /** The time span the segment's records were written in (ms since the epoch, end excluded). */
  writtenFrom: number;
  writtenUntil: number;
  /** Why it could not be read (an errno-style code), when unreadable. */
  error?: string;
  /** When the damage was found (ms since the epoch). */
  foundAt: number;
  /** Where the damaged segment was moved (`journal-damaged:…`); absent when it could not be. */
  movedTo?: string;
  /** Why it could not be moved aside or repaired (an errno-style code and message), if so. */
  repairError?: string;
}

/** One line of a segment that parsed, or what could be read of one that did not. */
export interface ParsedLine<Record> {
  record?: Record;
  /** Of a damaged line: its key and time, and whether it deleted the key, as far as readable. */
  partial?: { k: string; t?: number; deletion?: boolean };
}

/** What reading one segment gave. */
export interface SegmentReading<Record> {
  /** The lines in order (empty when unreadable). */
  lines: ParsedLine<Record>[];
  /** Set when the segment could not be read. */
  unreadable?: { code: string };
  damagedRecords: number;
  tornTail: boolean;
}

/**
 * Reads the segment at `key` and parses its lines with `parse`. Throws when the store as a whole is
 * out of reach (Redis down, no descriptors left): that is a store failure, not damage, and the
 * journal tries again later.
 */
export async function readSegment<Record>(store: Store, key: string, parse: (line: string) => Record | undefined): Promise<SegmentReading<Record>> {
  let raw: string[];
  try {
    raw = await store.readLog(key);
  } catch (error) {
    if (isStoreUnreachable(error)) throw error;
    return { lines: [], unreadable: { code: errorCode(error) ?? 'EUNKNOWN' }, damagedRecords: 0, tornTail: false };
  }
  // A line of only whitespace holds no record (an empty tail a crash left): nothing was lost there.
  if (raw.some((line) => line.trim() === '')) raw = raw.filter((line) => line.trim() !== '');
  let damagedRecords = 0;
  let tornTail = false;
  const lines = raw.map((line, index): ParsedLine<Record> => {
    const record = parse(line);
    if (record !== undefined) return { record };
    damagedRecords++;
    if (index === raw.length - 1) tornTail = true;
    return { partial: readablePart(line) };
  });
  return { lines, damagedRecords, tornTail };
}

/**
 * The key, time and kind of a record line that did not parse, as far as its start is intact: a
 * record is written `{"k":…,"t":…,"v":…}` or `{"k":…,"t":…,"x":1}`, so a cut-off one usually still
 * names its key. A time is taken only when its digits end (a cut-off number would be wrong).
 */
function readablePart(line: string): ParsedLine<never>['partial'] {
  const match = /^\{"k":("(?:[^"\\]|\\.)*")(?:,"t":(\d+)(?=,)(?:,"(x|v)(?="|$))?)?/.exec(line);
  if (!match) return undefined;
  let key: unknown;
  try {
    key = JSON.parse(match[1]!);
  } catch {
    return undefined;
  }
  if (typeof key !== 'string') return undefined;
  return { k: key, ...(match[2] !== undefined ? { t: Number(match[2]) } : {}), ...(match[3] === 'x' ? { deletion: true } : {}) };
}

/**
 * Sets the damaged segment `key` aside and puts `kept` (record lines) in its place, in the crash-safe
 * order of the module comment. Resolves to where the damaged copy went, or to the failure (its
 * code and message) that stopped the repair; never throws: a journal that cannot repair a segment
 * still works with what it read.
 */
export async function repairSegment(store: Store, names: { journal: string; segment: number }, kept: string[], foundAt: number): Promise<{ movedTo?: string; error?: string }> {
  const key = segmentKey(names.journal, names.segment);
  const repair = repairKey(names.journal, names.segment, foundAt);
  const aside = asideKey(names.journal, names.segment, foundAt);
  let movedTo: string | undefined;
  try {
    await store.deleteLog(repair);
    for (const line of kept) await store.append(repair, line);
    await store.moveLog(key, aside);
    movedTo = aside;
    await store.moveLog(repair, key);
    return { movedTo };
  } catch (error) {
    // Before the move the repair log is only a leftover; after it, the next start finishes it.
    if (movedTo === undefined) await store.deleteLog(repair).catch(() => undefined);
    return { ...(movedTo !== undefined ? { movedTo } : {}), error: describeError(error) };
  }
}

/**
 * Deals with the repair logs of `journal` that a crash (or a failed step 3) left, given the
 * segments that have a log now (see the module comment). Resolves to the repair logs to read
 * just before their segment, by segment number. A step that fails now is tried at the next start.
 */
export async function pendingRepairs(store: Store, journal: string, segments: ReadonlySet<number>): Promise<Map<number, string[]>> {
  const prefix = `journal-repair:${journal}:`;
  const found = new Map<string, { segment: number; foundAt: number }>();
  for (const key of await store.list(prefix)) {
    // Listed by key on the filesystem and by record (`<key>:<n>`) elsewhere.
    const [segment, foundAt] = key.slice(prefix.length).split(':').map(Number);
    if (Number.isSafeInteger(segment) && Number.isSafeInteger(foundAt)) found.set(repairKey(journal, segment!, foundAt!), { segment: segment!, foundAt: foundAt! });
  }
  const first = new Map<number, string[]>();
  for (const [repair, { segment, foundAt }] of [...found].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const aside = asideKey(journal, segment, foundAt);
    const asideKept = (await store.list(aside)).some((key) => key === aside || key.startsWith(`${aside}:`));
    try {
      if (!asideKept) await store.deleteLog(repair);
      else if (!segments.has(segment)) await store.moveLog(repair, segmentKey(journal, segment));
      else first.set(segment, [...(first.get(segment) ?? []), repair]);
    } catch {
      if (asideKept) first.set(segment, [...(first.get(segment) ?? []), repair]);
    }
  }
  return first;
}

/** The segment numbers among listed keys under `prefix` (a log is listed by key or, elsewhere, by record). */
export function segmentNumbers(keys: string[], prefix: string): number[] {
  const numbers = new Set(keys.map((key) => Number(key.slice(prefix.length).split(':')[0])));
  return [...numbers].filter((segment) => Number.isSafeInteger(segment)).sort((a, b) => a - b);
}

/**
 * A report as one line for the log: what was found, what was kept, where the damaged copy is.
 * Names no key of a record and no content.
 */
export function describeJournalDamage(report: JournalDamage): string {
  const what =
    report.kind === 'unreadable'
      ? `could not be read (${report.error ?? 'EUNKNOWN'})`
      : report.kind === 'torn-tail'
        ? 'ends in a torn record (a write was cut short)'
        : `holds ${report.damagedRecords} damaged record${report.damagedRecords === 1 ? '' : 's'}${report.tornTail ? ' (the last one torn)' : ''}`;
  const lost = report.keysUnknown
    ? `records written ${new Date(report.writtenFrom).toISOString()} to ${new Date(report.writtenUntil).toISOString()} may be lost`
    : `${report.salvagedKeys} damaged record${report.salvagedKeys === 1 ? '' : 's'} still named ${report.salvagedKeys === 1 ? 'its key' : 'their keys'}`;
  const where = report.movedTo !== undefined ? `damaged copy kept as ${report.movedTo}` : 'damaged copy left in place';
  const failed = report.repairError !== undefined ? `; repair failed: ${report.repairError}` : '';
  return `journal ${report.journal}: segment ${report.segment} ${what}; ${report.keptRecords} record${report.keptRecords === 1 ? '' : 's'} kept, ${lost}; ${where}${failed}`;
}

/** The key of segment `segment` of `journal`. */
export function segmentKey(journal: string, segment: number): string {
  return `journal:${journal}:${segment}`;
}

function repairKey(journal: string, segment: number, foundAt: number): string {
  return `journal-repair:${journal}:${segment}:${foundAt}`;
}

function asideKey(journal: string, segment: number, foundAt: number): string {
  return `journal-damaged:${journal}:${segment}:${foundAt}`;
}

function describeError(error: unknown): string {
  const code = errorCode(error);
  const message = error instanceof Error ? error.message : String(error);
  return code !== undefined && !message.includes(code) ? `${code}: ${message}` : message;
}
