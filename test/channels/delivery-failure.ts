/**
 * The {@link DeliveryError} a send or edit rejects with, for outbound tests that look into it
 * (`retryable`, `delivered`, the message).
 */
import { expect } from 'vitest';
import { DeliveryError } from '../../src/channels/types.ts';

/** Awaits `promise`, expects it to reject with a {@link DeliveryError}, and returns that error. */
export async function deliveryFailure(promise: Promise<unknown>): Promise<DeliveryError> {
  const error = await promise.then(() => undefined, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(DeliveryError);
  return error as DeliveryError;
}
