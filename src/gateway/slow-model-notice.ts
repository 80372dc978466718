/**
 * Tells a person that the model provider is slow when a model call of their turn has shown
 * nothing for a while, so nobody waits in silence with only the typing indicator: the provider's
 * own limits (first byte, idle) and the retries after them can take minutes before the turn gives
 * up and says why.
 */
import type { AgentEvent } from '../agent/agent-events.ts';
import type { EngineEvent } from '../agent/engine-events.ts';
import type { ChannelAdapter, ConversationAddress } from '../channels/types.ts';
import { errorMessage } from '../core/errors.ts';

/** What the person is shown while the provider is slow (in the preview, or as one message). */
export const slowModelText = 'The model provider is slow to answer; still trying.';

/**
 * Watches one turn's events: from a model call's start until the model shows a sign of life (text,
 * thinking, its message, a tool call), the silence is counted, across failed attempts and the
 * waits before retries (the person hears nothing then either). After `afterMs` of it `notify` is
 * called, once per turn: a second notice would say nothing new.
 */
export class SlowModelNotice {
  readonly #afterMs: number;
  readonly #notify: () => void;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** A model call is under way and has shown nothing yet (since a failed attempt, too). */
  #silent = false;
  #told = false;
  #done = false;

  constructor(afterMs: number, notify: () => void) {
    this.#afterMs = afterMs;
    this.#notify = notify;
  }

  /** Whether the turn is waiting on a model call that has shown nothing (what a deadline then cut short). */
  get silent(): boolean {
    return this.#silent;
  }

  /** Hears one event of the turn (an `Agent.subscribe` listener). */
  hear(event: AgentEvent | EngineEvent): void {
    if (this.#done) return;
    switch (event.type) {
      case 'turn_start':
        // A model call begins; a silence already counted (a failed attempt before) goes on.
        this.#silent = true;
        if (!this.#told) this.#timer ??= setTimeout(() => this.#fire(), this.#afterMs);
        break;
      case 'text_delta':
      case 'thinking_delta':
      case 'tool_execution_start':
        this.#quiet();
        break;
      case 'message_end':
        if (event.message.role === 'assistant') this.#quiet();
        break;
      default:
        break;
    }
  }

  /** The turn is over: nothing more is told. */
  stop(): void {
    this.#done = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #quiet(): void {
    this.#silent = false;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #fire(): void {
    this.#timer = undefined;
    if (this.#done) return;
    this.#told = true;
    this.#notify();
  }
}

/** Where one turn's slow-provider notice goes (see {@link slowModelNoticeFor}). */
export interface SlowNoticePlace {
  adapter: Pick<ChannelAdapter, 'capabilities' | 'send'>;
  address: ConversationAddress;
  /** The turn's preview: the notice shows there where the platform edits. */
  stream: { notice(text: string): void };
  replyTo?: string;
  /** Names the conversation in the log line (its session key). */
  label: string;
  provider: string;
  afterMs: number;
  log(line: string): void;
}

/**
 * The notice of one turn, on Node and on Workers alike: in the preview where the platform edits
 * (the answer replaces it, and a restart finishes it like any preview), else as one short message
 * the answer follows.
 */
export function slowModelNoticeFor(place: SlowNoticePlace): SlowModelNotice {
  const { adapter, address, log } = place;
  return new SlowModelNotice(place.afterMs, () => {
    log(`${place.label}: ${place.provider} is slow to answer; the person was told`);
    if (adapter.capabilities.edit) return place.stream.notice(slowModelText);
    adapter.send(address, { text: `(${slowModelText} The answer follows.)`, replyTo: place.replyTo }).catch((error: unknown) => log(`${address.platform}: could not say the provider is slow: ${errorMessage(error)}`));
  });
}

/** What the person is told when their turn ran past its deadline (`waitingOnModel`: in a model call that had shown nothing). */
export function overdueNote(timeoutMs: number, waitingOnModel: boolean): string {
  const limit = timeoutMs >= 120_000 ? `${Math.round(timeoutMs / 60_000)} minutes` : `${Math.round(timeoutMs / 1000)} seconds`;
  if (waitingOnModel) return `(Stopped: this took longer than ${limit}; the model provider did not answer. Please try again in a moment.)`;
  return `(Stopped: this took longer than ${limit}. Ask again, perhaps in smaller steps.)`;
}
