/**
 * Runs a set of guardrails over one tool call and reduces their decisions to one. Before a call:
 * the first block, halt or ask wins. After a call: the first halt wins, warnings are joined, and
 * content replacements (e.g. redaction) apply in order, each guardrail seeing the previous one's
 * result. A guardrail that throws fails closed: before a call it blocks it, after a call its
 * result is withheld from the model; the decision carries the failure, for the log to say why
 * (`tool-call-hooks.ts` reports it). A guardrail that cannot decide must not be a way around it.
 */
import { errorMessage } from '../core/errors.ts';
import type { ToolCallPart, ToolResultContent } from '../llm/types.ts';
import type { TurnContext } from '../tools/tool.ts';
import type { AfterCallResult, BeforeCallDecision, Guardrail } from './guardrail.ts';

/** A guardrail that threw: which, at which check, and its error's message (for the log only). */
export interface GuardrailFailure {
  guardrail: string;
  stage: 'before' | 'after';
  error: string;
}

/** The set's decision before a call; `failure` when a guardrail threw (the call is then blocked). */
export type GuardrailSetDecision = BeforeCallDecision & { failure?: GuardrailFailure };

/** The set's verdict after a call, with what the model sees; `failure` when a guardrail threw (the result is then withheld). */
export type GuardrailSetResult = AfterCallResult & { content: ToolResultContent[]; failure?: GuardrailFailure };

/** File guardrails plus extension guardrails; a file guardrail wins over an extension one of the same name. */
export class GuardrailSet {
  readonly guardrails: readonly Guardrail[];

  constructor(fromFiles: readonly Guardrail[], fromExtensions: readonly Guardrail[] = []) {
    const names = new Set(fromFiles.map((guardrail) => guardrail.name));
    this.guardrails = [...fromFiles, ...fromExtensions.filter((guardrail) => !names.has(guardrail.name))];
  }

  /** Resets per-turn state of every guardrail. */
  onTurnStart(): void {
    for (const guardrail of this.guardrails) {
      try {
        guardrail.onTurnStart?.();
      } catch {
        // A broken reset must not stop the turn; the guardrail still checks every call.
      }
    }
  }

  /**
   * The first block, halt or ask of any guardrail; `turn` is the chat turn, when there is one. A
   * guardrail that throws blocks the call: the model is told which guardrail failed, never its
   * error (which may quote the call's arguments or a secret), and the failure rides along.
   */
  async before(call: ToolCallPart, turn?: TurnContext): Promise<GuardrailSetDecision> {
    for (const guardrail of this.guardrails) {
      let decision: BeforeCallDecision | void;
      try {
        decision = await guardrail.beforeCall?.(call, turn);
      } catch (error) {
        const failure: GuardrailFailure = { guardrail: guardrail.name, stage: 'before', error: errorMessage(error) };
        return { action: 'block', reason: `${guardrail.name}: the guardrail failed while checking this call, so it was not run (the gateway's log says why)`, failure };
      }
      if (decision && decision.action !== 'allow') return { action: decision.action, reason: `${guardrail.name}: ${decision.reason}` };
    }
    return { action: 'allow' };
  }

  /**
   * The guardrails' verdict on a call's result. A guardrail that throws (a redactor among them)
   * withholds the result: the model gets a line saying so instead, and the failure rides along.
   */
  async after(call: ToolCallPart, result: { content: ToolResultContent[]; isError: boolean }, turn?: TurnContext): Promise<GuardrailSetResult> {
    let content = result.content;
    const warnings: string[] = [];
    for (const guardrail of this.guardrails) {
      let decision: AfterCallResult | void;
      try {
        decision = await guardrail.afterCall?.(call, { content, isError: result.isError }, turn);
      } catch (error) {
        const failure: GuardrailFailure = { guardrail: guardrail.name, stage: 'after', error: errorMessage(error) };
        const withheld: ToolResultContent[] = [{ type: 'text', text: `The result of ${call.name} was withheld: the guardrail ${guardrail.name} failed while checking it (the gateway's log says why).` }];
        return { action: 'allow', content: withheld, failure };
      }
      if (!decision) continue;
      if (decision.content) content = decision.content;
      if (decision.action === 'halt') return { action: 'halt', reason: `${guardrail.name}: ${decision.reason}`, content };
      if (decision.action === 'warn') warnings.push(`${guardrail.name}: ${decision.reason}`);
    }
    return warnings.length > 0 ? { action: 'warn', reason: warnings.join('; '), content } : { action: 'allow', content };
  }
}
