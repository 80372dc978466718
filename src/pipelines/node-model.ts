/**
 * The model a `codergen` node's agent asks, and how: the node's `model` and `provider` (its own
 * attributes, else the stylesheet's, else the run's `--model` and `--provider`), its
 * `temperature`, `max_tokens` and `reasoning_effort`. A provider with no model named anywhere
 * gets that provider's default model (unless the configured model is already that provider's); a
 * model another provider would serve is sent to the named one unchanged (`openai:llama3.1` for an
 * OpenAI-compatible server), as `OPERATOR_MODEL=provider:model` does.
 */
import { getModelInfo } from '../llm/catalog.ts';
import { providerDefaultModels, resolveModel, type Environment, type ProviderName } from '../llm/model-client.ts';
import type { PipelineNode } from './types.ts';

/** What a node's agent is made with. */
export interface NodeModel {
  /** A model spec for `Runtime.clientFor` (id, alias or `provider:model`); unset: the configured model. */
  model?: string;
  reasoningEffort?: PipelineNode['reasoningEffort'];
  temperature?: number;
  maxTokens?: number;
}

/** The run's defaults for nodes that name no model or provider (`--model`, `--provider`). */
export interface RunModelDefaults {
  model?: string;
  provider?: string;
}

/**
 * The model settings of `node`, given the run's defaults, the provider of the configured model and
 * the environment (to tell which provider a model id belongs to).
 */
export function nodeModel(node: PipelineNode, defaults: RunModelDefaults, configuredProvider: string, env: Environment): NodeModel {
  return {
    model: modelSpec(node.model ?? defaults.model, node.provider ?? defaults.provider, configuredProvider, env),
    reasoningEffort: node.reasoningEffort,
    temperature: node.temperature,
    maxTokens: node.maxTokens,
  };
}

/** The settings as one key: nodes with the same settings (and thread) share an agent. */
export function nodeModelKey(settings: NodeModel): string {
  return JSON.stringify([settings.model ?? '', settings.reasoningEffort ?? '', settings.temperature ?? '', settings.maxTokens ?? '']);
}

function modelSpec(model: string | undefined, provider: string | undefined, configuredProvider: string, env: Environment): string | undefined {
  if (provider === undefined) return model;
  const name = provider.toLowerCase() as ProviderName;
  if (model === undefined) return name === configuredProvider ? undefined : providerDefaultModels[name];
  let belongsTo: string | undefined;
  try {
    belongsTo = resolveModel(model, env).provider;
  } catch {
    // An id no provider is known for: the named provider is asked for it as written.
  }
  return belongsTo === name ? model : `${name}:${model}`;
}

/** The model and provider of nodes that name none (the run's), as its manifest records them. */
export function runModelOf(defaults: RunModelDefaults, configured: { provider: string; model: string }, env: Environment): { provider: string; model: string } {
  const spec = modelSpec(defaults.model, defaults.provider, configured.provider, env);
  if (spec === undefined) return configured;
  try {
    const resolved = resolveModel(spec, env);
    return { provider: resolved.provider, model: resolved.model };
  } catch {
    return { provider: defaults.provider ?? configured.provider, model: spec };
  }
}

/**
 * Why `node`'s `temperature` will not be sent, or undefined when it will (or it sets none): the
 * Anthropic API version operator speaks has no sampling parameters, and OpenAI's reasoning
 * models refuse one (the request builders leave it out; Gemini's take one). Said at the start of a run,
 * so a setting that does nothing does not pass for one that works.
 */
export function unsentTemperature(node: PipelineNode, defaults: RunModelDefaults, configured: { provider: string; model: string }, env: Environment): string | undefined {
  if (node.temperature === undefined || node.handlerType !== 'codergen') return undefined;
  const { provider, model } = runModelOf({ model: node.model ?? defaults.model, provider: node.provider ?? defaults.provider }, configured, env);
  if (provider === 'anthropic') return `step "${node.name}": temperature is not sent to Anthropic models (${model}): the API version operator speaks has no sampling parameters`;
  if (provider === 'openai' && getModelInfo(model)?.reasoning === true) return `step "${node.name}": temperature is not sent to ${model}, a reasoning model (it refuses one)`;
  return undefined;
}
