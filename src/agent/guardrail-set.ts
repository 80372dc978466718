/**
 * Runs a set of guardrails over one tool call and reduces their decisions to one: the first block
 * or halt wins; warnings are joined. A guardrail that throws counts as allowing.
 */
import type { ToolCallPart, ToolResultContent } from '../llm/types.ts';
import type { Guardrail, GuardrailDecision } from './guardrail.ts';

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
        // A broken guardrail must not stop the turn.
      }
    }
  }

  before(call: ToolCallPart): Promise<GuardrailDecision> {
    return this.#decide((guardrail) => guardrail.beforeCall?.(call));
  }

  after(call: ToolCallPart, result: { content: ToolResultContent[]; isError: boolean }): Promise<GuardrailDecision> {
    return this.#decide((guardrail) => guardrail.afterCall?.(call, result));
  }

  async #decide(ask: (guardrail: Guardrail) => GuardrailDecision | void | Promise<GuardrailDecision | void>): Promise<GuardrailDecision> {
    const warnings: string[] = [];
    for (const guardrail of this.guardrails) {
      let decision: GuardrailDecision | void;
      try {
        decision = await ask(guardrail);
      } catch {
        continue;
      }
      if (!decision || decision.action === 'allow') continue;
      if (decision.action === 'warn') warnings.push(`${guardrail.name}: ${decision.reason}`);
      else return { action: decision.action, reason: `${guardrail.name}: ${decision.reason}` };
    }
    return warnings.length > 0 ? { action: 'warn', reason: warnings.join('; ') } : { action: 'allow' };
  }
}
