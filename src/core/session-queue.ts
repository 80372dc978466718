/**
 * One turn at a time per conversation: tasks of one session key run strictly in order, tasks of
 * different keys in parallel, at most `maxRunning` at once (the rest wait their turn in arrival
 * order), and at most `maxRunningPerGroup` of one group (a model provider), so turns hanging on
 * one provider never take every slot. Idle keys keep no memory, so a million quiet conversations
 * cost nothing here; each operation costs a constant, times the number of groups when a slot is
 * handed on (the providers: a handful).
 *
 * A task waiting on I/O may step out of its slot (it is handed the slot, see `task-slot.ts`: a
 * model call given it does, while the provider is silent), so turns hanging on a provider hold no
 * slot at all; at most `maxAway` tasks are out at once, which bounds what they hold in memory, and
 * one coming back goes first.
 */
import type { SlotAbsence, TaskSlot } from './task-slot.ts';

/** A per-key serial queue. */
export interface SessionQueue {
  /**
   * Runs `task` after every earlier task of `key` has settled; resolves or rejects as it does.
   * The task is handed its slot, to step out of while it waits on I/O (see `task-slot.ts`).
   */
  run<T>(key: string, task: (slot: TaskSlot) => Promise<T>, options?: RunOptions): Promise<T>;
  /** A task of `key` is running or waiting. */
  busy(key: string): boolean;
  /** Tasks of `key` running or waiting (0 when idle). */
  size(key: string): number;
  /** Resolves when every task in flight (including ones queued meanwhile) has settled. */
  drain(): Promise<void>;
  /** Tasks running now (at most `maxRunning`). */
  readonly running: number;
  /** Tasks whose key is free but that wait for a running slot. */
  readonly waiting: number;
  /** Tasks stepped out of their slot to wait on I/O (at most `maxAway`), or waiting to step back in. */
  readonly away: number;
  /** Every task not yet settled, across all keys: running, waiting for a slot or behind its key's earlier tasks. */
  readonly pending: number;
}

/** Options of {@link createSessionQueue}. */
export interface SessionQueueOptions {
  /**
   * Most tasks running at once across all keys (default: no limit). A burst of messages then
   * costs a queued callback each instead of a turn in flight each, which bounds the memory and
   * the connections a burst takes, and the calls it makes at once to the model provider.
   */
  maxRunning?: number;
  /**
   * Most tasks of one group (a model provider) running at once (default
   * {@link defaultMaxRunningPerGroup}: `maxRunning` less an eighth of it, at least one slot kept
   * back, 56 of 64, 3 of 4). Turns waiting on a provider that hangs then hold at most this many
   * slots; the rest keep serving conversations of other providers. Tasks without a group are not
   * counted against any. A value of `maxRunning` or more caps nothing.
   */
  maxRunningPerGroup?: number;
  /**
   * Most tasks stepped out of their slot at once, waiting on I/O (default: no limit). Such a task
   * keeps its memory (a turn: its conversation, its request) while it holds no slot, so this is
   * what bounds the memory of turns waiting on a provider that hangs; past it a task cannot step
   * out (its model call fails at once with a clear message, see `run-provider-stream.ts`).
   */
  maxAway?: number;
}

/**
 * The default share of one group: `maxRunning` less an eighth of it, and at least one slot kept
 * back for other groups whenever there are two slots or more (1 of 1, 1 of 2, 3 of 4, 7 of 8,
 * 56 of 64). An eighth keeps nearly all the capacity for a deployment whose conversations mostly
 * use one provider, while a provider that hangs still leaves a few slots to the others.
 */
export function defaultMaxRunningPerGroup(maxRunning: number): number {
  if (maxRunning === Infinity) return Infinity;
  return Math.max(1, maxRunning - Math.max(1, Math.floor(maxRunning / 8)));
}

/** Options of one {@link SessionQueue.run}. */
export interface RunOptions {
  /** The group the task counts against (see {@link SessionQueueOptions.maxRunningPerGroup}). */
  group?: string;
}

interface Lane {
  /** Settles when the lane's last task has settled; never rejects. */
  tail: Promise<void>;
  size: number;
}

/** Tasks of one group waiting for a slot, oldest first; `head` skips those already started. */
interface Waiters {
  starts: { order: number; start: () => void }[];
  head: number;
  running: number;
}

/**
 * Creates a {@link SessionQueue}. A task that throws rejects its own `run` only; the next task of
 * the key still runs. A freed slot goes to the oldest waiting task whose group is under its cap:
 * a group at its cap never holds back the tasks of another.
 *
 * @example
 * const queue = createSessionQueue({ maxRunning: 64 });
 * await queue.run(message.sessionKey, (slot) => agent.invoke(text, { slot }), { group: 'anthropic' });
 */
export function createSessionQueue(options: SessionQueueOptions = {}): SessionQueue {
  const lanes = new Map<string, Lane>();
  const maxRunning = options.maxRunning ?? Infinity;
  if (!(maxRunning >= 1)) throw new RangeError(`maxRunning must be at least 1, got ${maxRunning}`);
  const perGroup = options.maxRunningPerGroup ?? defaultMaxRunningPerGroup(maxRunning);
  if (!(perGroup >= 1)) throw new RangeError(`maxRunningPerGroup must be at least 1, got ${perGroup}`);
  const maxAway = options.maxAway ?? Infinity;
  if (!(maxAway >= 0)) throw new RangeError(`maxAway must be at least 0, got ${maxAway}`);
  let running = 0;
  let away = 0;
  /** Tasks stepping back into a slot after a wait on I/O, oldest first: they go before any other. */
  const returning: { name: string; start: () => void }[] = [];
  let waitingCount = 0;
  let pending = 0;
  let order = 0;
  /** Per group: its running count and its waiting tasks (groups are few: the providers). */
  const groups = new Map<string, Waiters>();

  const groupOf = (name: string): Waiters => {
    let group = groups.get(name);
    if (!group) {
      group = { starts: [], head: 0, running: 0 };
      groups.set(name, group);
    }
    return group;
  };
  /** Resolves once a running slot is this caller's. */
  const acquire = (name: string): Promise<void> | undefined => {
    const group = groupOf(name);
    if (running < maxRunning && (name === '' || group.running < perGroup)) {
      running++;
      group.running++;
      return undefined;
    }
    waitingCount++;
    return new Promise((resolve) => group.starts.push({ order: order++, start: resolve }));
  };
  /** Starts the oldest waiting task whose group has room, while there is a free slot. */
  const startWaiting = () => {
    while (running < maxRunning && returning.length > 0) {
      const { name, start } = returning.shift()!;
      running++;
      groupOf(name).running++;
      start();
    }
    while (running < maxRunning && waitingCount > 0) {
      let chosen: Waiters | undefined;
      // The oldest head of a group with room: a group at its cap never holds back another.
      for (const [name, group] of groups) {
        if (group.head >= group.starts.length || (name !== '' && group.running >= perGroup)) continue;
        if (!chosen || group.starts[group.head]!.order < chosen.starts[chosen.head]!.order) chosen = group;
      }
      if (!chosen) return;
      const { start } = chosen.starts[chosen.head]!;
      chosen.head++;
      if (chosen.head > 1024 && chosen.head * 2 > chosen.starts.length) {
        chosen.starts = chosen.starts.slice(chosen.head);
        chosen.head = 0;
      }
      waitingCount--;
      running++;
      chosen.running++;
      start();
    }
  };
  /** Frees the slot and hands it on. */
  const release = (name: string) => {
    const group = groupOf(name);
    running--;
    group.running--;
    startWaiting();
    if (group.running === 0 && group.head >= group.starts.length) groups.delete(name);
  };
  /** A slot again for a task back from a wait on I/O: ahead of every task not yet begun. */
  const reacquire = (name: string): Promise<void> => {
    if (running < maxRunning) {
      running++;
      groupOf(name).running++;
      return Promise.resolve();
    }
    return new Promise((resolve) => returning.push({ name, start: resolve }));
  };
  const runInSlot = async <T>(task: (slot: TaskSlot) => Promise<T>, name: string): Promise<T> => {
    await acquire(name);
    let held = true;
    let ended = false;
    let coming: Promise<void> | undefined;
    const stayed: SlotAbsence = { back: () => Promise.resolve() };
    // With calls in parallel (subagents), the first to wait frees the slot and the first back takes it again.
    const slot: TaskSlot = {
      leave() {
        if (ended) return stayed;
        if (held && away >= maxAway) return 'full';
        if (held) {
          held = false;
          away++;
          release(name);
        }
        let returned = false;
        return {
          back() {
            if (returned || held || ended) return coming ?? Promise.resolve();
            returned = true;
            coming ??= reacquire(name).then(() => {
              held = true;
              away--;
              coming = undefined;
            });
            return coming;
          },
        };
      },
    };
    try {
      return await task(slot);
    } finally {
      ended = true;
      if (coming) await coming;
      if (held) release(name);
      else away--;
    }
  };

  return {
    run<T>(key: string, task: (slot: TaskSlot) => Promise<T>, runOptions: RunOptions = {}): Promise<T> {
      let lane = lanes.get(key);
      if (!lane) {
        lane = { tail: Promise.resolve(), size: 0 };
        lanes.set(key, lane);
      }
      const current = lane;
      current.size++;
      pending++;
      // Counted down before the caller sees the outcome: after `await run()`, size() is current.
      const finish = () => {
        current.size--;
        pending--;
        if (current.size === 0 && lanes.get(key) === current) lanes.delete(key);
      };
      const outcome = current.tail
        .then(() => runInSlot(task, runOptions.group ?? ''))
        .then(
          (value) => {
            finish();
            return value;
          },
          (error: unknown) => {
            finish();
            throw error;
          },
        );
      current.tail = outcome.then(
        () => undefined,
        () => undefined,
      );
      return outcome;
    },
    busy(key) {
      return lanes.has(key);
    },
    size(key) {
      return lanes.get(key)?.size ?? 0;
    },
    async drain() {
      while (lanes.size > 0) await Promise.all([...lanes.values()].map((lane) => lane.tail));
    },
    get running() {
      return running;
    },
    get waiting() {
      return waitingCount;
    },
    get away() {
      return away;
    },
    get pending() {
      return pending;
    },
  };
}

