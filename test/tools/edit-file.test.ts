import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createEditFileTool } from '../../src/tools/builtin/edit-file.ts';
import { callTool, makeTempDir } from './tool-harness.ts';

const editFileTool = createEditFileTool();

async function fileWith(content: string): Promise<{ cwd: string; file: string }> {
  const cwd = await makeTempDir();
  const file = path.join(cwd, 'code.ts');
  await writeFile(file, content);
  return { cwd, file };
}

describe('edit_file', () => {
  it('replaces a unique occurrence', async () => {
    const { cwd, file } = await fileWith('const a = 1;\nconst b = 2;\n');
    const output = await callTool(editFileTool, { path: 'code.ts', old_string: 'b = 2', new_string: 'b = 3' }, { cwd });
    expect(output).toEqual({ content: 'Successfully edited code.ts' });
    expect(await readFile(file, 'utf8')).toBe('const a = 1;\nconst b = 3;\n');
  });

  it('inserts the replacement literally ($ patterns are not special)', async () => {
    const { cwd, file } = await fileWith('price\n');
    await callTool(editFileTool, { path: 'code.ts', old_string: 'price', new_string: "$& costs $$1 $'" }, { cwd });
    expect(await readFile(file, 'utf8')).toBe("$& costs $$1 $'\n");
  });

  it('reports a missing file and a missing old_string', async () => {
    const { cwd } = await fileWith('abc');
    expect(await callTool(editFileTool, { path: 'other.ts', old_string: 'a', new_string: 'b' }, { cwd })).toEqual({
      content: 'Error: file not found: other.ts',
      isError: true,
    });
    expect(await callTool(editFileTool, { path: 'code.ts', old_string: 'xyz', new_string: 'b' }, { cwd })).toEqual({
      content: 'Error: old_string not found in code.ts',
      isError: true,
    });
  });

  it('refuses an ambiguous old_string and leaves the file alone', async () => {
    const { cwd, file } = await fileWith('x = 1\nx = 1\nx = 1\n');
    expect(await callTool(editFileTool, { path: 'code.ts', old_string: 'x = 1', new_string: 'x = 2' }, { cwd })).toEqual({
      content: 'Error: old_string found 3 times in code.ts. Provide more context to make it unique.',
      isError: true,
    });
    expect(await readFile(file, 'utf8')).toBe('x = 1\nx = 1\nx = 1\n');
  });

  it('replaces every occurrence with replace_all', async () => {
    const { cwd, file } = await fileWith('x = 1\nx = 1\ny = 1\n');
    const output = await callTool(
      editFileTool,
      { path: 'code.ts', old_string: 'x = 1', new_string: 'x = 2', replace_all: true },
      { cwd },
    );
    expect(output).toEqual({ content: 'Successfully edited code.ts (2 replacements)' });
    expect(await readFile(file, 'utf8')).toBe('x = 2\nx = 2\ny = 1\n');
  });

  it('matches a multi-line old_string in a CRLF file', async () => {
    const { cwd, file } = await fileWith('one\r\ntwo\r\nthree\r\n');
    const output = await callTool(editFileTool, { path: 'code.ts', old_string: 'one\ntwo', new_string: 'uno\ndos' }, { cwd });
    expect(output).toEqual({ content: 'Successfully edited code.ts' });
    expect(await readFile(file, 'utf8')).toBe('uno\r\ndos\r\nthree\r\n');
  });

  it('rejects an empty old_string in the schema', () => {
    expect(editFileTool.parameters.safeParse({ path: 'a', old_string: '', new_string: 'b' }).success).toBe(false);
  });
});
