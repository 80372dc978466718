import { describe, expect, it } from 'vitest';
import { applyFidelity, asFidelity, compactLimit, resolveFidelity, truncateLimit } from '../../../src/pipelines/routing/fidelity.ts';
import { fidelityModes } from '../../../src/pipelines/types.ts';
import { edge, node, pipeline } from './pipeline-fixtures.ts';

describe('resolveFidelity: precedence', () => {
  const graph = (defaultFidelity?: string) => pipeline([edge('a', 'b')], { defaultFidelity });

  it.each([
    ['edge', 'full', 'truncate', 'summary:low', 'full'],
    ['node', undefined, 'truncate', 'summary:low', 'truncate'],
    ['graph default_fidelity', undefined, undefined, 'summary:low', 'summary:low'],
    ['compact', undefined, undefined, undefined, 'compact'],
  ])('%s', (_level, onEdge, onNode, onGraph, expected) => {
    expect(resolveFidelity(edge('a', 'b', { fidelity: onEdge }), node('b', { fidelity: onNode }), graph(onGraph))).toBe(expected);
  });

  it('skips an invalid value to the next level', () => {
    expect(resolveFidelity(edge('a', 'b', { fidelity: 'everything' }), node('b', { fidelity: 'truncate' }), graph('full'))).toBe('truncate');
    expect(resolveFidelity(edge('a', 'b', { fidelity: 'x' }), node('b', { fidelity: 'summary' }), graph('full'))).toBe('full');
    expect(resolveFidelity(undefined, node('b', { fidelity: '' }), graph('nope'))).toBe('compact');
  });

  it('works without an edge (the start node) or a node', () => {
    expect(resolveFidelity(undefined, node('b', { fidelity: 'full' }), graph())).toBe('full');
    expect(resolveFidelity(undefined, undefined, graph('truncate'))).toBe('truncate');
  });

  it('reads the graph attribute when the field is unset', () => {
    expect(resolveFidelity(undefined, undefined, pipeline([], { attributes: { default_fidelity: 'summary:high' } }))).toBe('summary:high');
  });

  it('accepts every mode, trimmed and in any case', () => {
    for (const mode of fidelityModes) expect(asFidelity(` ${mode.toUpperCase()} `)).toBe(mode);
    expect(asFidelity(undefined)).toBeUndefined();
    expect(asFidelity('summary:')).toBeUndefined();
  });
});

describe('applyFidelity: each mode', () => {
  const long = 'x'.repeat(3_000);
  const data = { short: 'hello', medium: 'm'.repeat(1_000), long, count: 3, flag: true, nothing: null, list: ['a', long], nested: { text: long, n: 1 } };

  it('full: everything as is, in a copy', () => {
    const out = applyFidelity('full', data);
    expect(out).toEqual(data);
    expect(out).not.toBe(data);
  });

  it('truncate: strings over 500 characters are cut with a [truncated] marker, at any depth', () => {
    const out = applyFidelity('truncate', data);
    expect(out.short).toBe('hello');
    expect(out.medium).toBe(`${'m'.repeat(truncateLimit)} [truncated]`);
    expect(out.long).toBe(`${'x'.repeat(truncateLimit)} [truncated]`);
    expect(out.list).toEqual(['a', `${'x'.repeat(500)} [truncated]`]);
    expect(out.nested).toEqual({ text: `${'x'.repeat(500)} [truncated]`, n: 1 });
    expect([out.count, out.flag, out.nothing]).toEqual([3, true, null]);
    expect(applyFidelity('truncate', { s: 'y'.repeat(500) }).s).toBe('y'.repeat(500));
  });

  it('truncate does not split a surrogate pair', () => {
    const text = `${'a'.repeat(499)}😀tail`;
    expect(applyFidelity('truncate', { text }).text).toBe(`${'a'.repeat(499)} [truncated]`);
  });

  it('compact: strings over 2,000 characters become a byte-count placeholder, at any depth', () => {
    const out = applyFidelity('compact', { ...data, accents: 'é'.repeat(2_001), edge: 'e'.repeat(compactLimit) });
    expect(out.short).toBe('hello');
    expect(out.medium).toBe(data.medium);
    expect(out.long).toBe('[3000 bytes]');
    expect(out.accents).toBe('[4002 bytes]');
    expect(out.edge).toBe('e'.repeat(2_000));
    expect(out.list).toEqual(['a', '[3000 bytes]']);
    expect(out.nested).toEqual({ text: '[3000 bytes]', n: 1 });
  });

  it.each([
    ['summary:low', 'low'],
    ['summary:medium', 'medium'],
    ['summary:high', 'high'],
  ] as const)('%s marks the context for summarization, leaving the data as is', (mode, detail) => {
    const out = applyFidelity(mode, data);
    expect(out).toEqual({ ...data, _needs_summarization: true, _summary_detail: detail });
  });

  it('the other modes drop summary markers left by an earlier node', () => {
    const stale = { a: 1, _needs_summarization: true, _summary_detail: 'low' };
    for (const mode of ['full', 'truncate', 'compact'] as const) expect(applyFidelity(mode, stale)).toEqual({ a: 1 });
  });

  it('never changes its input', () => {
    const input = structuredClone(data);
    const marked = { ...input, _needs_summarization: true };
    for (const mode of fidelityModes) {
      applyFidelity(mode, input);
      applyFidelity(mode, marked);
    }
    expect(input).toEqual(data);
    expect(marked._needs_summarization).toBe(true);
  });

  it('keeps non-plain objects and cycles as they are', () => {
    const when = new Date(0);
    const cyclic: Record<string, unknown> = { text: long };
    cyclic.self = cyclic;
    const out = applyFidelity('compact', { when, cyclic });
    expect(out.when).toBe(when);
    expect((out.cyclic as Record<string, unknown>).text).toBe('[3000 bytes]');
    expect((out.cyclic as Record<string, unknown>).self).toBe(cyclic);
  });

  it('keeps a __proto__ key a key', () => {
    const input = JSON.parse('{"__proto__": {"text": "hi"}}') as Record<string, unknown>;
    const out = applyFidelity('truncate', input);
    expect(Object.hasOwn(out, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
  });
});
