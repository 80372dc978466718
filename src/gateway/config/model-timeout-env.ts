/**
 * operator.json's `modelTimeouts` handed to the model providers. The providers read their limits
 * from the environment (see `timeoutsFromEnv`), because they are made where only the environment
 * reaches (`src/llm/model-client.ts`, also for a conversation's own model chosen with `/model`).
 */
import { notifyAfterFromEnv, timeoutVariables } from '../../llm/providers/idle-watch.ts';
import type { ModelTimeoutLimits, ModelTimeouts } from './gateway-config.ts';
import { modelProviders } from './model-timeouts-schema.ts';

/**
 * The variables that carry `timeouts`: `OPERATOR_MODEL_FIRST_BYTE_SECONDS` and
 * `OPERATOR_MODEL_IDLE_SECONDS` for every provider, `OPERATOR_<PROVIDER>_FIRST_BYTE_SECONDS` and
 * `OPERATOR_<PROVIDER>_IDLE_SECONDS` for one, and the `…_NOTIFY_AFTER_SECONDS` of each (when the
 * person is told a call is slow, read by the gateway). A variable already set in `env` wins and is left out.
 *
 * @example
 * const runtimeEnv = { ...env, ...modelTimeoutEnv(config.modelTimeouts, env) };
 */
export function modelTimeoutEnv(timeouts: ModelTimeouts, env: Record<string, string | undefined>): Record<string, string> {
  const variables: Record<string, string> = {};
  const add = (limits: ModelTimeoutLimits | undefined, provider?: string) => {
    for (const [variable, seconds] of [
      [timeoutVariables.firstByte(provider), limits?.firstByteSeconds],
      [timeoutVariables.idle(provider), limits?.idleSeconds],
      [timeoutVariables.notifyAfter(provider), limits?.notifyAfterSeconds],
    ] as const) {
      if (seconds !== undefined && !env[variable]?.trim()) variables[variable] = String(seconds);
    }
  };
  add(timeouts);
  for (const provider of modelProviders) add(timeouts[provider], provider);
  return variables;
}

/**
 * When a person is told a model call of `provider` is slow, in ms: the environment's
 * `…_NOTIFY_AFTER_SECONDS` (it wins over operator.json, as for the providers' own limits), else
 * `timeouts`' `notifyAfterSeconds`, else the default.
 */
export function notifyAfterOf(timeouts: ModelTimeouts, env: Record<string, string | undefined>): (provider: string) => number {
  const merged = { ...env, ...modelTimeoutEnv(timeouts, env) };
  return (provider) => notifyAfterFromEnv(merged, provider);
}
