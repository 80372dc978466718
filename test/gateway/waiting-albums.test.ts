/**
 * An album (a person's several photos sent as one) is answered in one turn: the turn that would
 * begin with its first part waits until the parts stop coming, then takes them all, and nothing
 * else. Fake timers stand in for the platform's moments between parts.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { InboundMessage } from '../../src/channels/types.ts';
import { albumMaxWaitMs, albumQuietMs, WaitingMessages, type WaitingMessage } from '../../src/gateway/waiting-messages.ts';

let sent = 0;
function part(albumId: string | undefined, sender = '7', text = ''): WaitingMessage {
  sent++;
  const message: InboundMessage = {
    id: String(sent),
    dedupeKey: `telegram:update:${sent}`,
    sessionKey: 'telegram:dm:7',
    address: { platform: 'telegram', conversationId: '7' },
    scope: 'dm',
    sender: { id: sender },
    text,
    attachments: [{ kind: 'image', mediaType: 'image/jpeg', download: async () => new Uint8Array() }],
    mentioned: true,
    ...(albumId !== undefined && { albumId }),
    receivedAt: 1_000 + sent,
    raw: {},
  };
  return { key: message.dedupeKey, message, text };
}

describe('albums among the waiting messages', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('waits for the parts still coming, then takes the whole album and nothing after it', async () => {
    const waiting = new WaitingMessages();
    const first = part('album-1');
    waiting.add(first);
    let taken: WaitingMessage[] | undefined;
    const taking = waiting.takeNextWhole(true).then((batch) => (taken = batch));
    await vi.advanceTimersByTimeAsync(albumQuietMs - 100);
    const second = part('album-1');
    waiting.add(second);
    await vi.advanceTimersByTimeAsync(albumQuietMs - 100);
    const third = part('album-1');
    waiting.add(third);
    const after = part(undefined, '7', 'and what about this?');
    waiting.add(after);
    expect(taken).toBeUndefined();
    await vi.advanceTimersByTimeAsync(albumQuietMs);
    await taking;
    expect(taken!.map((item) => item.key)).toEqual([first.key, second.key, third.key]);
    expect(waiting.takeNext(true)!.map((item) => item.key)).toEqual([after.key]);
  });

  it('waits no longer than the most an album is given, and takes none of another person', async () => {
    const waiting = new WaitingMessages();
    const first = part('album-2');
    waiting.add(first);
    waiting.add(part('album-2', '8'));
    let taken: WaitingMessage[] | undefined;
    const taking = waiting.takeNextWhole(true).then((batch) => (taken = batch));
    // Something arrives all the time: the album's wait still ends.
    for (let elapsed = 0; elapsed < albumMaxWaitMs; elapsed += albumQuietMs / 2) {
      waiting.add(part(undefined, '9', 'chatter'));
      await vi.advanceTimersByTimeAsync(albumQuietMs / 2);
    }
    await taking;
    expect(taken!.map((item) => item.key)).toEqual([first.key]);
  });

  it('does not wait for a message that is not part of an album', async () => {
    const waiting = new WaitingMessages();
    const lone = part(undefined, '7', 'hello');
    waiting.add(lone);
    expect((await waiting.takeNextWhole(true))!.map((item) => item.key)).toEqual([lone.key]);
  });
});
