/**
 * Notes of the native streams a process begins, so that one a killed process left is found by
 * the next. A stream's ts is noted by the gateway once it is heard (the inbox's preview), but a
 * process killed after Slack took `chat.startStream` and before it heard the answer leaves a
 * stream nobody knows of, streaming beside the answer its successor sends. So each stream is
 * noted in the adapter's memory (the gateway's store) before it is asked for, one note per
 * thread, and the note goes once the stream stopped. A note this process did not write is an
 * earlier process's: its stream is looked for in the thread and stopped, and the turn run again
 * finishes it by edits like any preview (see `stream.ts`). Without a memory nothing is noted.
 */
import type { ChannelMemory, ConversationAddress } from '../types.ts';

/** A note outlives a stream left behind by at most a day (Slack ends a stream left alone well before). */
const noteTtlSeconds = 86_400;

/** The notes of one bot's streams. */
export interface StreamNotes {
  /** Notes that a stream is about to begin in `address` (before `chat.startStream`); resolves to when (ms since the epoch). */
  begin(address: ConversationAddress): Promise<number>;
  /** The stream in `address` stopped: its note goes (in the background; a failure is logged). */
  end(address: ConversationAddress): void;
  /** When an earlier process began a stream in `address` whose end it did not note (ms since the epoch), if one did. */
  leftBehind(address: ConversationAddress): Promise<number | undefined>;
}

/** Notes in `memory` (none: nothing is noted or found); `now` is the clock. */
export function createStreamNotes(memory: ChannelMemory | undefined, log: (line: string) => void, now: () => number = Date.now): StreamNotes {
  /** The notes this process wrote and has not ended: its own streams, never an earlier process's. */
  const mine = new Set<string>();
  const keyOf = (address: ConversationAddress) => `stream:${address.conversationId}:${address.threadId ?? ''}`;
  const failed = (what: string) => (error: unknown) => log(`slack: ${what}: ${error instanceof Error ? error.message : String(error)}`);
  return {
    async begin(address) {
      const at = now();
      const key = keyOf(address);
      mine.add(key);
      // Awaited: a process killed once Slack took the stream must leave the note behind.
      await memory?.set(key, String(at), { ttlSeconds: noteTtlSeconds }).catch(failed('a stream not noted (a restart cannot find it if this process dies mid-stream)'));
      return at;
    },
    end(address) {
      const key = keyOf(address);
      mine.delete(key);
      void memory?.delete(key).catch(failed("a stream's note not removed"));
    },
    async leftBehind(address) {
      const key = keyOf(address);
      if (!memory || mine.has(key)) return undefined;
      const value = await memory.get(key).catch(failed('whether a stream was left behind is not known'));
      const at = Number(value);
      return value !== undefined && Number.isFinite(at) ? at : undefined;
    },
  };
}
