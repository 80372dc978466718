/**
 * What is kept of an agent's children in the store: one record per child (its task, session,
 * state, spend), so `/status` lists them after a restart, a restart marks the ones that were
 * working as interrupted, and their spend stays charged to the conversation.
 */
import { addCost, emptyCost, type Cost } from '../../llm/cost.ts';
import { addUsage, emptyUsage, type Usage } from '../../llm/types.ts';
import type { Store } from '../../store/store.ts';
import type { TurnSeat } from '../../tools/turn-seat.ts';

/** Where a child stands. */
export type SubagentStatus = 'running' | 'done' | 'failed' | 'stopped' | 'over-budget' | 'interrupted';

/** One child as kept. */
export interface SubagentRecord {
  id: string;
  /** The task's first line, shortened. */
  task: string;
  /** Its own session. */
  sessionKey: string;
  model: string;
  status: SubagentStatus;
  /** Closed children are no longer addressable; their records stay for `/status`. */
  closed: boolean;
  startedAt: number;
  endedAt?: number;
  toolCalls: number;
  usage: Usage;
  cost: number;
  /** Why it failed or stopped. */
  error?: string;
  /**
   * The seat of the turn that started it, where a gateway decides seats: a later turn gives it work
   * only from a seat within this one (absent on records from before seats were kept: the least seat).
   */
  seat?: TurnSeat;
}

/** What is stored per parent. */
interface StoredChildren {
  records: SubagentRecord[];
  /** Everything the parent's children ever spent, dropped records included. */
  spent: { children: number; usage: Usage; cost: Cost };
}

/** Records kept per parent; older closed ones are dropped (their spend stays in the totals). */
const recordsKept = 50;

/** The stored children of one parent agent. */
export class SubagentRecords {
  readonly #store: Store;
  readonly #key: string;
  #data: StoredChildren = { records: [], spent: { children: 0, usage: emptyUsage(), cost: emptyCost() } };
  #loading: Promise<void> | undefined;
  #saving: Promise<void> = Promise.resolve();

  /** `parent` is the parent's session key as one store key segment. */
  constructor(store: Store, parent: string) {
    this.#store = store;
    this.#key = `subagents:${parent}`;
  }

  /**
   * Reads the records once. Children stored as running belong to a process that is gone: they
   * are marked interrupted (and stored so).
   */
  load(): Promise<void> {
    this.#loading ??= (async () => {
      const stored = await this.#store.get<StoredChildren>(this.#key);
      if (!stored || !Array.isArray(stored.records)) return;
      this.#data = stored;
      const orphans = stored.records.filter((record) => record.status === 'running');
      for (const record of orphans) Object.assign(record, { status: 'interrupted', endedAt: Date.now(), error: 'operator restarted while it worked' });
      if (orphans.length > 0) await this.save();
    })();
    this.#loading.catch(() => (this.#loading = undefined));
    return this.#loading;
  }

  /** Every kept record, oldest first (after {@link load}). */
  get records(): readonly SubagentRecord[] {
    return this.#data.records;
  }

  /** What all children ever spent. */
  get spent(): StoredChildren['spent'] {
    return this.#data.spent;
  }

  /** Adds a new child. */
  add(record: SubagentRecord): void {
    this.#data.records.push(record);
    this.#data.spent.children++;
    const closed = this.#data.records.filter((entry) => entry.closed);
    const excess = this.#data.records.length - recordsKept;
    for (const old of closed.slice(0, Math.max(0, excess))) this.#data.records.splice(this.#data.records.indexOf(old), 1);
  }

  /** Charges one model call of a child. */
  charge(record: SubagentRecord, usage: Usage, cost: Cost): void {
    record.usage = addUsage(record.usage, usage);
    record.cost += cost.total;
    this.#data.spent.usage = addUsage(this.#data.spent.usage, usage);
    this.#data.spent.cost = addCost(this.#data.spent.cost, cost);
  }

  /** Stores the records as they are now (writes one after another; a failure is the caller's to report). */
  save(): Promise<void> {
    const snapshot = structuredClone(this.#data);
    const write = this.#saving.then(() => this.#store.set(this.#key, snapshot));
    this.#saving = write.catch(() => undefined);
    return write;
  }
}
