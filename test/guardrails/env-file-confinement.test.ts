/**
 * The second line behind the sandbox: the workspace guardrail refuses the `.env` files operator
 * loads (the working directory's and OPERATOR_HOME's) and the token files, for every file tool
 * and a patch, through a symlink too, with a message that says what the file is.
 */
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { envFilePaths, privatePaths } from '../../src/core/private-paths.ts';
import { createBuiltinGuardrails } from '../../src/guardrails/index.ts';
import { makeTempDir } from '../tools/tool-harness.ts';
import { before, toolCall } from './helpers.ts';

async function setUp() {
  const root = await makeTempDir('operator-env-confine-');
  const project = path.join(root, 'project');
  const home = path.join(project, '.operator');
  await mkdir(path.join(project, 'src'), { recursive: true });
  await mkdir(home, { recursive: true });
  await writeFile(path.join(project, '.env'), 'ANTHROPIC_API_KEY=sk-ant-planted\n');
  await writeFile(path.join(home, '.env'), 'TELEGRAM_BOT_TOKEN=1:planted\n');
  await writeFile(path.join(home, 'admin-token'), 'admin-token-value\n');
  await writeFile(path.join(project, 'src', 'a.ts'), 'a');
  await symlink(path.join(project, '.env'), path.join(project, 'src', 'settings'));
  const confinement = createBuiltinGuardrails({ roots: [project], hidden: privatePaths(home, project), env: {} }).find((guardrail) => guardrail.name === 'workspace-confinement')!;
  return { project, home, confinement };
}

describe('.env files and the workspace guardrail', () => {
  it("names both .env files operator loads, once when they are one file", () => {
    expect(envFilePaths('/work/project', '/home/ada/.operator')).toEqual(['/work/project/.env', '/home/ada/.operator/.env']);
    expect(envFilePaths('/home/ada/.operator', '/home/ada/.operator')).toEqual(['/home/ada/.operator/.env']);
    expect(privatePaths('/home/ada/.operator', '/work/project')).toEqual(expect.arrayContaining(['/work/project/.env', '/home/ada/.operator/.env', '/home/ada/.operator/admin-token']));
  });

  it('refuses every file tool and a patch on the .env files, through a symlink too, saying what the file is', async () => {
    const { project, home, confinement } = await setUp();
    for (const call of [
      toolCall('read_file', { path: '.env' }),
      toolCall('read_file', { path: path.join(project, 'src', '..', '.env') }),
      toolCall('read_file', { path: 'src/settings' }),
      toolCall('write_file', { path: '.env', content: 'OPERATOR_ADMINS=telegram:666' }),
      toolCall('edit_file', { path: path.join(home, '.env'), old_string: 'a', new_string: 'b' }),
      toolCall('grep', { pattern: 'KEY', path: '.env' }),
      toolCall('send_file', { path: '.env' }),
      toolCall('apply_patch', { patch: '--- /dev/null\n+++ .env\n@@ -0,0 +1 @@\n+OPERATOR_ADMINS=telegram:666\n' }),
    ]) {
      const decision = await before(confinement, call);
      expect(decision, JSON.stringify(call.arguments)).toMatchObject({ action: 'block' });
      expect((decision as { reason: string }).reason).toMatch(/is a \.env file operator loads its keys from, which no tool may read or change$/);
    }
    expect(await before(confinement, toolCall('read_file', { path: 'src/a.ts' }))).toEqual({ action: 'allow' });
  });

  it('refuses the admin token as private state', async () => {
    const { home, confinement } = await setUp();
    const decision = await before(confinement, toolCall('read_file', { path: path.join(home, 'admin-token') }));
    expect(decision).toMatchObject({ action: 'block', reason: `${path.join(home, 'admin-token')} is operator's private state, which no tool may touch` });
  });
});
