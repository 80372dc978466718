/**
 * The Agent: one conversation's orchestrator over the Engine. It owns the session (persistence
 * and rewind), retries, events and extensions, compaction, follow-ups and steering, and children.
 * See `README.md` in this folder for the turn flow and its invariants.
 */
import { AgentError, CancellationError, InternalError, ProviderError, errorMessage } from '../core/errors.ts';
import { abortableSleep } from '../core/sleep.ts';
import type { Cost } from '../llm/cost.ts';
import { addCost, computeCost, emptyCost } from '../llm/cost.ts';
import type { AssistantMessage, Message, ToolCallPart, UserMessage, Usage } from '../llm/types.ts';
import { addUsage, emptyUsage } from '../llm/types.ts';
import { SessionManager } from '../session/session-manager.ts';
import type { SessionTree } from '../session/session-tree.ts';
import type { CompactionEntry } from '../session/types.ts';
import { createStore } from '../store/unstorage-store.ts';
import type { Tool, TurnContext } from '../tools/tool.ts';
import { createAgentContext } from './agent-context.ts';
import { sessionStats } from './session-stats.ts';
import type { SessionStats } from './session-stats.ts';
import type { AgentEvent } from './agent-events.ts';
import type { AgentOptions, AgentPhase, InvokeOptions, TurnResult } from './agent-options.ts';
import type { CompactionSettings } from './compaction.ts';
import { defaultCompactionSettings, estimateTokens, planCut, shouldCompact, summarize } from './compaction.ts';
import { Engine } from './engine.ts';
import type { EngineEvent } from './engine-events.ts';
import type { ContextUsage, ExtensionContext } from './extension-context.ts';
import { ExtensionRunner } from './extensions.ts';
import { GuardrailSet } from './guardrail-set.ts';
import type { RetrySettings } from './retry.ts';
import { defaultRetrySettings, retryDelay } from './retry.ts';
import { LifecycleStateMachine } from './state-machine.ts';
import type { LifecycleState } from './state-machine.ts';
import { defaultSystemPrompt, today } from './system-prompt.ts';

export type { AgentOptions, AgentPhase, InvokeOptions, TurnResult } from './agent-options.ts';
export type { RetrySettings } from './retry.ts';
export { defaultRetrySettings } from './retry.ts';

type Listener = (event: AgentEvent) => void;

/** One conversation's agent. */
export class Agent {
  readonly lifecycle = new LifecycleStateMachine();
  readonly options: AgentOptions;
  readonly sessions: SessionManager;
  readonly sessionKey: string;

  #phase: AgentPhase = 'idle';
  #abort = new AbortController();
  #listeners: Listener[] = [];
  #extensions: ExtensionRunner;
  #guardrails: GuardrailSet;
  #tools: readonly Tool[];
  #allowedTools: ReadonlySet<string> | undefined;
  #retry: RetrySettings;
  #compaction: CompactionSettings;
  /** Prompts by channel, working directory and offered tools (see {@link promptKey}). */
  #promptCache = new Map<string, { date: string; prompt: string }>();
  /** What the last turn offered, so a child's request repeats its bytes (prompt cache). */
  #lastOffer: { tools: readonly Tool[]; cwd: string | undefined } | undefined;
  /** Offered tool lists per set of names, for the current {@link #tools}. */
  #offers = new WeakMap<ReadonlySet<string>, { from: readonly Tool[]; tools: readonly Tool[] }>();
  #lastPrompt: string | undefined;
  #followUps: string[] = [];
  #steering: string[] = [];
  #compactRequested = false;
  #contextTokens: number | undefined;
  #idleWaiters: (() => void)[] = [];
  #pinnedSessionId: string | undefined;
  #usage: Usage = emptyUsage();
  #reviewer: { cancel(): void; afterTurn(channel: string | undefined): void } | undefined;
  #reviewTotals = { reviews: 0, usage: emptyUsage(), cost: emptyCost() };
  #cost: Cost = emptyCost();

  constructor(options: AgentOptions) {
    this.options = options;
    this.sessionKey = options.sessionKey;
    this.sessions = options.sessions ?? new SessionManager(createStore({ driver: 'memory' }));
    this.#extensions = new ExtensionRunner([]);
    this.#guardrails = new GuardrailSet([]);
    this.#tools = [];
    this.#refreshFromResources();
    this.#retry = { ...defaultRetrySettings, ...options.retry };
    this.#compaction = { ...defaultCompactionSettings, ...options.compaction };
    this.lifecycle.onTransition((from, to) => this.#emitLocal({ type: 'state_change', from, to }));
  }

  get phase(): AgentPhase {
    return this.#phase;
  }
  get state(): LifecycleState {
    return this.lifecycle.state;
  }
  get model(): string {
    return this.options.model;
  }
  /** Tools sent to the model (built-in first; extension tools cannot shadow them). */
  get tools(): readonly Tool[] {
    return this.#tools;
  }
  /** Token usage and cost of everything this agent object ran. */
  get totals(): { usage: Usage; cost: Cost } {
    return { usage: this.#usage, cost: this.#cost };
  }
  /** Extension handler failures so far. */
  get extensionErrors(): ExtensionRunner['errors'] {
    return this.#extensions.errors;
  }

  /** Listens to every event; returns an unsubscribe function. */
  subscribe(listener: Listener): () => void {
    this.#listeners.push(listener);
    return () => {
      this.#listeners = this.#listeners.filter((l) => l !== listener);
    };
  }

  /** The session this agent currently writes to. */
  session(): Promise<SessionTree> {
    return this.sessions.open(this.sessionKey);
  }

  /**
   * Runs one turn for `input`, then any follow-ups queued meanwhile. Throws when the agent is busy,
   * and when the turn fails for good (after retries; the session is then as it was before).
   */
  async invoke(input: string, options: InvokeOptions = {}): Promise<TurnResult> {
    this.#enter('turn');
    // A person's turn takes precedence over a background review of the conversation.
    this.#reviewer?.cancel();
    try {
      const result = await this.#turn(input, options);
      while (this.#followUps.length > 0 && !this.#abort.signal.aborted) {
        const queued = this.#followUps.splice(0);
        try {
          result.followUps.push(await this.#turn(queued.join('\n\n'), { channel: options.channel, turn: options.turn }));
        } catch {
          // Reported through `turn_error`; the first turn's answer still stands.
          break;
        }
      }
      await this.#emit({ type: 'settled' });
      return result;
    } finally {
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
    this.#reviewTotals = {
      reviews: this.#reviewTotals.reviews + 1,
      usage: addUsage(this.#reviewTotals.usage, usage),
      cost: addCost(this.#reviewTotals.cost, cost),
    };
  }

  /** Usage and cost of the background reviews of this agent object. */
  get reviewTotals(): { reviews: number; usage: Usage; cost: Cost } {
    return this.#reviewTotals;
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
    this.#compactRequested = true;
  }

  /** Compacts now. Throws when busy or when the summary call fails (the session is then untouched). */
  async runCompaction(instructions?: string): Promise<CompactionEntry | undefined> {
    this.#enter('compaction');
    try {
      const entry = await this.#compact('manual', instructions);
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
    if (this.#phase === 'idle') return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /**
   * Re-reads resources (through `options.resources`), rebuilds tools, guardrails and extensions
   * from them and clears the prompt cache. Resolves to the resources' reload report.
   */
  async reload(): Promise<unknown> {
    const report = await this.options.resources?.reload();
    this.#refreshFromResources();
    this.#promptCache.clear();
    return report;
  }

  /**
   * Forgets the cached system prompt of `channel` (all channels when omitted), e.g. after a memory
   * review changed MEMORY.md.
   */
  invalidatePromptCache(channel?: string): void {
    if (channel === undefined) this.#promptCache.clear();
    else for (const key of this.#promptCache.keys()) if (key.startsWith(`${channel}\u0000`)) this.#promptCache.delete(key);
  }

  /** What the last prompt build had to cut (from the resources, for `/status`). */
  get promptTruncations(): readonly string[] {
    return this.options.resources?.truncations ?? [];
  }

  #refreshFromResources(): void {
    const resources = this.options.resources;
    this.#extensions = new ExtensionRunner([...(this.options.extensions ?? []), ...(resources?.extensions() ?? [])]);
    this.#guardrails = new GuardrailSet([...(this.options.guardrails ?? []), ...(resources?.guardrails() ?? [])], this.#extensions.guardrails());
    this.#tools = mergeTools([...(this.options.tools ?? []), ...(resources?.tools() ?? [])], this.#extensions.tools());
  }

  /** The most recently built system prompt. */
  getSystemPrompt(): string | undefined {
    return this.#lastPrompt;
  }

  /** Context size as last measured (0 before the first call of this process). */
  contextUsageNow(): ContextUsage {
    const contextWindow = this.options.modelInfo?.contextWindow ?? 128_000;
    const tokens = this.#contextTokens ?? 0;
    return { tokens, contextWindow, fraction: tokens / contextWindow, measured: this.#contextTokens !== undefined };
  }

  /** Context size relative to the model's window (measured after the first call, estimated before). */
  async getContextUsage(): Promise<ContextUsage> {
    const contextWindow = this.options.modelInfo?.contextWindow ?? 128_000;
    let tokens = this.#contextTokens;
    const measured = tokens !== undefined;
    if (tokens === undefined) {
      const context = (await this.session()).buildContext();
      tokens = context.messages.reduce((sum, message) => sum + estimateTokens(message), 0);
    }
    return { tokens, contextWindow, fraction: tokens / contextWindow, measured };
  }

  /** Starts a fresh session for this conversation. */
  async newSession(): Promise<SessionTree> {
    this.#assertIdle();
    this.#contextTokens = undefined;
    return this.sessions.newSession(this.sessionKey);
  }

  /** Continues in a copy of the current branch (up to `entryId`). */
  async fork(entryId?: string): Promise<SessionTree> {
    this.#assertIdle();
    this.#contextTokens = undefined;
    return this.sessions.fork(this.sessionKey, entryId);
  }

  /** Switches this conversation to another stored session. */
  async switchSession(sessionId: string): Promise<SessionTree> {
    this.#assertIdle();
    this.#contextTokens = undefined;
    return this.sessions.switchSession(this.sessionKey, sessionId);
  }

  /**
   * An ephemeral child for background work (e.g. a memory reviewer). It shares the model client,
   * the system prompt bytes (and so the provider's prompt cache) and sends all parent tools, but
   * only `tools` may run; it persists nothing and has no extensions and no compaction.
   */
  async spawnChild(options: { tools?: readonly string[]; history?: readonly Message[]; maxToolRounds?: number; maxTokens?: number } = {}): Promise<Agent> {
    const parentSessionId = this.#pinnedSessionId ?? (await this.session()).id;
    const child = new Agent({
      ...this.options,
      sessions: undefined,
      sessionKey: `${this.sessionKey}:child`,
      tools: this.#lastOffer?.tools ?? this.#tools,
      cwd: this.#lastOffer ? this.#lastOffer.cwd : this.options.cwd,
      extensions: [],
      guardrails: this.#guardrails.guardrails,
      resources: undefined,
      systemPrompt: this.options.systemPrompt ?? this.options.resources?.systemPrompt,
      compaction: { enabled: false },
      getEphemeralMessages: undefined,
      maxToolRounds: options.maxToolRounds ?? this.options.maxToolRounds,
      maxTokens: options.maxTokens ?? this.options.maxTokens,
    });
    child.#allowedTools = new Set(options.tools ?? []);
    child.#pinnedSessionId = parentSessionId;
    for (const [key, value] of this.#promptCache) child.#promptCache.set(key, value);
    if (options.history && options.history.length > 0) {
      // The child starts from the parent's conversation, so its request repeats the parent's
      // bytes and only adds what it is asked: a prompt-cache hit for everything before.
      const tree = await child.session();
      for (const message of options.history) await tree.appendMessage(message);
    }
    return child;
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

  async #turn(rawInput: string, options: InvokeOptions): Promise<TurnResult> {
    const lifecycle = this.lifecycle;
    lifecycle.initialize();
    try {
      // 1-2. Per-turn guardrail reset, then the raw input.
      this.#guardrails.onTurnStart();
      let input = rawInput;
      for (const result of await this.#emit({ type: 'input', text: rawInput, channel: options.channel })) {
        if (isObject(result) && typeof result.text === 'string') input = result.text;
      }

      // 3-4. System prompt (cached per channel), then extensions may replace it.
      const tree = await this.session();
      // The tools this turn may use, and where: the model is offered only those, and the prompt
      // names only those, so a conversation's bytes stay the same from turn to turn.
      const tools = this.#offered(options.turn);
      const cwd = options.turn?.workspace?.cwd ?? this.options.cwd;
      this.#lastOffer = { tools, cwd };
      let systemPrompt = await this.#systemPrompt(options.channel, tree.id, tools, cwd);
      for (const result of await this.#emit({ type: 'before_agent_start', systemPrompt, channel: options.channel })) {
        if (isObject(result) && typeof result.systemPrompt === 'string') systemPrompt = result.systemPrompt;
      }
      this.#lastPrompt = systemPrompt;

      // 5-6. History from the session tree, then extensions may replace it.
      let history = tree.buildContext().messages;
      for (const result of await this.#emit({ type: 'context', messages: history })) {
        if (isObject(result) && Array.isArray(result.messages)) history = result.messages as Message[];
      }

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
      const run = await this.#runWithRetry(tree, systemPrompt, [...history, userMessage], userEntryId, leafBefore, options.turn, tools);

      // 10. Durable: save point, then the end of the turn.
      lifecycle.complete();
      const last = [...run.messages].reverse().find((message): message is AssistantMessage => message.role === 'assistant');
      await this.#emit({ type: 'save_point', sessionId: tree.id });
      await this.#emit({ type: 'agent_end', message: last, messages: run.messages, usage: run.usage, cost: run.cost, aborted: run.aborted });

      // 11. Compaction after the turn, never during it. Its failure must not fail the turn.
      if (!run.aborted) await this.#maybeCompact();
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

  async #runWithRetry(
    tree: SessionTree,
    systemPrompt: string,
    initialMessages: Message[],
    userEntryId: string,
    leafBeforeUser: string | null,
    turn: TurnContext | undefined,
    tools: readonly Tool[],
  ): Promise<{ messages: Message[]; usage: Usage; cost: Cost; aborted: boolean }> {
    let messages = initialMessages;
    let attemptLeaf = userEntryId;
    let usage = emptyUsage();
    let cost = emptyCost();
    const maxRetries = this.#retry.enabled ? this.#retry.maxRetries : 0;
    for (let attempt = 0; ; attempt++) {
      const engine = this.#createEngine(tree, turn, tools);
      const result = await engine.run({ systemPrompt, messages, signal: this.#abort.signal });
      usage = addUsage(usage, result.usage);
      cost = addCost(cost, computeCost(result.usage, this.options.modelInfo));
      if (attempt > 0) await this.#emit({ type: 'retry_end', attempt, success: !result.error, error: result.error });
      if (!result.error) {
        if (result.contextTokens > 0) this.#contextTokens = result.contextTokens;
        return { messages: result.messages, usage, cost, aborted: result.aborted };
      }

      // Whatever the failed attempt wrote goes off the active branch before anything else.
      await tree.setLeaf(attemptLeaf);
      const error = result.error;
      // An abort is the person's choice, not a failure: their message stays, the answer is dropped.
      if (this.#abort.signal.aborted) return { messages: [], usage, cost, aborted: true };
      const delayMs = retryDelay(error, attempt + 1, this.#retry);
      if (delayMs === undefined) {
        await tree.setLeaf(leafBeforeUser);
        throw error;
      }
      if (error instanceof ProviderError && error.kind === 'CONTEXT_OVERFLOW') {
        // The context must shrink before the same request can succeed.
        const entry = await this.#compact('overflow');
        if (entry) {
          attemptLeaf = entry.id;
          messages = tree.buildContext().messages;
        }
      }
      await this.#emit({ type: 'retry_start', attempt: attempt + 1, maxRetries, delayMs, error });
      try {
        await (this.options.sleep ?? abortableSleep)(delayMs, this.#abort.signal);
      } catch {
        await tree.setLeaf(leafBeforeUser);
        throw new CancellationError('Aborted while waiting to retry');
      }
    }
  }

  #createEngine(tree: SessionTree, turn: TurnContext | undefined, tools: readonly Tool[]): Engine {
    return new Engine({
      provider: this.options.provider,
      model: this.options.model,
      tools,
      allowedTools: this.#allowedTools,
      maxToolRounds: this.options.maxToolRounds,
      maxTokens: this.options.maxTokens,
      reasoningEffort: this.options.reasoningEffort,
      truncation: this.options.truncation,
      contextWindow: this.options.modelInfo?.contextWindow,
      cwd: turn?.workspace?.cwd ?? this.options.cwd,
      turn,
      getEphemeralMessages: this.options.getEphemeralMessages,
      takeSteeringMessages: () =>
        this.#steering.splice(0).map((text): UserMessage => ({ role: 'user', content: [{ type: 'text', text }], timestamp: Date.now() })),
      beforeToolCall: async (call) => {
        for (const result of await this.#emit({ type: 'tool_call', call })) {
          if (isObject(result) && result.block === true) return { block: true, reason: String(result.reason ?? 'blocked by an extension') };
        }
        const decision = await this.#guardrails.before(call, turn);
        if (decision.action === 'block') return { block: true, reason: decision.reason };
        if (decision.action === 'halt') {
          this.#abort.abort(new CancellationError(`Halted by guardrail: ${decision.reason}`));
          return { block: true, reason: `halted: ${decision.reason}` };
        }
        if (decision.action === 'ask' && !(await this.#askApproval(call, decision.reason))) {
          return { block: true, reason: `not approved: ${decision.reason}` };
        }
      },
      afterToolCall: async (call, result) => {
        let patched = { ...result, terminate: false };
        if (this.#extensions.handles('tool_result')) {
          for (const extension of this.#extensions.extensions) {
            for (const handler of extension.handlers.get('tool_result') ?? []) {
              // Each handler sees the result as patched by the previous ones.
              const patch = await this.#extensions.call(extension, handler, { type: 'tool_result', call, content: patched.content, isError: patched.isError }, this.context);
              if (!isObject(patch)) continue;
              if (Array.isArray(patch.content)) patched = { ...patched, content: patch.content };
              if (typeof patch.isError === 'boolean') patched = { ...patched, isError: patch.isError };
              if (patch.terminate === true) patched = { ...patched, terminate: true };
            }
          }
        }
        this.#emitLocal({ type: 'tool_result', call, content: patched.content, isError: patched.isError });
        const decision = await this.#guardrails.after(call, patched);
        patched = { ...patched, content: decision.content };
        if (decision.action === 'warn') patched = { ...patched, content: [...patched.content, { type: 'text', text: `\n[Guardrail warning: ${decision.reason}]` }] };
        if (decision.action === 'halt') this.#abort.abort(new CancellationError(`Halted by guardrail: ${decision.reason}`));
        return patched;
      },
      onEvent: async (event) => {
        if (event.type === 'message_end') {
          await tree.appendMessage(event.message);
          if (event.message.role === 'assistant' && event.message.usage) {
            const cost = computeCost(event.message.usage, this.options.modelInfo);
            this.#usage = addUsage(this.#usage, event.message.usage);
            this.#cost = addCost(this.#cost, cost);
            await this.#emit({ type: 'model_usage', model: this.options.model, usage: event.message.usage, cost });
          }
        }
        await this.#emit(event);
      },
    });
  }

  /**
   * Asks the conversation to approve `call` (PAUSED meanwhile). No way to ask, a refusal, an
   * abort or no answer within `approvalTimeoutMs` all deny.
   */
  async #askApproval(call: ToolCallPart, reason: string): Promise<boolean> {
    const ask = this.options.requestApproval;
    if (!ask) return false;
    const timeoutMs = this.options.approvalTimeoutMs ?? 5 * 60_000;
    const controller = new AbortController();
    const onAbort = () => controller.abort();
    this.#abort.signal.addEventListener('abort', onAbort, { once: true });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => {
        controller.abort();
        resolve(false);
      }, timeoutMs);
    });
    const aborted = new Promise<boolean>((resolve) => controller.signal.addEventListener('abort', () => resolve(false), { once: true }));
    try {
      const answer = () => Promise.resolve(ask({ call, reason, signal: controller.signal })).catch(() => false);
      return (await this.pauseWhile(() => Promise.race([answer(), timedOut, aborted]))) === true;
    } finally {
      clearTimeout(timer);
      this.#abort.signal.removeEventListener('abort', onAbort);
    }
  }

  // --- compaction -----------------------------------------------------------------------------

  async #maybeCompact(): Promise<void> {
    const contextWindow = this.options.modelInfo?.contextWindow;
    const due = this.#compactRequested || (contextWindow !== undefined && this.#contextTokens !== undefined && shouldCompact(this.#contextTokens, contextWindow, this.#compaction));
    this.#compactRequested = false;
    if (!due || !this.#compaction.enabled) return;
    try {
      await this.#compact('threshold');
    } catch {
      // The transcript stays whole; the next turn will try again.
    }
  }

  async #compact(reason: 'threshold' | 'overflow' | 'manual', instructions?: string): Promise<CompactionEntry | undefined> {
    if (!this.#compaction.enabled && reason !== 'manual') return undefined;
    const tree = await this.session();
    const plan = planCut(tree.branch(), this.#compaction.keepRecentTokens);
    if (!plan) return undefined;
    const tokensBefore = this.#contextTokens ?? tree.buildContext().messages.reduce((sum, message) => sum + estimateTokens(message), 0);
    let summary: string | undefined;
    let fromExtension = false;
    for (const result of await this.#emit({ type: 'session_before_compact', reason, tokensBefore })) {
      if (isObject(result) && result.cancel === true) return undefined;
      if (isObject(result) && typeof result.summary === 'string') {
        summary = result.summary;
        fromExtension = true;
      }
    }
    summary ??= await summarize(this.options.provider, this.options.model, plan, { instructions, signal: this.#abort.signal });
    const entry = (await tree.append({ type: 'compaction', summary, firstKeptEntryId: plan.firstKeptEntryId, tokensBefore })) as CompactionEntry;
    this.#contextTokens = undefined;
    await this.#emit({ type: 'session_compact', entry, fromExtension });
    return entry;
  }

  // --- plumbing -------------------------------------------------------------------------------

  /**
   * The tools a turn offers: those named in `turn.tools` (the gateway's grants), else all. The
   * list is kept per set of names, so a conversation's turns share one (and its definitions).
   */
  #offered(turn: TurnContext | undefined): readonly Tool[] {
    const names = turn?.tools;
    if (!names) return this.#tools;
    const known = this.#offers.get(names);
    if (known && known.from === this.#tools) return known.tools;
    const tools = this.#tools.filter((tool) => names.has(tool.name));
    this.#offers.set(names, { from: this.#tools, tools });
    return tools;
  }

  async #systemPrompt(channel: string | undefined, sessionId: string, tools: readonly Tool[], cwd: string | undefined): Promise<string> {
    const toolNames = tools.map((tool) => tool.name);
    const key = promptKey(channel, cwd ?? '', toolNames);
    const date = today();
    const cached = this.#promptCache.get(key);
    if (cached && cached.date === date) return cached.prompt;
    const builder = this.options.systemPrompt ?? this.options.resources?.systemPrompt ?? defaultSystemPrompt;
    const prompt = await builder({
      channel,
      sessionId: this.#pinnedSessionId ?? sessionId,
      cwd: cwd ?? process.cwd(),
      date,
      toolNames,
    });
    this.#promptCache.set(key, { date, prompt });
    return prompt;
  }

  /** Emits to listeners and extensions; returns what extension handlers returned. */
  async #emit(event: AgentEvent): Promise<unknown[]> {
    this.#emitLocal(event);
    if (!this.#extensions.handles(event.type)) return [];
    return this.#extensions.emit(event, this.context);
  }

  #emitLocal(event: AgentEvent | EngineEvent): void {
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch {
        // Listeners observe; they cannot break a turn.
      }
    }
  }

  #enter(phase: AgentPhase): void {
    if (this.lifecycle.state === 'DISPOSED') throw new InternalError('The agent was disposed');
    if (this.#phase !== 'idle') throw new InternalError(`The agent is busy (${this.#phase})`);
    this.#phase = phase;
    if (this.#abort.signal.aborted) this.#abort = new AbortController();
  }

  #leave(): void {
    this.#phase = 'idle';
    this.#steering = [];
    for (const resolve of this.#idleWaiters.splice(0)) resolve();
  }

  #assertIdle(): void {
    if (this.#phase !== 'idle') throw new InternalError(`The agent is busy (${this.#phase})`);
  }
}

/** The prompt cache's key: one prompt per channel, working directory and offered tools. */
function promptKey(channel: string | undefined, cwd: string, toolNames: readonly string[]): string {
  return `${channel ?? ''}\u0000${cwd}\u0000${toolNames.join(',')}`;
}

/** Built-in tools win over extension tools of the same name. */
function mergeTools(builtin: readonly Tool[], fromExtensions: readonly Tool[]): Tool[] {
  const names = new Set(builtin.map((tool) => tool.name));
  return [...builtin, ...fromExtensions.filter((tool) => !names.has(tool.name))];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

