import { describe, expect, it, vi } from 'vitest';
import { buildContextFromPath, COMPACTION_SUMMARY_PREFIX, compactionSummaryMessage } from '../../src/session/build-context.ts';
import type { CompactionEntry, NewEntry, SessionEntry } from '../../src/session/types.ts';
import { assistant, user } from './helpers.ts';

function chain(entries: (NewEntry & { id: string })[]): SessionEntry[] {
  return entries.map((entry, index) => ({ ...entry, parentId: index === 0 ? null : entries[index - 1]!.id, timestamp: index }) as SessionEntry);
}

describe('buildContextFromPath', () => {
  it('turns message entries into messages, applies model changes and skips custom entries', () => {
    const path = chain([
      { id: 'a', type: 'message', message: user('hi') },
      { id: 'b', type: 'model_change', model: 'model-2' },
      { id: 'c', type: 'custom', customType: 'note', data: { x: 1 } },
      { id: 'd', type: 'message', message: assistant('hello') },
    ]);
    expect(buildContextFromPath(path)).toEqual({ messages: [user('hi'), assistant('hello')], entryIds: ['a', 'd'], model: 'model-2' });
  });

  it('replaces what the latest compaction summarized by a summary message', () => {
    const path = chain([
      { id: 'a', type: 'message', message: user('one') },
      { id: 'm', type: 'model_change', model: 'old-model' },
      { id: 'b', type: 'message', message: assistant('two') },
      { id: 'c1', type: 'compaction', summary: 'first summary', firstKeptEntryId: 'b', tokensBefore: 10 },
      { id: 'c', type: 'message', message: user('three') },
      { id: 'd', type: 'message', message: assistant('four') },
      { id: 'c2', type: 'compaction', summary: 'one two three', firstKeptEntryId: 'c', tokensBefore: 100 },
      { id: 'e', type: 'message', message: user('five') },
    ]);
    const context = buildContextFromPath(path);
    expect(context.entryIds).toEqual([null, 'c', 'd', 'e']);
    expect(context.messages.slice(1)).toEqual([user('three'), assistant('four'), user('five')]);
    expect(context.messages[0]).toEqual({
      role: 'user',
      content: [{ type: 'text', text: `${COMPACTION_SUMMARY_PREFIX}\n\n<summary>\none two three\n</summary>` }],
      timestamp: 6,
    });
    expect(context.model).toBe('old-model');
  });

  it('keeps only what follows a compaction whose first kept entry is not on the path, and says so', () => {
    const path = chain([
      { id: 'a', type: 'message', message: user('one') },
      { id: 'c', type: 'compaction', summary: 'sum', firstKeptEntryId: 'elsewhere', tokensBefore: 1 },
      { id: 'b', type: 'message', message: user('two') },
    ]);
    const onWarning = vi.fn();
    const context = buildContextFromPath(path, onWarning);
    expect(context.entryIds).toEqual([null, 'b']);
    expect(onWarning).toHaveBeenCalledWith(expect.stringContaining('elsewhere'));
  });

  it('writes the summary inside summary tags', () => {
    const entry: CompactionEntry = { type: 'compaction', id: 'x', parentId: null, timestamp: 5, summary: 'S', firstKeptEntryId: 'y', tokensBefore: 0 };
    expect(compactionSummaryMessage(entry).content[0]).toEqual({ type: 'text', text: 'The conversation so far was summarized:\n\n<summary>\nS\n</summary>' });
  });
});
