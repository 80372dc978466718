/** The model layer: neutral types, catalog, cost, error classification, providers, model client, middleware, non-streaming calls and structured output (whole or streamed). */
export * from './types.ts';
export { getModelInfo, isModelAlias, listModels, type ModelInfo, type ModelPrice, type ModelProvider } from './catalog.ts';
export { addCost, computeCost, emptyCost, type Cost } from './cost.ts';
export { classifyError, parseRetryAfter, type HeadersLike } from './classify-error.ts';
export { redactSecrets } from './redact-secrets.ts';
export { complete, defaultCompleteRetry, type CompleteOptions, type CompleteRetry, type ModelResponse } from './complete.ts';
export { generateObject, NoObjectGeneratedError, type GenerateObjectOptions, type GenerateObjectResult } from './generate-object.ts';
export { streamObject, type ObjectStreamEvent, type PartialObject, type StreamObjectOptions } from './stream-object.ts';
export { parsePartialJson } from './partial-json.ts';
export { withMiddleware, type ModelMiddleware } from './middleware.ts';
export {
  createModelClient,
  providerRegistry,
  resolveModel,
  type Environment,
  type ModelClient,
  type ProviderName,
  type ResolvedModel,
} from './model-client.ts';
export { createAnthropicProvider, type AnthropicProviderOptions } from './providers/anthropic.ts';
export { createOpenAIProvider, type OpenAIProviderOptions } from './providers/openai.ts';
