/**
 * The desktop inside a real Agent, through the real Anthropic and OpenAI SDKs against the fake
 * model server, on Xvfb: once used, its state (focused window, window list, screenshot) rides
 * along with each model call after the cache breakpoint, is never stored, and stops after close;
 * a child gets no desktop; a guardrail rule sees the window a keystroke lands in.
 */
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DesktopSession } from '../../src/desktop/desktop-session.ts';
import { defaultDesktopSettings } from '../../src/desktop/desktop-settings.ts';
import { createDesktopTool } from '../../src/desktop/desktop-tool.ts';
import type { AgentOptions } from '../../src/agent/agent-options.ts';
import { createRuleGuardrail } from '../../src/guardrails/rule-guardrail.ts';
import type { ToolCallPart } from '../../src/llm/types.ts';
import { createHarness, type Harness } from '../helpers/agent-harness.ts';
import { callTool, makeTempDir, textOf } from '../tools/tool-harness.ts';
import { runX } from '../../src/desktop/x-programs.ts';
import { whenDesktopInstalled } from './needs-desktop.ts';
import { focusedName, startDisplay, type TestDisplay } from './x-display.ts';

const desktopTool = createDesktopTool();
const messagesOf = (body: { messages: unknown[] }) => JSON.stringify(body.messages);

whenDesktopInstalled('desktop in an agent', 'the desktop agent tests', () => {
  describe('desktop in an agent', () => {
    let x: TestDisplay;
    let harness: Harness | undefined;

    beforeAll(async () => {
      x = await startDisplay(1280, 800);
      await x.openPage();
      await x.openMessage('notes');
    }, 60_000);
    afterAll(async () => {
      await x?.close();
    });
    afterEach(async () => {
      await harness?.close();
      harness = undefined;
    });

    const setUp = async (protocol: 'anthropic' | 'openai', extra: Partial<AgentOptions> = {}) => {
      const session = new DesktopSession({ settings: { ...defaultDesktopSettings, enabled: true }, display: x.display, files: join(await makeTempDir(), 'downloads') });
      harness = await createHarness({ protocol, agent: { tools: [desktopTool], surfaces: [session], ...extra } });
      return { ...harness, session };
    };

    for (const protocol of ['anthropic', 'openai'] as const) {
      it(`${protocol}: once used, each call carries the desktop's state (text and screenshot) once, stored nowhere`, async () => {
        const { server, agent } = await setUp(protocol);
        server.enqueue({ text: 'Hello.' }, { toolCalls: [{ name: 'desktop', arguments: { action: 'focus', window: 'notes' } }] }, { text: 'The notes box is in front.' }, { text: 'Still there.' });
        await agent.invoke('Hi');
        await agent.invoke('Bring the notes forward');
        await agent.invoke('And now?');
        const [first, second, third, fourth] = server.requests;
        // Not used yet: nothing rides along.
        expect(messagesOf(first!.body)).not.toContain('desktop_state');
        expect(messagesOf(second!.body)).not.toContain('desktop_state');
        for (const request of [third!, fourth!]) {
          const text = messagesOf(request.body);
          expect(text.split('<desktop_state').length - 1).toBe(1);
          expect(text).toContain('Focused window: \\"notes\\"');
          expect(text).toContain('Screen: 1280x800 (points are screen pixels)');
        }
        const last = third!.body.messages.at(-1);
        if (protocol === 'anthropic') {
          const blocks = last.content as { type: string; source?: { media_type: string }; cache_control?: unknown }[];
          expect(blocks.map((block) => block.type)).toEqual(['tool_result', 'text', 'image']);
          expect(blocks[0]!.cache_control).toEqual({ type: 'ephemeral' });
          expect(blocks[2]!.source!.media_type).toBe('image/jpeg');
        } else {
          const content = last.content as { type: string; image_url?: { url: string } }[];
          expect(content.map((part) => part.type)).toEqual(['text', 'image_url']);
          expect(content[1]!.image_url!.url).toMatch(/^data:image\/jpeg;base64,/);
        }
        const stored = JSON.stringify((await agent.session()).buildContext().messages);
        expect(stored).not.toContain('desktop_state');
        expect(stored).toContain('Focused \\"notes\\"');
      });
    }

    it('after close the state no longer rides along', async () => {
      const { server, agent } = await setUp('anthropic');
      server.enqueue({ toolCalls: [{ name: 'desktop', arguments: { action: 'windows' } }] }, { toolCalls: [{ name: 'desktop', arguments: { action: 'close' } }] }, { text: 'done' });
      await agent.invoke('Look, then stop looking');
      expect(messagesOf(server.requests[1]!.body)).toContain('desktop_state');
      expect(messagesOf(server.requests[2]!.body)).not.toContain('desktop_state');
    });

    it('a child agent gets no desktop: no state in its calls, and the tool says so', async () => {
      const { server, agent } = await setUp('anthropic');
      server.enqueue({ toolCalls: [{ name: 'desktop', arguments: { action: 'windows' } }] }, { text: 'seen' });
      await agent.invoke('Look at the desktop');
      const child = await agent.spawnChild({ tools: ['desktop'] });
      expect(child.options.surfaces).toBeUndefined();
      server.enqueue({ toolCalls: [{ name: 'desktop', arguments: { action: 'key', keys: 'Return' } }] }, { text: 'done' });
      const result = await child.invoke('Press Enter');
      expect(messagesOf(server.requests[2]!.body)).not.toContain('desktop_state');
      expect(JSON.stringify(result.messages)).toContain('This agent has no desktop');
    });

    it('a guardrail rule sees the window a keystroke lands in, whatever the model wrote, and can ask first', async () => {
      const asked: ToolCallPart[] = [];
      const rule = createRuleGuardrail('notes', [{ tool: 'desktop', arguments: { target: '^notes$' }, decision: 'ask', reason: 'the notes box' }]);
      const { server, agent, session } = await setUp('anthropic', {
        guardrails: [rule],
        requestApproval: async ({ call }) => {
          asked.push(call);
          return false;
        },
      });
      server.enqueue({ toolCalls: [{ name: 'desktop', arguments: { action: 'focus', window: 'Desk' } }] }, { text: 'page in front' });
      await agent.invoke('Bring the page forward');
      expect(asked).toHaveLength(0);
      server.enqueue({ toolCalls: [{ name: 'desktop', arguments: { action: 'focus', window: 'notes' } }] }, { text: 'not allowed' });
      await agent.invoke('Bring the notes forward');
      expect(asked).toHaveLength(1);
      expect(asked[0]!.arguments).toMatchObject({ action: 'focus', window: 'notes', target: 'notes' });
      expect(await focusedName(x.display)).not.toBe('notes');
      // Keys go to the focused window: with the notes box focused, a target the model makes up changes nothing.
      const notes = /- "notes" id (\d+)/.exec(textOf(await callTool(desktopTool, { action: 'windows' }, { cwd: '.', surfaces: { desktop: session } })))![1]!;
      await runX('xdotool', ['windowfocus', '--sync', notes], x.display);
      server.enqueue({ toolCalls: [{ name: 'desktop', arguments: { action: 'key', keys: 'Return', target: 'harmless' } }] }, { text: 'not pressed' });
      const pressed = await agent.invoke('Press Enter');
      expect(asked).toHaveLength(2);
      expect(asked[1]!.arguments).toMatchObject({ action: 'key', target: 'notes' });
      expect(JSON.stringify(pressed.messages)).toContain('not approved: notes: the notes box');
    });
  });
});
