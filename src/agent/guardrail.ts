/**
 * The guardrail contract. Guardrails see every tool call of a turn before and after it runs and
 * decide: allow, block (the model sees an error result), warn (a note appended to the result) or
 * halt (the turn is aborted). A guardrail that throws is treated as allowing: its decision is the
 * signal, its bugs are not.
 */
import type { ToolCallPart, ToolResultContent } from '../llm/types.ts';

/** A guardrail's verdict. */
export type GuardrailDecision =
  | { action: 'allow' }
  | { action: 'block'; reason: string }
  | { action: 'warn'; reason: string }
  | { action: 'halt'; reason: string };

/** A policy over tool calls. */
export interface Guardrail {
  /** Unique name; file guardrails win over extension ones with the same name. */
  name: string;
  /** Resets per-turn state (counters, budgets). */
  onTurnStart?(): void;
  beforeCall?(call: ToolCallPart): GuardrailDecision | void | Promise<GuardrailDecision | void>;
  afterCall?(
    call: ToolCallPart,
    result: { content: ToolResultContent[]; isError: boolean },
  ): GuardrailDecision | void | Promise<GuardrailDecision | void>;
}
