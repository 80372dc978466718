/**
 * An Agent's compaction: whether one is due after a turn, and running one — the memory flush on
 * the cut plan first (`memory-flush.ts`), then the summary (`compaction.ts`).
 */
import type { TaskSlot } from '../core/task-slot.ts';
import type { CompactionEntry } from '../session/types.ts';
import type { Agent } from './agent.ts';
import type { AgentEvent } from './agent-events.ts';
import { compactSession, shouldCompact, type CompactionSettings } from './compaction.ts';
import { flushMemory } from './memory-flush.ts';

/** Why a compaction runs: past the threshold after a turn, a context overflow, or asked for. */
export type CompactionReason = 'threshold' | 'overflow' | 'manual';

/** What compaction needs of its agent beyond the public surface. */
export interface CompactionHost {
  agent: Agent;
  settings: CompactionSettings;
  /** The signal of the running turn or compaction. */
  signal(): AbortSignal;
  /** The queued task's slot of the running turn or compaction (see `core/task-slot.ts`). */
  slot(): TaskSlot | undefined;
  /** The context size as last measured, when known. */
  contextTokens(): number | undefined;
  /** A compaction entry was written: the context must be measured anew. */
  compacted(): void;
  emit(event: AgentEvent): Promise<unknown[]>;
}

/** Compaction of one agent. */
export class AgentCompaction {
  #host: CompactionHost;
  #requested = false;
  /** The channel of the last turn, whose system prompt the memory flush repeats. */
  #channel: string | undefined;

  constructor(host: CompactionHost) {
    this.#host = host;
  }

  /** Asks for a compaction after the current turn. */
  request(): void {
    this.#requested = true;
  }

  /**
   * After a turn on `channel`: compacts when asked to or when the context passed the threshold.
   * Never throws: on failure the transcript stays whole and the next turn tries again.
   */
  async afterTurn(channel: string | undefined): Promise<void> {
    this.#channel = channel;
    const contextWindow = this.#host.agent.options.modelInfo?.contextWindow;
    const contextTokens = this.#host.contextTokens();
    const settings = this.#host.settings;
    const due = this.#requested || (contextWindow !== undefined && contextTokens !== undefined && shouldCompact(contextTokens, contextWindow, settings));
    this.#requested = false;
    if (!due || !settings.enabled) return;
    try {
      await this.run('threshold', { channel });
    } catch {
      // The transcript stays whole; the next turn will try again.
    }
  }

  /**
   * Compacts now (a disabled compaction runs only when `manual`). `channel` is the turn's
   * (a manual compaction uses the last turn's). Throws when the summary call fails.
   */
  async run(reason: CompactionReason, options: { instructions?: string; channel?: string } = {}): Promise<CompactionEntry | undefined> {
    const { agent, settings } = this.#host;
    if (!settings.enabled && reason !== 'manual') return undefined;
    const channel = reason === 'manual' ? this.#channel : (this.#channel = options.channel);
    const tree = await agent.session();
    const signal = this.#host.signal();
    const slot = this.#host.slot();
    const emit = (event: AgentEvent) => this.#host.emit(event);
    return compactSession({
      tree,
      settings,
      reason,
      instructions: options.instructions,
      tokensBefore: this.#host.contextTokens(),
      provider: agent.options.provider,
      model: agent.options.model,
      signal,
      slot,
      emit,
      compacted: () => this.#host.compacted(),
      beforeSummary: (plan) => flushMemory({ agent, tree, plan, reason, channel, signal, slot, reserveTokens: settings.reserveTokens, emit }),
    });
  }
}
