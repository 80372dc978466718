/**
 * A long answer sent as its parts, one after another, as the platforms' `send` does: parts a
 * failed send delivered before are skipped (`skipParts`), each delivered part is told
 * (`onPart`), and a failure carries the ids delivered before it (so a retry sends only the rest).
 */
import { DeliveryError, type OutboundMessage } from '../channels/types.ts';

/** Sends `chunks` from `message.skipParts` on with `sendPart`; resolves to the ids sent. */
export async function sendParts(chunks: readonly string[], message: Pick<OutboundMessage, 'skipParts' | 'onPart'>, sendPart: (index: number, chunk: string) => Promise<string>): Promise<{ ids: string[] }> {
  const ids: string[] = [];
  for (let index = message.skipParts ?? 0; index < chunks.length; index++) {
    try {
      ids.push(await sendPart(index, chunks[index]!));
    } catch (error) {
      throw error instanceof DeliveryError ? error.withDelivered(ids) : error;
    }
    message.onPart?.(ids, chunks.length);
  }
  return { ids };
}
