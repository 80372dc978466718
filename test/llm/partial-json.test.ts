/** Reading the start of a JSON text, as a structured answer streams in. */
import { describe, expect, it } from 'vitest';
import { parsePartialJson } from '../../src/llm/partial-json.ts';

/** Whether `partial` could grow into `full`: keys and items it has are there, strings are starts. */
function growsInto(partial: unknown, full: unknown): boolean {
  if (typeof partial === 'string') return typeof full === 'string' && full.startsWith(partial);
  if (Array.isArray(partial)) return Array.isArray(full) && partial.length <= full.length && partial.every((item, index) => growsInto(item, full[index]));
  if (typeof partial === 'object' && partial !== null) {
    if (typeof full !== 'object' || full === null || Array.isArray(full)) return false;
    return Object.entries(partial).every(([key, value]) => key in full && growsInto(value, (full as Record<string, unknown>)[key]));
  }
  return Object.is(partial, full);
}

describe('parsePartialJson', () => {
  it.each([
    ['', undefined],
    ['{', {}],
    ['{"na', {}],
    ['{"name"', {}],
    ['{"name":', {}],
    ['{"name": "Ad', { name: 'Ad' }],
    ['{"name": "Ada", "age": 3', { name: 'Ada' }],
    ['{"name": "Ada", "age": 36,', { name: 'Ada', age: 36 }],
    ['{"ok": tr', {}],
    ['{"ok": true}', { ok: true }],
    ['{"items": [1, 2, 3', { items: [1, 2] }],
    ['{"items": [{"a": "x"}, {"a": "y', { items: [{ a: 'x' }, { a: 'y' }] }],
    ['{"text": "line\\', { text: 'line' }],
    ['{"text": "a\\u00', { text: 'a' }],
    ['{"text": "a\\\\', { text: 'a\\' }],
    ['{"text": "a\\u00e9b', { text: 'aéb' }],
    ['[1, "two", nul', [1, 'two']],
    ['42', undefined],
    ['42 ', 42],
  ])('reads %j as %j', (text, expected) => {
    expect(parsePartialJson(text)).toEqual(expected);
  });

  it.each([['{"a" 1'], ['{a: 1}'], ['{"a": 1} trailing'], ['{"a": 1]'], ['[1 2]']])('gives nothing for %j, which is no JSON', (text) => {
    expect(parsePartialJson(text)).toBeUndefined();
  });

  it('reads every start of a document as something the whole grows into, and the whole as JSON.parse does', () => {
    const document = JSON.stringify({
      title: 'Plan "B" \\ with \u00e9scapes\nand lines',
      steps: [{ n: 1, done: false, note: null }, { n: 2.5e3, done: true, tags: ['x', 'y\u2603'] }],
      nested: { deep: { deeper: [[], {}, [-1.25]] } },
    }, null, 1);
    const full = JSON.parse(document);
    for (let end = 1; end < document.length; end++) {
      const partial = parsePartialJson(document.slice(0, end));
      expect(growsInto(partial, full), `prefix of ${end} characters: ${JSON.stringify(partial)}`).toBe(true);
    }
    expect(parsePartialJson(document)).toEqual(full);
  });
});
