/**
 * `/memory`: what the agent keeps about the asker and the conversation, with where each entry came
 * from, and the way to take it back.
 *
 * - `/memory` lists this conversation's memory, entries held apart, and (in a direct conversation,
 *   or with `/memory mine` in a group, where everyone reads the answer) the asker's own notes.
 * - `/memory forget N` removes entry N (or drops a held one); `/memory keep N` moves a held entry
 *   into memory; `/memory log` lists the latest changes as a diff; `/memory undo` reverts the last
 *   change, the background reviewer's included.
 *
 * Who may change what: a person their own notes; this conversation's memory the person of a direct
 * conversation, in a group an admin; the profile's memory and USER.md (what an owner's seat reads)
 * the owner. Anyone may read what the conversation's prompt shows them anyway.
 */
import { MemoryError, changeEntry, heldOf, journalOf, keepHeld, openShelf, sourceOf, undoLastChange } from '../memory/index.ts';
import type { ConversationMemoryPlace, HeldEntry, MemoryRecord, MemoryShelf, MemorySource, MemoryStorage } from '../memory/index.ts';
import { plainName } from './speaker-label.ts';

/** One memory file as the asker sees it. */
export interface ShelfView {
  /** E.g. "This conversation's memory". */
  title: string;
  shelf: MemoryShelf;
  /** Whether the asker may change it; otherwise why not. */
  mayChange: true | string;
  /** The asker's own notes: listed in a group only when asked for (`/memory mine`). */
  personal?: boolean;
}

/** Who asks, for the sources' wording and the records of their changes. */
export interface MemoryAsker {
  /** `platform:id`. */
  person: string;
  name?: string;
  /** The conversation's session key. */
  conversation: string;
  /** A direct conversation (the answer is for the asker alone). */
  direct: boolean;
}

/** How many changes `/memory log` lists. */
const logLength = 10;

/** One numbered item of a listing: an entry of a file, or an entry held apart from it. */
export interface MemoryItem {
  view: ShelfView;
  entry: string;
  held?: HeldEntry;
  record?: MemoryRecord;
}

/** Runs `/memory ARGS` over `views` (in listing order: the conversation's, then the asker's own). */
export async function memoryCommand(args: string, views: readonly ShelfView[], asker: MemoryAsker, now: () => Date = () => new Date()): Promise<string> {
  const [verb = '', number, ...extra] = args.trim().split(/\s+/).filter((word) => word !== '');
  const usage = 'Usage: /memory [mine | log | undo | forget N | keep N]';
  if (extra.length > 0) return usage;
  if ((verb === '' || verb === 'mine') && number === undefined) return listing(views, asker, verb === 'mine' || asker.direct);
  if (verb === 'log' && number === undefined) return changeLog(views, asker);
  if (verb === 'undo' && number === undefined) return undo(views, asker, now);
  if ((verb === 'forget' || verb === 'keep') && number !== undefined && /^\d+$/.test(number)) {
    const items = await memoryItems(views);
    const item = items[Number(number) - 1];
    if (!item) return `There is no entry ${number}; /memory lists them.`;
    if (item.view.mayChange !== true) return item.view.mayChange;
    return verb === 'forget' ? forget(item, asker, now) : keep(item, now);
  }
  return usage;
}

/** Every item of `views`, numbered from 1 in this order: each file's entries, then what it holds apart. */
export async function memoryItems(views: readonly ShelfView[]): Promise<MemoryItem[]> {
  const items: MemoryItem[] = [];
  for (const view of views) {
    const [file, records, held] = await Promise.all([openShelf(view.shelf), journalOf(view.shelf).records(), heldOf(view.shelf).list()]);
    for (const entry of file.entries) items.push({ view, entry, record: sourceOf(records, entry) });
    for (const entry of held) items.push({ view, entry: entry.entry, held: entry });
  }
  return items;
}

async function listing(views: readonly ShelfView[], asker: MemoryAsker, showPersonal: boolean): Promise<string> {
  const items = await memoryItems(views);
  const lines: string[] = [];
  let hiddenNotes = 0;
  let title: string | undefined;
  items.forEach((item, index) => {
    if (item.view.personal && !showPersonal) {
      if (!item.held) hiddenNotes++;
      return;
    }
    const heading = item.held ? `${item.view.title}: held apart, not in memory until kept` : item.view.title;
    if (heading !== title) {
      lines.push('', `**${heading}**`);
      title = heading;
    }
    const when = item.held ? item.held.at : item.record?.at;
    const source = item.held ? item.held.source : item.record?.source;
    lines.push(`${index + 1}. ${oneLine(item.entry)}`, `   _${source ? describeSource(source, asker) : 'written by hand, or before sources were kept'}${when ? ` · ${formatTime(when)}` : ''}_`);
  });
  if (lines.length === 0 && hiddenNotes === 0) return 'I keep nothing about you or this conversation yet.';
  if (hiddenNotes > 0) {
    lines.push('', `I keep ${hiddenNotes} ${hiddenNotes === 1 ? 'note' : 'notes'} about you: /memory mine shows them here, where everyone reads them, or ask me in a direct message.`);
  }
  lines.push('', '/memory forget N · /memory keep N (a held entry) · /memory log · /memory undo');
  return lines.join('\n').trim();
}

/** The latest `limit` changes recorded for `views`, newest first. */
export async function memoryChanges(views: readonly ShelfView[], limit: number): Promise<{ view: ShelfView; record: MemoryRecord }[]> {
  const changes: { view: ShelfView; record: MemoryRecord }[] = [];
  for (const view of views) for (const record of await journalOf(view.shelf).records()) changes.push({ view, record });
  changes.sort((a, b) => (a.record.at < b.record.at ? 1 : a.record.at > b.record.at ? -1 : 0));
  return changes.slice(0, limit);
}

async function changeLog(views: readonly ShelfView[], asker: MemoryAsker): Promise<string> {
  const changes = await memoryChanges(
    views.filter((view) => !view.personal || asker.direct),
    logLength,
  );
  if (changes.length === 0) return 'No changes recorded yet.';
  const blocks = changes.map(({ view, record }) => {
    const head = `@@ ${formatTime(record.at)} · ${view.title} · ${record.action}${record.undone ? ' (undone)' : ''} · ${describeSource(record.source, asker)}`;
    return [head, ...(record.previous !== undefined ? diffLines('-', record.previous) : []), ...(record.entry !== undefined ? diffLines('+', record.entry) : [])].join('\n');
  });
  return [`The latest ${blocks.length} ${blocks.length === 1 ? 'change' : 'changes'}, newest first:`, '```diff', ...blocks, '```'].join('\n');
}

async function undo(views: readonly ShelfView[], asker: MemoryAsker, now: () => Date): Promise<string> {
  const changeable = views.filter((view) => view.mayChange === true);
  if (changeable.length === 0) return 'Nothing here is yours to change.';
  try {
    const undone = await undoLastChange(changeable.map((view) => view.shelf), commandSource(asker), now);
    if (!undone) return 'No change to undo.';
    const view = changeable.find((candidate) => candidate.shelf === undone.shelf)!;
    const { record } = undone;
    const what =
      record.action === 'remove'
        ? `put back "${oneLine(record.previous ?? '')}"`
        : record.action === 'replace'
          ? `put back "${oneLine(record.previous ?? '')}" in place of "${oneLine(record.entry ?? '')}"`
          : `removed "${oneLine(record.entry ?? '')}"`;
    return `Undid the last change to ${lowerFirst(view.title)} (${describeSource(record.source, asker)}): ${what}.`;
  } catch (error) {
    if (error instanceof MemoryError) return `Could not undo: ${error.message}.`;
    throw error;
  }
}

async function forget(item: MemoryItem, asker: MemoryAsker, now: () => Date): Promise<string> {
  if (item.held) {
    await heldOf(item.view.shelf).take(item.entry);
    return `Dropped the held entry "${oneLine(item.entry)}".`;
  }
  try {
    await changeEntry(item.view.shelf, { action: 'remove', oldText: item.entry }, commandSource(asker), now);
    return `Forgot "${oneLine(item.entry)}" (/memory undo puts it back).`;
  } catch (error) {
    if (error instanceof MemoryError) return `Could not forget it: ${error.message}.`;
    throw error;
  }
}

async function keep(item: MemoryItem, now: () => Date): Promise<string> {
  if (!item.held) return 'That entry is in memory already; only held entries are kept.';
  try {
    await keepHeld(item.view.shelf, item.entry, now);
    return `Kept "${oneLine(item.entry)}" in ${lowerFirst(item.view.title)}.`;
  } catch (error) {
    if (error instanceof MemoryError) return `Could not keep it: ${error.message}.`;
    throw error;
  }
}

function commandSource(asker: MemoryAsker): MemorySource {
  const source: MemorySource = { kind: 'command', conversation: asker.conversation, person: asker.person };
  if (asker.name) source.name = asker.name;
  return source;
}

/** Where a change came from, in words: `your words here, message 55`, `the background review`, ... */
export function describeSource(source: MemorySource, asker: Pick<MemoryAsker, 'person' | 'conversation'>): string {
  const who = source.person === asker.person ? 'your' : `${plainName(source.name) || source.person || 'someone'}'s`;
  const where = source.conversation === undefined ? '' : source.conversation === asker.conversation ? ' here' : ` in ${source.conversation}`;
  const turn = source.turn ? `, message ${source.turn}` : '';
  switch (source.kind) {
    case 'words':
      return source.person ? `from ${who} words${where}${turn}` : 'from the terminal';
    case 'tool':
      return `from ${source.content ?? 'a tool result'}${where}`;
    case 'reviewer':
      return `by the background review${where}${source.content ? `, after ${source.content}` : ''}`;
    case 'flush':
      return `saved before the conversation was compacted${where}`;
    case 'command':
      return `by ${source.person === asker.person ? 'you' : plainName(source.name) || source.person || 'someone'} with /memory${where}`;
  }
}

function diffLines(sign: '-' | '+', text: string): string[] {
  return text.split('\n').map((line) => `${sign} ${line}`);
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}

/** `2026-11-30 10:02 UTC`. */
function formatTime(iso: string): string {
  const time = new Date(iso);
  return Number.isNaN(time.getTime()) ? iso : `${time.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** What {@link memoryViews} needs to know of the asker's seat and where memory is kept. */
export interface MemorySeat {
  /** An owner's seat: its prompt shows the profile's memory and USER.md. */
  owner: boolean;
  admin: boolean;
  direct: boolean;
  sessionKey: string;
  /** `platform:id`. */
  person: string;
  /** The profile's two files (in `storage`; unset: files) and the limits of every memory file. */
  profile: { memoryPath: string; userPath: string; limits: { memory: number; user: number }; storage?: MemoryStorage };
  place: ConversationMemoryPlace;
}

/**
 * The files `/memory` shows `seat`, in listing order. An owner's seat reads (and changes) the
 * profile's memory and USER.md; any other seat this conversation's memory (a group's older shared
 * USER.md too, while it has entries, for an admin to clear) and the notes about the asker.
 */
export function memoryViews(seat: MemorySeat): ShelfView[] {
  const { limits } = seat.profile;
  if (seat.owner) {
    return [
      { title: "The profile's memory (every conversation of the profile reads it)", shelf: { location: seat.profile.memoryPath, storage: seat.profile.storage, limit: limits.memory }, mayChange: true },
      { title: 'Your notes (the profile\'s USER.md)', shelf: { location: seat.profile.userPath, storage: seat.profile.storage, limit: limits.user }, mayChange: true, personal: true },
    ];
  }
  const conversational = seat.direct || seat.admin ? true : "Only an admin can change this group's memory.";
  const { storage } = seat.place;
  return [
    { title: "This conversation's memory", shelf: { location: seat.place.location(seat.sessionKey, 'MEMORY.md'), storage, limit: limits.memory, name: "this conversation's MEMORY.md" }, mayChange: conversational },
    {
      title: "This conversation's older shared notes about people",
      shelf: { location: seat.place.location(seat.sessionKey, 'USER.md'), storage, limit: limits.user, name: "this conversation's USER.md" },
      mayChange: conversational,
    },
    { title: 'Your notes', shelf: { location: seat.place.personLocation(seat.person), storage, limit: limits.user, name: 'your notes' }, mayChange: true, personal: true },
  ];
}
