/** Built-in guardrail: the same call made again and again in one turn. */
import type { Guardrail } from '../agent/guardrail.ts';
import { toolCallFingerprint } from '../agent/loop-detector.ts';
import { perTurnState } from './per-turn-state.ts';

/** Options of {@link createDoomLoopGuard}. */
export interface DoomLoopGuardOptions {
  /** Identical calls allowed per turn; the next one is blocked. Default 4. */
  threshold?: number;
}

/**
 * Blocks a call once the same tool with identical arguments (key order ignored) has been called
 * more than `threshold` times in this turn, whether back to back or not. The loop detector only
 * warns about back-to-back repeats; this is the hard stop. Counts start over at each turn, and are
 * the turn's own (`per-turn-state.ts`).
 */
export function createDoomLoopGuard({ threshold = 4 }: DoomLoopGuardOptions = {}): Guardrail {
  if (!Number.isInteger(threshold) || threshold < 1) throw new RangeError(`threshold must be a positive integer, got ${threshold}`);
  const turns = perTurnState(() => new Map<string, number>());
  return {
    name: 'doom-loop',
    onTurnStart() {
      turns.reset();
    },
    beforeCall(call, turn) {
      const counts = turns.of(turn);
      const fingerprint = toolCallFingerprint(call.name, call.arguments);
      const count = (counts.get(fingerprint) ?? 0) + 1;
      counts.set(fingerprint, count);
      if (count <= threshold) return;
      return {
        action: 'block',
        reason:
          `${call.name} has already been called ${count - 1} times this turn with exactly these arguments; ` +
          'calling it again will not give a different result. Change your approach, or tell the person what is blocking you.',
      };
    },
  };
}
