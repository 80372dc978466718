/**
 * The seam through which spending caps see every model call (see `src/gateway/budget/`): before a
 * call goes out, its worst case is reserved against every cap it counts for; once it is answered,
 * the reservation is settled at its real cost (or released, when it failed). A gate that refuses
 * throws a `BudgetExhaustedError`, which ends the turn before the call, saying which cap.
 */
import type { ModelRequest, Usage } from '../llm/types.ts';
import type { TurnContext } from '../tools/tool.ts';

/** A reservation for one model call. */
export interface SpendTicket {
  /** Settles at the call's real usage, or releases it (`undefined`: the call failed or was stopped). */
  settle(usage: Usage | undefined): void;
}

/** What checks each model call of an agent (its turns, and its children's: the reviewer, subagents). */
export interface SpendGate {
  /**
   * Reserves `request`'s worst case for `turn` (its person, its conversation); resolves to its
   * ticket, or rejects with a `BudgetExhaustedError` naming the cap.
   */
  reserve(request: ModelRequest, turn: TurnContext | undefined): Promise<SpendTicket>;
}
