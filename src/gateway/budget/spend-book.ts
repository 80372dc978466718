/**
 * What has been spent, per scope and period, against caps: a model call reserves its worst case on
 * every line it counts for (a person's day, a conversation's day, the gateway's month, ...) and goes
 * out only if all of them fit; once answered, it settles at its real cost. The check and the
 * reservation happen together, with nothing awaited between them, so concurrent calls can never
 * overshoot a cap: each sees the others' reservations. Settled spend is kept in the store per UTC
 * day or month (`spend:<scope>:<period>`), so a restart keeps it and a new day starts at zero.
 * A capped line's new total is appended at each settle to its log (`spend-log:<period>:<scope>`:
 * one write on an open file, where setting the value costs a new file and a rename, about a third
 * of a millisecond a turn), and folded into the value every {@link compactEvery} settles; totals
 * only grow within a period, so the larger of the value and the log's last total is the spend;
 * reservations live in the process, and so does a run's spend (a job's run, a pipeline's: its
 * scope names the run). An admin's raise of a cap for a period is kept beside its spend
 * (`spend-raise:<scope>:<period>`) and counts as part of the cap.
 */
import { errorMessage } from '../../core/errors.ts';
import { KeyedMutex } from '../../store/keyed-mutex.ts';
import type { Store } from '../../store/store.ts';
import { keySegment } from '../dedupe.ts';

/** How many scope-period keys are kept in memory before past periods are dropped. */
const maxKeys = 20_000;

/** How many totals a line's log takes before they are folded into its value and the log emptied. */
export const compactEvery = 500;

/** One cap a call counts against. */
export interface SpendLine {
  /** What is capped, in words and as a key: `person telegram:7`, `conversation telegram:group:-100`, `gateway`. */
  scope: string;
  /** A UTC day, a UTC month, or one run (of a job or a pipeline; its scope names the run). */
  period: SpendPeriod;
  /** US dollars. */
  cap: number;
}

/** What a cap counts over. */
export type SpendPeriod = 'day' | 'month' | 'run';

/** A cap that would be passed, and where it stands. */
export interface SpendRefusal {
  /** The line that would be passed, its cap raised by what admins allowed this period. */
  line: SpendLine;
  /** Settled spend in the period, dollars. */
  spent: number;
  /** Reserved by calls in flight, dollars. */
  reserved: number;
}

/** A reservation: settle it at the real cost (0 when the call failed). */
export interface SpendHold {
  settle(actual: number): void;
}

/** The period a line counts in at `now`: `2026-11-30`, `2026-11`, or `run` (the scope names the run). */
export function periodOf(period: SpendPeriod, now: Date): string {
  if (period === 'run') return 'run';
  const iso = now.toISOString();
  return period === 'day' ? iso.slice(0, 10) : iso.slice(0, 7);
}

/** Spend per scope and period, over the store. */
export class SpendBook {
  readonly #store: Pick<Store, 'get' | 'set' | 'append' | 'readLog' | 'deleteLog'>;
  readonly #now: () => Date;
  readonly #log: (line: string) => void;
  /** Settled spend by store key, as read or written by this process. */
  readonly #spent = new Map<string, number>();
  readonly #reserved = new Map<string, number>();
  /** What admins added to a cap this period, by the same key. */
  readonly #raised = new Map<string, number>();
  /** Counts without a cap settled since they were last written. */
  readonly #unwritten = new Set<string>();
  readonly #countEveryMs: number;
  #countTimer: ReturnType<typeof setTimeout> | undefined;
  /** Whether capped totals go to logs (see the file's comment); else each is set as the value. */
  readonly #logs: boolean;
  /** Totals in each line's log since it was last folded, by store key. */
  readonly #logged = new Map<string, number>();
  /** One line's writes in order: a fold's emptying of the log must not take a total appended after it. */
  readonly #writes = new KeyedMutex();
  /** Capped lines' writes under way (see {@link flush}). */
  readonly #keeping = new Set<Promise<void>>();

  /**
   * `countEveryMs`: how long a count without a cap (the gateway's day when no gateway cap is set, a
   * job's when no job cap is) waits to be written with the others settled meanwhile (5 s). Such a
   * count refuses nothing; it is what `operator budget status`, `/schedule` and a job's estimate
   * read, so one write per moment instead of one per call is enough, and {@link flush} writes the
   * rest when the gateway stops. A process killed outright loses that moment's counts, never a
   * capped line's, which is written at each settle. 0 writes every count at once.
   *
   * `logs` (default true): capped totals are appended to logs. False sets each as its value (a
   * store where a set costs no more than an append: a Durable Object's).
   */
  constructor(options: { store: Pick<Store, 'get' | 'set' | 'append' | 'readLog' | 'deleteLog'>; now?: () => Date; log: (line: string) => void; countEveryMs?: number; logs?: boolean }) {
    this.#store = options.store;
    this.#logs = options.logs ?? true;
    this.#now = options.now ?? (() => new Date());
    this.#log = options.log;
    this.#countEveryMs = options.countEveryMs ?? 5_000;
  }

  /** Writes the counts without a cap settled since they were last written, and waits for the capped lines' writes under way. */
  async flush(): Promise<void> {
    clearTimeout(this.#countTimer);
    this.#countTimer = undefined;
    const keys = [...this.#unwritten];
    this.#unwritten.clear();
    await Promise.all([...keys.map((key) => this.#write(key, this.#spent.get(key) ?? 0)), ...this.#keeping]);
  }

  #later(key: string): void {
    this.#unwritten.add(key);
    if (this.#countTimer !== undefined) return;
    this.#countTimer = setTimeout(() => void this.flush(), this.#countEveryMs);
    this.#countTimer.unref?.();
  }

  #write(key: string, total: number): Promise<void> {
    return this.#store.set(key, total).catch((error: unknown) => this.#notKept(key, error));
  }

  #notKept(key: string, error: unknown): void {
    this.#log(`spend not kept (${key}): ${errorMessage(error)}; this process still counts it`);
  }

  /** Keeps a capped line's new total: appended to its log, folded into the value now and then. */
  #keep(key: string, total: number): Promise<void> {
    if (!this.#logs) return this.#write(key, total);
    const count = (this.#logged.get(key) ?? 0) + 1;
    this.#logged.set(key, count < compactEvery ? count : 0);
    const log = logOf(key);
    const keeping = this.#writes
      .run(key, async () => {
        if (count < compactEvery) return this.#store.append(log, String(total));
        // The value first, then the log emptied: a crash between leaves both, and the larger is read.
        await this.#store.set(key, total);
        await this.#store.deleteLog(log);
      })
      .catch((error: unknown) => this.#notKept(key, error))
      .finally(() => this.#keeping.delete(keeping));
    this.#keeping.add(keeping);
    return keeping;
  }

  /** Settled spend of `scope` in the current `period`. */
  async spent(scope: string, period: SpendPeriod): Promise<number> {
    const key = this.#key(scope, period);
    await this.#load(key);
    return this.#spent.get(key) ?? 0;
  }

  /** What admins added to `scope`'s cap in the current `period` (see {@link raise}). */
  async raised(scope: string, period: SpendPeriod): Promise<number> {
    const key = this.#key(scope, period);
    await this.#load(key);
    return this.#raised.get(key) ?? 0;
  }

  /** Adds `amount` to `scope`'s cap for the current `period` (an admin's raise); resolves to the raise in all. */
  async raise(scope: string, period: SpendPeriod, amount: number): Promise<number> {
    const key = this.#key(scope, period);
    await this.#load(key);
    const total = (this.#raised.get(key) ?? 0) + amount;
    this.#raised.set(key, total);
    if (period !== 'run') await this.#store.set(`spend-raise:${key.slice('spend:'.length)}`, total);
    return total;
  }

  /**
   * Reserves `amount` on every line, or none: resolves to the hold, or to the first line it would
   * pass. A line's cap counts settled spend and every reservation in flight. A line in `exempt`
   * (by scope: an admin let this turn pass it) is reserved and settled but not checked.
   */
  async reserve(lines: readonly SpendLine[], amount: number, exempt?: ReadonlySet<string>): Promise<SpendHold | SpendRefusal> {
    const keys = lines.map((line) => this.#key(line.scope, line.period));
    await Promise.all(keys.map((key) => this.#load(key)));
    // From here to the end nothing is awaited: the check and the reservation are one step.
    for (const [index, line] of lines.entries()) {
      if (exempt?.has(line.scope)) continue;
      const key = keys[index]!;
      const spent = this.#spent.get(key) ?? 0;
      const reserved = this.#reserved.get(key) ?? 0;
      const cap = line.cap + (this.#raised.get(key) ?? 0);
      if (spent + reserved + amount > cap) return { line: { ...line, cap }, spent, reserved };
    }
    for (const key of keys) this.#reserved.set(key, (this.#reserved.get(key) ?? 0) + amount);
    let settled = false;
    return {
      settle: (actual) => {
        if (settled) return;
        settled = true;
        for (const [index, key] of keys.entries()) {
          this.#reserved.set(key, Math.max(0, (this.#reserved.get(key) ?? 0) - amount));
          if (actual <= 0) continue;
          const total = (this.#spent.get(key) ?? 0) + actual;
          this.#spent.set(key, total);
          if (key.endsWith(':run')) continue;
          // A count without a cap refuses nothing: written behind, with the others of its moment.
          if (lines[index]!.cap === Number.POSITIVE_INFINITY && this.#countEveryMs > 0) this.#later(key);
          else void this.#keep(key, total);
        }
      },
    };
  }

  #forgetPast(): void {
    const now = this.#now();
    const current = [periodOf('day', now), periodOf('month', now)];
    for (const key of this.#spent.keys()) {
      if (current.some((period) => key.endsWith(`:${period}`)) || (this.#reserved.get(key) ?? 0) > 0 || this.#unwritten.has(key)) continue;
      this.#spent.delete(key);
      this.#reserved.delete(key);
      this.#raised.delete(key);
      this.#logged.delete(key);
    }
  }

  /** The totals in `key`'s log; a log that cannot be read counts as none (its value still counts), and says so. */
  async #readLog(key: string): Promise<string[]> {
    if (!this.#logs) return [];
    return this.#store.readLog(logOf(key)).catch((error: unknown) => {
      this.#log(`spend log not read (${key}): ${errorMessage(error)}; its last kept value counts`);
      return [];
    });
  }

  #key(scope: string, period: SpendPeriod): string {
    return `spend:${keySegment(scope)}:${periodOf(period, this.#now())}`;
  }

  async #load(key: string): Promise<void> {
    if (this.#spent.has(key)) return;
    // Past periods are done with: dropped once many keys are known (their reservations settled).
    if (this.#spent.size >= maxKeys) this.#forgetPast();
    // A run's spend is the process's own: nothing is read for it.
    const [stored, raised, logged] = key.endsWith(':run')
      ? [0, 0, []]
      : await Promise.all([this.#store.get<unknown>(key), this.#store.get<unknown>(`spend-raise:${key.slice('spend:'.length)}`), this.#readLog(key)]);
    // Another call may have loaded (and spent) meanwhile: the first value read stands.
    if (this.#spent.has(key)) return;
    // Totals only grow within a period: the largest kept is the spend (a torn last total reads as 0).
    this.#spent.set(key, Math.max(amountOf(stored), ...logged.map((line) => amountOf(Number(line)))));
    if (logged.length > 0) this.#logged.set(key, logged.length);
    if (amountOf(raised) > 0) this.#raised.set(key, amountOf(raised));
  }
}

/**
 * The log of a line's totals (see the file's comment): `spend-log:<period>:<scope>`, so a day's
 * logs share one folder on the filesystem, and a person's first message of the day creates one
 * file, not a folder and a file.
 */
function logOf(key: string): string {
  const scopeAndPeriod = key.slice('spend:'.length);
  const at = scopeAndPeriod.lastIndexOf(':');
  return `spend-log:${scopeAndPeriod.slice(at + 1)}:${scopeAndPeriod.slice(0, at)}`;
}

/** A stored amount of dollars, or 0 for anything else (a damaged or foreign value). */
function amountOf(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}
