/**
 * A min-heap of `(time, job id)`: which job needs looking at next, so the scheduler arms one timer
 * for all jobs. Entries are never updated in place; a changed job gets a new entry, and the owner
 * drops entries that no longer match the job when they come out (lazy deletion).
 */

/** One entry: look at job `id` at `at` (milliseconds since the epoch). */
export interface DueEntry {
  at: number;
  id: string;
}

/** Entries by time, earliest first. */
export class DueQueue {
  private readonly heap: DueEntry[] = [];

  /** How many entries there are (stale ones included). */
  get size(): number {
    return this.heap.length;
  }

  /** The earliest entry, without removing it. */
  peek(): DueEntry | undefined {
    return this.heap[0];
  }

  push(at: number, id: string): void {
    const heap = this.heap;
    heap.push({ at, id });
    let index = heap.length - 1;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (heap[parent]!.at <= heap[index]!.at) break;
      [heap[parent], heap[index]] = [heap[index]!, heap[parent]!];
      index = parent;
    }
  }

  /** Removes and returns the earliest entry. */
  pop(): DueEntry | undefined {
    const heap = this.heap;
    const top = heap[0];
    const last = heap.pop();
    if (heap.length === 0 || last === undefined) return top;
    heap[0] = last;
    let index = 0;
    for (;;) {
      const left = index * 2 + 1;
      const right = left + 1;
      let smallest = index;
      if (left < heap.length && heap[left]!.at < heap[smallest]!.at) smallest = left;
      if (right < heap.length && heap[right]!.at < heap[smallest]!.at) smallest = right;
      if (smallest === index) return top;
      [heap[smallest], heap[index]] = [heap[index]!, heap[smallest]!];
      index = smallest;
    }
  }

  /** Drops every entry. */
  clear(): void {
    this.heap.length = 0;
  }
}
