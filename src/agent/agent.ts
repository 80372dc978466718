/**
 * The Agent: one conversation's orchestrator over the Engine. It owns the session (persistence
 * and rewind), retries, events and extensions, compaction, follow-ups and steering, and children.
 * See `README.md` in this folder for the turn flow and its invariants.
 */
import { AgentError, CancellationError, InternalError, errorMessage } from '../core/errors.ts';
import { abortableSleep } from '../core/sleep.ts';
import type { TaskSlot } from '../core/task-slot.ts';
import type { Cost } from '../llm/cost.ts';
import type { AssistantMessage, Message, UserMessage, Usage } from '../llm/types.ts';
import { SessionManager } from '../session/session-manager.ts';
import type { SessionTree } from '../session/session-tree.ts';
import type { CompactionEntry } from '../session/types.ts';
import { createStore } from '../store/unstorage-store.ts';
import type { Tool, TurnContext } from '../tools/tool.ts';
import { isOwnerTurn } from '../tools/resources/owner-turn.ts';
import { createAgentContext } from './agent-context.ts';
import { PhaseGate } from './agent-phase.ts';
import { isList, isText, overridden } from './extension-override.ts';
import { sessionStats, type SessionStats } from './session-stats.ts';
import type { AgentEvent } from './agent-events.ts';
import type { AgentOptions, AgentPhase, InvokeOptions, TurnResult } from './agent-options.ts';
import { AgentCompaction } from './agent-compaction.ts';
import { defaultCompactionSettings } from './compaction.ts';
import type { Engine } from './engine.ts';
import type { EngineEvent } from './engine-events.ts';
import type { ContextUsage, ExtensionContext } from './extension-context.ts';
import type { ExtensionRunner } from './extensions.ts';
import type { GuardrailSet } from './guardrail-set.ts';
import { defaultRetrySettings, type RetrySettings } from './retry.ts';
import { runWithRetry } from './retry-loop.ts';
import { LifecycleStateMachine, type LifecycleState } from './state-machine.ts';
import { defaultSystemPrompt } from './system-prompt.ts';
import { PromptCache } from './prompt-cache.ts';
import { waitForApproval } from './approval-wait.ts';
import { createTurnEngine } from './turn-engine.ts';
import { Listeners, type Listener } from './listeners.ts';
import { UsageBook } from './usage-book.ts';
import { contextUsage } from './context-usage.ts';
import { agentParts, childOptions, withLiveTools } from './agent-parts.ts';
import { startTurnDeadline, type TurnDeadline } from './turn-deadline.ts';

export type { AgentOptions, AgentPhase, InvokeOptions, TurnResult } from './agent-options.ts';
export type { RetrySettings } from './retry.ts';
export { defaultRetrySettings } from './retry.ts';

/** One conversation's agent. */
export class Agent {
  readonly lifecycle = new LifecycleStateMachine();
  readonly options: AgentOptions;
  readonly sessions: SessionManager;
  readonly sessionKey: string;

  readonly #phases = new PhaseGate();
  #abort = new AbortController();
  #listeners = new Listeners();
  #extensions: ExtensionRunner;
  #guardrails: GuardrailSet;
  #tools: readonly Tool[];
  #allowedTools: ReadonlySet<string> | undefined;
  #retry: RetrySettings;
  /** When to compact, and compacting (the memory flush, then the summary). */
  #compaction: AgentCompaction;
  /** Prompts by channel, working directory and offered tools, and the offers themselves. */
  #prompts = new PromptCache();
  /**
   * What the last turn offered, so a child's request repeats its bytes (prompt cache), and the
   * turn it was for, whose seat a child works under.
   */
  #lastOffer: { tools: readonly Tool[]; cwd: string | undefined; turn?: TurnContext } | undefined;
  /** The turn a child made by `spawnChild` works under when its invocation names none: its parent's. */
  #inheritedTurn: TurnContext | undefined;
  #lastPrompt: string | undefined;
  #followUps: string[] = [];
  #steering: string[] = [];
  #contextTokens: number | undefined;
  #pinnedSessionId: string | undefined;
  #reviewer: { cancel(): void; afterTurn(channel: string | undefined): void } | undefined;
  #spent = new UsageBook();

  constructor(options: AgentOptions) {
    this.options = options;
    this.sessionKey = options.sessionKey;
    this.sessions = options.sessions ?? new SessionManager(createStore({ driver: 'memory' }));
    ({ extensions: this.#extensions, guardrails: this.#guardrails, tools: this.#tools } = agentParts(options));
    this.#retry = { ...defaultRetrySettings, ...options.retry };
    this.#compaction = new AgentCompaction({
      agent: this,
      settings: { ...defaultCompactionSettings, ...options.compaction },
      signal: () => this.#abort.signal,
      slot: () => this.#phases.slot,
      contextTokens: () => this.#contextTokens,
      compacted: () => (this.#contextTokens = undefined),
      emit: (event) => this.#emit(event),
    });
    this.lifecycle.onTransition((from, to) => this.#emitLocal({ type: 'state_change', from, to }));
  }

  get phase(): AgentPhase {
    return this.#phases.phase;
  }
  get state(): LifecycleState {
    return this.lifecycle.state;
  }
  get model(): string {
    return this.options.model;
  }
  /** The model provider this agent calls (`anthropic`, `openai`): the group its turns queue in. */
  get providerName(): string {
    return this.options.provider.name;
  }
  /** Tools sent to the model (built-in first; extension tools cannot shadow them), then the live ones as they are now. */
  get tools(): readonly Tool[] {
    return withLiveTools(this.#tools, this.options.liveTools?.());
  }
  /** Token usage and cost of everything this agent object ran. */
  get totals(): { usage: Usage; cost: Cost } {
    return this.#spent.totals;
  }
  /** Extension handler failures so far. */
  get extensionErrors(): ExtensionRunner['errors'] {
    return this.#extensions.errors;
  }

  /** Listens to every event; returns an unsubscribe function. */
  subscribe(listener: Listener): () => void {
    return this.#listeners.subscribe(listener);
  }

  /** The session this agent currently writes to. */
  session(): Promise<SessionTree> {
    return this.sessions.open(this.sessionKey);
  }

  /**
   * Runs one turn for `input`, then any follow-ups queued meanwhile. Throws when the agent is busy,
   * and when the turn fails for good (after retries; the session is then as it was before), which
   * includes a `TurnTimeoutError` when `options.timeoutMs` passes first.
   */
  async invoke(input: string, options: InvokeOptions = {}): Promise<TurnResult> {
    this.#enter('turn', options.slot);
    // A person's turn takes precedence over a background review of the conversation.
    this.#reviewer?.cancel();
    const deadline = startTurnDeadline(options.timeoutMs, (error) => this.#abort.abort(error));
    if (!options.turn && this.#inheritedTurn) options = { ...options, turn: this.#inheritedTurn };
    try {
      const result = await this.#turn(input, options, deadline);
      while (this.#followUps.length > 0 && !this.#abort.signal.aborted) {
        const queued = this.#followUps.splice(0);
        try {
          result.followUps.push(await this.#turn(queued.join('\n\n'), { channel: options.channel, turn: options.turn }, deadline));
        } catch {
          // Reported through `turn_error`; the first turn's answer still stands.
          break;
        }
      }
      await this.#emit({ type: 'settled' });
      return result;
    } finally {
      deadline?.clear();
      this.#leave();
      this.#reviewer?.afterTurn(options.channel);
    }
  }

  /** Attaches the background reviewer that keeps memory current (see `reviewer.ts`). */
  setReviewer(reviewer: { cancel(): void; afterTurn(channel: string | undefined): void } | undefined): void {
    this.#reviewer = reviewer;
  }

  /** Adds a background review's usage to this agent's review totals (shown apart in `/status`). */
  chargeReview(usage: Usage, cost: Cost): void {
    this.#spent.chargeReview(usage, cost);
    this.#emitLocal({ type: 'review_usage', model: this.model, usage, cost });
  }

  /** Reports a subagent's model call as this agent's (`subagent_usage`; the records keep its totals). */
  reportChildUsage(model: string, usage: Usage, cost: Cost): void {
    this.#emitLocal({ type: 'subagent_usage', model, usage, cost });
  }

  /** Usage and cost of the background reviews of this agent object. */
  get reviewTotals(): { reviews: number; usage: Usage; cost: Cost } {
    return this.#spent.reviewTotals;
  }

  /** Queues a message to run as a turn after the current one. */
  followUp(text: string): void {
    this.#followUps.push(text);
  }

  /** Queues a message injected between the running turn's tool rounds. */
  steer(text: string): void {
    this.#steering.push(text);
  }

  /** Whether follow-ups or steering messages wait. */
  hasPendingMessages(): boolean {
    return this.#followUps.length > 0 || this.#steering.length > 0;
  }

  /** Aborts the running turn (no-op when idle). Queued follow-ups are dropped. */
  abort(): void {
    this.#followUps = [];
    this.#abort.abort(new CancellationError());
  }

  /** Requests compaction after the current turn. */
  compact(): void {
    this.#compaction.request();
  }

  /**
   * Compacts now (with the memory flush first when the agent has a `memory` tool, see
   * `memory-flush.ts`). Throws when busy or when the summary call fails (the transcript is then
   * untouched).
   */
  async runCompaction(instructions?: string, options: { slot?: TaskSlot } = {}): Promise<CompactionEntry | undefined> {
    this.#enter('compaction', options.slot);
    try {
      const entry = await this.#compaction.run('manual', { instructions });
      if (entry) await this.#emit({ type: 'save_point', sessionId: (await this.session()).id });
      return entry;
    } finally {
      this.#leave();
    }
  }

  /**
   * Holds the running turn in PAUSED while `work` (typically a person's approval) is pending, then
   * resumes it. Outside a running turn it just awaits `work`.
   */
  async pauseWhile<T>(work: Promise<T> | (() => Promise<T>)): Promise<T> {
    if (this.lifecycle.state !== 'RUNNING') return typeof work === 'function' ? work() : work;
    this.lifecycle.pause();
    try {
      return await (typeof work === 'function' ? work() : work);
    } finally {
      if ((this.lifecycle.state as LifecycleState) === 'PAUSED') this.lifecycle.resume();
    }
  }

  /** Resolves when the agent is idle. */
  waitForIdle(): Promise<void> {
    return this.#phases.waitForIdle();
  }

  /**
   * Re-reads resources (through `options.resources`), rebuilds tools, guardrails and extensions
   * from them and clears the prompt cache. Resolves to the resources' reload report.
   */
  async reload(): Promise<unknown> {
    const report = await this.options.resources?.reload();
    ({ extensions: this.#extensions, guardrails: this.#guardrails, tools: this.#tools } = agentParts(this.options));
    this.#prompts.invalidate();
    return report;
  }

  /**
   * Forgets the cached system prompt of `channel` (all channels when omitted), e.g. after a memory
   * review changed MEMORY.md.
   */
  invalidatePromptCache(channel?: string): void {
    this.#prompts.invalidate(channel);
  }

  /** What the last prompt build had to cut (from the resources, for `/status`). */
  get promptTruncations(): readonly string[] {
    return this.options.resources?.truncations ?? [];
  }

  /** The turn context of the last turn (whose seat background children work under); none in the terminal. */
  get lastTurn(): TurnContext | undefined {
    return this.#lastOffer?.turn;
  }

  /** The most recently built system prompt. */
  getSystemPrompt(): string | undefined {
    return this.#lastPrompt;
  }

  /** Context size as last measured (0 before the first call of this process). */
  contextUsageNow(): ContextUsage {
    return contextUsage(this.#contextTokens, this.options.modelInfo);
  }

  /** Context size relative to the model's window (measured after the first call, estimated before). */
  async getContextUsage(): Promise<ContextUsage> {
    // Estimated only when no call has measured it yet.
    const messages = this.#contextTokens === undefined ? (await this.session()).buildContext().messages : undefined;
    return contextUsage(this.#contextTokens, this.options.modelInfo, messages);
  }

  /** Starts a fresh session for this conversation. */
  newSession(): Promise<SessionTree> {
    return this.#moveSession(() => this.sessions.newSession(this.sessionKey));
  }

  /** Continues in a copy of the current branch (up to `entryId`). */
  fork(entryId?: string): Promise<SessionTree> {
    return this.#moveSession(() => this.sessions.fork(this.sessionKey, entryId));
  }

  /** Switches this conversation to another stored session. */
  switchSession(sessionId: string): Promise<SessionTree> {
    return this.#moveSession(() => this.sessions.switchSession(this.sessionKey, sessionId));
  }

  /** Moves the conversation to another session (idle only); the context is measured anew. */
  async #moveSession(move: () => Promise<SessionTree>): Promise<SessionTree> {
    this.#phases.assertIdle();
    this.#contextTokens = undefined;
    return move();
  }

  /**
   * An ephemeral child for background work (e.g. a memory reviewer). It shares the model client,
   * the system prompt bytes (and so the provider's prompt cache) and sends all parent tools, but
   * only `tools` may run; it persists nothing and has no extensions and no compaction. It works
   * under the seat of the parent's last turn (its turn context, without a chat to send files to),
   * so what it does from a group is what that group's turn could do.
   */
  async spawnChild(options: { tools?: readonly string[]; history?: readonly Message[]; maxToolRounds?: number; maxTokens?: number; origin?: TurnContext['origin'] } = {}): Promise<Agent> {
    const parentSessionId = this.#pinnedSessionId ?? (await this.session()).id;
    const offer = this.#lastOffer ?? { tools: this.tools, cwd: this.options.cwd };
    const child = new Agent(childOptions(this.options, { ...options, ...offer, sessionKey: `${this.sessionKey}:child`, guardrails: this.#guardrails.guardrails }));
    child.#allowedTools = new Set(options.tools ?? []);
    child.#inheritedTurn = offer.turn ? { ...offer.turn, attachFile: undefined, origin: options.origin ?? offer.turn.origin } : undefined;
    child.#pinnedSessionId = parentSessionId;
    this.#prompts.shareWith(child.#prompts);
    if (options.history && options.history.length > 0) {
      // The child starts from the parent's conversation, so its request repeats the parent's
      // bytes and only adds what it is asked: a prompt-cache hit for everything before.
      const tree = await child.session();
      for (const message of options.history) await tree.appendMessage(message);
    }
    return child;
  }

  /**
   * Closes the agent's live surfaces (its browser): `/new`, `/stop`. The next use opens them
   * again. Resolves to the tools of those that were open.
   */
  async closeSurfaces(): Promise<string[]> {
    const open = (this.options.surfaces ?? []).filter((surface) => surface.isOpen);
    await Promise.all((this.options.surfaces ?? []).map((surface) => surface.close()));
    return open.map((surface) => surface.tool);
  }

  /** Disposes the agent: aborts work and refuses further turns. */
  dispose(): void {
    this.abort();
    this.lifecycle.dispose();
  }

  /** The view of this agent that extension handlers get. */
  readonly context: ExtensionContext = createAgentContext(this);

  /** Token usage and cost recorded in the current session, across restarts. */
  async sessionStats(): Promise<SessionStats> {
    return sessionStats(await this.session(), this.options.modelInfo);
  }

  /** The abort signal of the running turn. */
  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  // --- the turn -------------------------------------------------------------------------------

  async #turn(rawInput: string, options: InvokeOptions, deadline: TurnDeadline | undefined): Promise<TurnResult> {
    const lifecycle = this.lifecycle;
    lifecycle.initialize();
    try {
      // 1-2. Per-turn guardrail reset, then the raw input.
      this.#guardrails.onTurnStart();
      const input = overridden(await this.#emit({ type: 'input', text: rawInput, channel: options.channel }), 'text', isText, rawInput);

      // 3-4. System prompt (cached per channel), then extensions may replace it.
      const tree = await this.session();
      // The tools this turn may use, and where: the model is offered only those, and the prompt
      // names only those, so a conversation's bytes stay the same from turn to turn.
      const tools = this.#prompts.offered(this.tools, options.turn);
      const cwd = options.turn?.workspace?.cwd ?? this.options.cwd;
      this.#lastOffer = { tools, cwd, turn: options.turn };
      const builder = this.options.systemPrompt ?? this.options.resources?.systemPrompt ?? defaultSystemPrompt;
      const owner = isOwnerTurn(options.turn);
      const builtPrompt = await this.#prompts.prompt(builder, { channel: options.channel, sessionId: this.#pinnedSessionId ?? tree.id, cwd: cwd ?? process.cwd(), tools, owner });
      const systemPrompt = overridden(await this.#emit({ type: 'before_agent_start', systemPrompt: builtPrompt, channel: options.channel }), 'systemPrompt', isText, builtPrompt);
      this.#lastPrompt = systemPrompt;

      // 5-6. History from the session tree, then extensions may replace it.
      const builtHistory = tree.buildContext().messages;
      const history = overridden(await this.#emit({ type: 'context', messages: builtHistory }), 'messages', isList<Message>, builtHistory);

      // 7. The user message, persisted once whatever the retries.
      const userMessage: UserMessage = {
        role: 'user',
        content: [{ type: 'text', text: input }, ...(options.images ?? [])],
        timestamp: Date.now(),
      };
      const leafBefore = tree.leafId;
      const userEntryId = (await tree.appendMessage(userMessage)).id;
      await this.#emit({ type: 'message_end', message: userMessage });

      // 8-9. Tools are merged at construction; run with retries.
      lifecycle.start();
      const run = await runWithRetry({
        tree,
        messages: [...history, userMessage],
        userEntryId,
        leafBeforeUser: leafBefore,
        signal: this.#abort.signal,
        deadline,
        settings: this.#retry,
        modelInfo: this.options.modelInfo,
        attempt: (messages) => this.#createEngine(tree, options.turn, tools).run({ systemPrompt, messages, signal: this.#abort.signal }),
        emit: (event) => this.#emit(event),
        compact: () => this.#compaction.run('overflow', { channel: options.channel }),
        sleep: this.options.sleep ?? abortableSleep,
      });
      if (run.contextTokens > 0) this.#contextTokens = run.contextTokens;

      // 10. Durable: save point, then the end of the turn.
      lifecycle.complete();
      const last = [...run.messages].reverse().find((message): message is AssistantMessage => message.role === 'assistant');
      await this.#emit({ type: 'save_point', sessionId: tree.id });
      await this.#emit({ type: 'agent_end', message: last, messages: run.messages, usage: run.usage, cost: run.cost, aborted: run.aborted });

      // 11. Compaction after the turn, never during it. Its failure must not fail the turn.
      if (!run.aborted) await this.#compaction.afterTurn(options.channel);
      lifecycle.finish();
      return {
        text: last ? last.content.map((part) => (part.type === 'text' ? part.text : '')).join('') : '',
        message: last,
        messages: [userMessage, ...run.messages],
        usage: run.usage,
        cost: run.cost,
        aborted: run.aborted,
        followUps: [],
      };
    } catch (error) {
      const failure = error instanceof AgentError ? error : new InternalError(errorMessage(error));
      if (lifecycle.state !== 'ERROR' && lifecycle.state !== 'DISPOSED') lifecycle.fail(failure);
      await this.#emit({ type: 'turn_error', error: failure });
      if (lifecycle.state === 'ERROR') lifecycle.recover();
      throw failure;
    }
  }

  #createEngine(tree: SessionTree, turn: TurnContext | undefined, tools: readonly Tool[]): Engine {
    return createTurnEngine(this.options, {
      tree,
      tools,
      turn,
      slot: this.#phases.slot,
      allowedTools: this.#allowedTools,
      takeSteering: () => this.#steering.splice(0),
      record: (usage) => this.#spent.record(usage, this.options.modelInfo),
      extensions: this.#extensions,
      guardrails: this.#guardrails,
      context: this.context,
      emit: (event) => this.#emit(event),
      emitLocal: (event) => this.#emitLocal(event),
      halt: (reason) => this.#abort.abort(reason),
      // The turn is PAUSED while a person decides (see waitForApproval).
      askApproval: (call, reason) =>
        waitForApproval({ ask: this.options.requestApproval, call, reason, timeoutMs: this.options.approvalTimeoutMs ?? 5 * 60_000, turnSignal: this.#abort.signal, pause: (work) => this.pauseWhile(work) }),
    });
  }

  // --- plumbing -------------------------------------------------------------------------------

  /** Emits to listeners and extensions; returns what extension handlers returned. */
  async #emit(event: AgentEvent): Promise<unknown[]> {
    this.#emitLocal(event);
    if (!this.#extensions.handles(event.type)) return [];
    return this.#extensions.emit(event, this.context);
  }

  #emitLocal(event: AgentEvent | EngineEvent): void {
    this.#listeners.tell(event);
  }

  #enter(phase: AgentPhase, slot?: TaskSlot): void {
    if (this.lifecycle.state === 'DISPOSED') throw new InternalError('The agent was disposed');
    this.#phases.enter(phase, slot);
    if (this.#abort.signal.aborted) this.#abort = new AbortController();
  }

  #leave(): void {
    this.#steering = [];
    this.#phases.leave();
  }
}

