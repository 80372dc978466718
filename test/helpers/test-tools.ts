/** Small real tools for agent and engine tests. */
import { z } from 'zod';
import { defineTool } from '../../src/tools/tool.ts';
import type { Tool } from '../../src/tools/tool.ts';

/** Echoes its text; records each call. */
export function echoTool(calls: string[] = []): Tool {
  return defineTool({
    name: 'echo',
    description: 'Echo the text back.',
    parameters: z.object({ text: z.string() }),
    async execute({ text }) {
      calls.push(text);
      return `echo: ${text}`;
    },
  });
}

/** A tool that waits until `release` is called or its signal aborts. */
export function gateTool(name = 'wait_gate'): { tool: Tool; started: Promise<void>; release: () => void } {
  let release!: () => void;
  let markStarted!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const started = new Promise<void>((resolve) => (markStarted = resolve));
  const tool = defineTool({
    name,
    description: 'Waits for the test to release it.',
    parameters: z.object({}),
    async execute(_args, context) {
      markStarted();
      await Promise.race([
        gate,
        new Promise((_, reject) => context.signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true })),
      ]);
      return 'released';
    },
  });
  return { tool, started, release };
}
