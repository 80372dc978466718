/**
 * The wrapper that keeps a conversation's chat calls behind its object's writes: a reply, an edit,
 * a typing indicator or a button's answer reaches the adapter only once `storage.sync()` has
 * resolved; anything else the adapter has is passed through as it is.
 */
import { expect, it } from 'vitest';
import type { ChannelAdapter } from '../../src/channels/types.ts';
import { durableFirst } from '../../src/worker/durable-first.ts';

/** An adapter that notes its calls, as a class with a private field (so `this` must be the adapter). */
class NotingAdapter {
  readonly platform = 'telegram';
  readonly #calls: string[];
  constructor(calls: string[]) {
    this.#calls = calls;
  }
  async send(): Promise<{ ids: string[] }> {
    this.#calls.push('send');
    return { ids: ['1'] };
  }
  async edit(): Promise<void> {
    this.#calls.push('edit');
  }
  async typing(): Promise<void> {
    this.#calls.push('typing');
  }
  async findPreview(): Promise<string | undefined> {
    this.#calls.push('findPreview');
    return undefined;
  }
}

it('lets a call reach the chat only once the writes before it are durable, and passes the rest through', async () => {
  const calls: string[] = [];
  // Each sync waits until the test says the writes are durable.
  const waiting: (() => void)[] = [];
  const confirm = () => {
    calls.push('durable');
    for (const resolve of waiting.splice(0)) resolve();
  };
  const storage = {
    sync: () =>
      new Promise<void>((resolve) => {
        calls.push('sync');
        waiting.push(resolve);
      }),
  };
  const adapter = durableFirst(new NotingAdapter(calls) as unknown as ChannelAdapter, storage);
  const address = { platform: 'telegram', conversationId: '42' };

  const sent = adapter.send(address, { text: 'hi' });
  await Promise.resolve();
  expect(calls).toEqual(['sync']);
  confirm();
  expect(await sent).toEqual({ ids: ['1'] });
  expect(calls).toEqual(['sync', 'durable', 'send']);

  const edited = adapter.edit(address, '1', { text: 'hi there' });
  const typing = adapter.typing(address);
  await Promise.resolve();
  expect(calls.slice(3)).toEqual(['sync', 'sync']);
  confirm();
  await Promise.all([edited, typing]);
  expect(calls.slice(3)).toEqual(['sync', 'sync', 'durable', 'edit', 'typing']);

  // Not a call to the chat: no wait, and the adapter's own `this`.
  calls.length = 0;
  await adapter.findPreview!(address, { since: 0, marker: 'x' });
  expect(calls).toEqual(['findPreview']);
  expect(adapter.platform).toBe('telegram');
});
