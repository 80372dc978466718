/**
 * One turn at a time per conversation: tasks of one session key run strictly in order, tasks of
 * different keys in parallel. Idle keys keep no memory, so a million quiet conversations cost
 * nothing here.
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
export function createSessionQueue(): SessionQueue {
  const lanes = new Map<string, Lane>();

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
        .then(() => task())
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
  };
}
