/**
 * What happens in the gateway that whoever runs it needs to know: messages taken, turns with
 * their tokens, cost and time, replies delivered or failed, pairing, approvals, jobs, reloads,
 * platforms dropping and coming back, the store failing. One typed stream of events; the log,
 * the metrics and the admin console's live feed each subscribe to it, so they never disagree.
 *
 * Events carry identifiers, counts and reasons; never what people wrote, never the model's
 * answers, never a secret (the log scrubs again; see `secret-scrubber.ts`).
 */

/** A model call's tokens. */
export interface OpsTokens {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

/** Who spent a model call: a turn, a subagent of one, a background review (or memory flush), or a recording transcribed for a turn. */
export type UsageKind = 'turn' | 'subagent' | 'review' | 'transcription';

/** How a turn ended. */
export type TurnStatus = 'ok' | 'error' | 'stopped' | 'timeout' | 'left';

/**
 * What made a turn fail, for programs: the error's category (`PROVIDER`, `BUDGET`, ...) and, for a
 * model provider's failure, its kind (`RATE_LIMIT`, `AUTH`, ...), provider and asked-for wait.
 */
export interface TurnFailure {
  category: string;
  kind?: string;
  provider?: string;
  retryAfterMs?: number;
}

/** Where an event happened: the platform, the conversation (its session key) and the turn, where known. */
export interface OpsPlace {
  platform?: string;
  conversation?: string;
  turn?: string;
}

/** Every event the gateway reports, by `type`. */
export type OpsEvent = OpsPlace &
  (
    | { type: 'message.accepted'; scope: 'dm' | 'group'; command?: string }
    /** A message not answered, and why; `told` whether its sender heard the reason this time (once an hour per reason). */
    | { type: 'message.refused'; reason: string; told?: boolean }
    /** Files of a message not taken (`reason`: `file too large`), the message itself answered; `told` as for `message.refused`. */
    | { type: 'files.refused'; reason: string; files: number; told: boolean }
    | { type: 'turn.start'; profile: string; scheduled: boolean }
    | { type: 'turn.end'; profile: string; status: TurnStatus; durationMs: number; tokens: OpsTokens; costUsd: number; error?: string; failure?: TurnFailure }
    | { type: 'model.usage'; profile: string; provider: string; model: string; tokens: OpsTokens; costUsd: number; kind: UsageKind }
    | { type: 'reply.delivered'; attempts: number }
    | { type: 'reply.retried'; attempt: number; error: string }
    | { type: 'reply.failed'; error: string }
    | { type: 'pairing.requested'; user: string; code: string; group?: string }
    | { type: 'group.approved'; group: string; by: string }
    | { type: 'approval.asked'; tool: string; summary: string; reason: string }
    | { type: 'approval.answered'; tool: string; summary: string; approved: boolean; by: string }
    /** `status` ok, error or skipped (`reason`: the spending cap the run would pass). */
    | { type: 'job.fired'; job: string; latenessMs: number; status: string; error?: string; reason?: string }
    /** A model call refused at a spending cap (`scope` its kind: person, conversation, gateway, job, pipeline). */
    | { type: 'budget.refused'; scope: string; period: string; capUsd: number }
    /** The kill switch: every model call stopped (`/budget pause`, `operator budget pause`, the console) or let go on. */
    | { type: 'budget.paused'; paused: boolean }
    /** A model call's cost, on the kinds of cap it counted for. */
    | { type: 'budget.spent'; scopes: string[]; costUsd: number }
    | { type: 'reload'; by: string; profile: string; changed: number; problems: number }
    | { type: 'platform.disconnected'; reason: string }
    | { type: 'platform.reconnected' }
    | { type: 'platform.rate_limited'; retryAfterMs: number }
    /**
     * Code operator does not control threw and was stopped at a boundary: a platform SDK or an
     * adapter's handler (`source` the platform), an extension or a tool. `handling` names what was
     * being handled (the platform's event type); `error` is described without payload text (see
     * `core/outside-error.ts`).
     */
    | { type: 'outside.error'; source: string; handling: string; error: string }
    | { type: 'store.failed'; what: string; error: string }
    | { type: 'store.recovered' }
    | { type: 'gateway.started'; durationMs: number; channels: string[] }
    | { type: 'gateway.stopping' }
    /** Anything else worth a line (the gateway's older free-text reports). */
    | { type: 'notice'; level: OpsLevel; text: string }
  );

/** An event as subscribers get it: with its time (ms since the epoch). */
export type OpsRecord = OpsEvent & { at: number };

/** How much an event matters, as loggers count it. */
export type OpsLevel = 'debug' | 'info' | 'warn' | 'error';

/** The level each event type is logged at (a notice carries its own). */
export function levelOf(event: OpsEvent): OpsLevel {
  switch (event.type) {
    case 'notice':
      return event.level;
    case 'reply.failed':
    case 'store.failed':
    case 'outside.error':
      return 'error';
    case 'reply.retried':
    case 'platform.disconnected':
    case 'platform.rate_limited':
    case 'message.refused':
    case 'files.refused':
      return 'warn';
    case 'turn.end':
      return event.status === 'error' || event.status === 'timeout' ? 'warn' : 'info';
    case 'job.fired':
      return event.status === 'error' ? 'warn' : 'info';
    case 'model.usage':
    case 'budget.spent':
      return 'debug';
    case 'budget.refused':
    case 'budget.paused':
      return 'warn';
    default:
      return 'info';
  }
}

/** Something that takes events. */
export type OpsListener = (record: OpsRecord) => void;

/**
 * The stream of events. Emitting with nobody listening costs a check; a listener that throws is
 * dropped from that event only (reporting must never break a turn).
 */
export class OpsEvents {
  readonly #listeners = new Set<OpsListener>();

  /** Reports `event` to every listener, stamped with the time. */
  emit(event: OpsEvent): void {
    if (this.#listeners.size === 0) return;
    const record = { ...event, at: Date.now() } as OpsRecord;
    for (const listener of this.#listeners) {
      try {
        listener(record);
      } catch {
        // A broken listener (a closed log stream, a console page gone) must not reach the gateway.
      }
    }
  }

  /** Adds a listener; returns its removal. */
  subscribe(listener: OpsListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Whether anyone listens (to skip work an event would need). */
  get listened(): boolean {
    return this.#listeners.size > 0;
  }
}

/** Tokens of a usage record in the events' shape. */
export function opsTokens(usage: { input: number; output: number; cacheRead?: number; cacheWrite?: number }): OpsTokens {
  return { input: usage.input, output: usage.output, cacheRead: usage.cacheRead ?? 0, cacheWrite: usage.cacheWrite ?? 0 };
}
