/**
 * The usage ledger: tokens, cost and turns per day, profile and conversation, with the background
 * reviewer's share in rows of its own, kept in the store so the admin console's usage survives
 * restarts. It is fed by the gateway's events: `model.usage` (one per model call, `kind` `turn`,
 * `subagent` or `review`), `turn.end` (one per turn, counted, never its tokens: those came as
 * `model.usage` already) and `message.accepted` (a conversation's last activity).
 *
 * Two kinds of store records, each rewritten a moment after the events that change it (a burst
 * makes one write) and when the gateway stops:
 * - `admin:usage:<YYYY-MM-DD>` (days in UTC): the day's rows; at most `maxDays` days are kept
 *   (older ones are deleted), at most `maxRowsPerDay` rows a day (beyond it, a profile's further
 *   conversations add up in one row per kind whose conversation is {@link otherConversations});
 * - `admin:usage-totals`: every conversation's totals since the ledger first saw it (what the
 *   conversations page shows, read without a day), at most `maxConversations` (the least
 *   recently active are dropped).
 *
 * Records are read from the store only when asked for, and only the days asked for.
 */
import type { Store } from '../../store/store.ts';
import type { OpsEvents, OpsRecord, UsageKind } from '../ops/ops-events.ts';
import { addRow, addTotals, emptyTotals, rowFromArray, rowToArray, totalsFromArray, totalsToArray, type ConversationTotals, type UsageRow } from './usage-records.ts';

export type { ConversationTotals, UsageKind, UsageRow };

/** The conversation of the row a full day merges further conversations into. */
export const otherConversations = '(other conversations)';

/** Options of {@link UsageLedger}. */
export interface UsageLedgerOptions {
  store: Store;
  /** Days kept (default 120). */
  maxDays?: number;
  /** Rows kept a day (default 2,000). */
  maxRowsPerDay?: number;
  /** Conversations whose totals are kept (default 20,000). */
  maxConversations?: number;
  /** How long after an event its records are written (default 500 ms), so a burst makes one write. */
  flushDelayMs?: number;
  /** Where a failed write is reported (the events stay in memory and are written with the next). */
  log?: (line: string) => void;
}

const dayPrefix = 'admin:usage:';
const totalsKey = 'admin:usage-totals';
const dayPattern = /^\d{4}-\d{2}-\d{2}$/;

type DayRows = Map<string, UsageRow>;

/** The ledger over a store; {@link attach} feeds it from the gateway's events. */
export class UsageLedger {
  readonly #store: Store;
  readonly #maxDays: number;
  readonly #maxRowsPerDay: number;
  readonly #maxConversations: number;
  readonly #flushDelayMs: number;
  readonly #log: (line: string) => void;
  /** Days read from the store (or new), with every event applied. */
  readonly #days = new Map<string, DayRows>();
  /** Events of days not read yet, applied when they are. */
  readonly #pendingDays = new Map<string, DayRows>();
  readonly #dirtyDays = new Set<string>();
  /** The totals once read, with every event applied; before that, the events' totals wait apart. */
  #totals: Map<string, ConversationTotals> | undefined;
  readonly #pendingTotals = new Map<string, ConversationTotals>();
  #totalsDirty = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #writing: Promise<void> = Promise.resolve();

  constructor(options: UsageLedgerOptions) {
    this.#store = options.store;
    this.#maxDays = options.maxDays ?? 120;
    this.#maxRowsPerDay = options.maxRowsPerDay ?? 2_000;
    this.#maxConversations = options.maxConversations ?? 20_000;
    this.#flushDelayMs = options.flushDelayMs ?? 500;
    this.#log = options.log ?? (() => undefined);
  }

  /** Feeds the ledger from `ops` (and writes what is left when the gateway stops); returns the unsubscription. */
  attach(ops: OpsEvents): () => void {
    return ops.subscribe((record) => {
      if (record.type === 'gateway.stopping') void this.flush();
      else this.record(record);
    });
  }

  /** Counts one event (`model.usage`, `turn.end`, `message.accepted`; others are ignored). */
  record(record: OpsRecord): void {
    if (record.type !== 'model.usage' && record.type !== 'turn.end' && record.type !== 'message.accepted') return;
    const conversation = record.conversation ?? '';
    const platform = record.platform ?? conversation.split(':')[0] ?? '';
    const delta = emptyTotals(conversation, platform);
    delta.lastAt = record.at;
    if (record.type !== 'message.accepted') {
      const kind: UsageKind = record.type === 'model.usage' ? record.kind : 'turn';
      const day = dayOf(record.at);
      const rows = this.#days.get(day) ?? this.#pendingOf(day);
      const row = this.#rowOf(rows, day, record.profile, conversation, platform, kind);
      if (record.type === 'turn.end') {
        row.turns++;
        delta.turns = 1;
      } else {
        const { input, output, cacheRead, cacheWrite } = record.tokens;
        Object.assign(row, { calls: row.calls + 1, input: row.input + input, output: row.output + output, cacheRead: row.cacheRead + cacheRead, cacheWrite: row.cacheWrite + cacheWrite, costUsd: row.costUsd + record.costUsd });
        Object.assign(delta, { calls: 1, tokens: input + output + cacheRead + cacheWrite, costUsd: record.costUsd, reviewCostUsd: kind === 'review' ? record.costUsd : 0 });
      }
      row.lastAt = Math.max(row.lastAt, record.at);
      if (this.#days.has(day)) this.#dirtyDays.add(day);
      if (kind === 'turn') Object.assign(delta, { profile: record.profile, profileAt: record.at });
    }
    this.#addTotals(delta);
    this.#schedule();
  }

  /** Every conversation's totals (read from the store the first time). Do not modify them. */
  async totals(): Promise<ReadonlyMap<string, ConversationTotals>> {
    return this.#loadTotals();
  }

  /** The rows of the days from `from` to `to` (inclusive, `YYYY-MM-DD`), oldest day first; reads the days not read yet. */
  async rows(range: { from: string; to: string }): Promise<UsageRow[]> {
    const stored = (await this.#storedDays()).filter((day) => day >= range.from && day <= range.to);
    for (const day of stored) await this.#loadDay(day);
    for (const day of [...this.#pendingDays.keys()]) if (day >= range.from && day <= range.to) await this.#loadDay(day);
    const rows: UsageRow[] = [];
    for (const day of [...this.#days.keys()].sort()) {
      if (day < range.from || day > range.to) continue;
      for (const row of this.#days.get(day)!.values()) rows.push({ ...row });
    }
    return rows;
  }

  /** Writes every changed record now; resolves once written (a failure is logged, and tried again later). */
  flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#writing = this.#writing.then(() => this.#write());
    return this.#writing;
  }

  /** Stops the timer (what is unwritten stays in memory). */
  close(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #schedule(): void {
    if (this.#timer) return;
    this.#timer = setTimeout(() => void this.flush(), this.#flushDelayMs);
    this.#timer.unref?.();
  }

  async #write(): Promise<void> {
    try {
      for (const day of [...this.#pendingDays.keys()]) await this.#loadDay(day);
      if (this.#pendingTotals.size > 0) await this.#loadTotals();
      for (const day of [...this.#dirtyDays]) {
        this.#dirtyDays.delete(day);
        try {
          await this.#store.set(dayPrefix + day, { version: 1, rows: [...this.#days.get(day)!.values()].map(rowToArray) });
        } catch (error) {
          this.#dirtyDays.add(day);
          throw error;
        }
      }
      if (this.#totalsDirty && this.#totals) {
        this.#totalsDirty = false;
        this.#trimTotals(this.#totals);
        try {
          await this.#store.set(totalsKey, { version: 1, conversations: [...this.#totals.values()].map(totalsToArray) });
        } catch (error) {
          this.#totalsDirty = true;
          throw error;
        }
      }
      await this.#prune();
    } catch (error) {
      this.#log(`admin console: usage not written (kept, tried again with the next): ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  async #storedDays(): Promise<string[]> {
    return (await this.#store.list(dayPrefix)).map((key) => key.slice(dayPrefix.length)).filter((day) => dayPattern.test(day));
  }

  /** Reads `day` from the store (once) and applies the events that waited for it. */
  async #loadDay(day: string): Promise<void> {
    if (!this.#days.has(day)) {
      const stored = await this.#store.get<{ rows?: unknown }>(dayPrefix + day);
      const rows: DayRows = new Map();
      for (const value of Array.isArray(stored?.rows) ? stored.rows : []) {
        const row = rowFromArray(day, value);
        if (row) rows.set(rowKey(row.profile, row.conversation, row.kind), row);
      }
      // Another read of the day may have finished while this one waited.
      if (!this.#days.has(day)) this.#days.set(day, rows);
    }
    const waiting = this.#pendingDays.get(day);
    if (!waiting) return;
    this.#pendingDays.delete(day);
    const rows = this.#days.get(day)!;
    for (const row of waiting.values()) addRow(this.#rowOf(rows, day, row.profile, row.conversation, row.platform, row.kind), row);
    this.#dirtyDays.add(day);
  }

  async #loadTotals(): Promise<Map<string, ConversationTotals>> {
    if (!this.#totals) {
      const stored = await this.#store.get<{ conversations?: unknown }>(totalsKey);
      const totals = this.#totals ?? new Map<string, ConversationTotals>();
      for (const value of Array.isArray(stored?.conversations) ? stored.conversations : []) {
        const entry = totalsFromArray(value);
        if (entry) totals.set(entry.conversation, entry);
      }
      this.#totals ??= totals;
    }
    for (const delta of this.#pendingTotals.values()) this.#mergeTotals(this.#totals, delta);
    if (this.#pendingTotals.size > 0) this.#totalsDirty = true;
    this.#pendingTotals.clear();
    return this.#totals;
  }

  #addTotals(delta: ConversationTotals): void {
    if (this.#totals) {
      this.#mergeTotals(this.#totals, delta);
      this.#totalsDirty = true;
    } else this.#mergeTotals(this.#pendingTotals, delta);
  }

  #mergeTotals(into: Map<string, ConversationTotals>, delta: ConversationTotals): void {
    let entry = into.get(delta.conversation);
    if (!entry) into.set(delta.conversation, (entry = emptyTotals(delta.conversation, delta.platform)));
    addTotals(entry, delta);
  }

  /** Drops the least recently active conversations beyond `maxConversations`. */
  #trimTotals(totals: Map<string, ConversationTotals>): void {
    if (totals.size <= this.#maxConversations) return;
    const oldest = [...totals.values()].sort((a, b) => a.lastAt - b.lastAt).slice(0, totals.size - this.#maxConversations);
    for (const entry of oldest) totals.delete(entry.conversation);
  }

  /** Deletes the oldest days beyond `maxDays`. */
  async #prune(): Promise<void> {
    const days = [...new Set([...this.#days.keys(), ...(await this.#storedDays())])].sort();
    for (const day of days.slice(0, Math.max(0, days.length - this.#maxDays))) {
      await this.#store.delete(dayPrefix + day);
      this.#days.delete(day);
      this.#dirtyDays.delete(day);
    }
  }

  #pendingOf(day: string): DayRows {
    let rows = this.#pendingDays.get(day);
    if (!rows) this.#pendingDays.set(day, (rows = new Map()));
    return rows;
  }

  /** The row of `profile`, `conversation` and `kind` in `rows`, made when missing (or the profile's merged row when the day is full). */
  #rowOf(rows: DayRows, day: string, profile: string, conversation: string, platform: string, kind: UsageKind): UsageRow {
    let key = rowKey(profile, conversation, kind);
    let row = rows.get(key);
    if (row) return row;
    if (rows.size >= this.#maxRowsPerDay) {
      key = rowKey(profile, otherConversations, kind);
      row = rows.get(key);
      if (row) return row;
      conversation = otherConversations;
      platform = '';
    }
    row = { day, profile, conversation, platform, kind, calls: 0, turns: 0, input: 0, output: 0, cacheRead: 0, cacheWrite: 0, costUsd: 0, lastAt: 0 };
    rows.set(key, row);
    return row;
  }
}

/** The UTC day of a time. */
export function dayOf(at: number): string {
  return new Date(at).toISOString().slice(0, 10);
}

function rowKey(profile: string, conversation: string, kind: UsageKind): string {
  return `${profile}\u0000${conversation}\u0000${kind}`;
}
