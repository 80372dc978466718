/** How many subagents an agent may run, how deep, and how much each may spend. */

/** Limits of one agent's children (`subagents` in operator.json). */
export interface SubagentSettings {
  /** Levels of subagents below a conversation's agent: 1 lets it start children that start none; 0 turns them off. */
  maxDepth: number;
  /** Children working at once, per agent. */
  maxRunning: number;
  /** Children kept (working or finished, not closed) per agent; past it the oldest finished one is closed. */
  maxOpen: number;
  /** Tokens (input, cached included, plus output) one child may use in all; then it is stopped. */
  maxTokens: number;
  /** Model calls a child may make per task or message (`max_turns` may ask for fewer). */
  maxTurns: number;
}

/** Defaults (see each field). */
export const defaultSubagentSettings: SubagentSettings = { maxDepth: 1, maxRunning: 4, maxOpen: 16, maxTokens: 300_000, maxTurns: 30 };
