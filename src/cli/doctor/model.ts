/**
 * Doctor check: which model provider the environment configures, and (unless `--offline`) one
 * tiny real request through it (one output token), so a refused key or an unreachable server
 * shows here rather than at the first message.
 */
import { ConfigurationError, type ProviderError } from '../../core/errors.ts';
import { classifyError } from '../../llm/classify-error.ts';
import { createModelClient, type ModelClient } from '../../llm/model-client.ts';
import { messageOf, networkTimeoutMs, originOf, type CheckResult } from './check.ts';
import { geminiDefaultBaseURL } from '../../llm/providers/gemini-dialect.ts';

const name = 'Model';

/** Where each provider's requests go, and the variables that say so. */
const endpoints = {
  anthropic: { key: 'ANTHROPIC_API_KEY', baseVariable: 'ANTHROPIC_BASE_URL', base: 'https://api.anthropic.com' },
  openai: { key: 'OPENAI_API_KEY', baseVariable: 'OPENAI_BASE_URL', base: 'https://api.openai.com/v1' },
  gemini: { key: 'GEMINI_API_KEY (or GOOGLE_API_KEY)', baseVariable: 'GEMINI_BASE_URL', base: geminiDefaultBaseURL },
} as const;

/** Checks the model `env` configures (`OPERATOR_MODEL` already holding operator.json's `model`). */
export async function checkModel(env: NodeJS.ProcessEnv, offline: boolean, timeoutMs = networkTimeoutMs): Promise<CheckResult> {
  let client: ModelClient;
  try {
    client = createModelClient(env);
  } catch (error) {
    if (!(error instanceof ConfigurationError)) throw error;
    // Its message already says which variables to set.
    return { level: 'FAIL', name, detail: error.message };
  }
  const endpoint = endpoints[client.provider.name as keyof typeof endpoints];
  const base = env[endpoint.baseVariable]?.trim() || endpoint.base;
  const which = `${client.provider.name}, model ${client.model}`;
  if (offline) return { level: 'OK', name, detail: `${which}; not contacted (--offline)` };
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const error = await ask(client, signal);
    if (!error) return { level: 'OK', name, detail: `${which} answers at ${originOf(base)}` };
    return { level: 'FAIL', name, ...explain(error, endpoint, base) };
  } catch (error) {
    if (signal.aborted) return { level: 'FAIL', name, detail: `${which}: no answer from ${originOf(base)} within ${timeoutMs / 1000} s`, fix: `check ${endpoint.baseVariable} and the network` };
    return { level: 'FAIL', name, ...explain(classifyError(error, client.provider.name), endpoint, base) };
  }
}

/** Sends "ping" for one token; resolves to the provider's error, or undefined when it answered. */
async function ask(client: ModelClient, signal: AbortSignal): Promise<ProviderError | undefined> {
  const request = { model: client.model, systemPrompt: '', messages: [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'ping' }] }], maxTokens: 1, signal };
  for await (const event of client.provider.stream(request)) {
    if (event.type === 'error') return event.error;
    if (event.type === 'message-end') {
      if (event.message.stopReason === 'aborted') throw new Error('aborted');
      return undefined;
    }
  }
  if (signal.aborted) throw new Error('aborted');
  return undefined;
}

function explain(error: ProviderError, endpoint: (typeof endpoints)[keyof typeof endpoints], base: string): Pick<CheckResult, 'detail' | 'fix'> {
  const status = error.statusCode === undefined ? '' : ` (HTTP ${error.statusCode})`;
  switch (error.kind) {
    case 'AUTH':
      return { detail: `the API key is refused${status}`, fix: `check ${endpoint.key}` };
    case 'AUTH_PERMANENT':
      return { detail: `the API key may not use this model${status}`, fix: `check ${endpoint.key} and its permissions` };
    case 'BILLING':
      return { detail: `the account cannot pay for requests${status}`, fix: 'check the provider account\'s billing' };
    case 'MODEL_NOT_FOUND':
      return { detail: `the model is unknown to ${originOf(base)}${status}`, fix: 'check OPERATOR_MODEL (or model in operator.json)' };
    default:
      if (error.statusCode === undefined) return { detail: `cannot reach ${originOf(base)} (${error.message})`, fix: `check ${endpoint.baseVariable} and the network` };
      return { detail: messageOf(error), fix: 'try again later; if it persists, check the provider\'s status' };
  }
}
