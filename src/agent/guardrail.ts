/**
 * The guardrail contract. Guardrails see every tool call of a turn before and after it runs.
 * Before: allow, block (the model sees an error result), halt (the turn is aborted) or ask (the
 * turn pauses until a person approves or denies; no answer in time denies). After: allow, warn
 * (the reason is appended to the result) or halt. A guardrail that throws fails closed: the call
 * is blocked (after it, its result withheld from the model) and the gateway logs why.
 */
import type { ToolCallPart, ToolResultContent } from '../llm/types.ts';
import type { TurnContext } from '../tools/tool.ts';

/** A guardrail's verdict before a call. */
export type BeforeCallDecision =
  | { action: 'allow' }
  | { action: 'block'; reason: string }
  | { action: 'halt'; reason: string }
  | { action: 'ask'; reason: string };

/** A guardrail's verdict after a call. */
export type AfterCallDecision = { action: 'allow' } | { action: 'warn'; reason: string } | { action: 'halt'; reason: string };

/** Any verdict. */
export type GuardrailDecision = BeforeCallDecision | AfterCallDecision;

/** A policy over tool calls. */
export interface Guardrail {
  /** Unique name; file guardrails win over extension ones with the same name. */
  name: string;
  /**
   * Resets per-turn state (counters, budgets). A guardrail may serve the turns of several
   * conversations at once: state of a chat turn is best kept by its `turn` (see
   * `guardrails/per-turn-state.ts`).
   */
  onTurnStart?(): void;
  /** `turn` is the chat turn the call belongs to (its workspace among others), when there is one. */
  beforeCall?(call: ToolCallPart, turn?: TurnContext): BeforeCallDecision | void | Promise<BeforeCallDecision | void>;
  /**
   * May also return `{ content }` to replace what the model sees (e.g. with secrets redacted)
   * together with its decision.
   */
  afterCall?(
    call: ToolCallPart,
    result: { content: ToolResultContent[]; isError: boolean },
    turn?: TurnContext,
  ): AfterCallResult | void | Promise<AfterCallResult | void>;
}

/** What `afterCall` returns: a decision, optionally with replaced content. */
export type AfterCallResult = AfterCallDecision & { content?: ToolResultContent[] };
