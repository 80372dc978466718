/**
 * What one parent's children share, in one place: their failures and calls (`WorkerState`), their
 * reference pool (`ReferencePool`) and where both are kept (`SharedStateStore`). It gives each
 * child its guardrail (recording its calls and failures, warning of a loop) and its ephemeral
 * failure note, gives the parent and each child their view of the pool, and forgets the failures
 * when the parent's answer ends and everything on `/new`. A failing store costs the state after a
 * restart, never the work.
 */
import { shorten } from '../../core/shorten.ts';
import type { Message } from '../../llm/types.ts';
import type { Store } from '../../store/store.ts';
import { fenceReferences, ReferencePool } from '../../tools/agents/reference-pool.ts';
import type { ReferenceAccess } from '../../tools/agents/subagent-control.ts';
import type { Guardrail } from '../guardrail.ts';
import { SharedStateStore } from './shared-state-store.ts';
import { WorkerState } from './worker-state.ts';

/** The shared work of one parent's children. */
export class SharedWork {
  readonly workers = new WorkerState();
  readonly #references = new ReferencePool();
  readonly #stored: SharedStateStore;
  /** Reads what was stored before any use that needs it (the children's registry loads it once). */
  readonly #ready: () => Promise<void>;

  /** `parent` is the parent's session key as one store key segment; `ready` resolves once {@link load} ran. */
  constructor(store: Store, parent: string, ready: () => Promise<void>) {
    this.#stored = new SharedStateStore(store, parent, this.workers, this.#references);
    this.#ready = ready;
  }

  /** Reads the stored state (once, by the registry's load). */
  load(): Promise<void> {
    return this.#stored.load();
  }

  /** Records the child's calls and failures in the shared state; warns the model of a loop. */
  guardrail(id: string): Guardrail {
    return {
      name: 'subagent-shared-state',
      afterCall: (call, result) => {
        if (result.isError) {
          const error = result.content.map((part) => (part.type === 'text' ? part.text : '')).join(' ');
          this.workers.recordFailure(id, call.name, call.arguments, error);
        }
        const warning = this.workers.recordCall(id, call.name, call.arguments);
        void this.save();
        return warning ? { action: 'warn', reason: warning } : undefined;
      },
    };
  }

  /** The siblings' failures, as a message for the child's next model call alone. */
  ephemeral(id: string): Message[] {
    const note = this.workers.failureNote(id);
    return note ? [{ role: 'user', content: [{ type: 'text', text: note }], timestamp: Date.now() }] : [];
  }

  /** A child that failed as a whole (its model refused it, its budget ran out): an insight for its siblings too. */
  async childFailed(id: string, task: string, why: string): Promise<void> {
    this.workers.recordFailure(id, 'its whole task', task, why);
    await this.save();
  }

  /**
   * The reference pool as `writer` reaches it: `parent` for the parent's own turns, a child's id
   * for that child's. References are kept across the parent's turns and a restart, forgotten on `/new`.
   */
  referencesFor(writer: string): ReferenceAccess {
    return {
      add: async (entries) => {
        await this.#ready();
        const added = this.#references.add(writer, entries);
        await this.save();
        return `Saved ${added.length === 1 ? 'reference' : 'references'} ${added.map((reference) => reference.id).join(', ')}; the other subagents of this task and their parent find ${added.length === 1 ? 'it' : 'them'} with search_references.`;
      },
      search: async (query, limit) => {
        await this.#ready();
        const found = this.#references.search(query, limit);
        if (found.length === 0) return `No reference matches "${shorten(query, 100)}" (${this.#references.size} saved).`;
        return fenceReferences(found);
      },
    };
  }

  /** The parent's answer ended: the failures and calls are forgotten (the references stay). */
  async turnEnded(): Promise<void> {
    this.workers.clear();
    await this.save();
  }

  /** `/new`: everything is forgotten. */
  async forget(): Promise<void> {
    this.workers.clear();
    this.#references.clear();
    await this.save();
  }

  /** Stores the state as it is now; a failing store is swallowed (see the module's comment). */
  async save(): Promise<void> {
    await this.#stored.save().catch(() => undefined);
  }
}
