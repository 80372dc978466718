/** The `run_pipeline` tool's own rules: a chat turn only, off in groups unless allowed, errors said. */
import { describe, expect, it } from 'vitest';
import { createRunPipelineTool } from '../../src/gateway/pipelines/run-pipeline-tool.ts';
import type { TurnContext } from '../../src/tools/tool.ts';
import { callTool, textOf } from '../tools/tool-harness.ts';

const turn: TurnContext = { sessionKey: 'telegram:group:-1', platform: 'telegram', senderId: '7', admin: false, scheduled: false };

describe('run_pipeline', () => {
  const make = (allowInGroups: boolean, group: boolean, started: string[] = []) =>
    createRunPipelineTool({
      allowInGroups,
      inGroup: async () => group,
      start: async (_turn, name, goal) => {
        if (name === 'missing') throw new Error('No pipeline "missing". Pipelines here: task.');
        started.push(`${name}: ${goal}`);
        return 'abc123';
      },
    });

  it('is in the shell group, and starts a pipeline in a direct message', async () => {
    const started: string[] = [];
    const tool = make(false, false, started);
    expect(tool.machine).toBe('shell');
    const output = await callTool(tool, { name: 'task', goal: 'ship it' }, { cwd: '/', turn });
    expect(textOf(output)).toBe('Started run abc123 of task. It runs in the background; its progress and questions appear in this conversation (/run stop abc123 stops it).');
    expect(started).toEqual(['task: ship it']);
  });

  it('refuses in a group unless allowed, outside a chat, and says why a start failed', async () => {
    expect(textOf(await callTool(make(false, true), { name: 'task', goal: 'x' }, { cwd: '/', turn }))).toContain('off in groups here');
    expect((await callTool(make(true, true), { name: 'task', goal: 'x' }, { cwd: '/', turn })).isError).toBeFalsy();
    expect(textOf(await callTool(make(true, false), { name: 'task', goal: 'x' }, { cwd: '/' }))).toContain('pipelines run from a chat conversation');
    const failed = await callTool(make(true, false), { name: 'missing', goal: 'x' }, { cwd: '/', turn });
    expect(failed.isError).toBe(true);
    expect(textOf(failed)).toBe('Error: No pipeline "missing". Pipelines here: task.');
  });
});
