/**
 * ChannelQueues: one channel's jobs in order, channels side by side, a failure reported without
 * stopping the channel, and nothing kept for a channel once its work is done.
 */
import { describe, expect, it } from 'vitest';
import { ChannelQueues } from '../../src/channels/discord/channel-queues.ts';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('ChannelQueues', () => {
  it('runs a channel in order and channels side by side, and forgets idle channels', async () => {
    const errors: unknown[] = [];
    const queues = new ChannelQueues((error) => errors.push(error));
    const done: string[] = [];
    queues.run('a', async () => {
      await pause(60);
      done.push('a1');
    });
    queues.run('a', async () => {
      throw new Error('a2 failed');
    });
    queues.run('a', async () => {
      done.push('a3');
    });
    queues.run('b', async () => {
      await pause(10);
      done.push('b1');
    });
    expect(queues.size).toBe(2);
    await queues.settled();
    // b did not wait for a's slow job; a's failure did not stop a3.
    expect(done).toEqual(['b1', 'a1', 'a3']);
    expect(errors).toEqual([new Error('a2 failed')]);
    expect(queues.size).toBe(0);
  });

  it('settles work queued while it waits', async () => {
    const queues = new ChannelQueues(() => undefined);
    const done: string[] = [];
    queues.run('a', async () => {
      await pause(20);
      queues.run('b', async () => {
        await pause(20);
        done.push('b');
      });
      done.push('a');
    });
    await queues.settled();
    expect(done).toEqual(['a', 'b']);
  });
});
