/**
 * What one parent's children share while they work: their failures (so one child does not repeat
 * what another found broken) and the calls they make (so a call repeated across children, the
 * sign of a cause none of them can fix alone, is noticed). Bounded; kept for the parent's turn,
 * in the store too (see `shared-state-store.ts`), so a restart in the middle of it loses neither.
 */
import { shorten } from '../../core/shorten.ts';
import { toolCallFingerprint } from '../loop-detector.ts';

/** One failed tool call of a child. */
export interface WorkerFailure {
  worker: string;
  tool: string;
  /** The call's arguments, shortened. */
  args: string;
  error: string;
}

/** Limits of {@link WorkerState}. */
export interface WorkerStateLimits {
  /** Failures kept per child. */
  failuresPerWorker: number;
  /** Failures offered to a child at once. */
  failuresOffered: number;
  /** The same call this many times in a row within one child is a loop. */
  localRepeats: number;
  /** The same call this many times across the children is a loop. */
  globalRepeats: number;
}

/** Defaults: 50 failures kept per child, 10 offered; loops at 3 in a row and 10 in all. */
export const defaultWorkerStateLimits: WorkerStateLimits = { failuresPerWorker: 50, failuresOffered: 10, localRepeats: 3, globalRepeats: 10 };

/** What is stored of a {@link WorkerState}. */
export interface StoredWorkerState {
  failures: WorkerFailure[];
  /** Each child's latest call fingerprints. */
  recent: [string, string[]][];
  /** How often each fingerprint was called across the children, least recently called first. */
  counts: [string, number][];
}

/** Calls whose fingerprints are counted across the children; older ones are forgotten. */
const fingerprintsKept = 2_000;

/** The shared state of one parent's children. */
export class WorkerState {
  readonly limits: WorkerStateLimits;
  #failures: WorkerFailure[] = [];
  #recent = new Map<string, string[]>();
  #counts = new Map<string, number>();

  constructor(limits: Partial<WorkerStateLimits> = {}) {
    this.limits = { ...defaultWorkerStateLimits, ...limits };
  }

  /** Records a failed call of `worker` (its oldest failure is dropped past the limit). */
  recordFailure(worker: string, tool: string, args: unknown, error: string): void {
    this.#failures.push({ worker, tool, args: shorten(JSON.stringify(args) ?? '', 200), error: shorten(error.replace(/\s+/g, ' ').trim(), 300) });
    const own = this.#failures.filter((failure) => failure.worker === worker);
    if (own.length > this.limits.failuresPerWorker) this.#failures.splice(this.#failures.indexOf(own[0]!), 1);
  }

  /** The other children's latest failures, as a note for `worker`'s next model call; undefined when there are none. */
  failureNote(worker: string): string | undefined {
    const others = this.#failures.filter((failure) => failure.worker !== worker).slice(-this.limits.failuresOffered);
    if (others.length === 0) return undefined;
    return [
      '[Failures the other subagents of this task met; do not repeat them, and work around what they show is broken:]',
      ...others.map((failure) => `- ${failure.worker}: ${failure.tool} ${failure.args} -> ${failure.error}`),
    ].join('\n');
  }

  /**
   * Records a call of `worker`; returns a warning for the model when it completes a loop: the
   * same tool and arguments `localRepeats` times in a row in this child, or `globalRepeats` times
   * across the children.
   */
  recordCall(worker: string, tool: string, args: unknown): string | undefined {
    const fingerprint = toolCallFingerprint(tool, args);
    const recent = this.#recent.get(worker) ?? [];
    recent.push(fingerprint);
    if (recent.length > this.limits.localRepeats) recent.shift();
    this.#recent.set(worker, recent);
    const count = (this.#counts.get(fingerprint) ?? 0) + 1;
    this.#counts.delete(fingerprint);
    this.#counts.set(fingerprint, count);
    if (this.#counts.size > fingerprintsKept) this.#counts.delete(this.#counts.keys().next().value!);
    if (count >= this.limits.globalRepeats) {
      return `The subagents have made this exact ${tool} call ${count} times between them. The cause is likely outside your reach (a service down, a missing file); stop retrying it and report what you found.`;
    }
    if (recent.length === this.limits.localRepeats && recent.every((entry) => entry === fingerprint)) {
      return `You have made this exact ${tool} call ${this.limits.localRepeats} times in a row with the same result. Change your approach, or finish and report what is blocking you.`;
    }
    return undefined;
  }

  snapshot(): StoredWorkerState {
    return { failures: this.#failures.map((failure) => ({ ...failure })), recent: [...this.#recent].map(([worker, calls]) => [worker, [...calls]]), counts: [...this.#counts] };
  }

  /** Takes in a stored state; a malformed one is ignored (the shared state is a help, never a reason to fail). */
  restore(stored: StoredWorkerState | undefined): void {
    if (!stored || !Array.isArray(stored.failures) || !Array.isArray(stored.recent) || !Array.isArray(stored.counts)) return;
    this.#failures = stored.failures.filter((failure) => typeof failure?.worker === 'string' && typeof failure.error === 'string');
    this.#recent = new Map(stored.recent.filter((entry) => Array.isArray(entry) && Array.isArray(entry[1])));
    this.#counts = new Map(stored.counts.filter((entry) => Array.isArray(entry) && typeof entry[1] === 'number').slice(-fingerprintsKept));
  }

  /** Forgets everything (a new turn of the parent). */
  clear(): void {
    this.#failures = [];
    this.#recent.clear();
    this.#counts.clear();
  }
}

