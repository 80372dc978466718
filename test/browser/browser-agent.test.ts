/**
 * The browser inside a real Agent, through the real Anthropic and OpenAI SDKs against the fake
 * model server: the live state rides along with each model call (text and image) after the cache
 * breakpoint, is never stored and never repeated in later history; children get no browser; turns
 * not offered the tool see no state; guardrails see what a click presses.
 *
 * One pool serves the file's chromium tests, so chromium starts once: each test's agent gets a
 * conversation of its own (its own context), closed after the test.
 */
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BrowserPool } from '../../src/browser/browser-pool.ts';
import type { BrowserSession } from '../../src/browser/browser-session.ts';
import type { BrowserSettings } from '../../src/browser/browser-settings.ts';
import { lastSnapshot } from '../../src/browser/page-snapshot.ts';
import { createRuleGuardrail } from '../../src/guardrails/rule-guardrail.ts';
import type { ToolCallPart } from '../../src/llm/types.ts';
import { whenChromiumInstalled } from '../helpers/chromium.ts';
import { createHarness, type Harness } from '../helpers/agent-harness.ts';
import { makeTempDir } from '../tools/tool-harness.ts';
import { browserTool, refOf, testSettings } from './browser-harness.ts';
import { startPageServer, type PageServer } from './page-server.ts';

/** The JSON of a recorded request's messages. */
const messagesOf = (body: { messages: unknown[] }) => JSON.stringify(body.messages);

whenChromiumInstalled('browser in an agent', 'the browser agent tests', () => {
  describe('browser in an agent', () => {
    let pages: PageServer;
    let pool: BrowserPool;
    let session: BrowserSession;
    let harness: Harness | undefined;

    let conversations = 0;

    beforeAll(async () => {
      pages = await startPageServer();
      pool = new BrowserPool();
    });
    afterAll(async () => {
      await pool?.closeAll();
      await pages?.close();
    });
    afterEach(async () => {
      await harness?.close();
      harness = undefined;
      await session?.close();
    });

    /** A new conversation's browser session in the file's pool. */
    const newSession = async (settings: BrowserSettings) => {
      session = pool.session(`test:conversation-${++conversations}`, settings, join(await makeTempDir(), 'downloads'));
      return session;
    };

    const setUp = async (protocol: 'anthropic' | 'openai', settings = testSettings({ useScreenshot: true })) => {
      await newSession(settings);
      harness = await createHarness({ protocol, agent: { tools: [browserTool], surfaces: [session] } });
      return harness;
    };

    for (const protocol of ['anthropic', 'openai'] as const) {
      it(`${protocol}: each call after the browser opened carries its state (text and image) once, stored nowhere`, async () => {
        const { server, agent } = await setUp(protocol);
        server.enqueue({ toolCalls: [{ name: 'browser', arguments: { action: 'navigate', url: `${pages.url}/` } }] }, { text: 'The board says all is well.' }, { text: 'Still well.' });
        await agent.invoke('Check our status page');
        await agent.invoke('And now?');
        const [first, second, third] = server.requests;
        expect(messagesOf(first!.body)).not.toContain('browser_state');
        for (const request of [second!, third!]) {
          const text = messagesOf(request.body);
          // Once: the previous call's state is not in the history.
          expect(text.split('<browser_state').length - 1).toBe(1);
          expect(text).toContain('heading \\"Status board\\"');
          expect(text).toContain(`1. \\"Home\\" ${pages.url}/ (active)`);
        }
        const last = (request: typeof second) => request!.body.messages.at(-1);
        if (protocol === 'anthropic') {
          const blocks = last(second).content as { type: string; text?: string; source?: { media_type: string }; cache_control?: unknown }[];
          expect(blocks.map((block) => block.type)).toEqual(['tool_result', 'text', 'image']);
          expect(blocks[2]!.source!.media_type).toBe('image/jpeg');
          // The breakpoint stays on the conversation, before the state: the next call still reads the prefix.
          expect(blocks[0]!.cache_control).toEqual({ type: 'ephemeral' });
          expect(blocks[1]!.cache_control).toBeUndefined();
          expect(blocks[2]!.cache_control).toBeUndefined();
        } else {
          const message = last(second) as { role: string; content: { type: string; image_url?: { url: string } }[] };
          expect(message.role).toBe('user');
          expect(message.content.map((part) => part.type)).toEqual(['text', 'image_url']);
          expect(message.content[1]!.image_url!.url).toMatch(/^data:image\/jpeg;base64,/);
        }
        const stored = JSON.stringify((await agent.session()).buildContext().messages);
        expect(stored).not.toContain('browser_state');
        expect(stored).toContain('Opened');
      });
    }

    it('without useScreenshot the state is text alone', async () => {
      const { server, agent } = await setUp('anthropic', testSettings());
      server.enqueue({ toolCalls: [{ name: 'browser', arguments: { action: 'navigate', url: `${pages.url}/form` } }] }, { text: 'ok' });
      await agent.invoke('Open the form');
      const blocks = server.requests[1]!.body.messages.at(-1).content as { type: string }[];
      expect(blocks.map((block) => block.type)).toEqual(['tool_result', 'text']);
    });

    it('a turn that is not offered the browser (a group member without the grant) sees no state', async () => {
      const { server, agent } = await setUp('anthropic');
      server.enqueue({ toolCalls: [{ name: 'browser', arguments: { action: 'navigate', url: `${pages.url}/` } }] }, { text: 'opened' }, { text: 'hello' });
      await agent.invoke('Open the board');
      const turn = { sessionKey: 'test:conversation', platform: 'telegram', senderId: '2', admin: false, scheduled: false, tools: new Set<string>() };
      await agent.invoke('What does it say?', { turn });
      expect(messagesOf(server.requests[2]!.body)).not.toContain('browser_state');
      expect(server.requests[2]!.body.tools ?? []).toEqual([]);
    });

    it('a child agent gets no browser: no state in its calls, and the tool says so', async () => {
      const { server, agent } = await setUp('anthropic');
      server.enqueue({ toolCalls: [{ name: 'browser', arguments: { action: 'navigate', url: `${pages.url}/` } }] }, { text: 'opened' });
      await agent.invoke('Open the board');
      const child = await agent.spawnChild({ tools: ['browser'] });
      expect(child.options.surfaces).toBeUndefined();
      server.enqueue({ toolCalls: [{ name: 'browser', arguments: { action: 'navigate', url: `${pages.url}/form` } }] }, { text: 'done' });
      const result = await child.invoke('Open the form');
      expect(messagesOf(server.requests[2]!.body)).not.toContain('browser_state');
      expect(JSON.stringify(result.messages)).toContain('This agent has no browser');
      // The parent's tab is where the parent left it.
      expect(session.current()!.active.url()).toBe(`${pages.url}/`);
    });

    it('a guardrail rule sees the button a click presses, whatever the ref, and can ask first', async () => {
      const asked: ToolCallPart[] = [];
      const payRule = createRuleGuardrail('payments', [{ tool: 'browser', arguments: { target: 'Pay' }, decision: 'ask', reason: 'a payment' }]);
      await newSession(testSettings());
      harness = await createHarness({
        agent: {
          tools: [browserTool],
          surfaces: [session],
          guardrails: [payRule],
          requestApproval: async ({ call }) => {
            asked.push(call);
            return false;
          },
        },
      });
      const { server, agent } = harness;
      server.enqueue({ toolCalls: [{ name: 'browser', arguments: { action: 'navigate', url: `${pages.url}/` } }] }, { text: 'opened' });
      await agent.invoke('Open the board');
      const ref = refOf(lastSnapshot(session.current()!.active)!, 'button "Pay now"');
      server.enqueue({ toolCalls: [{ name: 'browser', arguments: { action: 'click', ref } }] }, { text: 'not paid' });
      const result = await agent.invoke('Pay it');
      expect(asked).toHaveLength(1);
      expect(asked[0]!.arguments).toMatchObject({ action: 'click', ref, target: 'button "Pay now"', page: `${pages.url}/` });
      expect(JSON.stringify(result.messages)).toContain('not approved: payments: a payment');
      expect(await session.current()!.active.title()).toBe('Home');
      // Enter pressed on the focused button is the same click; a name the model makes up is ignored.
      await session.current()!.active.focus('button');
      server.enqueue({ toolCalls: [{ name: 'browser', arguments: { action: 'press', key: 'Enter', target: 'harmless' } }] }, { text: 'still not paid' });
      await agent.invoke('Press enter');
      expect(asked).toHaveLength(2);
      expect(asked[1]!.arguments).toMatchObject({ action: 'press', target: 'button "Pay now"' });
      expect(await session.current()!.active.title()).toBe('Home');
    });
  });
});

describe('browser without a chromium on the machine', () => {
  it('is still offered, says so plainly when called, and the turn goes on', async () => {
    // Playwright's own browsers are looked for in an empty folder, the system's at a path that is not there.
    const saved = process.env.PLAYWRIGHT_BROWSERS_PATH;
    process.env.PLAYWRIGHT_BROWSERS_PATH = await makeTempDir();
    const pool = new BrowserPool({ systemChromium: '/nonexistent/chromium' });
    const session = pool.session('test:conversation', testSettings(), join(await makeTempDir(), 'downloads'));
    const harness = await createHarness({ agent: { tools: [browserTool], surfaces: [session] } });
    try {
      harness.server.enqueue({ toolCalls: [{ name: 'browser', arguments: { action: 'navigate', url: 'https://example.com/' } }] }, { text: 'There is no browser here.' });
      const result = await harness.agent.invoke('Open example.com');
      expect(result.text).toBe('There is no browser here.');
      expect(harness.server.requests[0]!.body.tools.map((tool: { name: string }) => tool.name)).toContain('browser');
      const said = JSON.stringify(result.messages);
      expect(said).toContain('The browser cannot start: no chromium is installed on the machine running the gateway');
      expect(session.isOpen).toBe(false);
    } finally {
      if (saved === undefined) delete process.env.PLAYWRIGHT_BROWSERS_PATH;
      else process.env.PLAYWRIGHT_BROWSERS_PATH = saved;
      await harness.close();
      await pool.closeAll();
    }
  });
});
