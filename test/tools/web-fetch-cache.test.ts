/** The per-conversation cache of `web_fetch`: time to live, bounds, conversations apart. */
import { describe, expect, it } from 'vitest';
import { FetchCache, type CachedPage } from '../../src/tools/net/fetch-cache.ts';

const page = (text: string): CachedPage => ({ finalUrl: 'https://example.com/', status: 200, mediaType: 'text/plain', text, totalChars: text.length, notes: [] });

describe('fetch cache', () => {
  it('serves an entry to its own conversation until it is too old', () => {
    let now = 1_000;
    const cache = new FetchCache({ ttlMs: 60_000, now: () => now });
    cache.set('telegram:dm:1', 'https://example.com/', page('hello'));
    now += 30_000;
    expect(cache.get('telegram:dm:1', 'https://example.com/')).toEqual({ page: page('hello'), ageMs: 30_000 });
    expect(cache.get('telegram:dm:2', 'https://example.com/')).toBeUndefined();
    now += 30_001;
    expect(cache.get('telegram:dm:1', 'https://example.com/')).toBeUndefined();
    expect(cache.size).toEqual({ entries: 0, chars: 0 });
  });

  it('stays within its entry and character bounds, dropping the least recently used first', () => {
    const cache = new FetchCache({ maxEntries: 2, maxChars: 1_000 });
    cache.set('c', 'a', page('a'));
    cache.set('c', 'b', page('b'));
    cache.get('c', 'a');
    cache.set('c', 'c', page('c'));
    expect(cache.get('c', 'b')).toBeUndefined();
    expect(cache.get('c', 'a')).toBeDefined();
    expect(cache.get('c', 'c')).toBeDefined();
    cache.set('c', 'big', page('x'.repeat(970)));
    expect(cache.size.entries).toBe(1);
    expect(cache.size.chars).toBeLessThanOrEqual(1_000);
    cache.set('c', 'huge', page('x'.repeat(2_000)));
    expect(cache.get('c', 'huge')).toBeUndefined();
  });

  it('replaces an address fetched again', () => {
    const cache = new FetchCache();
    cache.set('c', 'u', page('old'));
    cache.set('c', 'u', page('newer'));
    expect(cache.get('c', 'u')?.page.text).toBe('newer');
    expect(cache.size.entries).toBe(1);
  });
});
