/**
 * Events the engine emits while it runs. The Agent re-dispatches every one to extensions and
 * listeners; `message_end` is what the Agent persists.
 */
import type { AgentError } from '../core/errors.ts';
import type { AssistantMessage, Message, ToolCallPart, ToolResultMessage, Usage } from '../llm/types.ts';
import type { LoopPattern } from './loop-detector.ts';

/** Any engine event. */
export type EngineEvent =
  | { type: 'engine_start' }
  /** A model call is about to be made (`round` counts from 1). */
  | { type: 'turn_start'; round: number }
  | { type: 'text_delta'; text: string }
  | { type: 'thinking_delta'; text: string }
  /** A message is final: an assistant answer, a tool result or an injected steering message. */
  | { type: 'message_end'; message: Message }
  | { type: 'tool_execution_start'; call: ToolCallPart }
  | { type: 'tool_execution_update'; call: ToolCallPart; text: string }
  /** `output` is the full output; `result` holds what the model sees (truncated, patched). */
  /** `threw`: the tool's own code threw (not a refusal, a timeout or an abort); its message is the result. */
  | { type: 'tool_execution_end'; call: ToolCallPart; output: string; result: ToolResultMessage; isError: boolean; durationMs: number; threw?: boolean }
  | { type: 'steering_injected'; text: string }
  | { type: 'loop_detection'; pattern: LoopPattern; window: number }
  | { type: 'turn_limit'; rounds: number; limit: number }
  | { type: 'context_window_warning'; usageFraction: number; threshold: number }
  | { type: 'turn_end'; round: number; message: AssistantMessage; toolResults: ToolResultMessage[] }
  | { type: 'engine_end'; messages: Message[]; usage: Usage; error?: AgentError; aborted: boolean }
  | { type: 'error'; error: AgentError };

/** The type names of engine events. */
export type EngineEventType = EngineEvent['type'];
