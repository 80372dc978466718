/**
 * Where the shared state of one parent's children is kept: their failures and call counts
 * (`WorkerState`) and their reference pool (`ReferencePool`), under one store key per parent, so
 * a gateway restart in the middle of their work loses neither. Writes are coalesced: a change
 * made while one is being written is written once that one ends, with everything changed since.
 */
import type { Store } from '../../store/store.ts';
import type { ReferencePool, StoredReferences } from '../../tools/agents/reference-pool.ts';
import type { StoredWorkerState, WorkerState } from './worker-state.ts';

/** What is stored per parent. */
interface StoredShared {
  workers?: StoredWorkerState;
  references?: StoredReferences;
}

/** The stored shared state of one parent's children. */
export class SharedStateStore {
  readonly #store: Store;
  readonly #key: string;
  readonly #workers: WorkerState;
  readonly #references: ReferencePool;
  #writing: Promise<void> | undefined;
  #again = false;

  /** `parent` is the parent's session key as one store key segment. */
  constructor(store: Store, parent: string, workers: WorkerState, references: ReferencePool) {
    this.#store = store;
    this.#key = `subagents-shared:${parent}`;
    this.#workers = workers;
    this.#references = references;
  }

  /** Reads the stored state into the live ones. */
  async load(): Promise<void> {
    const stored = await this.#store.get<StoredShared>(this.#key);
    if (!stored || typeof stored !== 'object') return;
    this.#workers.restore(stored.workers);
    this.#references.restore(stored.references);
  }

  /** Writes the state as it is now (after a write under way); resolves once it is written. Rejects when the store fails. */
  save(): Promise<void> {
    if (this.#writing) {
      this.#again = true;
      return this.#writing;
    }
    const write = (async () => {
      try {
        do {
          this.#again = false;
          await this.#store.set(this.#key, { workers: this.#workers.snapshot(), references: this.#references.snapshot() } satisfies StoredShared);
        } while (this.#again);
      } finally {
        this.#writing = undefined;
      }
    })();
    this.#writing = write;
    return write;
  }
}
