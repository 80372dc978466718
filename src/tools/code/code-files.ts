/**
 * The code tool's own reads: the file asked about, the other documents open in its server, the
 * source lines of the locations it shows, and the listing of a Go module's files (see
 * `disk-changes.ts`). The turn's file worker does them (see
 * `files/turn-files.ts`), inside the seat's sandbox, each on one open file descriptor, so the
 * gateway process opens none of these paths itself and a path swapped for a link after the
 * workspace check can lead nowhere the seat's sandbox does not show.
 */
import type { TurnFiles } from '../files/turn-files.ts';
import type { DiskLister, DiskListing } from './disk-changes.ts';
import type { DocumentReader } from './open-documents.ts';

/** What the worker's `readText` answers: null content when there is no such file, or it is too large. */
export interface TextRead {
  content: string | null;
  tooLarge?: boolean;
  size?: number;
}

/** What the worker's `stat` answers. */
interface FileStat {
  type: 'file' | 'directory' | 'broken-link' | 'other';
  size: number;
  mtimeMs: number;
}

/** The whole text of `file` (absolute), read by the worker; null content past `maxBytes`. */
export function readText(files: TurnFiles, file: string, maxBytes: number): Promise<TextRead> {
  return files.call<TextRead>('readText', { path: file, maxBytes });
}

/** Open documents looked at through the worker: a file it cannot read counts as gone. */
export function workerReader(files: TurnFiles, maxBytes: number): DocumentReader {
  return {
    async stamp(file) {
      try {
        const info = await files.call<FileStat>('stat', { path: file });
        return info.type === 'file' ? `${info.size}:${info.mtimeMs}` : undefined;
      } catch {
        return undefined;
      }
    },
    async read(file) {
      try {
        return (await readText(files, file, maxBytes)).content ?? undefined;
      } catch {
        return undefined;
      }
    },
  };
}

/** Limits of a listing: past any of them it fails, and gopls is told the whole folder instead. */
export interface ListingLimits {
  /** Files counted at most. Default 50,000. */
  maxFiles: number;
  /** Folder entries visited at most. Default 200,000. */
  maxVisited: number;
  /** Longest it may take, in ms; past it the worker is stopped. Default 10 s. */
  timeoutMs: number;
}

const defaultLimits: ListingLimits = { maxFiles: 50_000, maxVisited: 200_000, timeoutMs: 10_000 };

/** A project's files listed by the worker (its `stamps` operation), in the seat's sandbox. */
export function workerLister(files: TurnFiles, limits: Partial<ListingLimits> = {}): DiskLister {
  const { timeoutMs, ...counts } = { ...defaultLimits, ...limits };
  return (root, selection) => files.call<DiskListing>('stamps', { path: root, ...selection, ...counts }, { timeoutMs });
}
