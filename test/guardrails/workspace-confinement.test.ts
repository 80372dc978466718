import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createWorkspaceConfinement, resolveRealPath } from '../../src/guardrails/index.ts';
import { patchTargets } from '../../src/tools/builtin/patch-plan.ts';
import { makeTempDir } from '../tools/tool-harness.ts';
import { before, toolCall } from './helpers.ts';

/** A workspace and an outside folder with a secret, side by side in a temp dir. */
async function setUp() {
  const root = await makeTempDir();
  const workspace = path.join(root, 'workspace');
  const outside = path.join(root, 'outside');
  await mkdir(path.join(workspace, 'src'), { recursive: true });
  await mkdir(outside);
  await writeFile(path.join(workspace, 'src', 'a.ts'), 'a');
  await writeFile(path.join(outside, 'secret.txt'), 's');
  return { root, workspace, outside, guard: createWorkspaceConfinement({ roots: [workspace] }) };
}

describe('workspace-confinement', () => {
  it('allows paths inside the root, relative or absolute, existing or not', async () => {
    const { workspace, guard } = await setUp();
    for (const call of [
      toolCall('read_file', { path: 'src/a.ts' }),
      toolCall('write_file', { path: 'new/deeper/file.ts', content: 'x' }),
      toolCall('edit_file', { path: path.join(workspace, 'src', 'a.ts') }),
      toolCall('list_dir', { path: '.' }),
      toolCall('grep', { pattern: 'x' }),
      toolCall('glob', { pattern: '**/*.ts', path: 'src' }),
      toolCall('read_file', { path: 'src/../src/a.ts' }),
      toolCall('shell', { command: 'cat /etc/passwd' }), // not a file tool: other guardrails' business
    ]) {
      expect(await before(guard, call), JSON.stringify(call.arguments)).toEqual({ action: 'allow' });
    }
  });

  it('blocks `..`, absolute and ~ paths outside the root, naming the path and the roots', async () => {
    const { workspace, outside, guard } = await setUp();
    expect(await before(guard, toolCall('read_file', { path: '../outside/secret.txt' }))).toEqual({
      action: 'block',
      reason: `../outside/secret.txt (${path.join(outside, 'secret.txt')}) is outside the workspace; allowed: ${workspace}`,
    });
    expect(await before(guard, toolCall('write_file', { path: '/etc/cron.d/x', content: '' }))).toEqual({
      action: 'block',
      reason: `/etc/cron.d/x is outside the workspace; allowed: ${workspace}`,
    });
    for (const call of [
      toolCall('list_dir', { path: 'src/../..' }),
      toolCall('grep', { pattern: 'x', path: '..' }),
      toolCall('glob', { pattern: '../outside/*' }),
      toolCall('glob', { pattern: '/etc/*' }),
      toolCall('glob', { pattern: '*.txt', path: '../outside' }),
      toolCall('edit_file', { path: '~/.bashrc' }),
    ]) {
      expect((await before(guard, call)).action, JSON.stringify(call.arguments)).toBe('block');
    }
    expect(homedir().startsWith(workspace)).toBe(false);
  });

  it('follows symlinks, including a dangling one and one in a parent of a new file', async () => {
    const { workspace, outside, guard } = await setUp();
    await symlink(path.join(outside, 'secret.txt'), path.join(workspace, 'innocent.txt'));
    await symlink(outside, path.join(workspace, 'linked-dir'));
    await symlink(path.join(outside, 'not-yet.txt'), path.join(workspace, 'dangling.txt'));
    await symlink(path.join(workspace, 'src'), path.join(workspace, 'inner-link'));
    expect(await before(guard, toolCall('read_file', { path: 'innocent.txt' }))).toEqual({
      action: 'block',
      reason: `innocent.txt (${path.join(outside, 'secret.txt')}) is outside the workspace; allowed: ${workspace}`,
    });
    expect((await before(guard, toolCall('write_file', { path: 'linked-dir/new/file.txt' }))).action).toBe('block');
    expect((await before(guard, toolCall('write_file', { path: 'dangling.txt' }))).action).toBe('block');
    expect((await before(guard, toolCall('read_file', { path: 'inner-link/a.ts' }))).action).toBe('allow');
  });

  it('accepts any of several roots; relative paths resolve against the first', async () => {
    const { workspace, outside } = await setUp();
    const guard = createWorkspaceConfinement({ roots: [workspace, outside] });
    expect((await before(guard, toolCall('read_file', { path: path.join(outside, 'secret.txt') }))).action).toBe('allow');
    expect((await before(guard, toolCall('read_file', { path: '../outside/secret.txt' }))).action).toBe('allow');
    const reason = (await before(guard, toolCall('read_file', { path: '/etc/hosts' }))) as { reason: string };
    expect(reason.reason).toBe(`/etc/hosts is outside the workspace; allowed: ${workspace}, ${outside}`);
    expect(() => createWorkspaceConfinement({ roots: [] })).toThrow(RangeError);
  });

  it('compares against the real path of a root reached through a symlink', async () => {
    const { root, workspace } = await setUp();
    await symlink(workspace, path.join(root, 'alias'));
    const guard = createWorkspaceConfinement({ roots: [path.join(root, 'alias')] });
    expect((await before(guard, toolCall('read_file', { path: path.join(workspace, 'src', 'a.ts') }))).action).toBe('allow');
    expect((await before(guard, toolCall('read_file', { path: 'src/a.ts' }))).action).toBe('allow');
  });

  it('checks every file an apply_patch would touch', async () => {
    const { workspace, guard } = await setUp();
    const inside = '--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1 +1 @@\n-a\n+b\n';
    expect(await before(guard, toolCall('apply_patch', { patch: inside }))).toEqual({ action: 'allow' });
    const escaping = `${inside}--- /dev/null\n+++ b/../outside/evil.sh\n@@ -0,0 +1 @@\n+rm -rf ~\n`;
    expect(await before(guard, toolCall('apply_patch', { patch: escaping }))).toEqual({
      action: 'block',
      reason: `../outside/evil.sh (${path.join(path.dirname(workspace), 'outside', 'evil.sh')}) is outside the workspace; allowed: ${workspace}`,
    });
    const rename = 'diff --git a/src/a.ts b/../../x.ts\nsimilarity index 100%\nrename from src/a.ts\nrename to ../../x.ts\n';
    expect((await before(guard, toolCall('apply_patch', { patch: rename }))).action).toBe('block');
    const absolute = '--- /etc/hosts\n+++ /etc/hosts\n@@ -1 +1 @@\n-a\n+b\n';
    expect((await before(guard, toolCall('apply_patch', { patch: absolute }))).action).toBe('block');
  });
});

describe("apply_patch: the guardrail checks the files of the tool's own reading", () => {
  // Two patches whose headers a separate header parser read one way and the patch library the
  // other, so the check saw a file inside the workspace and the tool wrote one outside.
  it('sees a tab after ---, and +++ before ---, as the tool applies them', async () => {
    const { guard } = await setUp();
    const tabbed = '---\t../outside.js\n+++\t../outside.js\n@@ -0,0 +1 @@\n+x\n';
    const reversed = '+++ ../outside.js\n--- /dev/null\n@@ -0,0 +1 @@\n+x\n';
    for (const patch of [tabbed, reversed]) {
      expect(await patchTargets(patch)).toEqual(['../outside.js']);
      expect((await before(guard, toolCall('apply_patch', { patch }))).action).toBe('block');
    }
  });

  it('reads renames and git prefixes as the tool does', async () => {
    const patch = ['diff --git a/old name.md b/new name.md', 'similarity index 100%', 'rename from old name.md', 'rename to new name.md', ''].join('\n');
    expect((await patchTargets(patch)).sort()).toEqual(['new name.md', 'old name.md']);
    expect(await patchTargets('--- a/src/x.ts\n+++ b/src/x.ts\n@@ -1 +1 @@\n-a\n+b\n')).toEqual(['src/x.ts']);
  });
});

describe('resolveRealPath', () => {
  it('resolves the nearest existing parent of a missing path', async () => {
    const { workspace } = await setUp();
    expect(await resolveRealPath(path.join(workspace, 'no', 'such', 'file'))).toBe(path.join(workspace, 'no', 'such', 'file'));
  });
});

describe("workspace-confinement: a turn's own workspace and operator's private state", () => {
  /** OPERATOR_HOME inside the workspace, the hardest case: the store and the control file are in reach. */
  async function setUpHome() {
    const root = await makeTempDir();
    const workspace = path.join(root, 'workspace');
    const home = path.join(workspace, '.operator');
    const own = path.join(home, 'profiles', 'default', 'temp', 'telegram_group_-100');
    const other = path.join(home, 'profiles', 'default', 'temp', 'telegram_dm_1');
    await mkdir(path.join(home, 'state', 'sessions'), { recursive: true });
    await mkdir(own, { recursive: true });
    await mkdir(other, { recursive: true });
    await writeFile(path.join(home, 'gateway.json'), '{"token":"t"}');
    await writeFile(path.join(own, 'notes.txt'), 'n');
    await writeFile(path.join(other, 'private.txt'), 'p');
    const guard = createWorkspaceConfinement({ roots: [workspace], hidden: [path.join(home, 'state'), path.join(home, 'gateway.json')] });
    const turn = (workspaceOfTurn: { cwd: string; roots: string[]; hidden?: string[] }) => ({ sessionKey: 'k', platform: 'telegram', senderId: '7', admin: false, scheduled: false, workspace: workspaceOfTurn });
    return { workspace, home, own, other, guard, turn };
  }

  it('never lets a file tool reach the private entries, even from inside the workspace', async () => {
    const { home, guard } = await setUpHome();
    for (const call of [
      toolCall('read_file', { path: '.operator/gateway.json' }),
      toolCall('list_dir', { path: '.operator/state' }),
      toolCall('grep', { pattern: 'x', path: path.join(home, 'state', 'sessions') }),
      toolCall('glob', { pattern: '.operator/state/**' }),
      toolCall('write_file', { path: '.operator/state/new', content: 'x' }),
    ]) {
      const decision = await before(guard, call);
      expect(decision.action, JSON.stringify(call.arguments)).toBe('block');
      expect(decision).toHaveProperty('reason', expect.stringContaining("operator's private state"));
    }
    expect(await before(guard, toolCall('read_file', { path: 'README.md' }))).toEqual({ action: 'allow' });
  });

  it("confines a turn to its own workspace, relative paths from the turn's folder", async () => {
    const { own, other, home, guard, turn } = await setUpHome();
    const restricted = turn({ cwd: own, roots: [own], hidden: [home] });
    expect(await before(guard, toolCall('read_file', { path: 'notes.txt' }), restricted)).toEqual({ action: 'allow' });
    expect(await before(guard, toolCall('grep', { pattern: 'x' }), restricted)).toEqual({ action: 'allow' });
    for (const target of [path.join(other, 'private.txt'), '../telegram_dm_1/private.txt', path.join(home, 'profiles', 'default', 'MEMORY.md'), '/etc/passwd']) {
      expect((await before(guard, toolCall('read_file', { path: target }), restricted)).action, target).toBe('block');
    }
  });

  it("keeps hidden folders closed to a granted turn except through its own folder", async () => {
    const { workspace, own, other, home, guard, turn } = await setUpHome();
    const granted = turn({ cwd: workspace, roots: [workspace, own], hidden: [home] });
    expect(await before(guard, toolCall('read_file', { path: 'src/a.ts' }), granted)).toEqual({ action: 'allow' });
    expect(await before(guard, toolCall('read_file', { path: path.join(own, 'notes.txt') }), granted)).toEqual({ action: 'allow' });
    const decision = await before(guard, toolCall('read_file', { path: path.join(other, 'private.txt') }), granted);
    expect(decision).toMatchObject({ action: 'block', reason: expect.stringContaining('not open to this conversation') });
    expect((await before(guard, toolCall('list_dir', { path: '.operator' }), granted)).action).toBe('block');
  });

  it('opens nothing of a hidden folder that is itself the workspace, but for the roots inside it', async () => {
    const { own, other, home, guard, turn } = await setUpHome();
    const granted = turn({ cwd: home, roots: [home, own], hidden: [home] });
    expect(await before(guard, toolCall('read_file', { path: path.join(own, 'notes.txt') }), granted)).toEqual({ action: 'allow' });
    for (const target of [path.join(other, 'private.txt'), 'profiles', path.join(home, 'profiles', 'default', 'MEMORY.md')]) {
      expect((await before(guard, toolCall('read_file', { path: target }), granted)).action, target).toBe('block');
    }
  });

  it('follows a symlink the workspace holds into a hidden folder, and blocks it', async () => {
    const { own, other, home, guard, turn } = await setUpHome();
    await symlink(path.join(other, 'private.txt'), path.join(own, 'link.txt'));
    const restricted = turn({ cwd: own, roots: [own], hidden: [home] });
    expect((await before(guard, toolCall('read_file', { path: 'link.txt' }), restricted)).action).toBe('block');
  });
});
