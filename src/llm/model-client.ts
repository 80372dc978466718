/**
 * Picks the provider and model from a model spec and the environment. The one place that maps
 * `OPERATOR_MODEL` and credentials to a {@link Provider}.
 */
import { ConfigurationError } from '../core/errors.ts';
import { getModelInfo, isModelAlias, type ModelInfo } from './catalog.ts';
import { lazyProvider } from './lazy-provider.ts';
import type { LazyProvider } from './lazy-provider.ts';

/** Environment variables as `process.env` holds them. */
export type Environment = Record<string, string | undefined>;

/**
 * Provider factories by name, each reading its settings from the environment. One more
 * provider is one more line here.
 */
export const providerRegistry = {
  anthropic: (env: Environment): LazyProvider =>
    lazyProvider('anthropic', async () =>
      (await import('./providers/anthropic.ts')).createAnthropicProvider({ apiKey: value(env, 'ANTHROPIC_API_KEY'), baseURL: value(env, 'ANTHROPIC_BASE_URL'), timeouts: (await import('./providers/idle-watch.ts')).timeoutsFromEnv(env, 'anthropic') }),
    ),
  openai: (env: Environment): LazyProvider =>
    lazyProvider('openai', async () =>
      (await import('./providers/openai.ts')).createOpenAIProvider({ apiKey: value(env, 'OPENAI_API_KEY'), baseURL: value(env, 'OPENAI_BASE_URL'), timeouts: (await import('./providers/idle-watch.ts')).timeoutsFromEnv(env, 'openai') }),
    ),
  // Google's OpenAI-compatible endpoint, through the OpenAI provider (see providers/gemini-dialect.ts).
  gemini: (env: Environment): LazyProvider =>
    lazyProvider('gemini', async () =>
      (await import('./providers/openai.ts')).createOpenAIProvider({ dialect: 'gemini', apiKey: geminiKey(env), baseURL: value(env, 'GEMINI_BASE_URL'), timeouts: (await import('./providers/idle-watch.ts')).timeoutsFromEnv(env, 'gemini') }),
    ),
} satisfies Record<string, (env: Environment) => LazyProvider>;

/** A provider operator can talk to. */
export type ProviderName = keyof typeof providerRegistry;

/** A model spec resolved to a provider and a provider-native model id. */
export interface ResolvedModel {
  provider: ProviderName;
  model: string;
  /** The catalog entry, when the model is known. */
  info: ModelInfo | undefined;
}

/** A ready provider with the model to ask. */
export interface ModelClient {
  /** Loads its SDK on first use; call `warm()` to load it ahead. */
  provider: LazyProvider;
  model: string;
  info: ModelInfo | undefined;
}

const credentialsHelp =
  'Set ANTHROPIC_API_KEY (Claude), OPENAI_API_KEY (OpenAI), GEMINI_API_KEY or GOOGLE_API_KEY (Gemini), or OPENAI_BASE_URL with OPERATOR_MODEL=openai:<model> (a local OpenAI-compatible server).';

function value(env: Environment, name: string): string | undefined {
  const text = env[name]?.trim();
  return text === undefined || text === '' ? undefined : text;
}

/** The Gemini API key: `GEMINI_API_KEY`, else `GOOGLE_API_KEY` (the name Google's own SDKs also read). */
function geminiKey(env: Environment): string | undefined {
  return value(env, 'GEMINI_API_KEY') ?? value(env, 'GOOGLE_API_KEY');
}

function isProviderName(name: string): name is ProviderName {
  return Object.hasOwn(providerRegistry, name);
}

/**
 * Resolves a model spec:
 * - `<provider>:<model>` (`openai:llama3.1:8b`, `anthropic:claude-x`) forces that provider and
 *   sends the model name unchanged;
 * - a catalog id or alias (`sonnet`, `gpt5`, `gemini-flash`) resolves through the catalog;
 * - `claude-*` goes to Anthropic; `gpt-*`, `o1*`, `o3*`, `o4-*`, `codex-*` to OpenAI; `gemini*` to Gemini;
 * - any other id goes to whichever provider has credentials (Anthropic, then OpenAI, then Gemini).
 *
 * @throws ConfigurationError for an unknown id when no provider has credentials.
 */
export function resolveModel(spec: string, env: Environment = process.env): ResolvedModel {
  const trimmed = spec.trim();
  if (trimmed === '') throw new ConfigurationError(`Empty model name. ${credentialsHelp}`);
  const colon = trimmed.indexOf(':');
  if (colon > 0) {
    const prefix = trimmed.slice(0, colon).toLowerCase();
    const model = trimmed.slice(colon + 1);
    if (isProviderName(prefix) && model !== '') {
      const info = getModelInfo(model);
      return { provider: prefix, model, info: info?.provider === prefix ? info : undefined };
    }
  }

  const info = getModelInfo(trimmed);
  if (info !== undefined) {
    return { provider: info.provider, model: isModelAlias(trimmed) ? info.id : trimmed, info };
  }
  const lower = trimmed.toLowerCase();
  if (lower.startsWith('claude-')) return { provider: 'anthropic', model: trimmed, info: undefined };
  if (/^(gpt-|o1|o3|o4-|codex-)/.test(lower)) return { provider: 'openai', model: trimmed, info: undefined };
  if (lower.startsWith('gemini')) return { provider: 'gemini', model: trimmed, info: undefined };
  if (value(env, 'ANTHROPIC_API_KEY') !== undefined) return { provider: 'anthropic', model: trimmed, info: undefined };
  if (value(env, 'OPENAI_API_KEY') !== undefined || value(env, 'OPENAI_BASE_URL') !== undefined) {
    return { provider: 'openai', model: trimmed, info: undefined };
  }
  if (geminiKey(env) !== undefined || value(env, 'GEMINI_BASE_URL') !== undefined) return { provider: 'gemini', model: trimmed, info: undefined };
  throw new ConfigurationError(`Unknown model ${trimmed} and no provider credentials. ${credentialsHelp}`, {
    model: trimmed,
  });
}

/**
 * Creates the model client from the environment: `OPERATOR_MODEL` when set, else
 * `claude-sonnet-4-6` with `ANTHROPIC_API_KEY`, else `gpt-5.2` with `OPENAI_API_KEY`, else
 * `gemini-2.5-pro` with `GEMINI_API_KEY` or `GOOGLE_API_KEY`.
 *
 * @throws ConfigurationError when no model can be chosen, naming the variables to set.
 */
export function createModelClient(env: Environment = process.env): ModelClient {
  const spec = value(env, 'OPERATOR_MODEL') ?? defaultModel(env);
  const resolved = resolveModel(spec, env);
  return { provider: providerRegistry[resolved.provider](env), model: resolved.model, info: resolved.info };
}

/**
 * The model of each provider when none is named: the one chosen when that provider alone has
 * credentials, and a pipeline node's that names a provider but no model. Gemini's is its
 * generally available model of the Sonnet class (the 3 series is in preview).
 */
export const providerDefaultModels: Readonly<Record<ProviderName, string>> = { anthropic: 'claude-sonnet-4-6', openai: 'gpt-5.2', gemini: 'gemini-2.5-pro' };

function defaultModel(env: Environment): string {
  if (value(env, 'ANTHROPIC_API_KEY') !== undefined) return providerDefaultModels.anthropic;
  if (value(env, 'OPENAI_API_KEY') !== undefined) return providerDefaultModels.openai;
  if (geminiKey(env) !== undefined || value(env, 'GEMINI_BASE_URL') !== undefined) return providerDefaultModels.gemini;
  if (value(env, 'OPENAI_BASE_URL') !== undefined) {
    throw new ConfigurationError(
      'OPENAI_BASE_URL is set but OPERATOR_MODEL is not: set OPERATOR_MODEL=openai:<model> to name the model the server runs.',
    );
  }
  throw new ConfigurationError(`No model is configured. ${credentialsHelp} OPERATOR_MODEL picks the model.`);
}
