/**
 * What a conversation keeps in its own memory, for the console: its entries numbered as `/memory`
 * numbers them, each with its source in words, what it holds apart, and the latest changes with
 * the text before and after (the page shows them as a diff). Read-only: changes are made with
 * `/memory` in the chat, where who may change what is decided.
 */
import { describeSource, memoryChanges, memoryItems, memoryViews } from '../memory-command.ts';
import { isDirectChannel } from '../../resources/memory-layers.ts';
import type { AdminGateway } from './admin-routes.ts';

/** One entry as the console lists it. */
export interface ConsoleMemoryEntry {
  /** Its number in `/memory`. */
  number: number;
  file: string;
  text: string;
  /** Held apart: not in memory until a person keeps it. */
  held: boolean;
  /** Where it came from, in words. */
  source: string;
  /** ISO time it was written, where known. */
  at?: string;
}

/** One change as the console shows it. */
export interface ConsoleMemoryChange {
  at: string;
  file: string;
  action: string;
  undone: boolean;
  source: string;
  /** The text before (replaced or removed), if any. */
  before?: string;
  /** The text after (added, replaced, kept), if any. */
  after?: string;
}

/** How many changes the console shows. */
const shownChanges = 20;

/** The own memory of conversation `sessionKey` (whose profile is `profile`). */
export async function conversationMemory(gateway: AdminGateway, sessionKey: string, profile: string): Promise<{ entries: ConsoleMemoryEntry[]; changes: ConsoleMemoryChange[] }> {
  const { resources } = await gateway.runtime.resources(profile);
  const views = memoryViews({
    owner: false,
    admin: true,
    direct: isDirectChannel(sessionKey),
    sessionKey,
    person: '',
    profile: { memoryPath: resources.memoryPath, userPath: resources.userPath, limits: resources.memoryLimits },
    place: gateway.runtime.conversationMemory,
  }).filter((view) => !view.personal);
  const asker = { person: '', conversation: sessionKey };
  const entries = (await memoryItems(views)).map((item, index): ConsoleMemoryEntry => {
    const source = item.held?.source ?? item.record?.source;
    const at = item.held?.at ?? item.record?.at;
    return { number: index + 1, file: item.view.title, text: item.entry, held: item.held !== undefined, source: source ? describeSource(source, asker) : 'written by hand, or before sources were kept', ...(at ? { at } : {}) };
  });
  const changes = (await memoryChanges(views, shownChanges)).map(({ view, record }): ConsoleMemoryChange => ({
    at: record.at,
    file: view.title,
    action: record.action,
    undone: record.undone === true,
    source: describeSource(record.source, asker),
    ...(record.previous !== undefined ? { before: record.previous } : {}),
    ...(record.entry !== undefined ? { after: record.entry } : {}),
  }));
  return { entries, changes };
}
