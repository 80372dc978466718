/**
 * What happens around each tool call of a turn: before it, extensions may block it and the
 * guardrails decide (block, halt the turn, or ask a person), and in a turn whose context holds
 * untrusted content a call that acts needs a person's yes too (`tools/turn-taint.ts`: one question
 * for both); after it, extensions may patch the result, listeners see it, the guardrails may
 * redact, warn or halt, and what the result brought in taints the turn. A guardrail that throws
 * blocks the call (or withholds its result) and is reported as `guardrail_failed`, which the
 * gateway logs with the reason.
 */
import { CancellationError } from '../core/errors.ts';
import type { ToolCallPart } from '../llm/types.ts';
import type { Tool, TurnContext } from '../tools/tool.ts';
import { noteSource, taintDecision } from '../tools/turn-taint.ts';
import type { AgentEvent } from './agent-events.ts';
import type { EngineHooks } from './engine.ts';
import type { EngineEvent } from './engine-events.ts';
import type { ExtensionContext } from './extension-context.ts';
import type { ExtensionRunner } from './extensions.ts';
import type { GuardrailFailure, GuardrailSet } from './guardrail-set.ts';

/** What the hooks work with: the agent's extensions, guardrails and ways to speak and stop. */
export interface ToolCallParts {
  extensions: ExtensionRunner;
  guardrails: GuardrailSet;
  context: ExtensionContext;
  /** The chat turn the calls belong to, when there is one (guardrails read its workspace). */
  turn: TurnContext | undefined;
  /** Emits to listeners and extensions; resolves to the extensions' answers. */
  emit(event: AgentEvent): Promise<unknown[]>;
  /** Tells listeners only. */
  emitLocal(event: AgentEvent | EngineEvent): void;
  /** Aborts the turn. */
  halt(reason: Error): void;
  /** Asks a person whether `call` may run. */
  askApproval(call: ToolCallPart, reason: string): Promise<boolean>;
  /** The turn's tool of that name (what it acts on and brings in, for the turn's taint). */
  toolNamed?(name: string): Tool | undefined;
}

/** The engine's `beforeToolCall` and `afterToolCall` for one turn. */
export function toolCallHooks(parts: ToolCallParts): Required<Pick<EngineHooks, 'beforeToolCall' | 'afterToolCall'>> {
  return {
    async beforeToolCall(call) {
      for (const result of await parts.emit({ type: 'tool_call', call })) {
        const answer = typeof result === 'object' && result !== null ? (result as { block?: unknown; reason?: unknown }) : undefined;
        if (answer?.block === true) return { block: true, reason: String(answer.reason ?? 'blocked by an extension') };
      }
      const decision = await parts.guardrails.before(call, parts.turn);
      if (decision.failure) reportFailure(parts, call, decision.failure);
      if (decision.action === 'block') return { block: true, reason: decision.reason };
      if (decision.action === 'halt') {
        parts.halt(new CancellationError(`Halted by guardrail: ${decision.reason}`));
        return { block: true, reason: `halted: ${decision.reason}` };
      }
      const taint = taintDecision(parts.turn?.taint, parts.toolNamed?.(call.name), call);
      if (taint?.action === 'block') return { block: true, reason: taint.reason };
      const asks = [decision.action === 'ask' ? decision.reason : undefined, taint?.reason].filter((reason) => reason !== undefined);
      if (asks.length > 0 && !(await parts.askApproval(call, asks.join('; ')))) {
        return { block: true, reason: `not approved: ${asks.join('; ')}` };
      }
    },
    async afterToolCall(call, result) {
      await noteSource(parts.turn?.taint, parts.toolNamed?.(call.name), call, parts.turn);
      let patched = await parts.extensions.patchToolResult(call, { ...result, terminate: false }, parts.context);
      parts.emitLocal({ type: 'tool_result', call, content: patched.content, isError: patched.isError });
      const decision = await parts.guardrails.after(call, patched, parts.turn);
      patched = { ...patched, content: decision.content };
      if (decision.failure) {
        reportFailure(parts, call, decision.failure);
        patched = { ...patched, isError: true };
      }
      if (decision.action === 'warn') patched = { ...patched, content: [...patched.content, { type: 'text', text: `\n[Guardrail warning: ${decision.reason}]` }] };
      if (decision.action === 'halt') parts.halt(new CancellationError(`Halted by guardrail: ${decision.reason}`));
      return patched;
    },
  };
}

/** Tells listeners that a guardrail threw (the gateway logs it: which, at which check, why). */
function reportFailure(parts: ToolCallParts, call: ToolCallPart, failure: GuardrailFailure): void {
  parts.emitLocal({ type: 'guardrail_failed', call, ...failure });
}
