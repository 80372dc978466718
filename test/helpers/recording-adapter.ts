/** A channel adapter that only records the text of what is sent, for tests of chat commands. */
import type { ChannelAdapter, OutboundMessage } from '../../src/channels/types.ts';

/** The adapter and the texts it was sent, in order. */
export function recordingAdapter(): { adapter: ChannelAdapter; replies: string[] } {
  const replies: string[] = [];
  const adapter = {
    async send(_address: unknown, message: OutboundMessage) {
      replies.push(message.text ?? '');
      return [];
    },
  } as unknown as ChannelAdapter;
  return { adapter, replies };
}
