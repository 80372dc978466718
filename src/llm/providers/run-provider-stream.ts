import { ProviderError } from '../../core/errors.ts';
import { classifyError } from '../classify-error.ts';
import type { StreamEvent } from '../types.ts';
import type { AssistantMessageBuilder } from './assistant-message-builder.ts';

/**
 * Wraps a provider's event producer in the stream contract of {@link StreamEvent}: whatever
 * happens, the last event is `message-end` or `error`, and nothing is thrown.
 *
 * - The producer marks `builder.complete` when the provider reported the natural end; then
 *   `message-end` carries the finished message, even if the connection fails afterwards.
 * - When `signal` was aborted, `message-end` carries what arrived so far with stop reason
 *   `aborted` (an abort is the caller's wish, not a failure).
 * - A throw, or a stream that ends before its natural end, becomes an `error` event with the
 *   partial message.
 */
export async function* runProviderStream(
  builder: AssistantMessageBuilder,
  signal: AbortSignal | undefined,
  produce: () => AsyncIterable<StreamEvent>,
): AsyncGenerator<StreamEvent, void, undefined> {
  let failure: unknown;
  try {
    for await (const event of produce()) yield event;
  } catch (error) {
    failure = error ?? new Error('unknown failure');
  }
  if (builder.complete) {
    yield { type: 'message-end', message: builder.message() };
  } else if (signal?.aborted) {
    yield { type: 'message-end', message: builder.message('aborted') };
  } else if (failure !== undefined) {
    yield { type: 'error', error: classifyError(failure, builder.provider), partial: builder.message('error') };
  } else {
    const error = new ProviderError(`${builder.provider}: stream ended before the message was complete`, {
      provider: builder.provider,
      kind: 'UNKNOWN',
    });
    yield { type: 'error', error, partial: builder.message('error') };
  }
}
