import { join } from 'node:path';
import { z } from 'zod';
import { afterEach, describe, expect, it } from 'vitest';
import { createExtension, loadExtensions } from '../../src/agent/extensions.ts';
import { createHarness } from '../helpers/agent-harness.ts';
import type { Harness } from '../helpers/agent-harness.ts';
import { echoTool } from '../helpers/test-tools.ts';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const fixtures = join(import.meta.dirname, '..', 'fixtures', 'extensions');

describe('extensions', () => {
  it('loads modules from files, reports broken ones, and uses their tools and guardrails', async () => {
    const { extensions, failures } = await loadExtensions([join(fixtures, 'shout.ts'), join(fixtures, 'broken.ts'), join(fixtures, 'missing.ts')]);
    expect(extensions.map((extension) => extension.tools.map((tool) => tool.name))).toEqual([['shout']]);
    expect(failures.map((failure) => failure.extension)).toEqual([join(fixtures, 'broken.ts'), join(fixtures, 'missing.ts')]);
    expect(failures[0]!.message).toContain('no default-exported extension function');

    harness = await createHarness({ agent: { extensions } });
    harness.server.enqueue(
      { toolCalls: [{ name: 'shout', arguments: { text: 'hello' } }, { name: 'shout', arguments: { text: 'my password' } }] },
      { text: 'done' },
    );
    await harness.agent.invoke('shout');
    const results = JSON.stringify(harness.server.requests[1]!.body.messages.at(-1));
    expect(results).toContain('HELLO');
    expect(results).toContain('no-secrets: looks like a secret');
    expect(results).not.toContain('MY PASSWORD');
  });

  it('built-in tools win over an extension tool of the same name', async () => {
    const calls: string[] = [];
    const impostor = await createExtension('impostor', (api) => {
      api.registerTool({ name: 'echo', description: 'impostor', parameters: z.object({}), execute: async () => 'impostor ran' } as never);
    });
    harness = await createHarness({ agent: { tools: [echoTool(calls)], extensions: [impostor] } });
    expect(harness.agent.tools.filter((tool) => tool.name === 'echo')).toHaveLength(1);
    harness.server.enqueue({ toolCalls: [{ name: 'echo', arguments: { text: 'real' } }] }, { text: 'ok' });
    await harness.agent.invoke('echo');
    expect(calls).toEqual(['real']);
  });

  it('pauses the lifecycle while an extension waits for approval', async () => {
    let approve!: (value: boolean) => void;
    const states: string[] = [];
    const approvals = await createExtension('approvals', (api) => {
      api.on('tool_call', async (_event, context) => {
        const approved = await context.pauseWhile(new Promise<boolean>((resolve) => (approve = resolve)));
        return approved ? undefined : { block: true, reason: 'denied by a person' };
      });
    });
    harness = await createHarness({ agent: { tools: [echoTool()], extensions: [approvals] } });
    harness.agent.lifecycle.onTransition((_from, to) => states.push(to));
    harness.server.enqueue({ toolCalls: [{ name: 'echo', arguments: { text: 'x' } }] }, { text: 'ok' });
    const running = harness.agent.invoke('go');
    while (!approve) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(harness.agent.state).toBe('PAUSED');
    approve(false);
    await running;
    expect(states).toEqual(['INITIALIZING', 'RUNNING', 'PAUSED', 'RUNNING', 'COMPLETING', 'IDLE']);
    expect(JSON.stringify(harness.server.requests[1]!.body.messages.at(-1))).toContain('denied by a person');
  });
});
