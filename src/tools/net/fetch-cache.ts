/**
 * Pages `web_fetch` fetched lately, per conversation: the same address asked again in the same
 * conversation within a few minutes is answered from memory (a model often reads a page, then
 * asks for it again with another `max_chars`). Conversations never see each other's entries, so
 * one person's fetch cannot tell another what was read. Bounded in entries and in characters;
 * the least recently used go first.
 */

/** A converted page as the tool returns it, before its `max_chars` cut. */
export interface CachedPage {
  /** Where the redirects ended. */
  finalUrl: string;
  status: number;
  mediaType: string;
  /** The page's text, at most the longest output the tool gives. */
  text: string;
  /** The length of the whole text, of which `text` may be the start. */
  totalChars: number;
  /** What the header line says besides (a body cut at the download limit). */
  notes: readonly string[];
}

/** Limits of a {@link FetchCache}. */
export interface FetchCacheOptions {
  /** How long an entry is served. Default 5 minutes. */
  ttlMs?: number;
  /** Most entries over all conversations. Default 200. */
  maxEntries?: number;
  /** Most characters over all entries. Default 8 million (about 16 MB). */
  maxChars?: number;
  /** The clock (tests). */
  now?: () => number;
}

interface Entry {
  page: CachedPage;
  storedAt: number;
  chars: number;
}

/** A cache of fetched pages keyed by conversation and address. */
export class FetchCache {
  private readonly entries = new Map<string, Entry>();
  private chars = 0;
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly maxChars: number;
  private readonly now: () => number;

  constructor(options: FetchCacheOptions = {}) {
    this.ttlMs = options.ttlMs ?? 5 * 60_000;
    this.maxEntries = options.maxEntries ?? 200;
    this.maxChars = options.maxChars ?? 8_000_000;
    this.now = options.now ?? Date.now;
  }

  /** The page `url` fetched in `conversation` within the time to live, and how old it is (ms). */
  get(conversation: string, url: string): { page: CachedPage; ageMs: number } | undefined {
    const key = keyOf(conversation, url);
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    const ageMs = this.now() - entry.storedAt;
    if (ageMs > this.ttlMs) {
      this.remove(key, entry);
      return undefined;
    }
    // Most recently used last: Map keeps insertion order, so eviction takes the first.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return { page: entry.page, ageMs };
  }

  /** Remembers `page` as what `url` gave in `conversation`. */
  set(conversation: string, url: string, page: CachedPage): void {
    const key = keyOf(conversation, url);
    const old = this.entries.get(key);
    if (old) this.remove(key, old);
    const chars = page.text.length + page.finalUrl.length;
    if (chars > this.maxChars) return;
    this.entries.set(key, { page, storedAt: this.now(), chars });
    this.chars += chars;
    for (const [oldest, entry] of this.entries) {
      if (this.entries.size <= this.maxEntries && this.chars <= this.maxChars) break;
      this.remove(oldest, entry);
    }
  }

  /** How many entries and characters it holds. */
  get size(): { entries: number; chars: number } {
    return { entries: this.entries.size, chars: this.chars };
  }

  private remove(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.chars -= entry.chars;
  }
}

function keyOf(conversation: string, url: string): string {
  return `${conversation}\n${url}`;
}
