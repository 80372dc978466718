/**
 * State a guardrail keeps for one turn. A profile's guardrails are made once and shared by all its
 * conversations, whose turns run at the same time: a count kept in the guardrail itself and reset
 * at each turn's start would mix their calls and let one turn's start wipe another's count. So
 * the state is kept per turn context (one object per chat turn, handed to every check of it); an
 * agent with no turn context (the terminal chat, one person) keeps one state, begun anew at each
 * turn's start.
 */

/** Per-turn state made by `fresh`; see the module's comment. */
export interface PerTurnState<T> {
  /** The state of the turn `turn` belongs to (`undefined`: the one of an agent without turn contexts). */
  of(turn: object | undefined): T;
  /** Begins the state of an agent without turn contexts anew (at its turn's start). */
  reset(): void;
}

/** Keeps a `fresh()` state per turn. */
export function perTurnState<T>(fresh: () => T): PerTurnState<T> {
  const byTurn = new WeakMap<object, T>();
  let loose = fresh();
  return {
    of(turn) {
      if (turn === undefined) return loose;
      let state = byTurn.get(turn);
      if (state === undefined) byTurn.set(turn, (state = fresh()));
      return state;
    },
    reset() {
      loose = fresh();
    },
  };
}
