/**
 * The Engine: one run of model call -> tool calls -> results -> next call, until the model answers
 * with text only, the run is aborted, the tool-round limit is reached, or every tool of a batch
 * asks to terminate. It keeps no state between runs and persists nothing; the Agent listens to its
 * `message_end` events for that.
 */
import { AgentError, CancellationError, InternalError, PermissionDeniedError, ToolNotFoundError, ToolTimeoutError, errorMessage } from '../core/errors.ts';
import type {
  AssistantMessage,
  Message,
  ModelRequest,
  Provider,
  ReasoningEffort,
  RequestOptions,
  ToolCallPart,
  ToolResultContent,
  ToolResultMessage,
  Usage,
} from '../llm/types.ts';
import { addUsage, emptyUsage } from '../llm/types.ts';
import type { Tool, ToolContext, TurnContext } from '../tools/tool.ts';
import { toToolDefinition } from '../tools/tool.ts';
import type { SeatFilesSource } from '../tools/files/seat-files.ts';
import type { EngineEvent } from './engine-events.ts';
import { keepOnAbort } from './keep-on-abort.ts';
import { createLoopDetector, loopWarning } from './loop-detector.ts';
import { repairOrphans } from './repair-orphans.ts';
import type { SpendGate, SpendTicket } from './spend-gate.ts';
import { defaultTruncationConfig, truncateOutput } from './truncation.ts';
import type { TruncationConfig } from './truncation.ts';

/** Returned by `beforeToolCall` to stop a call; the model sees `reason` as an error result. */
export interface ToolCallBlock {
  block: true;
  reason: string;
}

/** Returned by `afterToolCall` to change a result or end the run after this batch. */
export interface ToolResultPatch {
  content?: ToolResultContent[];
  isError?: boolean;
  /** When every call of a batch sets this, no follow-up model call is made. */
  terminate?: boolean;
}

/** Hooks the Agent sets. Errors thrown by hooks never abort a run. */
export interface EngineHooks {
  beforeToolCall?(call: ToolCallPart, signal: AbortSignal): Promise<ToolCallBlock | void> | ToolCallBlock | void;
  afterToolCall?(
    call: ToolCallPart,
    result: { content: ToolResultContent[]; isError: boolean },
  ): Promise<ToolResultPatch | void> | ToolResultPatch | void;
  onEvent?(event: EngineEvent): Promise<void> | void;
  /** Messages appended to one model call only (live browser state); never persisted. */
  getEphemeralMessages?(signal: AbortSignal): Promise<Message[]> | Message[];
  /** Drains steering messages queued while the run works; injected between tool rounds. */
  takeSteeringMessages?(): Message[];
}

/** How the engine runs. */
export interface EngineOptions extends EngineHooks {
  provider: Provider;
  model: string;
  /** Every tool sent to the model. */
  tools: readonly Tool[];
  /** When set, only these tools may run; others get an error result (children). */
  allowedTools?: ReadonlySet<string>;
  /** Maximum tool rounds per run; 0 means unlimited. Default 50. */
  maxToolRounds?: number;
  maxTokens?: number;
  /** Sampling, stop sequences, metadata and provider options of every call. */
  requestOptions?: RequestOptions;
  reasoningEffort?: ReasoningEffort;
  truncation?: TruncationConfig;
  /** Tool calls examined for repeating patterns; 0 disables detection. Default 10. */
  loopDetectionWindow?: number;
  /** Context window of the model, for the warning event. */
  contextWindow?: number;
  /** Fraction of the context window that triggers `context_window_warning`. Default 0.8. */
  contextWarningThreshold?: number;
  /** Working directory handed to tools. Default: the process's. */
  cwd?: string;
  /** The chat turn handed to tools (see `TurnContext`). */
  turn?: TurnContext;
  /** The agent's live surfaces handed to tools (see `LiveSurface`). */
  surfaces?: ToolContext['surfaces'];
  /** Where tools record the file changes they make (see `ToolContext.changes`). */
  changes?: ToolContext['changes'];
  /** The agent's children, for the subagent tools (see `ToolContext.subagents`). */
  subagents?: ToolContext['subagents'];
  /** The reference pool it shares (see `ToolContext.references`). */
  references?: ToolContext['references'];
  /** The queued task's slot, which model calls step out of while they wait (see `ToolContext.slot`). */
  slot?: ToolContext['slot'];
  /** Checks each model call against spending caps (see `spend-gate.ts`); unset: none. */
  spend?: SpendGate;
  /** Where tools get the seat's files (see `ToolContext.files`); unset: no `files`. */
  files?: SeatFilesSource;
}

/** The outcome of one run. */
export interface EngineRunResult {
  /** Messages produced by this run, in order (what the Agent persisted). */
  messages: Message[];
  usage: Usage;
  /** Set when the run failed; the messages so far are then to be rewound by the caller. */
  error?: AgentError;
  aborted: boolean;
  /** Input-side tokens of the last model call (the context size). */
  contextTokens: number;
}

/** Runs the model/tool loop. One engine may serve many runs, one at a time. */
export class Engine {
  readonly options: EngineOptions;
  #toolsByName: Map<string, Tool>;
  #toolDefinitions: ReturnType<typeof toToolDefinition>[];

  constructor(options: EngineOptions) {
    this.options = options;
    this.#toolsByName = new Map(options.tools.map((tool) => [tool.name, tool]));
    this.#toolDefinitions = options.tools.map(toToolDefinition);
  }

  /** Runs until a text-only answer, an abort, a failure or the round limit. Never throws. */
  async run(input: { systemPrompt: string; messages: readonly Message[]; signal?: AbortSignal }): Promise<EngineRunResult> {
    const signal = input.signal ?? new AbortController().signal;
    const history: Message[] = [...input.messages];
    const produced: Message[] = [];
    const maxRounds = this.options.maxToolRounds ?? 50;
    const window = this.options.loopDetectionWindow ?? 10;
    const detector = window > 0 ? createLoopDetector(window) : undefined;
    let usage = emptyUsage();
    let contextTokens = 0;
    let warned = false;
    let toolRounds = 0;
    let error: AgentError | undefined;
    let aborted = false;

    const emit = async (event: EngineEvent) => {
      try {
        await this.options.onEvent?.(event);
      } catch {
        // Listeners observe; a failing one must not break the run.
      }
    };
    const produce = async (message: Message) => {
      history.push(message);
      produced.push(message);
      await emit({ type: 'message_end', message });
    };

    await emit({ type: 'engine_start' });
    for (let round = 1; ; round++) {
      if (signal.aborted) {
        aborted = true;
        break;
      }
      await emit({ type: 'turn_start', round });
      const outcome = await this.#callModel(input.systemPrompt, history, signal, emit);
      if (outcome.kind === 'error') {
        error = outcome.error;
        await emit({ type: 'error', error });
        break;
      }
      const message = outcome.message;
      if (message.usage) {
        usage = addUsage(usage, message.usage);
        contextTokens = message.usage.input + message.usage.cacheRead + message.usage.cacheWrite + message.usage.output;
        const threshold = this.options.contextWarningThreshold ?? 0.8;
        const windowTokens = this.options.contextWindow;
        if (!warned && windowTokens && contextTokens / windowTokens >= threshold) {
          warned = true;
          await emit({ type: 'context_window_warning', usageFraction: contextTokens / windowTokens, threshold });
        }
      }
      if (message.stopReason === 'aborted') {
        aborted = true;
        const kept = keepOnAbort(message);
        if (kept) await produce(kept);
        break;
      }
      await produce(message);

      const calls = message.content.filter((part): part is ToolCallPart => part.type === 'tool-call');
      if (calls.length === 0) {
        await emit({ type: 'turn_end', round, message, toolResults: [] });
        // The answer is complete: a steering message that came too late for it is not taken in
        // here (it would make another answer replace this one); it stays with its sender's turn.
        break;
      }

      const results = await Promise.all(calls.map((call) => this.#executeTool(call, signal, emit)));
      const toolResults: ToolResultMessage[] = [];
      for (const [index, result] of results.entries()) {
        const call = calls[index]!;
        const pattern = detector?.record(call.name, call.arguments);
        if (pattern) {
          await emit({ type: 'loop_detection', pattern, window });
          result.message.content[0].content.push({ type: 'text', text: `\n\n[WARNING: ${loopWarning(pattern)}]` });
        }
        toolResults.push(result.message);
        await produce(result.message);
      }
      await emit({ type: 'turn_end', round, message, toolResults });
      toolRounds++;

      if (signal.aborted) {
        aborted = true;
        break;
      }
      if (results.every((result) => result.terminate)) break;
      await this.#injectSteering(produce, emit);
      if (maxRounds > 0 && toolRounds >= maxRounds) {
        await emit({ type: 'turn_limit', rounds: toolRounds, limit: maxRounds });
        break;
      }
    }
    await emit({ type: 'engine_end', messages: produced, usage, error, aborted });
    return { messages: produced, usage, error, aborted, contextTokens };
  }

  async #injectSteering(produce: (message: Message) => Promise<void>, emit: (event: EngineEvent) => Promise<void>): Promise<boolean> {
    const steering = this.options.takeSteeringMessages?.() ?? [];
    for (const message of steering) {
      await produce(message);
      const text = message.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
      await emit({ type: 'steering_injected', text });
    }
    return steering.length > 0;
  }

  async #callModel(
    systemPrompt: string,
    history: readonly Message[],
    signal: AbortSignal,
    emit: (event: EngineEvent) => Promise<void>,
  ): Promise<{ kind: 'message'; message: AssistantMessage } | { kind: 'error'; error: AgentError }> {
    let ephemeral: Message[] = [];
    try {
      ephemeral = (await this.options.getEphemeralMessages?.(signal)) ?? [];
    } catch {
      // Live state is a convenience; the call goes ahead without it.
    }
    const request: ModelRequest = {
      ...this.options.requestOptions,
      model: this.options.model,
      systemPrompt,
      messages: repairOrphans(history),
      ...(ephemeral.length > 0 ? { ephemeral } : {}),
      tools: this.#toolDefinitions,
      maxTokens: this.options.maxTokens,
      reasoningEffort: this.options.reasoningEffort,
      signal,
      slot: this.options.slot,
    };
    // Spending caps first: a call that would not fit is never sent.
    let ticket: SpendTicket | undefined;
    try {
      ticket = await this.options.spend?.reserve(request, this.options.turn);
    } catch (refused) {
      return { kind: 'error', error: refused instanceof AgentError ? refused : new InternalError(`Spending check failed: ${errorMessage(refused)}`) };
    }
    let used: Usage | undefined;
    try {
      for await (const event of this.options.provider.stream(request)) {
        switch (event.type) {
          case 'text-delta':
            await emit({ type: 'text_delta', text: event.text });
            break;
          case 'thinking-delta':
            await emit({ type: 'thinking_delta', text: event.text });
            break;
          case 'message-end':
            used = event.message.usage;
            return { kind: 'message', message: event.message };
          case 'error':
            return { kind: 'error', error: event.error };
          default:
            break;
        }
      }
    } catch (thrown) {
      // Providers encode failures as events; a throw here is a provider bug or an abort race.
      if (signal.aborted) return { kind: 'error', error: new CancellationError() };
      return { kind: 'error', error: new InternalError(`Model stream failed: ${errorMessage(thrown)}`) };
    } finally {
      ticket?.settle(used);
    }
    if (signal.aborted) return { kind: 'message', message: { role: 'assistant', content: [], stopReason: 'aborted' } };
    return { kind: 'error', error: new InternalError('Model stream ended without a final message') };
  }

  async #executeTool(
    call: ToolCallPart,
    runSignal: AbortSignal,
    emit: (event: EngineEvent) => Promise<void>,
  ): Promise<{ message: ToolResultMessage; terminate: boolean }> {
    const started = performance.now();
    await emit({ type: 'tool_execution_start', call });
    let content: ToolResultContent[];
    let isError = false;
    let threw = false;
    let output: string;
    // The turn's own folder, made by its first tool call (see TurnContext.prepareWorkspace).
    const prepared = await this.#safeHook(() => this.options.turn?.prepareWorkspace?.());

    // The guardrails and approvals see what the call acts on (a button's name), not only its arguments.
    const facts = await this.#safeHook(() => this.#inspect(call, runSignal));
    const seen = facts.value ? { ...call, arguments: { ...call.arguments, ...facts.value } } : call;
    const blocked = await this.#safeHook(() => this.options.beforeToolCall?.(seen, runSignal));
    if (prepared.error !== undefined) {
      ({ content, isError } = errorResult(`Error: the workspace could not be made: ${errorMessage(prepared.error)}`));
    } else if (blocked.error !== undefined) {
      ({ content, isError } = errorResult(`Error: tool call check failed: ${errorMessage(blocked.error)}`));
    } else if (blocked.value && blocked.value.block) {
      ({ content, isError } = errorResult(`Error: tool call blocked: ${blocked.value.reason}`));
    } else {
      ({ content, isError, threw = false } = await this.#invoke(call, runSignal, emit));
    }
    output = textOf(content);

    const truncation = this.options.truncation ?? defaultTruncationConfig;
    content = content.map((part) => (part.type === 'text' ? { type: 'text', text: truncateOutput(call.name, part.text, truncation).text } : part));

    let terminate = false;
    const patched = await this.#safeHook(() => this.options.afterToolCall?.(call, { content, isError }));
    if (patched.value) {
      if (patched.value.content) content = patched.value.content;
      if (patched.value.isError !== undefined) isError = patched.value.isError;
      terminate = patched.value.terminate === true;
    }
    if (patched.error !== undefined) output += `\n[tool result hook failed: ${errorMessage(patched.error)}]`;

    const message: ToolResultMessage = {
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: call.id, toolName: call.name, content, isError }],
      timestamp: Date.now(),
    };
    await emit({ type: 'tool_execution_end', call, output, result: message, isError, durationMs: performance.now() - started, ...(threw && { threw }) });
    return { message, terminate };
  }

  /** What the tool says its call acts on (see `Tool.inspect`), or undefined. */
  async #inspect(call: ToolCallPart, signal: AbortSignal): Promise<Record<string, string> | undefined> {
    const tool = this.#toolsByName.get(call.name);
    if (!tool?.inspect || (this.options.allowedTools && !this.options.allowedTools.has(call.name))) return undefined;
    const parsed = tool.parameters.safeParse(call.arguments);
    if (!parsed.success) return undefined;
    return tool.inspect(parsed.data, this.#toolContext(call, signal));
  }

  #toolContext(call: ToolCallPart, signal: AbortSignal, emit?: (event: EngineEvent) => Promise<void>): ToolContext {
    const cwd = this.options.cwd ?? process.cwd();
    const context: ToolContext = {
      signal,
      cwd,
      toolCallId: call.id,
      turn: this.options.turn,
      surfaces: this.options.surfaces,
      changes: this.options.changes,
      subagents: this.options.subagents,
      references: this.options.references,
      slot: this.options.slot,
      onOutput: emit && ((text) => void emit({ type: 'tool_execution_update', call, text })),
    };
    const tool = this.#toolsByName.get(call.name);
    if (this.options.files && tool) context.files = this.options.files(context, cwd, tool.machine, tool.name);
    return context;
  }

  async #invoke(
    call: ToolCallPart,
    runSignal: AbortSignal,
    emit: (event: EngineEvent) => Promise<void>,
  ): Promise<{ content: ToolResultContent[]; isError: boolean; threw?: boolean }> {
    const tool = this.#toolsByName.get(call.name);
    if (!tool) return errorResult(`Error: ${new ToolNotFoundError(call.name).message}`);
    if (this.options.allowedTools && !this.options.allowedTools.has(call.name)) {
      return errorResult(`Error: ${new PermissionDeniedError(call.name, 'not allowed here').message}`);
    }
    const parsed = tool.parameters.safeParse(call.arguments);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(arguments)'}: ${issue.message}`).join('; ');
      return errorResult(`Error: invalid arguments for ${call.name}: ${issues}`);
    }
    if (runSignal.aborted) return errorResult('Error: aborted before the tool ran.');

    const controller = new AbortController();
    const onAbort = () => controller.abort(runSignal.reason);
    runSignal.addEventListener('abort', onAbort, { once: true });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      if (tool.timeoutMs) timer = setTimeout(() => resolve('timeout'), tool.timeoutMs);
    });
    try {
      const running = tool.execute(parsed.data, this.#toolContext(call, controller.signal, emit));
      const settled = await Promise.race([running, timeout]);
      if (settled === 'timeout') {
        controller.abort(new ToolTimeoutError(call.name, tool.timeoutMs!));
        running.catch(() => undefined);
        return errorResult(`Error: ${new ToolTimeoutError(call.name, tool.timeoutMs!).message}`);
      }
      if (typeof settled === 'string') return { content: [{ type: 'text', text: settled }], isError: false };
      const content = typeof settled.content === 'string' ? [{ type: 'text' as const, text: settled.content }] : settled.content;
      return { content, isError: settled.isError === true };
    } catch (thrown) {
      if (runSignal.aborted) return errorResult('Error: aborted while the tool was running.');
      // Stopped here, at the tool's boundary: the model reads why, the gateway counts it.
      return { ...errorResult(`Error: ${errorMessage(thrown)}`), threw: true };
    } finally {
      clearTimeout(timer);
      runSignal.removeEventListener('abort', onAbort);
    }
  }

  async #safeHook<T>(hook: () => Promise<T> | T): Promise<{ value?: T; error?: unknown }> {
    try {
      return { value: await hook() };
    } catch (error) {
      return { error: error ?? new Error('hook failed') };
    }
  }
}

function errorResult(text: string): { content: ToolResultContent[]; isError: boolean } {
  return { content: [{ type: 'text', text }], isError: true };
}

function textOf(content: ToolResultContent[]): string {
  return content.map((part) => (part.type === 'text' ? part.text : `[image ${part.mediaType}]`)).join('\n');
}
