/**
 * The conversations the gateway has talked in, by address (`telegram:-1001234`,
 * `slack:C123:1700000000.000100`). A scheduled job names its conversation this way (the tool's
 * `deliver`, the CLI's `--to`), so the gateway needs the session key and scope behind an address:
 * also after a restart, and also in `operator schedule add` while the gateway is down. Each one is
 * written to the store once per process (and again when its scope changes, or when its last
 * message on record is ten minutes old); the most recent ones are also kept in memory. When a
 * conversation last had a message tells a Discord adapter, after a restart, where to look for
 * messages sent while the gateway was down ({@link KnownConversations.recent}).
 */
import type { ConversationAddress } from '../channels/types.ts';
import type { Store } from '../store/store.ts';
import { keySegment } from './dedupe.ts';

/** A conversation the gateway has seen, and where it lives. */
export interface KnownConversation {
  sessionKey: string;
  address: ConversationAddress;
  scope: 'dm' | 'group';
  /**
   * When a message last came (ms since the epoch), to within {@link activityRefreshMs}; absent in
   * records written before it was kept.
   */
  lastMessageAt?: number;
  /**
   * When the first message this process took there was sent (ms since the epoch): a restart
   * catches up on messages sent after it only, so a message older than one already answered is
   * never answered after it (out of order).
   */
  since?: number;
}

/** How stale a conversation's `lastMessageAt` may get before a message writes it again. */
const activityRefreshMs = 10 * 60_000;

/** How many conversations are kept in memory; older ones are read from the store again. */
const cacheLimit = 10_000;

/** `platform:conversation[:thread]`, the form people and the model write an address in. */
export function formatAddress(address: ConversationAddress): string {
  return [address.platform, address.conversationId, ...(address.threadId === undefined ? [] : [address.threadId])].join(':');
}

/** The address written as `platform:conversation[:thread]`, or undefined when it is not of that form. */
export function parseAddress(text: string): ConversationAddress | undefined {
  const parts = text.trim().split(':');
  if (parts.length < 2 || parts.length > 3 || parts.some((part) => part.trim() === '' || part !== part.trim())) return undefined;
  const [platform, conversationId, threadId] = parts as [string, string, string | undefined];
  return threadId === undefined ? { platform, conversationId } : { platform, conversationId, threadId };
}

/** The conversations seen, persisted through the store. */
export class KnownConversations {
  readonly #store: Store;
  /** By formatted address, least recently remembered first. */
  readonly #recent = new Map<string, KnownConversation>();
  readonly #now: () => number;

  constructor(store: Store, now: () => number = Date.now) {
    this.#store = store;
    this.#now = now;
  }

  /**
   * Notes that `sessionKey` lives at `address`. Resolves at once when nothing changed since this
   * process last wrote it; otherwise once the store has it.
   */
  async remember(sessionKey: string, address: ConversationAddress, scope: 'dm' | 'group', sentAt?: number): Promise<void> {
    if (this.isCurrent(sessionKey, address, scope)) return;
    const name = formatAddress(address);
    const now = this.#now();
    // Kept from this process's first write there: the messages before it were all taken by then.
    const since = this.#recent.get(name)?.since ?? sentAt ?? now;
    const entry: KnownConversation = { sessionKey, address: { ...address }, scope, lastMessageAt: now, since };
    this.#cache(name, entry);
    try {
      await this.#store.set(storeKey(name), entry);
    } catch (error) {
      // Not written: the next message there tries again (unless a newer entry took its place).
      if (this.#recent.get(name) === entry) this.#recent.delete(name);
      throw error;
    }
  }

  /**
   * True when this process has already written `sessionKey` at `address` with `scope`, and its
   * last message on record is recent, so {@link remember} has nothing to do (checked without a
   * promise, on every message).
   */
  isCurrent(sessionKey: string, address: ConversationAddress, scope: 'dm' | 'group'): boolean {
    const name = formatAddress(address);
    const known = this.#recent.get(name);
    if (!known || known.sessionKey !== sessionKey || known.scope !== scope) return false;
    if (known.lastMessageAt === undefined || this.#now() - known.lastMessageAt >= activityRefreshMs) return false;
    // Refreshed, so the conversations in use stay cached.
    this.#recent.delete(name);
    this.#recent.set(name, known);
    return true;
  }

  /** The conversation at `address`, if the gateway has ever talked there. */
  async find(address: ConversationAddress): Promise<KnownConversation | undefined> {
    const name = formatAddress(address);
    const cached = this.#recent.get(name);
    if (cached) return cached;
    const stored = await this.#store.get<KnownConversation>(storeKey(name));
    if (!isKnownConversation(stored) || formatAddress(stored.address) !== name) return undefined;
    this.#cache(name, stored);
    return stored;
  }

  /**
   * The conversations on `platform` whose last message came at `since` or later, the most recent
   * first, at most `limit`. Reads every record of the platform (once, at an adapter's start).
   */
  async recent(platform: string, since: number, limit: number): Promise<KnownConversation[]> {
    const found = (await this.all(platform)).filter((entry) => (entry.lastMessageAt ?? 0) >= since);
    return found.sort((a, b) => b.lastMessageAt! - a.lastMessageAt!).slice(0, limit);
  }

  /** Every conversation on record (of `platform` when given), in no particular order; reads every record. */
  async all(platform?: string): Promise<KnownConversation[]> {
    const keys = await this.#store.list(platform === undefined ? 'known-conversation:' : storeKey(`${platform}:`));
    const found: KnownConversation[] = [];
    for (let index = 0; index < keys.length; index += 64) {
      const batch = await Promise.all(keys.slice(index, index + 64).map((key) => this.#store.get<KnownConversation>(key)));
      for (const entry of batch) if (isKnownConversation(entry) && (platform === undefined || entry.address.platform === platform)) found.push(entry);
    }
    return found;
  }

  #cache(name: string, entry: KnownConversation): void {
    this.#recent.delete(name);
    this.#recent.set(name, entry);
    if (this.#recent.size > cacheLimit) this.#recent.delete(this.#recent.keys().next().value!);
  }
}

function storeKey(name: string): string {
  return `known-conversation:${keySegment(name)}`;
}

function isKnownConversation(value: unknown): value is KnownConversation {
  if (typeof value !== 'object' || value === null) return false;
  const entry = value as Partial<KnownConversation>;
  return (
    typeof entry.sessionKey === 'string' &&
    (entry.scope === 'dm' || entry.scope === 'group') &&
    typeof entry.address === 'object' &&
    entry.address !== null &&
    typeof entry.address.platform === 'string' &&
    typeof entry.address.conversationId === 'string' &&
    (entry.lastMessageAt === undefined || typeof entry.lastMessageAt === 'number') &&
    (entry.since === undefined || typeof entry.since === 'number')
  );
}
