import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { profileHome } from '../../../src/resources/layers.ts';
import { loadSkills } from '../../../src/resources/skills.ts';
import { createSkillManageTool } from '../../../src/tools/resources/skill-manage.ts';
import { layersIn, makeTempDir, skillFile, writeTree } from '../../resources/temp-tree.ts';
import { callTool, textOf } from '../tool-harness.ts';

async function setUp() {
  const root = await makeTempDir();
  const layers = layersIn(root);
  const skillsDirectory = path.join(profileHome(layers), 'skills');
  let changes = 0;
  const tool = createSkillManageTool({ skillsDirectory, onChange: () => void changes++ });
  const run = (args: Record<string, unknown>) => callTool(tool, args, { cwd: root });
  return { root, layers, skillsDirectory, run, changes: () => changes };
}

const error = (message: string) => ({ content: `Error: ${message}`, isError: true });

describe('skill_manage', () => {
  it('creates a skill that a fresh load finds, in the profile layer', async () => {
    const { layers, skillsDirectory, run, changes } = await setUp();
    const output = await run({ action: 'create', name: 'release-notes', description: 'Write release notes: from the changelog', body: '# Steps\n\n1. Read CHANGELOG.md\n' });
    const file = path.join(skillsDirectory, 'release-notes/SKILL.md');
    expect(output).toEqual({ content: `Created skill "release-notes" (${file})` });
    expect(changes()).toBe(1);
    expect(await readFile(file, 'utf8')).toBe(
      '---\nname: release-notes\ndescription: "Write release notes: from the changelog"\n---\n\n# Steps\n\n1. Read CHANGELOG.md\n',
    );
    expect(loadSkills(layers)).toEqual({
      skills: [expect.objectContaining({ name: 'release-notes', description: 'Write release notes: from the changelog', source: 'profile', location: file })],
      problems: [],
    });
    expect(await readdir(path.join(skillsDirectory, 'release-notes'))).toEqual(['SKILL.md']);
  });

  it('refuses to create over an existing skill, and incomplete creates', async () => {
    const { run, changes } = await setUp();
    await run({ action: 'create', name: 'one', description: 'First', body: 'Body' });
    expect(await run({ action: 'create', name: 'one', description: 'Again', body: 'Body' })).toEqual(
      error('skill "one" already exists; use action "patch" to change it, or "delete" it first'),
    );
    expect(await run({ action: 'create', name: 'two', body: 'Body' })).toEqual(error('create needs a description'));
    expect(await run({ action: 'create', name: 'two', description: 'D', body: '  ' })).toEqual(
      error('create needs a body (the instructions)'),
    );
    expect(await run({ action: 'create', name: 'two', description: 'D', body: '---\nname: two\n---\nx' })).toEqual(
      error('body must not start with frontmatter (`---`); give only the instructions'),
    );
    expect(await run({ action: 'create', name: 'two', description: 'd'.repeat(1025), body: 'x' })).toEqual(
      error('`description` is 1025 characters long, more than the 1024 allowed'),
    );
    expect(changes()).toBe(1);
  });

  it('refuses invalid names and writes nothing anywhere', async () => {
    const { root, run, changes } = await setUp();
    const names = ['../escape', '..', '.', 'a/b', 'Upper', 'under_score', '', 'a'.repeat(65), '/tmp/abs'];
    for (const name of names) {
      const output = await run({ action: 'create', name, description: 'D', body: 'B' });
      expect(output.isError, name).toBe(true);
      expect(textOf(output), name).toMatch(/^Error: invalid skill name: `name` /);
    }
    expect(textOf(await run({ action: 'delete', name: '../home' }))).toMatch(/^Error: invalid skill name/);
    expect(await readdir(root)).toEqual([]);
    expect(changes()).toBe(0);
  });

  it('patches the description and keeps other frontmatter and the body', async () => {
    const { layers, skillsDirectory, run, changes } = await setUp();
    await writeTree(skillsDirectory, {
      'deploy/SKILL.md': skillFile('name: deploy\ndescription: Old\nuser-invocable: true', '\n# Deploy\n'),
    });
    expect(await run({ action: 'patch', name: 'deploy', description: 'Deploy the web app' })).toEqual({
      content: 'Patched skill "deploy" (description)',
    });
    expect(changes()).toBe(1);
    expect(loadSkills(layers).skills).toEqual([
      expect.objectContaining({ name: 'deploy', description: 'Deploy the web app', userInvocable: true }),
    ]);
    expect(await readFile(path.join(skillsDirectory, 'deploy/SKILL.md'), 'utf8')).toBe(
      '---\nname: deploy\ndescription: Deploy the web app\nuser-invocable: true\n---\n\n# Deploy\n',
    );
  });

  it('patches the instructions with an exact, unique old_string', async () => {
    const { skillsDirectory, run, changes } = await setUp();
    await run({ action: 'create', name: 'deploy', description: 'D', body: 'Step one.\nRepeat.\nRepeat.\n' });
    expect(await run({ action: 'patch', name: 'deploy', old_string: 'Step one.', new_string: 'Step 1: $& tag.' })).toEqual({
      content: 'Patched skill "deploy" (instructions)',
    });
    expect(await readFile(path.join(skillsDirectory, 'deploy/SKILL.md'), 'utf8')).toBe(
      '---\nname: deploy\ndescription: D\n---\n\nStep 1: $& tag.\nRepeat.\nRepeat.\n',
    );
    expect(await run({ action: 'patch', name: 'deploy', old_string: 'missing', new_string: 'x' })).toEqual(
      error('old_string not found in skill "deploy"'),
    );
    expect(await run({ action: 'patch', name: 'deploy', old_string: 'Repeat.', new_string: 'x' })).toEqual(
      error('old_string found 2 times in skill "deploy". Provide more context to make it unique.'),
    );
    expect(await run({ action: 'patch', name: 'deploy', old_string: 'Repeat.' })).toEqual(error('old_string and new_string go together'));
    expect(await run({ action: 'patch', name: 'deploy' })).toEqual(error('patch needs a description and/or old_string and new_string'));
    expect(await run({ action: 'patch', name: 'deploy', body: 'new' })).toEqual(
      error('patch does not take body; use old_string and new_string'),
    );
    expect(await run({ action: 'patch', name: 'deploy', description: '' })).toEqual(error('`description` is empty'));
    expect(changes()).toBe(2);
  });

  it('patches only skills in its own folder', async () => {
    const { root, skillsDirectory, run } = await setUp();
    await writeTree(root, { 'builtin/skills/shipped/SKILL.md': skillFile('name: shipped\ndescription: S') });
    expect(await run({ action: 'patch', name: 'shipped', description: 'Mine' })).toEqual(
      error(
        `no skill "shipped" in ${skillsDirectory}. Only skills saved there can be changed; to change a built-in or ` +
          'shared skill, create one with the same name (it takes precedence).',
      ),
    );
  });

  it('deletes a skill and its folder', async () => {
    const { layers, skillsDirectory, run, changes } = await setUp();
    await run({ action: 'create', name: 'temp', description: 'T', body: 'B' });
    await writeTree(skillsDirectory, { 'temp/scripts/run.sh': 'echo' });
    expect(await run({ action: 'delete', name: 'temp' })).toEqual({ content: `Deleted skill "temp" (${path.join(skillsDirectory, 'temp')})` });
    expect(loadSkills(layers).skills).toEqual([]);
    expect(await readdir(skillsDirectory)).toEqual([]);
    expect(textOf(await run({ action: 'delete', name: 'temp' }))).toMatch(/^Error: no skill "temp" in /);
    expect(changes()).toBe(2);
  });

  it('reports a failing reload without calling the write a failure', async () => {
    const root = await makeTempDir();
    const tool = createSkillManageTool({
      skillsDirectory: path.join(root, 'skills'),
      onChange: () => {
        throw new Error('cache busy');
      },
    });
    expect(await callTool(tool, { action: 'create', name: 'x', description: 'D', body: 'B' }, { cwd: root })).toEqual({
      content: `Created skill "x" (${path.join(root, 'skills/x/SKILL.md')}) (but reloading the skills failed: cache busy)`,
    });
  });

  it('rejects an unknown action in its schema', () => {
    const tool = createSkillManageTool({ skillsDirectory: '/unused' });
    expect(tool.parameters.safeParse({ action: 'rename', name: 'x' }).success).toBe(false);
  });
});
