/**
 * A session's taint, kept in the store by session id: what untrusted content its context took in
 * (a web page a tool fetched) and, in a group, who has spoken in it. Each turn starts from it: the
 * content is still in the context the model reads, and so are other people's messages. A new
 * session (`/new`) has an id, and a record, of its own, so it starts clean.
 *
 * Direct messages write nothing until a tool brings something in: one person cannot taint their
 * own conversation by talking, and a new conversation costs no write.
 */
import { errorMessage } from '../core/errors.ts';
import type { Store } from '../store/store.ts';
import { otherPeopleSource, TurnTaint, type TaintMode } from '../tools/turn-taint.ts';
import { keySegment } from './dedupe.ts';

/** What a session's record holds. */
interface TaintRecord {
  /** What its context took in, oldest first. */
  sources: string[];
  /** In a group, who spoke in it (`platform:id`). */
  speakers: string[];
}

/** Records kept in memory, the least recently used dropped first. */
const cachedRecords = 2_000;
/** Sources and speakers a record keeps; past these the oldest go (a tainted session stays tainted). */
const maxSources = 20;
const maxSpeakers = 100;

export { otherPeopleSource };
/** The source a turn has when another bot spoke in it (a bot relays whatever it was given). */
export const otherBotSource = 'a message from another bot';

/** What {@link SessionTaints.begin} needs of a turn. */
export interface TaintedTurnStart {
  /** The session's id (`SessionTree.id`). */
  sessionId: string;
  scope: 'dm' | 'group';
  /** The speaker, `platform:id`. */
  speaker: string;
  /** The turn's input holds what others said in the group since the bot last spoke. */
  othersHeard: boolean;
  /** The speaker is another bot (where bots are let in: `allowBots`). */
  speakerIsBot?: boolean;
}

/** The sessions' taint records over the gateway's store. */
export class SessionTaints {
  readonly #store: Store;
  readonly #mode: TaintMode;
  readonly #log: (line: string) => void;
  readonly #records = new Map<string, TaintRecord>();
  /** Writes of one session, one after another. */
  readonly #writes = new Map<string, Promise<void>>();

  constructor(options: { store: Store; mode: TaintMode; log: (line: string) => void }) {
    this.#store = options.store;
    this.#mode = options.mode;
    this.#log = options.log;
  }

  /** The taint a turn of `start.sessionId` starts with; what the turn's tools bring in is kept. */
  async begin(start: TaintedTurnStart): Promise<TurnTaint> {
    if (this.#mode === 'off') return new TurnTaint('off');
    const record = await this.#record(start.sessionId);
    const others = start.othersHeard || record.speakers.some((speaker) => speaker !== start.speaker);
    const newSpeaker = start.scope === 'group' && !record.speakers.includes(start.speaker);
    // What others said stays in the context after this turn too: kept as a source of its own.
    const heard = [others && otherPeopleSource, start.speakerIsBot === true && otherBotSource].filter((source): source is string => typeof source === 'string' && !record.sources.includes(source));
    if (newSpeaker) record.speakers = [...record.speakers, start.speaker].slice(-maxSpeakers);
    if (heard.length > 0) record.sources = [...heard, ...record.sources].slice(0, maxSources);
    if (newSpeaker || heard.length > 0) await this.#save(start.sessionId, record);
    return new TurnTaint(this.#mode, record.sources, (source) => {
      if (record.sources.includes(source)) return;
      record.sources = [...record.sources, source].slice(-maxSources);
      return this.#save(start.sessionId, record);
    });
  }

  /** Resolves once every write asked for so far has ended (tests). */
  async settled(): Promise<void> {
    await Promise.all(this.#writes.values());
  }

  async #record(sessionId: string): Promise<TaintRecord> {
    let record = this.#records.get(sessionId);
    if (record) {
      this.#records.delete(sessionId);
    } else {
      const stored = await this.#store.get<Partial<TaintRecord>>(keyOf(sessionId)).catch((error: unknown) => {
        // Unreadable: start from what the turn itself shows; the next write replaces it.
        this.#log(`taint of session ${sessionId} not read: ${errorMessage(error)}`);
        return null;
      });
      record = { sources: strings(stored?.sources), speakers: strings(stored?.speakers) };
    }
    this.#records.set(sessionId, record);
    if (this.#records.size > cachedRecords) this.#records.delete(this.#records.keys().next().value!);
    return record;
  }

  /**
   * Writes `record` after the session's earlier writes; resolves when it is written, or failed:
   * a failure is logged (the memory copy stays, and the turn goes on).
   */
  #save(sessionId: string, record: TaintRecord): Promise<void> {
    const snapshot = { sources: [...record.sources], speakers: [...record.speakers] };
    const previous = this.#writes.get(sessionId) ?? Promise.resolve();
    const write = previous
      .then(() => this.#store.set(keyOf(sessionId), snapshot))
      .catch((error: unknown) => this.#log(`taint of session ${sessionId} not kept: ${errorMessage(error)}`))
      .finally(() => {
        if (this.#writes.get(sessionId) === write) this.#writes.delete(sessionId);
      });
    this.#writes.set(sessionId, write);
    return write;
  }
}

function keyOf(sessionId: string): string {
  return `taint:${keySegment(sessionId)}`;
}

/** The strings of a stored list (a damaged record keeps what it can). */
function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}
