import { describe, expect, it } from 'vitest';
import { DueQueue } from '../../../src/gateway/scheduler/due-queue.ts';

describe('DueQueue', () => {
  it('gives entries back earliest first, whatever order they were pushed in', () => {
    const queue = new DueQueue();
    // A fixed pseudo-random order, duplicates included.
    const times = Array.from({ length: 500 }, (_, index) => (index * 7919) % 263);
    times.forEach((at, index) => queue.push(at, `job-${index}`));
    expect(queue.size).toBe(500);
    expect(queue.peek()?.at).toBe(0);
    const popped: number[] = [];
    for (let entry = queue.pop(); entry; entry = queue.pop()) popped.push(entry.at);
    expect(popped).toEqual([...times].sort((a, b) => a - b));
    expect(queue.pop()).toBeUndefined();
  });

  it('is empty after clear', () => {
    const queue = new DueQueue();
    queue.push(1, 'a');
    queue.clear();
    expect(queue.size).toBe(0);
    expect(queue.peek()).toBeUndefined();
  });
});
