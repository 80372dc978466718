import { describe, expect, it } from 'vitest';
import { createBuiltinTools } from '../../src/tools/builtin/index.ts';
import { toToolDefinition } from '../../src/tools/tool.ts';

describe('createBuiltinTools', () => {
  it('returns every built-in tool once', () => {
    expect(createBuiltinTools().map((tool) => tool.name)).toEqual([
      'read_file',
      'write_file',
      'edit_file',
      'apply_patch',
      'shell',
      'grep',
      'glob',
      'list_dir',
    ]);
  });

  it('gives the model a JSON Schema with the spec parameter names', () => {
    const definitions = Object.fromEntries(createBuiltinTools().map((tool) => [tool.name, toToolDefinition(tool)]));
    const shell = definitions.shell!.parameters as { properties: Record<string, { type: string }>; required: string[] };
    expect(Object.keys(shell.properties)).toEqual(['command', 'timeout_ms']);
    expect(shell.properties.timeout_ms!.type).toBe('integer');
    expect(shell.required).toEqual(['command']);
    const edit = definitions.edit_file!.parameters as { properties: Record<string, unknown>; required: string[] };
    expect(Object.keys(edit.properties)).toEqual(['path', 'old_string', 'new_string', 'replace_all']);
    expect(edit.required).toEqual(['path', 'old_string', 'new_string']);
  });
});
