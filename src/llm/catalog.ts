/**
 * The model catalog: what operator knows about each model (limits, abilities, prices, aliases).
 * It is advisory: an id missing here is still sent to a provider, it only lacks defaults and
 * pricing.
 */

/** A provider family a catalog entry belongs to. */
export type ModelProvider = 'anthropic' | 'openai' | 'gemini';

/** Prices in USD per million tokens. */
export interface ModelPrice {
  input: number;
  output: number;
  /** Price of input tokens read from the provider's prompt cache. */
  cacheRead: number;
  /** Price of input tokens written to the prompt cache. */
  cacheWrite: number;
}

/** What operator knows about one model. */
export interface ModelInfo {
  /** Provider-native model id. */
  id: string;
  provider: ModelProvider;
  displayName: string;
  /** Context window in tokens. */
  contextWindow: number;
  /** Most output tokens one call may produce. */
  maxOutput: number;
  /** Whether the model accepts images. */
  vision: boolean;
  /** Whether the model supports extended thinking / reasoning effort. */
  reasoning: boolean;
  price: ModelPrice;
  /** Other names that resolve to this model. */
  aliases: string[];
}

type Entry = Omit<ModelInfo, 'vision' | 'reasoning'> & { vision?: boolean; reasoning?: boolean };

function entry(info: Entry): ModelInfo {
  return { ...info, vision: info.vision ?? true, reasoning: info.reasoning ?? true };
}

// Anthropic bills cache reads at 0.1x and 5-minute cache writes at 1.25x the input price.
// OpenAI bills no surcharge for cache writes (they are plain input). Gemini's implicit
// caching bills reads at 0.25x and writes as plain input. Literals, not products, so the
// numbers stay exact.
const models: readonly ModelInfo[] = [
  entry({
    id: 'claude-opus-4-6',
    provider: 'anthropic',
    displayName: 'Claude Opus 4.6',
    contextWindow: 200_000,
    maxOutput: 128_000,
    price: { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
    aliases: ['opus', 'claude-opus'],
  }),
  entry({
    id: 'claude-sonnet-4-6',
    provider: 'anthropic',
    displayName: 'Claude Sonnet 4.6',
    contextWindow: 200_000,
    maxOutput: 64_000,
    price: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
    aliases: ['sonnet', 'claude-sonnet'],
  }),
  entry({
    id: 'claude-opus-4-5',
    provider: 'anthropic',
    displayName: 'Claude Opus 4.5',
    contextWindow: 200_000,
    maxOutput: 64_000,
    price: { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
    aliases: [],
  }),
  entry({
    id: 'claude-sonnet-4-5',
    provider: 'anthropic',
    displayName: 'Claude Sonnet 4.5',
    contextWindow: 200_000,
    maxOutput: 64_000,
    price: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
    aliases: [],
  }),
  entry({
    id: 'claude-haiku-4-5',
    provider: 'anthropic',
    displayName: 'Claude Haiku 4.5',
    contextWindow: 200_000,
    maxOutput: 64_000,
    price: { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 },
    aliases: ['haiku', 'claude-haiku'],
  }),
  entry({
    id: 'gpt-5.2',
    provider: 'openai',
    displayName: 'GPT-5.2',
    contextWindow: 400_000,
    maxOutput: 128_000,
    price: { input: 1.75, output: 14, cacheRead: 0.175, cacheWrite: 1.75 },
    aliases: ['gpt5', 'gpt-5'],
  }),
  entry({
    id: 'gpt-5.2-mini',
    provider: 'openai',
    displayName: 'GPT-5.2 mini',
    contextWindow: 400_000,
    maxOutput: 128_000,
    price: { input: 0.25, output: 2, cacheRead: 0.025, cacheWrite: 0.25 },
    aliases: ['gpt5-mini'],
  }),
  entry({
    id: 'gpt-5.2-codex',
    provider: 'openai',
    displayName: 'GPT-5.2 Codex',
    contextWindow: 400_000,
    maxOutput: 128_000,
    price: { input: 1.75, output: 14, cacheRead: 0.175, cacheWrite: 1.75 },
    aliases: ['gpt-codex'],
  }),
  entry({
    id: 'codex-mini-latest',
    provider: 'openai',
    displayName: 'Codex mini',
    contextWindow: 128_000,
    maxOutput: 65_536,
    vision: false,
    price: { input: 1.5, output: 6, cacheRead: 0.375, cacheWrite: 1.5 },
    aliases: ['codex-mini'],
  }),
  entry({
    id: 'gpt-4.1',
    provider: 'openai',
    displayName: 'GPT-4.1',
    contextWindow: 1_047_576,
    maxOutput: 32_768,
    reasoning: false,
    price: { input: 2, output: 8, cacheRead: 0.5, cacheWrite: 2 },
    aliases: ['gpt4.1'],
  }),
  entry({
    id: 'o3',
    provider: 'openai',
    displayName: 'o3',
    contextWindow: 200_000,
    maxOutput: 100_000,
    price: { input: 2, output: 8, cacheRead: 0.5, cacheWrite: 2 },
    aliases: ['openai-o3'],
  }),
  entry({
    id: 'o4-mini',
    provider: 'openai',
    displayName: 'o4-mini',
    contextWindow: 200_000,
    maxOutput: 100_000,
    price: { input: 1.1, output: 4.4, cacheRead: 0.275, cacheWrite: 1.1 },
    aliases: ['openai-o4-mini'],
  }),
  entry({
    id: 'gemini-3-pro-preview',
    provider: 'gemini',
    displayName: 'Gemini 3 Pro (preview)',
    contextWindow: 1_048_576,
    maxOutput: 65_536,
    price: { input: 2, output: 12, cacheRead: 0.5, cacheWrite: 2 },
    aliases: ['gemini-pro', 'gemini-3-pro'],
  }),
  entry({
    id: 'gemini-3-flash-preview',
    provider: 'gemini',
    displayName: 'Gemini 3 Flash (preview)',
    contextWindow: 1_048_576,
    maxOutput: 65_536,
    price: { input: 0.5, output: 3, cacheRead: 0.125, cacheWrite: 0.5 },
    aliases: ['gemini-flash', 'gemini-3-flash'],
  }),
  entry({
    id: 'gemini-2.5-pro',
    provider: 'gemini',
    displayName: 'Gemini 2.5 Pro',
    contextWindow: 1_048_576,
    maxOutput: 65_536,
    price: { input: 1.25, output: 10, cacheRead: 0.3125, cacheWrite: 1.25 },
    aliases: [],
  }),
  entry({
    id: 'gemini-2.5-flash',
    provider: 'gemini',
    displayName: 'Gemini 2.5 Flash',
    contextWindow: 1_048_576,
    maxOutput: 65_536,
    price: { input: 0.3, output: 2.5, cacheRead: 0.075, cacheWrite: 0.3 },
    aliases: [],
  }),
];

const byName = new Map<string, ModelInfo>();
for (const model of models) {
  byName.set(model.id, model);
  for (const alias of model.aliases) byName.set(alias, model);
}

// Dated snapshots: `claude-sonnet-4-5-20250929`, `gpt-4.1-2025-04-14`.
const snapshotSuffix = /-(\d{8}|\d{4}-\d{2}-\d{2})$/;

/**
 * Looks up a model by id, alias or dated snapshot id (case-insensitive).
 *
 * @returns the entry, or `undefined` for a model the catalog does not know.
 * @example getModelInfo('sonnet')?.id // 'claude-sonnet-4-6'
 */
export function getModelInfo(idOrAlias: string): ModelInfo | undefined {
  const name = idOrAlias.trim().toLowerCase();
  return byName.get(name) ?? byName.get(name.replace(snapshotSuffix, ''));
}

/** Whether `name` is one of the catalog's aliases (not a model id). */
export function isModelAlias(name: string): boolean {
  const info = getModelInfo(name);
  return info !== undefined && info.aliases.includes(name.trim().toLowerCase());
}

/** All known models, best first within each provider, optionally of one provider. */
export function listModels(provider?: ModelProvider): ModelInfo[] {
  return models.filter((model) => provider === undefined || model.provider === provider);
}
