/**
 * A request's provider options (see `ProviderOptions`) laid over the body a provider built.
 */
import { ProviderError } from '../../core/errors.ts';
import type { ModelRequest, ProviderOptionsName } from '../types.ts';

/**
 * Returns `body` with the fields of `request.providerOptions[name]` added. A field the conversion
 * owns (`owned`) is refused with a `FORMAT_ERROR`, which is not retried: the same request would
 * fail again, and silently replacing the messages or the model would send what no one meant.
 */
export function withProviderOptions<Body extends object>(body: Body, request: Pick<ModelRequest, 'providerOptions'>, name: ProviderOptionsName, owned: readonly string[]): Body {
  const options = request.providerOptions?.[name];
  if (options === undefined) return body;
  const refused = Object.keys(options).filter((key) => owned.includes(key));
  if (refused.length > 0) {
    throw new ProviderError(`${name}: providerOptions may not set ${refused.join(', ')} (the request sets them itself)`, { provider: name, kind: 'FORMAT_ERROR' });
  }
  return { ...body, ...options };
}
