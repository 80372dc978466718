/**
 * What the bot has spent, on Workers: one Durable Object for the whole bot, keeping every cap's
 * counter (the gateway's day and month, each person's day, and each conversation's day) in the
 * gateway's own `SpendBook` over its storage. Keeping a conversation's counter here too, rather
 * than in the conversation's object, lets one request check and reserve all of a call's lines at
 * once, as `SpendBook.reserve` does on Node: the object runs one call at a time and the book
 * awaits nothing between the check and the reservation, so calls from any isolate or location
 * never pass a cap together.
 *
 * A reservation is kept in storage until its call settles, so the object being evicted while a
 * call is under way (it may sit idle for minutes while a model answers) forgets none. Each expires
 * after the time its caller asked for (the longest its call can last): a call whose settle never
 * comes (its isolate died) stops holding the caps then. A settle that comes after that still
 * counts its cost. Past days' and months' counters are swept daily (`spend-sweep.ts`).
 *
 * It holds the kill switch too (`/budget pause|resume`, kept in its storage under the gateway's
 * own key): while paused every call is refused, before any cap is looked at, and the conversation
 * that asked is noted, to be woken on resume (`paused-waiters.ts`). And it says when a
 * conversation is near a cap (`warning`), noting in its storage that it said so.
 */
import { DurableObject } from 'cloudflare:workers';
import { SpendBook, type SpendHold, type SpendLine, type SpendRefusal } from '../gateway/budget/spend-book.ts';
import { pausedKey } from '../gateway/budget/spending-paused.ts';
import { warnedKey, warningDue, warningText } from '../gateway/budget/spend-warning.ts';
import { anyWaiting, noteWaiting, wakeWaiting } from './paused-waiters.ts';
import { objectStore } from './object-store.ts';
import { sweepPastSpend } from './spend-sweep.ts';
import type { WorkerEnv } from './worker-env.ts';

/** The name of the one spend object. */
export const spendObjectName = 'spend';

/** Where a reservation waits for its settle: this, then its id. */
const holdPrefix = 'spend-hold:';

/** The longest a reservation is held without its settle, whatever its caller asks. */
const maxHoldMs = 24 * 60 * 60_000;

/** A reservation as kept in storage. */
interface KeptHold {
  lines: SpendLine[];
  amount: number;
  /** When it stops holding the caps, ms since the epoch. */
  until: number;
}

/** What a call asks of {@link SpendObject.reserve}. */
export interface SpendRequest {
  /** The caps the call counts against (see `spendLines`). */
  lines: SpendLine[];
  /** Its worst case, dollars. */
  amount: number;
  /** How long to hold it without a settle: the longest the call can last. */
  holdMs: number;
  /** The session key of the conversation asking (its object's name): woken on resume if refused for a pause. */
  conversation?: string;
}

/** The answer to {@link SpendObject.reserve}: the reservation's id, the line it would pass, or that calls are paused. */
export type SpendAnswer = { id: string } | { refusal: SpendRefusal } | { paused: true };

/** The Durable Object class that keeps the bot's spend. */
export class SpendObject extends DurableObject<WorkerEnv> {
  readonly #book: SpendBook;
  /** The reservations in flight, by id, with the book's holds. */
  readonly #holds = new Map<string, KeptHold & { hold: SpendHold }>();
  /** The sweep's alarm was looked at in this instance's life. */
  #sweepArmed = false;

  constructor(ctx: DurableObjectState, env: WorkerEnv) {
    super(ctx, env);
    // Every count written at once: an object may be evicted between calls, taking a timer with it.
    this.#book = new SpendBook({ store: objectStore(ctx.storage), log: (line) => console.error(`spending: ${line}`), countEveryMs: 0, logs: false });
    // Before any call is taken: the reservations an earlier instance held still hold.
    void ctx.blockConcurrencyWhile(() => this.#restore());
  }

  /**
   * Reserves `request.amount` on every line of `request.lines`, or on none: resolves to the
   * reservation's id (to settle), to the first line it would pass, or to `paused` (nothing reserved).
   */
  async reserve(request: SpendRequest): Promise<SpendAnswer> {
    const { lines, amount } = request;
    if (!Number.isFinite(amount) || amount < 0 || !Number.isFinite(request.holdMs)) throw new Error('spending: a reservation needs a finite amount and hold');
    if (this.#refusedForPause(request.conversation)) return { paused: true };
    this.#expire();
    await this.#armSweep();
    const held = await this.#book.reserve(lines, amount);
    if (!('settle' in held)) return { refusal: held };
    const id = crypto.randomUUID();
    const kept: KeptHold = { lines, amount, until: Date.now() + Math.min(Math.max(request.holdMs, 0), maxHoldMs) };
    this.#holds.set(id, { ...kept, hold: held });
    this.ctx.storage.kv.put(holdPrefix + id, kept);
    return { id };
  }

  /**
   * Settles the reservation `id` at `actual` dollars (0: the call failed). One that expired, or
   * that an earlier instance held, is counted on `lines` all the same.
   */
  async settle(id: string, lines: SpendLine[], actual: number): Promise<void> {
    const cost = Number.isFinite(actual) && actual > 0 ? actual : 0;
    const held = this.#holds.get(id);
    if (held) {
      this.#holds.delete(id);
      this.ctx.storage.kv.delete(holdPrefix + id);
      held.hold.settle(cost);
    } else if (cost > 0) {
      // Reserved as nothing and exempt from every cap: counted, never refused (it was spent).
      const late = await this.#book.reserve(lines, 0, new Set(lines.map((line) => line.scope)));
      if ('settle' in late) late.settle(cost);
    }
    this.#expire();
  }

  /** What each of `lines` has spent in its current period, settled, in dollars (for `/budget`). */
  async spent(lines: Pick<SpendLine, 'scope' | 'period'>[]): Promise<number[]> {
    return Promise.all(lines.map((line) => this.#book.spent(line.scope, line.period)));
  }

  /**
   * Whether model calls are paused (for a call that reserves nothing: its model has no prices).
   * `conversation`, asking for a call, is woken on resume when they are.
   */
  async paused(conversation?: string): Promise<boolean> {
    return this.#refusedForPause(conversation);
  }

  /** Pauses every model call of the bot (`/budget pause`); resolves to false when they were paused already. */
  async pause(): Promise<boolean> {
    const kv = this.ctx.storage.kv;
    if (kv.get(pausedKey) === true) return false;
    kv.put(pausedKey, true);
    return true;
  }

  /**
   * Lets model calls go on (`/budget resume`) and wakes the conversations whose messages waited;
   * resolves to false when they were not paused. One that cannot be woken now is by the alarm.
   */
  async resume(): Promise<boolean> {
    const kv = this.ctx.storage.kv;
    if (kv.get(pausedKey) !== true) return false;
    kv.delete(pausedKey);
    await this.#wakeWaiting();
    return true;
  }

  /**
   * The notice near a cap due for one of `lines` (a turn's conversation and person caps, see
   * `watchedLines`) at `warnAt` of it, if any: its words, noted as said for the period (once a
   * period per cap, whichever conversation asks).
   */
  async warning(lines: SpendLine[], warnAt: number): Promise<string | undefined> {
    const kv = this.ctx.storage.kv;
    const now = new Date();
    for (const line of lines) {
      const spent = await this.#book.spent(line.scope, line.period);
      if (!warningDue(line, spent, warnAt)) continue;
      // Under `spend-warned:`: the sweep drops it with the period's counters.
      const key = warnedKey(line, now, 'spend-warned');
      if (kv.get(key) === true) continue;
      kv.put(key, true);
      return warningText(line, spent);
    }
    return undefined;
  }

  /**
   * The daily sweep of past periods' counters (see `spend-sweep.ts`), and the conversations left
   * to wake after a resume.
   */
  override async alarm(): Promise<void> {
    const kv = this.ctx.storage.kv;
    const wakeAt = kv.get(pausedKey) === true || !anyWaiting(kv) ? undefined : await wakeWaiting(kv, this.env);
    const next = sweepPastSpend(kv, new Date());
    await this.ctx.storage.setAlarm(Math.min(next, wakeAt ?? next));
  }

  /** Whether calls are paused; if so, `conversation` (if given) is noted, to be woken on resume. */
  #refusedForPause(conversation: string | undefined): boolean {
    const kv = this.ctx.storage.kv;
    if (kv.get(pausedKey) !== true) return false;
    if (conversation !== undefined) noteWaiting(kv, conversation);
    return true;
  }

  /** Wakes the waiting conversations; those left are the alarm's, brought forward. */
  async #wakeWaiting(): Promise<void> {
    const wakeAt = await wakeWaiting(this.ctx.storage.kv, this.env);
    if (wakeAt === undefined) return;
    const current = await this.ctx.storage.getAlarm();
    if (current === null || current > wakeAt) await this.ctx.storage.setAlarm(wakeAt);
  }

  /** Releases the reservations whose time is up: their calls will never settle (or settle late). */
  #expire(): void {
    const now = Date.now();
    for (const [id, held] of this.#holds) {
      if (held.until > now) continue;
      this.#holds.delete(id);
      this.ctx.storage.kv.delete(holdPrefix + id);
      held.hold.settle(0);
      console.error(`spending: a reservation of $${held.amount.toFixed(4)} expired unsettled (its call's isolate stopped?); released`);
    }
  }

  /** Sets the sweep's alarm once in the object's life, unless one is set. */
  async #armSweep(): Promise<void> {
    if (this.#sweepArmed) return;
    this.#sweepArmed = true;
    if ((await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(Date.now());
  }

  /**
   * Takes back the reservations kept in storage (an earlier instance's), dropping those expired.
   * Should it fail (storage unreadable), the object is reset and its calls fail: the gates refuse.
   */
  async #restore(): Promise<void> {
    const kv = this.ctx.storage.kv;
    const now = Date.now();
    for (const [key, kept] of [...kv.list<KeptHold>({ prefix: holdPrefix })]) {
      if (kept.until <= now) {
        kv.delete(key);
        continue;
      }
      // Held again as they were: exempt from the check, which they passed when made.
      const held = await this.#book.reserve(kept.lines, kept.amount, new Set(kept.lines.map((line) => line.scope)));
      if ('settle' in held) this.#holds.set(key.slice(holdPrefix.length), { ...kept, hold: held });
    }
  }
}

/** The one spend object of the Worker. */
export function spendObject(env: WorkerEnv): DurableObjectStub<SpendObject> {
  return env.SPEND.get(env.SPEND.idFromName(spendObjectName));
}
