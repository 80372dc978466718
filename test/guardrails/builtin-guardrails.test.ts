import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GuardrailSet } from '../../src/agent/guardrail-set.ts';
import { createBuiltinGuardrails, loadGuardrailFiles } from '../../src/guardrails/index.ts';
import { makeTempDir } from '../tools/tool-harness.ts';
import { toolCall, writeFiles } from './helpers.ts';

const reasonOf = (decision: { action: string; reason?: string }) => decision.reason;

describe('createBuiltinGuardrails', () => {
  it('returns the counting guardrails first, then confinement and redaction', async () => {
    const workspace = await makeTempDir();
    const names = createBuiltinGuardrails({ roots: [workspace] }).map((guardrail) => guardrail.name);
    expect(names).toEqual(['tool-call-cap', 'doom-loop', 'workspace-confinement', 'secret-redactor']);
  });

  it('works in a GuardrailSet with file guardrails: blocked calls still count toward the loop guard', async () => {
    const workspace = await makeTempDir();
    const folder = await writeFiles(path.join(workspace, '.operator', 'guardrails'), {
      'no-env.yaml': 'rules:\n  - { tool: "*_file", arguments: { path: "\\\\.env$" }, decision: block, reason: no .env files }\n',
    });
    const { guardrails: fromFiles } = loadGuardrailFiles([{ path: folder, source: 'project' }]);
    const set = new GuardrailSet([
      ...createBuiltinGuardrails({ roots: [workspace], doomLoopThreshold: 2, env: { API_TOKEN: 'tok-123456789' } }),
      ...fromFiles,
    ]);
    set.onTurnStart();
    expect(await set.before(toolCall('read_file', { path: '.env' }))).toEqual({ action: 'block', reason: 'no-env: no .env files' });
    const escape = toolCall('read_file', { path: '/etc/passwd' });
    expect(reasonOf(await set.before(escape))).toBe(`workspace-confinement: /etc/passwd is outside the workspace; allowed: ${workspace}`);
    await set.before(escape);
    expect(reasonOf(await set.before(escape))).toMatch(/^doom-loop: read_file has already been called 2 times/);
    set.onTurnStart();
    expect(reasonOf(await set.before(escape))).toMatch(/^workspace-confinement:/);
    // The code tool's path is confined like read_file's.
    expect(reasonOf(await set.before(toolCall('code', { action: 'diagnostics', path: '/etc/app.ts' })))).toBe(`workspace-confinement: /etc/app.ts is outside the workspace; allowed: ${workspace}`);
    const after = await set.after(toolCall('shell'), { content: [{ type: 'text', text: 'TOKEN=tok-123456789' }], isError: false });
    expect(after).toEqual({
      action: 'allow',
      content: [
        { type: 'text', text: 'TOKEN=[REDACTED]' },
        { type: 'text', text: '\n[A secret was redacted from this result as [REDACTED].]' },
      ],
    });
  });
});
