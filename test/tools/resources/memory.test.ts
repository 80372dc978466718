import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMemoryTool } from '../../../src/tools/resources/memory.ts';
import type { MemoryTarget } from '../../../src/tools/resources/memory.ts';
import { toToolDefinition } from '../../../src/tools/tool.ts';
import { callTool, makeTempDir, textOf } from '../tool-harness.ts';

async function setUp(limits: { memoryLimit?: number; userLimit?: number } = {}) {
  const folder = await makeTempDir();
  const changed: MemoryTarget[] = [];
  const options = {
    memoryPath: path.join(folder, 'MEMORY.md'),
    userPath: path.join(folder, 'USER.md'),
    onChange: (target: MemoryTarget) => changed.push(target),
    now: () => new Date('2026-03-01T00:00:00Z'),
    ...limits,
  };
  return { folder, changed, tool: createMemoryTool(options), call: (args: Record<string, unknown>) => callTool(createMemoryTool(options), args, { cwd: folder }) };
}

describe('memory tool', () => {
  it('adds, replaces and removes entries of either file and reports the fill level', async () => {
    const { folder, changed, call } = await setUp();
    expect(await call({ action: 'add', target: 'memory', content: 'Deploys go through #releases' })).toEqual({
      content: 'Added to memory: "Deploys go through #releases"\nMEMORY [1% - 28/2,200 chars]',
    });
    expect(textOf(await call({ action: 'add', target: 'user', content: 'Prefers short answers' }))).toBe(
      'Added to user: "Prefers short answers"\nUSER [2% - 21/1,375 chars]',
    );
    expect(textOf(await call({ action: 'replace', target: 'user', old_text: 'short', content: 'Prefers short answers in French' }))).toBe(
      'Replaced in user: "Prefers short answers" -> "Prefers short answers in French"\nUSER [2% - 31/1,375 chars]',
    );
    expect(textOf(await call({ action: 'remove', target: 'memory', old_text: '#releases' }))).toBe(
      'Removed from memory: "Deploys go through #releases"\nMEMORY [0% - 0/2,200 chars]',
    );
    expect(await readFile(path.join(folder, 'USER.md'), 'utf8')).toBe('- Prefers short answers in French\n');
    expect(await readFile(path.join(folder, 'MEMORY.md'), 'utf8')).toBe('');
    expect(changed).toEqual(['memory', 'user', 'user', 'memory']);
  });

  it('names the entries it archived to make room', async () => {
    const { folder, call } = await setUp({ memoryLimit: 30 });
    await call({ action: 'add', target: 'memory', content: 'first fact, old' });
    const output = await call({ action: 'add', target: 'memory', content: 'second fact is newer' });
    expect(output.isError).toBeUndefined();
    expect(textOf(output)).toBe(
      'Added to memory: "second fact is newer"\nMEMORY [67% - 20/30 chars]\n' +
        `To make room, moved the 1 oldest entry to ${path.join(folder, 'MEMORY.archive.md')}:\n- first fact, old`,
    );
  });

  it('answers failures as error results with precise messages and changes nothing', async () => {
    const { folder, changed, call } = await setUp({ userLimit: 10 });
    await call({ action: 'add', target: 'memory', content: 'Alice owns billing' });
    await call({ action: 'add', target: 'memory', content: 'Alice owns search' });
    const cases: [Record<string, unknown>, string][] = [
      [{ action: 'add', target: 'memory', content: 'Alice owns billing' }, 'Error: MEMORY.md already has this exact entry: "Alice owns billing"'],
      [{ action: 'remove', target: 'memory', old_text: 'Bob' }, 'Error: no entry of MEMORY.md contains "Bob"'],
      [
        { action: 'replace', target: 'memory', old_text: 'Alice', content: 'x' },
        'Error: "Alice" matches 2 entries of MEMORY.md: "Alice owns billing", "Alice owns search"; give a longer old_text that occurs in only one of them',
      ],
      [{ action: 'add', target: 'user', content: 'far too long for ten' }, 'Error: the entry is 20 characters, more than the whole limit of 10 of USER.md; shorten it'],
      [{ action: 'add', target: 'memory' }, 'Error: add needs `content`: the text of the new entry'],
      [{ action: 'replace', target: 'memory', old_text: 'Alice' }, 'Error: replace needs `old_text` (a piece of the entry to change) and `content` (its full new text)'],
      [{ action: 'remove', target: 'user' }, 'Error: remove needs `old_text`: a piece of the entry to remove'],
    ];
    for (const [args, message] of cases) expect(await call(args)).toEqual({ content: message, isError: true });
    expect(changed).toEqual(['memory', 'memory']);
    expect(await readFile(path.join(folder, 'MEMORY.md'), 'utf8')).toBe('- Alice owns billing\n- Alice owns search\n');
  });

  it('reports a file it cannot write as an error result', async () => {
    const folder = await makeTempDir();
    const tool = createMemoryTool({ memoryPath: folder, userPath: path.join(folder, 'USER.md') });
    const output = await callTool(tool, { action: 'add', target: 'memory', content: 'x' }, { cwd: folder });
    expect(output.isError).toBe(true);
    expect(textOf(output)).toContain(`Error: could not update ${folder}: `);
  });

  it('tells the model what belongs in each target', async () => {
    const { tool } = await setUp();
    const definition = toToolDefinition(tool);
    expect(definition.name).toBe('memory');
    expect(definition.description).toMatch(/target "memory": facts about the team/);
    expect(definition.description).toMatch(/target "user": notes about the person/);
    expect(definition.parameters).toMatchObject({ required: ['action', 'target'] });
  });
});
