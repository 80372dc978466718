import { ProviderError } from '../../core/errors.ts';
import { classifyError } from '../classify-error.ts';
import type { ModelRequest, StreamEvent } from '../types.ts';
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
 *
 * While the call waits on the provider, the turn holds no running slot of the gateway's queue
 * (the request's `slot`, see `core/task-slot.ts`): turns hanging on a provider keep no one else
 * waiting. It takes a slot
 * again before the last event, so what the turn does next (tools) counts as before. When as many
 * turns as allowed already wait on providers, the call fails at once, not retried: the person is
 * told the provider is overloaded instead of waiting behind a queue that may never move.
 */
export async function* runProviderStream(
  builder: AssistantMessageBuilder,
  { signal, slot }: Pick<ModelRequest, 'signal' | 'slot'>,
  produce: () => AsyncIterable<StreamEvent>,
): AsyncGenerator<StreamEvent, void, undefined> {
  const away = slot?.leave();
  if (away === 'full') {
    yield { type: 'error', error: waitingFull(builder.provider), partial: builder.message('error') };
    return;
  }
  try {
    yield* settled(builder, signal, produce, () => away?.back());
  } finally {
    await away?.back();
  }
}

/** {@link runProviderStream}'s events, `comeBack` awaited before the last. */
async function* settled(
  builder: AssistantMessageBuilder,
  signal: AbortSignal | undefined,
  produce: () => AsyncIterable<StreamEvent>,
  comeBack: () => Promise<void> | undefined,
): AsyncGenerator<StreamEvent, void, undefined> {
  let failure: unknown;
  try {
    for await (const event of produce()) yield event;
  } catch (error) {
    failure = error ?? new Error('unknown failure');
  }
  await comeBack();
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

/**
 * The failure of a call that found as many turns as allowed already waiting on providers. Not
 * retried (a retry-after longer than any retry waits): the wait before a retry would hold a slot,
 * and no one knows when room frees up.
 */
function waitingFull(provider: string): ProviderError {
  return new ProviderError(`${provider}: too many turns are waiting on model providers already`, { provider, kind: 'OVERLOADED', retryAfterMs: Number.POSITIVE_INFINITY });
}
