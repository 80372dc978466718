/**
 * One turn at a time per conversation: tasks of one session key run strictly in order, tasks of
 * different keys in parallel, at most `maxRunning` at once (the rest wait their turn in arrival
 * order). Idle keys keep no memory, so a million quiet conversations cost nothing here.
 */

/** A per-key serial queue. */
export interface SessionQueue {
  /** Runs `task` after every earlier task of `key` has settled; resolves or rejects as it does. */
  run<T>(key: string, task: () => Promise<T>): Promise<T>;
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
}

/** Options of {@link createSessionQueue}. */
export interface SessionQueueOptions {
  /**
   * Most tasks running at once across all keys (default: no limit). A burst of messages then
   * costs a queued callback each instead of a turn in flight each, which bounds the memory and
   * the connections a burst takes, and the calls it makes at once to the model provider.
   */
  maxRunning?: number;
}

interface Lane {
  /** Settles when the lane's last task has settled; never rejects. */
  tail: Promise<void>;
  size: number;
}

/**
 * Creates a {@link SessionQueue}. A task that throws rejects its own `run` only; the next task of
 * the key still runs.
 *
 * @example
 * const queue = createSessionQueue();
 * await queue.run(message.sessionKey, () => agent.invoke(text));
 */
export function createSessionQueue(options: SessionQueueOptions = {}): SessionQueue {
  const lanes = new Map<string, Lane>();
  const maxRunning = options.maxRunning ?? Infinity;
  if (!(maxRunning >= 1)) throw new RangeError(`maxRunning must be at least 1, got ${maxRunning}`);
  let running = 0;
  /** Starts of tasks waiting for a slot, oldest first; `head` skips those already started. */
  let waiting: (() => void)[] = [];
  let head = 0;

  /** Resolves once a running slot is this caller's. */
  const acquire = (): Promise<void> | undefined => {
    if (running < maxRunning) {
      running++;
      return undefined;
    }
    return new Promise((resolve) => waiting.push(resolve));
  };
  /** Hands the slot to the oldest waiter, or frees it. */
  const release = () => {
    if (head < waiting.length) {
      const next = waiting[head]!;
      waiting[head++] = noop;
      if (head > 1024 && head * 2 > waiting.length) {
        waiting = waiting.slice(head);
        head = 0;
      }
      next();
    } else {
      running--;
    }
  };
  const runInSlot = async <T>(task: () => Promise<T>): Promise<T> => {
    await acquire();
    try {
      return await task();
    } finally {
      release();
    }
  };

  return {
    run<T>(key: string, task: () => Promise<T>): Promise<T> {
      let lane = lanes.get(key);
      if (!lane) {
        lane = { tail: Promise.resolve(), size: 0 };
        lanes.set(key, lane);
      }
      const current = lane;
      current.size++;
      // Counted down before the caller sees the outcome: after `await run()`, size() is current.
      const finish = () => {
        current.size--;
        if (current.size === 0 && lanes.get(key) === current) lanes.delete(key);
      };
      const outcome = current.tail
        .then(() => runInSlot(task))
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
      return waiting.length - head;
    },
  };
}

function noop(): void {}
