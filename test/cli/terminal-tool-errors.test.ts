/**
 * Failed tool calls in the terminal chat (`operator chat` run for real against the fake model
 * server): each shows one line with what went wrong, taken from the tool's output: a built-in
 * tool's message without its `Error:`, a shell command's exit status and first stderr line, a
 * JSON error body's message, a stack trace's first line.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { chatSuite } from './chat-under-test.ts';

const suite = chatSuite();

/** An extension with two tools that fail the way third-party code does: a JSON body, a stack trace. */
function writeFailingExtension(home: string): void {
  const zod = pathToFileURL(createRequire(import.meta.url).resolve('zod')).href;
  mkdirSync(join(home, 'extensions'), { recursive: true });
  writeFileSync(
    join(home, 'extensions', 'failing.mjs'),
    [
      `import * as zod from ${JSON.stringify(zod)};`,
      'const z = zod.z ?? zod.default.z;',
      'export default (api) => {',
      "  api.registerTool({ name: 'quota_check', description: 'Checks the quota.', parameters: z.object({}),",
      "    execute: async () => ({ content: JSON.stringify({ error: { message: 'quota exceeded for project demo', code: 429 } }), isError: true }) });",
      "  api.registerTool({ name: 'crashy', description: 'Crashes.', parameters: z.object({}),",
      "    execute: async () => ({ content: '\\nTypeError: cannot read properties of undefined\\n    at crash (/srv/tool.js:1:2)\\n    at run (/srv/tool.js:3:4)', isError: true }) });",
      '};',
      '',
    ].join('\n'),
  );
}

describe('failed tool calls in the terminal chat', () => {
  it("show their error's first line", async () => {
    writeFailingExtension(suite.home());
    suite.server().enqueue(
      {
        toolCalls: [
          { name: 'read_file', arguments: { path: 'nope.txt' } },
          { name: 'shell', arguments: { command: 'echo started; echo permission denied on /srv >&2; echo more >&2; exit 3' } },
          { name: 'no_such_tool', arguments: {} },
          { name: 'quota_check', arguments: {} },
          { name: 'crashy', arguments: {} },
        ],
      },
      { text: 'All failed.' },
    );
    const chat = suite.start();
    chat.send('try everything');
    await chat.output.waitFor('All failed.');
    const lines = chat.output.stdout().split('\n').filter((line) => line.startsWith('  ! ')).sort();
    expect(lines).toEqual([
      '  ! crashy: TypeError: cannot read properties of undefined',
      '  ! no_such_tool: Tool not found: no_such_tool',
      '  ! quota_check: quota exceeded for project demo',
      '  ! read_file: file not found: nope.txt',
      '  ! shell: exit code 3: permission denied on /srv',
    ]);
    chat.send('/exit');
    expect(await chat.exited).toBe(0);
  });
});
