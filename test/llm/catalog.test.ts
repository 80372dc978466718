import { describe, expect, it } from 'vitest';
import { getModelInfo, isModelAlias, listModels } from '../../src/llm/catalog.ts';

describe('model catalog', () => {
  it('lists the sixteen known models by provider', () => {
    expect(listModels().map((model) => model.id)).toEqual([
      'claude-opus-4-6',
      'claude-sonnet-4-6',
      'claude-opus-4-5',
      'claude-sonnet-4-5',
      'claude-haiku-4-5',
      'gpt-5.2',
      'gpt-5.2-mini',
      'gpt-5.2-codex',
      'codex-mini-latest',
      'gpt-4.1',
      'o3',
      'o4-mini',
      'gemini-3-pro-preview',
      'gemini-3-flash-preview',
      'gemini-2.5-pro',
      'gemini-2.5-flash',
    ]);
    expect(listModels('anthropic')).toHaveLength(5);
    expect(listModels('openai')).toHaveLength(7);
    expect(listModels('gemini')).toHaveLength(4);
  });

  it.each([
    ['opus', 'claude-opus-4-6'],
    ['claude-opus', 'claude-opus-4-6'],
    ['sonnet', 'claude-sonnet-4-6'],
    ['claude-sonnet', 'claude-sonnet-4-6'],
    ['haiku', 'claude-haiku-4-5'],
    ['claude-haiku', 'claude-haiku-4-5'],
    ['gpt5', 'gpt-5.2'],
    ['gpt-5', 'gpt-5.2'],
    ['gpt5-mini', 'gpt-5.2-mini'],
    ['gpt-codex', 'gpt-5.2-codex'],
    ['codex-mini', 'codex-mini-latest'],
    ['gpt4.1', 'gpt-4.1'],
    ['openai-o3', 'o3'],
    ['openai-o4-mini', 'o4-mini'],
    ['gemini-pro', 'gemini-3-pro-preview'],
    ['gemini-3-pro', 'gemini-3-pro-preview'],
    ['gemini-flash', 'gemini-3-flash-preview'],
    ['gemini-3-flash', 'gemini-3-flash-preview'],
  ])('resolves alias %s to %s', (alias, id) => {
    expect(getModelInfo(alias)?.id).toBe(id);
    expect(isModelAlias(alias)).toBe(true);
  });

  it('finds ids case-insensitively and dated snapshots by their base id', () => {
    expect(getModelInfo('Claude-Sonnet-4-6')?.id).toBe('claude-sonnet-4-6');
    expect(getModelInfo('claude-sonnet-4-5-20250929')?.id).toBe('claude-sonnet-4-5');
    expect(getModelInfo('gpt-4.1-2025-04-14')?.id).toBe('gpt-4.1');
    expect(isModelAlias('claude-sonnet-4-6')).toBe(false);
  });

  it('returns undefined for unknown models', () => {
    expect(getModelInfo('llama3.1:8b')).toBeUndefined();
    expect(getModelInfo('')).toBeUndefined();
    expect(isModelAlias('llama')).toBe(false);
  });

  it('knows limits and abilities from the spec table', () => {
    expect(getModelInfo('claude-opus-4-6')).toMatchObject({ contextWindow: 200_000, maxOutput: 128_000, vision: true, reasoning: true });
    expect(getModelInfo('gpt-5.2')).toMatchObject({ contextWindow: 400_000, maxOutput: 128_000 });
    expect(getModelInfo('codex-mini-latest')).toMatchObject({ vision: false, reasoning: true });
    expect(getModelInfo('gpt-4.1')).toMatchObject({ reasoning: false, vision: true });
  });

  it.each([
    ['claude-opus-4-6', { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 }],
    ['claude-opus-4-5', { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 }],
    ['claude-sonnet-4-6', { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 }],
    ['claude-haiku-4-5', { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 }],
    ['gpt-5.2', { input: 1.75, output: 14, cacheRead: 0.175, cacheWrite: 1.75 }],
    ['gpt-5.2-mini', { input: 0.25, output: 2, cacheRead: 0.025, cacheWrite: 0.25 }],
    ['codex-mini-latest', { input: 1.5, output: 6, cacheRead: 0.375, cacheWrite: 1.5 }],
    ['gpt-4.1', { input: 2, output: 8, cacheRead: 0.5, cacheWrite: 2 }],
    ['o3', { input: 2, output: 8, cacheRead: 0.5, cacheWrite: 2 }],
    ['o4-mini', { input: 1.1, output: 4.4, cacheRead: 0.275, cacheWrite: 1.1 }],
    ['gemini-3-pro-preview', { input: 2, output: 12, cacheRead: 0.5, cacheWrite: 2 }],
    ['gemini-2.5-flash', { input: 0.3, output: 2.5, cacheRead: 0.075, cacheWrite: 0.3 }],
  ])('prices %s', (id, price) => {
    expect(getModelInfo(id)?.price).toEqual(price);
  });

  it('keeps the cache price ratios of each provider', () => {
    for (const model of listModels()) {
      const { input, cacheRead, cacheWrite } = model.price;
      if (model.provider === 'anthropic') {
        expect(cacheRead).toBeCloseTo(input * 0.1, 10);
        expect(cacheWrite).toBeCloseTo(input * 1.25, 10);
      } else {
        expect(cacheWrite).toBe(input);
      }
      if (model.provider === 'gemini') expect(cacheRead).toBeCloseTo(input * 0.25, 10);
    }
  });
});
