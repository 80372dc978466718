/**
 * The gateway's latest events, kept from the start so the console's live feed opens with what
 * just happened rather than an empty page. A fixed-size ring: memory stays the same however long
 * the gateway runs.
 */
import type { OpsEvents, OpsRecord } from '../ops/ops-events.ts';

/** The last `size` events of a stream. */
export class RecentEvents {
  readonly #size: number;
  readonly #ring: OpsRecord[] = [];
  #next = 0;

  constructor(size = 200) {
    this.#size = size;
  }

  /** Keeps the events of `ops` from now on; returns the unsubscription. */
  attach(ops: OpsEvents): () => void {
    return ops.subscribe((record) => this.add(record));
  }

  add(record: OpsRecord): void {
    if (this.#ring.length < this.#size) this.#ring.push(record);
    else this.#ring[this.#next] = record;
    this.#next = (this.#next + 1) % this.#size;
  }

  /** The events kept, oldest first. */
  list(): OpsRecord[] {
    return this.#ring.length < this.#size ? [...this.#ring] : [...this.#ring.slice(this.#next), ...this.#ring.slice(0, this.#next)];
  }
}
