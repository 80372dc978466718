/** Built-in guardrail: at most so many tool calls in one turn. */
import type { Guardrail } from '../agent/guardrail.ts';
import { perTurnState } from './per-turn-state.ts';

/** Options of {@link createToolCallCap}. */
export interface ToolCallCapOptions {
  /** Calls allowed per turn; later ones are blocked. Default 60. */
  maxPerTurn?: number;
}

/**
 * Blocks every tool call beyond `maxPerTurn` in one turn (blocked calls count too, so a model
 * that keeps trying stays blocked). The count starts over at each turn, and is the turn's own
 * (`per-turn-state.ts`).
 */
export function createToolCallCap({ maxPerTurn = 60 }: ToolCallCapOptions = {}): Guardrail {
  if (!Number.isInteger(maxPerTurn) || maxPerTurn < 0) throw new RangeError(`maxPerTurn must be a non-negative integer, got ${maxPerTurn}`);
  const turns = perTurnState(() => ({ calls: 0 }));
  return {
    name: 'tool-call-cap',
    onTurnStart() {
      turns.reset();
    },
    beforeCall(_call, turn) {
      const state = turns.of(turn);
      state.calls++;
      if (state.calls <= maxPerTurn) return;
      return {
        action: 'block',
        reason:
          `this turn has reached its limit of ${maxPerTurn} tool calls. Stop calling tools and answer with what you have; ` +
          'say what is left to do, and the person can ask you to continue.',
      };
    },
  };
}
