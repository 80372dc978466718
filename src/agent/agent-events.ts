/**
 * Events the Agent emits around the engine's. Listeners and extensions receive both kinds through
 * one stream, in the order the 12-step turn produces them.
 */
import type { AgentError } from '../core/errors.ts';
import type { Cost } from '../llm/cost.ts';
import type { AssistantMessage, Message, ToolCallPart, ToolResultContent, Usage } from '../llm/types.ts';
import type { CompactionEntry } from '../session/types.ts';
import type { EngineEvent } from './engine-events.ts';
import type { LifecycleState } from './state-machine.ts';
import type { MemoryFlushOutcome } from './memory-flush.ts';

/** Events of the Agent itself. */
export type AgentOwnEvent =
  /** Raw user input, before anything else happens. Handlers may return `{ text }` to replace it. */
  | { type: 'input'; text: string; channel?: string }
  /** The system prompt is built. Handlers may return `{ systemPrompt }` to replace it. */
  | { type: 'before_agent_start'; systemPrompt: string; channel?: string }
  /** History is rebuilt from the session tree. Handlers may return `{ messages }` to replace it. */
  | { type: 'context'; messages: Message[] }
  /** A tool is about to run. Handlers may return `{ block: true, reason }`. */
  | { type: 'tool_call'; call: ToolCallPart }
  /**
   * A tool returned. Handlers may return `{ content?, isError?, terminate? }`; patches accumulate,
   * each handler seeing the previous one's result.
   */
  | { type: 'tool_result'; call: ToolCallPart; content: ToolResultContent[]; isError: boolean }
  /**
   * A guardrail threw while checking `call`: before it (the call was blocked) or after it (its
   * result was withheld). `error` is for the log only: it may quote the call or its result.
   */
  | { type: 'guardrail_failed'; call: ToolCallPart; guardrail: string; stage: 'before' | 'after'; error: string }
  /** Usage and cost of one model call. */
  | { type: 'model_usage'; model: string; usage: Usage; cost: Cost }
  /** A background review's (or memory flush's) usage and cost, charged to this agent apart from its turns. */
  | { type: 'review_usage'; model: string; usage: Usage; cost: Cost }
  /** A subagent's model call, charged to this (its parent) agent's turn. */
  | { type: 'subagent_usage'; model: string; usage: Usage; cost: Cost }
  /** The turn succeeded and everything it produced is written. */
  | { type: 'save_point'; sessionId: string }
  | { type: 'agent_end'; message: AssistantMessage | undefined; messages: Message[]; usage: Usage; cost: Cost; aborted: boolean }
  /** No queued follow-up remains: the agent is idle. */
  | { type: 'settled' }
  /** Before compaction. Handlers may return `{ cancel: true }` or `{ summary }`. */
  | { type: 'session_before_compact'; reason: 'threshold' | 'overflow' | 'manual'; tokensBefore: number }
  | { type: 'session_compact'; entry: CompactionEntry; fromExtension: boolean }
  /**
   * Before the summary, a child had one chance to save durable facts of the part about to be
   * summarized with `memory` (see `memory-flush.ts`). `saved` counts its successful calls;
   * `messages` of the `toSummarize` messages were shown to it (fewer after a context overflow).
   */
  | ({ type: 'memory_flush'; reason: 'threshold' | 'overflow' | 'manual' } & MemoryFlushOutcome)
  /** A failed attempt will be tried again after `delayMs`. */
  | { type: 'retry_start'; attempt: number; maxRetries: number; delayMs: number; error: AgentError }
  | { type: 'retry_end'; attempt: number; success: boolean; error?: AgentError }
  /** The turn failed for good; the session was rewound to where it was before the turn. */
  | { type: 'turn_error'; error: AgentError }
  | { type: 'state_change'; from: LifecycleState; to: LifecycleState };

/** Every event an Agent emits: its own and the engine's. */
export type AgentEvent = AgentOwnEvent | EngineEvent;

/** The type names of all events. */
export type AgentEventType = AgentEvent['type'];

/** The event of a given type. */
export type AgentEventOf<T extends AgentEventType> = Extract<AgentEvent, { type: T }>;
