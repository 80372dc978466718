/** Subagents: children an agent starts with `spawn_agent`, working in the background of its turn. */
export { Subagents, type SubagentLine, type ChildFactory, type ChildSpec } from './subagents.ts';
export { childAgentFactory, keptByParent } from './child-agent.ts';
export { defaultSubagentSettings, type SubagentSettings } from './subagent-settings.ts';
export type { SubagentRecord, SubagentStatus } from './subagent-record.ts';
export { createSubagentTools, subagentToolNames } from '../../tools/agents/subagent-tools.ts';
