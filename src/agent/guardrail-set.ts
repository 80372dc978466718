/**
 * Runs a set of guardrails over one tool call and reduces their decisions to one. Before a call:
 * the first block, halt or ask wins. After a call: the first halt wins, warnings are joined, and
 * content replacements (e.g. redaction) apply in order, each guardrail seeing the previous one's
 * result. A guardrail that throws counts as allowing.
 */
import type { ToolCallPart, ToolResultContent } from '../llm/types.ts';
import type { TurnContext } from '../tools/tool.ts';
import type { AfterCallResult, BeforeCallDecision, Guardrail } from './guardrail.ts';

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

  /** The first block, halt or ask of any guardrail; `turn` is the chat turn, when there is one. */
  async before(call: ToolCallPart, turn?: TurnContext): Promise<BeforeCallDecision> {
    for (const guardrail of this.guardrails) {
      let decision: BeforeCallDecision | void;
      try {
        decision = await guardrail.beforeCall?.(call, turn);
      } catch {
        continue;
      }
      if (decision && decision.action !== 'allow') return { action: decision.action, reason: `${guardrail.name}: ${decision.reason}` };
    }
    return { action: 'allow' };
  }

  async after(call: ToolCallPart, result: { content: ToolResultContent[]; isError: boolean }): Promise<AfterCallResult & { content: ToolResultContent[] }> {
    let content = result.content;
    const warnings: string[] = [];
    for (const guardrail of this.guardrails) {
      let decision: AfterCallResult | void;
      try {
        decision = await guardrail.afterCall?.(call, { content, isError: result.isError });
      } catch {
        continue;
      }
      if (!decision) continue;
      if (decision.content) content = decision.content;
      if (decision.action === 'halt') return { action: 'halt', reason: `${guardrail.name}: ${decision.reason}`, content };
      if (decision.action === 'warn') warnings.push(`${guardrail.name}: ${decision.reason}`);
    }
    return warnings.length > 0 ? { action: 'warn', reason: warnings.join('; '), content } : { action: 'allow', content };
  }
}
