import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { orphanResultText } from '../../src/agent/repair-orphans.ts';
import { createHarness } from '../helpers/agent-harness.ts';
import type { Harness } from '../helpers/agent-harness.ts';
import { gateTool } from '../helpers/test-tools.ts';

let harness: Harness | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await harness?.close();
  harness = undefined;
});

describe('crash recovery', () => {
  it('a process that died mid-tool and left a torn record: the next process answers, with the dangling call repaired', async () => {
    const gate = gateTool();
    harness = await createHarness({ storeDriver: 'fs', agent: { tools: [gate.tool] } });
    harness.server.enqueue({ toolCalls: [{ id: 'toolu_crash', name: 'wait_gate', arguments: {} }] });
    // The first "process" starts a tool and never finishes it.
    void harness.agent.invoke('start the job');
    await gate.started;
    const sessionId = (await harness.agent.session()).id;
    const file = join(harness.directory!, 'sessions', sessionId);
    expect(readFileSync(file, 'utf8')).toContain('toolu_crash');
    // The crash tore the record being written.
    appendFileSync(file, '{"type":"entry","entry":{"id":"torn","parentId"');

    // A new process: new agent, same store.
    const warnings: unknown[] = [];
    vi.spyOn(console, 'warn').mockImplementation((...args) => void warnings.push(args));
    const restarted = harness.newAgent();
    harness.server.enqueue({ text: 'The job was interrupted; shall I start it again?' });
    const result = await restarted.invoke('what happened?');
    expect(result.text).toContain('interrupted');
    expect(warnings.length).toBeGreaterThan(0);

    const messages = harness.server.requests.at(-1)!.body.messages as { role: string; content: { type: string; tool_use_id?: string; content?: unknown }[] }[];
    const results = messages.flatMap((message) => message.content.filter((block) => block.type === 'tool_result'));
    expect(results).toHaveLength(1);
    expect(results[0]!.tool_use_id).toBe('toolu_crash');
    expect(JSON.stringify(results[0])).toContain(orphanResultText);
    expect(JSON.stringify(messages)).toContain('what happened?');
  });
});
