/**
 * A pipeline run as kept in the store: the graph it runs (its DOT text, so a resumed run follows
 * the graph it began with even if the file changed since), where it stands (the node to run next,
 * whether that node had begun), what finished, the retries, the context and its log. Written after
 * every node (a checkpoint), so a run survives a restart of the gateway and goes on from there.
 */
import { randomBytes } from 'node:crypto';
import type { Store } from '../../store/store.ts';
import type { OutcomeStatus } from '../types.ts';
import type { ContextLogEntry } from './pipeline-context.ts';

/** Where a run stands. `waiting`: a gate waits for a person's answer. */
export type RunStatus = 'running' | 'waiting' | 'finished' | 'failed' | 'stopped';

/** One run as stored. */
export interface RunRecord {
  id: string;
  /** The pipeline's name (its DOT graph's). */
  pipeline: string;
  /** The DOT text it runs. */
  source: string;
  /** Where the DOT text was read from, for messages. */
  file?: string;
  status: RunStatus;
  /** The node to run next, or the one running (see `nodeBegun`). */
  currentNode: string;
  /** The current node had begun when this was written: after a restart it runs again under its retry policy. */
  nodeBegun: boolean;
  completedNodes: string[];
  nodeOutcomes: Record<string, OutcomeStatus>;
  /** Attempts of the current visit per node (for `max_retries`). */
  nodeRetries: Record<string, number>;
  /** Visits per node (for `max_visits`); forgotten with the completed nodes on a `loop_restart` edge. */
  nodeVisits?: Record<string, number>;
  /** Nodes run so far (for `max_steps`). */
  steps: number;
  context: { data: Record<string, unknown>; logs: ContextLogEntry[] };
  /** Who and where started it (a conversation, the terminal): opaque to the engine. */
  origin?: Record<string, unknown>;
  startedAt: number;
  updatedAt: number;
  endedAt?: number;
  /** Why it failed or stopped. */
  error?: string;
}

/** The store key prefix of runs. */
const prefix = 'pipeline-runs:';
/**
 * Where a run's DOT text is kept: apart from the record, written once, so that each checkpoint
 * writes only what changes.
 */
const sourcePrefix = 'pipeline-sources:';

/** A new run id: short, unique enough to type (`/run resume 7f3a9c`). */
export function newRunId(): string {
  return randomBytes(3).toString('hex');
}

/** The runs in the store. */
export class RunStore {
  readonly #store: Store;

  constructor(store: Store) {
    this.#store = store;
  }

  /** Stores a new run: its DOT text, then the record. */
  async create(record: RunRecord): Promise<void> {
    await this.#store.set(`${sourcePrefix}${record.id}`, { source: record.source, file: record.file });
    await this.save(record);
  }

  /** Writes `record` (its `updatedAt` set now) without its DOT text: the checkpoint. */
  async save(record: RunRecord): Promise<void> {
    record.updatedAt = Date.now();
    const { source: _source, ...changing } = record;
    await this.#store.set(`${prefix}${record.id}`, changing);
  }

  /** The run `id` with its DOT text, or undefined. */
  async load(id: string): Promise<RunRecord | undefined> {
    if (!/^[0-9a-f]{1,32}$/.test(id)) return undefined;
    const [record, source] = await Promise.all([this.#store.get<Omit<RunRecord, 'source'>>(`${prefix}${id}`), this.#store.get<{ source: string }>(`${sourcePrefix}${id}`)]);
    return record ? { ...record, source: source?.source ?? '' } : undefined;
  }

  /** Every run (without its DOT text), the most recently updated first. */
  async list(): Promise<Omit<RunRecord, 'source'>[]> {
    const keys = await this.#store.list(prefix);
    const runs = await Promise.all(keys.map((key) => this.#store.get<Omit<RunRecord, 'source'>>(key)));
    return runs.filter((run): run is Omit<RunRecord, 'source'> => run !== null && typeof run === 'object' && typeof run.id === 'string').sort((a, b) => b.updatedAt - a.updatedAt);
  }
}
