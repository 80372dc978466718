/**
 * The built-in tools fitted to the model's provider, as the model request carries them: the
 * shell's default time limit (Anthropic 120 s, the others 10 s) and the hint on which edit tool
 * to prefer. Through the runtime, the real SDKs and the fake server.
 */
import { describe, expect, it } from 'vitest';
import { useRuntimeFixture } from './runtime-fixture.ts';

const fixture = useRuntimeFixture();

interface SentTool {
  name: string;
  description: string;
  schema: { properties: { timeout_ms?: { description?: string } } };
}

/** The tools of the one request the fake got, in one shape for both protocols. */
function sentTools(): SentTool[] {
  const [recorded] = fixture.server.requests;
  const tools = recorded!.body.tools as Record<string, unknown>[];
  return tools.map((tool) => {
    if (recorded!.protocol === 'anthropic') return { name: tool.name, description: tool.description, schema: tool.input_schema } as SentTool;
    const fn = tool.function as Record<string, unknown>;
    return { name: fn.name, description: fn.description, schema: fn.parameters } as SentTool;
  });
}

async function toolsFor(model: string): Promise<Map<string, SentTool>> {
  const { agent } = await (fixture.current() ?? fixture.start()).createAgent({ sessionKey: `test:${model}`, profile: 'default', model });
  fixture.server.enqueue({ text: 'ok' });
  await agent.invoke('hi');
  const tools = new Map(sentTools().map((tool) => [tool.name, tool]));
  fixture.server.reset();
  return tools;
}

describe('tool profiles per provider', () => {
  it("gives Claude's shell a 120 s default and points it at edit_file", async () => {
    const tools = await toolsFor('claude-sonnet-4-6');
    expect(tools.get('shell')?.description).toContain('default 120000');
    expect(tools.get('shell')?.schema.properties.timeout_ms?.description).toBe('Timeout in milliseconds. Default: 120000.');
    expect(tools.get('edit_file')?.description).toMatch(/Prefer this tool for changing existing files\.$/);
    expect(tools.get('apply_patch')?.description).toMatch(/edit_file is simpler for one change\.$/);
  });

  it("gives OpenAI's shell a 10 s default and points it at apply_patch", async () => {
    const tools = await toolsFor('gpt-4.1');
    expect(tools.get('shell')?.description).toContain('default 10000');
    expect(tools.get('shell')?.schema.properties.timeout_ms?.description).toBe('Timeout in milliseconds. Default: 10000.');
    expect(tools.get('apply_patch')?.description).toMatch(/Prefer this tool for changing files, also for a single edit\.$/);
    expect(tools.get('edit_file')?.description).toMatch(/apply_patch is preferred for edits\.$/);
  });

  it('keeps one tool list per provider in a runtime running both', async () => {
    fixture.start();
    const claude = await toolsFor('claude-sonnet-4-6');
    const openai = await toolsFor('gpt-4.1');
    const again = await toolsFor('claude-haiku-4-5');
    expect(claude.get('shell')?.description).toContain('default 120000');
    expect(openai.get('shell')?.description).toContain('default 10000');
    expect(again.get('shell')?.description).toBe(claude.get('shell')?.description);
  });
});
