/**
 * The run's context: one key-value blackboard every node reads and writes (the goal, each node's
 * answer, a test's output, a person's choice), plus a log of what happened. Plain JSON, so a
 * checkpoint holds it whole and a restart goes on with it.
 */
import type { ContextView } from '../types.ts';

/** One entry of the run's log. */
export interface ContextLogEntry {
  at: number;
  node?: string;
  event: string;
  detail?: string;
}

/** Most log entries kept (the oldest go first): a looping run must not grow without end. */
const maxLogEntries = 500;

/** The context of one run. */
export class PipelineContext implements ContextView {
  #data: Record<string, unknown>;
  #logs: ContextLogEntry[];

  constructor(data: Record<string, unknown> = {}, logs: ContextLogEntry[] = []) {
    this.#data = structuredClone(data);
    this.#logs = [...logs];
  }

  get(key: string): unknown {
    return this.#data[key];
  }

  /** The value as text: '' when missing, JSON for objects. */
  getString(key: string): string {
    return asText(this.#data[key]);
  }

  set(key: string, value: unknown): void {
    this.#data[key] = value;
  }

  has(key: string): boolean {
    return Object.hasOwn(this.#data, key);
  }

  delete(key: string): void {
    delete this.#data[key];
  }

  /** Merges `updates` in. */
  update(updates: Readonly<Record<string, unknown>>): void {
    for (const [key, value] of Object.entries(updates)) this.#data[key] = value;
  }

  /** A deep copy of the data. */
  snapshot(): Record<string, unknown> {
    return structuredClone(this.#data);
  }

  /** A deep copy of the whole context (a parallel branch works on one). */
  clone(): PipelineContext {
    return new PipelineContext(this.#data, this.#logs);
  }

  /** Takes a branch's context back: its keys that changed, as `prefix.key`. */
  mergeScope(scope: PipelineContext, prefix: string): void {
    for (const [key, value] of Object.entries(scope.snapshot())) {
      if (JSON.stringify(this.#data[key]) !== JSON.stringify(value)) this.#data[`${prefix}.${key}`] = value;
    }
  }

  appendLog(entry: Omit<ContextLogEntry, 'at'>): void {
    this.#logs.push({ at: Date.now(), ...entry });
    if (this.#logs.length > maxLogEntries) this.#logs.splice(0, this.#logs.length - maxLogEntries);
  }

  get logs(): readonly ContextLogEntry[] {
    return this.#logs;
  }

  /**
   * What a checkpoint stores: the data and log themselves, not copies (the store serializes them
   * as it writes; copying first would cost a run a deep copy of its whole context per node).
   */
  toJSON(): { data: Record<string, unknown>; logs: ContextLogEntry[] } {
    return { data: this.#data, logs: this.#logs };
  }

  /** A context from what {@link toJSON} gave. */
  static fromJSON(stored: { data?: Record<string, unknown>; logs?: ContextLogEntry[] }): PipelineContext {
    return new PipelineContext(stored.data ?? {}, stored.logs ?? []);
  }
}

/** `value` as text: '' for nothing, as is for a string, JSON otherwise. */
export function asText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/**
 * `template` with each `{key}` replaced by the context's value (`{context.key}` too). A key the
 * context does not hold yet reads as nothing, so a prompt can name what a later pass will have
 * (`{feedback.answer}` on the first pass through a plan). `{{` and `}}` write a brace.
 */
export function interpolate(template: string, context: ContextView): string {
  return template.replace(/\{\{|\}\}|\{([A-Za-z_][\w.-]*)\}/g, (whole, key: string | undefined) => {
    if (key === undefined) return whole[0]!;
    const name = key.startsWith('context.') ? key.slice('context.'.length) : key;
    return asText(context.get(name));
  });
}
