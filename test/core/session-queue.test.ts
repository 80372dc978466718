import { describe, expect, it } from 'vitest';
import { createSessionQueue, defaultMaxRunningPerGroup } from '../../src/core/session-queue.ts';

/** A promise resolved from outside. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

/** Lets every pending microtask and timer callback run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('createSessionQueue', () => {
  it('runs the tasks of one key strictly in order, one at a time', async () => {
    const queue = createSessionQueue();
    const events: string[] = [];
    const gates = [gate(), gate(), gate()];
    const runs = gates.map((g, index) =>
      queue.run('telegram:dm:1', async () => {
        events.push(`start ${index}`);
        await g.opened;
        events.push(`end ${index}`);
        return index;
      }),
    );
    await settle();
    expect(events).toEqual(['start 0']);
    expect(queue.size('telegram:dm:1')).toBe(3);
    gates[2]!.open();
    gates[1]!.open();
    await settle();
    expect(events).toEqual(['start 0']);
    gates[0]!.open();
    expect(await Promise.all(runs)).toEqual([0, 1, 2]);
    expect(events).toEqual(['start 0', 'end 0', 'start 1', 'end 1', 'start 2', 'end 2']);
  });

  it('runs different keys in parallel', async () => {
    const queue = createSessionQueue();
    const g = gate();
    const started: string[] = [];
    const runs = ['a', 'b', 'c'].map((key) =>
      queue.run(key, async () => {
        started.push(key);
        await g.opened;
      }),
    );
    await settle();
    expect(started).toEqual(['a', 'b', 'c']);
    expect(['a', 'b', 'c'].map((key) => queue.busy(key))).toEqual([true, true, true]);
    g.open();
    await Promise.all(runs);
  });

  it('keeps going after a failing task, which rejects only its own run', async () => {
    const queue = createSessionQueue();
    const failing = queue.run('k', async () => {
      throw new Error('boom');
    });
    const next = queue.run('k', async () => 'next');
    await expect(failing).rejects.toThrow('boom');
    await expect(next).resolves.toBe('next');
    const synchronous = queue.run('k', (() => {
      throw new Error('sync');
    }) as () => Promise<void>);
    await expect(synchronous).rejects.toThrow('sync');
  });

  it('keeps nothing for idle keys, and is up to date when a run resolves', async () => {
    const queue = createSessionQueue();
    expect(queue.busy('k')).toBe(false);
    expect(queue.size('k')).toBe(0);
    const first = queue.run('k', async () => queue.size('k'));
    expect(queue.busy('k')).toBe(true);
    expect(await first).toBe(1);
    expect(queue.busy('k')).toBe(false);
    expect(queue.size('k')).toBe(0);
    await queue.run('k', async () => {
      throw new Error('x');
    }).catch(() => undefined);
    expect(queue.busy('k')).toBe(false);
  });

  it('drain waits for everything in flight, including tasks queued meanwhile', async () => {
    const queue = createSessionQueue();
    const g = gate();
    const done: string[] = [];
    void queue.run('a', async () => {
      await g.opened;
      done.push('a1');
      void queue.run('b', async () => {
        await settle();
        done.push('b1');
      });
    });
    void queue.run('a', async () => {
      done.push('a2');
    });
    void queue.run('c', async () => {
      throw new Error('failing tasks do not make drain reject');
    }).catch(() => undefined);
    let drained = false;
    const draining = queue.drain().then(() => (drained = true));
    await settle();
    expect(drained).toBe(false);
    g.open();
    await draining;
    expect(done).toEqual(['a1', 'a2', 'b1']);
    expect(['a', 'b', 'c'].some((key) => queue.busy(key))).toBe(false);
  });

  it('drain resolves at once when idle', async () => {
    await expect(createSessionQueue().drain()).resolves.toBeUndefined();
  });

  it('runs at most maxRunning tasks at once; the others start in arrival order as slots free up', async () => {
    const queue = createSessionQueue({ maxRunning: 2 });
    const gates = new Map(['a', 'b', 'c', 'd', 'a2'].map((name) => [name, gate()]));
    const started: string[] = [];
    const task = (name: string) => async () => {
      started.push(name);
      await gates.get(name)!.opened;
      return name;
    };
    const runs = [queue.run('a', task('a')), queue.run('b', task('b')), queue.run('c', task('c')), queue.run('a', task('a2')), queue.run('d', task('d'))];
    await settle();
    expect(started).toEqual(['a', 'b']);
    // c and d wait for a slot; a2 waits behind a in its own lane.
    expect([queue.running, queue.waiting]).toEqual([2, 2]);
    // Pending counts a2 too: every task not settled.
    expect(queue.pending).toBe(5);
    expect(queue.busy('c')).toBe(true);
    gates.get('b')!.open();
    await settle();
    expect(started).toEqual(['a', 'b', 'c']);
    expect([queue.running, queue.waiting]).toEqual([2, 1]);
    expect(queue.pending).toBe(4);
    // When a ends, its slot goes to d, which asked before a2 could.
    gates.get('a')!.open();
    await settle();
    expect(started).toEqual(['a', 'b', 'c', 'd']);
    expect([queue.running, queue.waiting]).toEqual([2, 1]);
    for (const g of gates.values()) g.open();
    expect(await Promise.all(runs)).toEqual(['a', 'b', 'c', 'a2', 'd']);
    expect(started).toEqual(['a', 'b', 'c', 'd', 'a2']);
    expect([queue.running, queue.waiting, queue.pending]).toEqual([0, 0, 0]);
  });

  it('caps the tasks of one group, and a capped group never holds back the tasks of another', async () => {
    const queue = createSessionQueue({ maxRunning: 4, maxRunningPerGroup: 3 });
    const gates = new Map(['h1', 'h2', 'h3', 'h4', 'h5', 'o1', 'o2'].map((name) => [name, gate()]));
    const started: string[] = [];
    const task = (name: string) => async () => {
      started.push(name);
      await gates.get(name)!.opened;
      return name;
    };
    // Five turns of conversations on a hanging provider, then two of another provider.
    const hung = ['h1', 'h2', 'h3', 'h4', 'h5'].map((name) => queue.run(name, task(name), { group: 'hanging' }));
    const others = ['o1', 'o2'].map((name) => queue.run(name, task(name), { group: 'other' }));
    await settle();
    // Three of the hanging provider's (its cap), and the fourth slot goes to the other provider,
    // although h4 and h5 asked before it.
    expect(started).toEqual(['h1', 'h2', 'h3', 'o1']);
    expect([queue.running, queue.waiting]).toEqual([4, 3]);
    gates.get('o1')!.open();
    await settle();
    // The freed slot goes to o2 (h4 is at its group's cap).
    expect(started).toEqual(['h1', 'h2', 'h3', 'o1', 'o2']);
    gates.get('h1')!.open();
    gates.get('o2')!.open();
    await settle();
    // Now the oldest waiting task of a group under its cap: h4; then h5 once there is room.
    expect(started).toEqual(['h1', 'h2', 'h3', 'o1', 'o2', 'h4']);
    for (const g of gates.values()) g.open();
    await Promise.all([...hung, ...others]);
    expect(started.at(-1)).toBe('h5');
    expect([queue.running, queue.waiting]).toEqual([0, 0]);
  });

  it('keeps back an eighth of the slots (at least one) from any one group by default', async () => {
    const queue = createSessionQueue({ maxRunning: 16 });
    const gate1 = gate();
    const runs = Array.from({ length: 20 }, (_, index) => queue.run(`k${index}`, () => gate1.opened, { group: 'one' }));
    await settle();
    expect(queue.running).toBe(14);
    const other = queue.run('other', async () => 'served', { group: 'two' });
    await expect(other).resolves.toBe('served');
    gate1.open();
    await Promise.all(runs);
  });

  it('never lets a long line of one group hold back a later task of another (no head-of-line blocking)', async () => {
    const queue = createSessionQueue({ maxRunning: 4, maxRunningPerGroup: 3 });
    const hang = gate();
    const hung = Array.from({ length: 100 }, (_, index) => queue.run(`hung${index}`, () => hang.opened, { group: 'hanging' }));
    await settle();
    expect([queue.running, queue.waiting]).toEqual([3, 97]);
    // One after another, conversations of the other provider are served by the slot kept back,
    // while all 97 waiting turns of the hanging provider asked first and none of them ended.
    for (let index = 0; index < 5; index++) {
      await expect(queue.run(`other${index}`, async () => `served ${index}`, { group: 'healthy' })).resolves.toBe(`served ${index}`);
    }
    expect([queue.running, queue.waiting]).toEqual([3, 97]);
    hang.open();
    await Promise.all(hung);
    expect([queue.running, queue.waiting]).toEqual([0, 0]);
  });

  it('keeps the tasks of one key in order when their groups differ (the conversation changed its model)', async () => {
    const queue = createSessionQueue({ maxRunning: 4, maxRunningPerGroup: 1 });
    const first = gate();
    const started: string[] = [];
    const runs = [
      queue.run('k', async () => {
        started.push('k/a');
        await first.opened;
      }, { group: 'a' }),
      queue.run('k', async () => void started.push('k/b'), { group: 'b' }),
    ];
    await settle();
    // Group b has room, but the key's earlier task still runs.
    expect(started).toEqual(['k/a']);
    first.open();
    await Promise.all(runs);
    expect(started).toEqual(['k/a', 'k/b']);
  });

  it('does not cap tasks without a group, and lets a group use every slot when its cap allows', async () => {
    const queue = createSessionQueue({ maxRunning: 4 });
    const g = gate();
    const ungrouped = Array.from({ length: 4 }, (_, index) => queue.run(`u${index}`, () => g.opened));
    await settle();
    expect(queue.running).toBe(4);
    g.open();
    await Promise.all(ungrouped);
    const uncapped = createSessionQueue({ maxRunning: 4, maxRunningPerGroup: 4 });
    const h = gate();
    const all = Array.from({ length: 4 }, (_, index) => uncapped.run(`p${index}`, () => h.opened, { group: 'one' }));
    await settle();
    expect(uncapped.running).toBe(4);
    h.open();
    await Promise.all(all);
  });

  it('keeps at least one slot back from any group by default once there are two', () => {
    expect([1, 2, 4, 8, 16, 64, 100].map(defaultMaxRunningPerGroup)).toEqual([1, 1, 3, 7, 14, 56, 88]);
    expect(defaultMaxRunningPerGroup(Infinity)).toBe(Infinity);
    expect(() => createSessionQueue({ maxRunning: 4, maxRunningPerGroup: 0 })).toThrow(RangeError);
  });

  it('frees the slot of a task that throws', async () => {
    const queue = createSessionQueue({ maxRunning: 1 });
    await expect(queue.run('a', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(queue.run('b', async () => 'ran')).resolves.toBe('ran');
    expect(queue.running).toBe(0);
  });

  it('refuses a limit below one', () => {
    expect(() => createSessionQueue({ maxRunning: 0 })).toThrow(RangeError);
  });
});
