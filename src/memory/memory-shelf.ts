/**
 * One memory file with its journal and held entries (a "shelf"), and the changes that keep them
 * together: every change is written to the file, then recorded with its source in the journal
 * (see `memory-journal.ts`), and can be undone from there. The `memory` tool and the `/memory`
 * command both change memory through here, so every change has a record whoever made it.
 */
import { HeldMemory } from './held-memory.ts';
import { MemoryError, MemoryFile, type MemoryChange } from './memory-file.ts';
import { MemoryJournal, type MemoryRecord, type MemorySource } from './memory-journal.ts';
import { fileMemoryStorage, type MemoryStorage } from './memory-storage.ts';

/** Where one memory file is kept and what it is called. */
export interface MemoryShelf {
  /** A path (files) or a key of `storage`. */
  location: string;
  /** Unset: files, `location` being a path. */
  storage?: MemoryStorage;
  limit: number;
  /** What messages call it, e.g. "this conversation's MEMORY.md" (unset: the file's base name). */
  name?: string;
}

/** A change the `memory` tool or a command asks for. */
export type EntryChange = { action: 'add'; content: string } | { action: 'replace'; oldText: string; content: string } | { action: 'remove'; oldText: string };

/** The shelf's file, read now. */
export function openShelf(shelf: MemoryShelf, now?: () => Date): Promise<MemoryFile> {
  return MemoryFile.open(shelf.location, { limit: shelf.limit, storage: shelf.storage, name: shelf.name, now });
}

/** The shelf's journal. */
export function journalOf(shelf: MemoryShelf): MemoryJournal {
  return new MemoryJournal(shelf.location, shelf.storage ?? fileMemoryStorage);
}

/** The shelf's held entries. */
export function heldOf(shelf: MemoryShelf): HeldMemory {
  return new HeldMemory(shelf.location, shelf.storage ?? fileMemoryStorage);
}

/**
 * Applies `change` to the shelf's file and records it with `source`. The file is written first: a
 * crash in between leaves an entry without its source (shown as unknown), never a record of a
 * change that did not happen.
 */
export async function changeEntry(shelf: MemoryShelf, change: EntryChange, source: MemorySource, now: () => Date = () => new Date()): Promise<{ change: MemoryChange; file: MemoryFile }> {
  const file = await openShelf(shelf, now);
  const result =
    change.action === 'add' ? await file.add(change.content) : change.action === 'replace' ? await file.replace(change.oldText, change.content) : await file.remove(change.oldText);
  await journalOf(shelf).append({ at: now().toISOString(), action: change.action, entry: result.entry, previous: result.previous, source });
  return { change: result, file };
}

/** Moves a held entry into the file (`/memory keep`); the record keeps the entry's first source. */
export async function keepHeld(shelf: MemoryShelf, entry: string, now: () => Date = () => new Date()): Promise<MemoryChange> {
  const held = heldOf(shelf);
  const taken = await held.take(entry);
  if (!taken) throw new MemoryError('that entry is no longer held');
  try {
    const file = await openShelf(shelf, now);
    const change = await file.add(taken.entry);
    await journalOf(shelf).append({ at: now().toISOString(), action: 'keep', entry: change.entry, source: taken.source });
    return change;
  } catch (error) {
    // Not kept (a duplicate, too long): it stays held, so nothing is lost.
    await held.hold(taken.entry, taken.source, new Date(taken.at));
    throw error;
  }
}

/** The last change of `shelves` that can be undone: not an undo, not undone already. */
export async function lastChange(shelves: readonly MemoryShelf[]): Promise<{ shelf: MemoryShelf; record: MemoryRecord } | undefined> {
  let last: { shelf: MemoryShelf; record: MemoryRecord } | undefined;
  for (const shelf of shelves) {
    const records = await journalOf(shelf).records();
    const record = records.findLast((candidate) => candidate.action !== 'undo' && !candidate.undone);
    if (record && (!last || record.at >= last.record.at)) last = { shelf, record };
  }
  return last;
}

/**
 * Reverts the last change of `shelves` (`/memory undo`): an added or kept entry is removed, a
 * replaced one put back, a removed one added again. The change is marked undone and the revert
 * recorded with `source`. Throws a MemoryError when the entry changed since (nothing is done then).
 */
export async function undoLastChange(shelves: readonly MemoryShelf[], source: MemorySource, now: () => Date = () => new Date()): Promise<{ shelf: MemoryShelf; record: MemoryRecord } | undefined> {
  const last = await lastChange(shelves);
  if (!last) return undefined;
  const { shelf, record } = last;
  const file = await openShelf(shelf, now);
  const changed = (what: string) => new MemoryError(`the entry changed since (${what}), so it cannot be undone; forget it instead`);
  let change: MemoryChange;
  if (record.action === 'remove') {
    change = await file.add(record.previous ?? '');
  } else if (record.action === 'replace') {
    if (!file.entries.includes(record.entry ?? '')) throw changed('it was replaced again or removed');
    change = await file.replace(record.entry!, record.previous ?? '');
  } else {
    if (!file.entries.includes(record.entry ?? '')) throw changed('it was edited or removed');
    change = await file.remove(record.entry!);
  }
  const journal = journalOf(shelf);
  await journal.update((records) => [
    ...records.map((candidate) => (candidate.at === record.at && candidate.action === record.action && candidate.entry === record.entry && candidate.previous === record.previous ? { ...candidate, undone: true } : candidate)),
    { at: now().toISOString(), action: 'undo', entry: change.entry, previous: change.previous, source },
  ]);
  return last;
}
