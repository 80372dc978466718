/**
 * The model client used when no model is configured: operator still starts (so the web chat and
 * the platforms work and can say what is missing), and every model call answers with an error
 * that names the variables to set.
 */
import { ProviderError } from '../core/errors.ts';
import type { LazyProvider } from './lazy-provider.ts';
import type { ModelClient } from './model-client.ts';

/** Provider name of the stand-in, so callers can show its message as is (it holds no secret). */
export const unconfiguredProviderName = 'unconfigured';

/**
 * A client whose calls all fail with `reason`, a ConfigurationError's message, as is: it already
 * says what is wrong and what to set (e.g. "No model is configured. Set ANTHROPIC_API_KEY ..."),
 * so nothing is put before it that would say it twice.
 */
export function createUnconfiguredClient(reason: string): ModelClient {
  const provider: LazyProvider = {
    name: unconfiguredProviderName,
    async warm() {},
    async *stream() {
      yield { type: 'error', error: new ProviderError(reason, { provider: unconfiguredProviderName, kind: 'AUTH' }) };
    },
  };
  return { provider, model: 'none', info: undefined };
}
