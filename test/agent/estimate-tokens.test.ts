/** The rough token estimate counts what a message carries besides text: images, recordings, documents. */
import { describe, expect, it } from 'vitest';
import { estimateTokens } from '../../src/agent/compaction.ts';
import type { UserMessage } from '../../src/llm/types.ts';

describe('estimateTokens', () => {
  it('counts a recording and a document by their size', () => {
    const text: UserMessage = { role: 'user', content: [{ type: 'text', text: 'x'.repeat(400) }] };
    const data = 'A'.repeat(12_000);
    const withParts: UserMessage = {
      role: 'user',
      content: [...text.content, { type: 'document', data, mediaType: 'application/pdf' }, { type: 'audio', data, mediaType: 'audio/wav' }],
    };
    expect(estimateTokens(text)).toBe(100);
    expect(estimateTokens(withParts)).toBe(100 + 3_000 + 3_000);
  });
});
