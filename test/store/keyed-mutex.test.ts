import { describe, expect, it } from 'vitest';
import { KeyedMutex } from '../../src/store/keyed-mutex.ts';

describe('KeyedMutex', () => {
  it('forgets a key once nobody holds or awaits it', async () => {
    const mutex = new KeyedMutex();
    await Promise.all(Array.from({ length: 1_000 }, (_, index) => mutex.run(`key:${index % 10}`, async () => index)));
    expect(mutex.size).toBe(0);
  });

  it('tells whether a key is held or awaited', async () => {
    const mutex = new KeyedMutex();
    let release!: () => void;
    const held = mutex.run('k', () => new Promise<void>((resolve) => (release = resolve)));
    expect(mutex.busy('k')).toBe(true);
    expect(mutex.busy('other')).toBe(false);
    release();
    await held;
    expect(mutex.busy('k')).toBe(false);
  });

  it('hands the key on after a failure', async () => {
    const mutex = new KeyedMutex();
    const failed = mutex.run('k', async () => {
      throw new Error('boom');
    });
    const next = mutex.run('k', async () => 'next');
    await expect(failed).rejects.toThrow('boom');
    await expect(next).resolves.toBe('next');
    expect(mutex.size).toBe(0);
  });

  it('queues holders of one key in call order', async () => {
    const mutex = new KeyedMutex();
    const order: number[] = [];
    await Promise.all(
      [30, 10, 0].map((delay, index) =>
        mutex.run('k', async () => {
          await new Promise((resolve) => setTimeout(resolve, delay));
          order.push(index);
        }),
      ),
    );
    expect(order).toEqual([0, 1, 2]);
  });
});
