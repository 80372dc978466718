/**
 * Tasks that step out of their slot while they wait on I/O (a model call), through the real queue:
 * they hold no slot meanwhile, come back ahead of tasks not yet begun, and no more than `maxAway`
 * are out at once.
 */
import { describe, expect, it } from 'vitest';
import { createSessionQueue } from '../../src/core/session-queue.ts';
import type { TaskSlot } from '../../src/core/task-slot.ts';

/** A promise resolved from outside. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

/** Lets every pending microtask and timer callback run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

/** A task that waits on `io` out of its slot, then on `work` in it; `log` hears where it is. */
const waiting = (name: string, io: Promise<void>, log: string[], work: Promise<void> = Promise.resolve()) => async (slot: TaskSlot) => {
  const away = slot.leave();
  if (away === 'full') {
    log.push(`${name} full`);
    return;
  }
  log.push(`${name} out`);
  await io;
  await away?.back();
  log.push(`${name} back`);
  await work;
};

describe('tasks stepping out of their slot', () => {
  it('hold no slot while they wait, so other keys run; back, they go before tasks not yet begun', async () => {
    const queue = createSessionQueue({ maxRunning: 2 });
    const io = gate();
    const log: string[] = [];
    const hung = Array.from({ length: 5 }, (_, index) => queue.run(`hung${index}`, waiting(`hung${index}`, io.opened, log)));
    await settle();
    // All five are out: the two slots were handed on as each stepped out.
    expect(log).toEqual(['hung0 out', 'hung1 out', 'hung2 out', 'hung3 out', 'hung4 out']);
    expect([queue.running, queue.away]).toEqual([0, 5]);
    // An unrelated key runs at once.
    await queue.run('other', async () => log.push('other ran'));
    expect(log.at(-1)).toBe('other ran');
    // Two slots busy with new work; the hung ones come back ahead of a third new task.
    const busy = gate();
    const holders = [queue.run('new1', () => busy.opened), queue.run('new2', () => busy.opened)];
    await settle();
    const later = queue.run('new3', async () => log.push('new3 ran'));
    io.open();
    await settle();
    expect(log.filter((line) => line.endsWith('back') || line === 'new3 ran')).toEqual([]);
    busy.open();
    await Promise.all([...hung, ...holders, later]);
    const order = log.slice(log.indexOf('other ran') + 1);
    expect(order.indexOf('new3 ran')).toBeGreaterThan(order.indexOf('hung1 back'));
    expect([queue.running, queue.away, queue.pending]).toEqual([0, 0, 0]);
  });

  it('lets at most maxAway out at once; one more is told the way out is full and keeps its slot', async () => {
    const queue = createSessionQueue({ maxRunning: 4, maxAway: 2 });
    const io = gate();
    const log: string[] = [];
    const runs = [0, 1, 2].map((index) => queue.run(`k${index}`, waiting(`k${index}`, io.opened, log)));
    await settle();
    expect(log).toEqual(['k0 out', 'k1 out', 'k2 full']);
    expect(queue.away).toBe(2);
    io.open();
    await Promise.all(runs);
    expect([queue.running, queue.away]).toEqual([0, 0]);
  });

  it('takes a slot back once for calls in parallel, and frees it when the task ends out of it', async () => {
    const queue = createSessionQueue({ maxRunning: 1 });
    const first = gate();
    const second = gate();
    const done = queue.run('a', async (slot) => {
      const one = slot.leave();
      const two = slot.leave();
      await Promise.all([first.opened.then(() => (one as { back(): Promise<void> }).back()), second.opened.then(() => (two as { back(): Promise<void> }).back())]);
      // Out again, and the task ends there.
      slot.leave();
    });
    await settle();
    expect([queue.running, queue.away]).toEqual([0, 1]);
    first.open();
    second.open();
    await done;
    expect([queue.running, queue.away]).toEqual([0, 0]);
    await queue.run('b', async () => expect(queue.running).toBe(1));
  });

  it('stays put when the task has ended: a call it started that outlives it leaves nothing', async () => {
    const queue = createSessionQueue({ maxRunning: 1 });
    let kept: TaskSlot | undefined;
    await queue.run('a', async (slot) => {
      kept = slot;
    });
    const away = kept!.leave();
    expect(away).not.toBe('full');
    await (away as { back(): Promise<void> }).back();
    expect([queue.running, queue.away]).toEqual([0, 0]);
    await queue.run('b', async () => expect(queue.running).toBe(1));
  });
});
