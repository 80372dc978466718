/**
 * An agent's live tools (an MCP server's, whose list changes while the agent lives): added after
 * the others, never over a name they have, and one array for one pair of lists, so a turn's offer
 * and prompt stay the same until a list changes.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { withLiveTools } from '../../src/agent/agent-parts.ts';
import { Agent } from '../../src/agent/agent.ts';
import { defineTool, type Tool } from '../../src/tools/tool.ts';

const tool = (name: string) => defineTool({ name, description: name, parameters: z.object({}), execute: async () => name }) as unknown as Tool;

describe('live tools', () => {
  it('come after the others, never over a name of theirs, as one array per pair of lists', () => {
    const base = [tool('read_file'), tool('memory')];
    const live = [tool('mcp__t__echo'), tool('memory')];
    const tools = withLiveTools(base, live);
    expect(tools.map((candidate) => candidate.name)).toEqual(['read_file', 'memory', 'mcp__t__echo']);
    expect(tools[1]).toBe(base[1]);
    expect(withLiveTools(base, live)).toBe(tools);
    expect(withLiveTools(base, [])).toBe(base);
    expect(withLiveTools(base, undefined)).toBe(base);
  });

  it("are read at each look at the agent's tools, so a changed list shows at the next turn", () => {
    let live: readonly Tool[] = [tool('mcp__t__echo')];
    const agent = new Agent({ provider: { name: 'none' } as never, model: 'none', sessionKey: 'test:live', tools: [tool('read_file')], liveTools: () => live });
    const first = agent.tools;
    expect(first.map((candidate) => candidate.name)).toEqual(['read_file', 'mcp__t__echo']);
    expect(agent.tools).toBe(first);
    live = [...live, tool('mcp__t__late')];
    expect(agent.tools.map((candidate) => candidate.name)).toEqual(['read_file', 'mcp__t__echo', 'mcp__t__late']);
  });
});
