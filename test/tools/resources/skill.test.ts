import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSkills } from '../../../src/resources/skills.ts';
import type { Skill } from '../../../src/resources/types.ts';
import { createSkillTool } from '../../../src/tools/resources/skill.ts';
import { layersIn, makeTempDir, skillFile, writeTree } from '../../resources/temp-tree.ts';
import { callTool } from '../tool-harness.ts';

async function loadedSkills(files: Record<string, string>): Promise<{ root: string; skills: Skill[] }> {
  const root = await makeTempDir();
  await writeTree(root, files);
  const { skills, problems } = loadSkills(layersIn(root));
  expect(problems).toEqual([]);
  return { root, skills };
}

describe('skill tool', () => {
  it('returns the instructions, the references, then scripts and assets with absolute paths', async () => {
    const { root, skills } = await loadedSkills({
      'home/skills/report/SKILL.md': skillFile('name: report\ndescription: Weekly report', '\n# Report\n\nRun scripts/build.sh.\n'),
      'home/skills/report/references/format.md': 'Use tables.\n',
      'home/skills/report/scripts/build.sh': 'echo build\n',
      'home/skills/report/assets/logo.svg': '<svg/>',
    });
    const tool = createSkillTool({ getSkills: () => skills });
    const directory = path.join(root, 'home/skills/report');
    expect(await callTool(tool, { name: 'report' }, { cwd: root })).toEqual({
      content:
        `<skill name="report" directory="${directory}">\n` +
        'Relative paths in these instructions are relative to the directory above.\n\n' +
        '# Report\n\nRun scripts/build.sh.\n</skill>\n\n' +
        `<reference file="references/format.md" path="${directory}/references/format.md">\nUse tables.\n</reference>\n\n` +
        'Scripts (run them with the shell tool; do not read them unless you need to change one):\n' +
        `- ${directory}/scripts/build.sh\n\n` +
        'Assets (templates and files to use as the instructions say):\n' +
        `- ${directory}/assets/logo.svg`,
    });
  });

  it('names the available skills when the name is unknown, leaving out hidden ones', async () => {
    const { root, skills } = await loadedSkills({
      'home/skills/alpha/SKILL.md': skillFile('name: alpha\ndescription: A'),
      'home/skills/beta/SKILL.md': skillFile('name: beta\ndescription: B'),
      'home/skills/secret/SKILL.md': skillFile('name: secret\ndescription: S\ndisable-model-invocation: true'),
    });
    const tool = createSkillTool({ getSkills: () => skills });
    expect(await callTool(tool, { name: 'gamma' }, { cwd: root })).toEqual({
      content: 'Error: unknown skill "gamma". Available skills: alpha, beta',
      isError: true,
    });
    expect(await callTool(tool, { name: 'secret' }, { cwd: root })).toEqual({
      content: 'Error: skill "secret" can only be started by a person (with /secret)',
      isError: true,
    });
    expect(await callTool(createSkillTool({ getSkills: () => [] }), { name: 'x' }, { cwd: root })).toEqual({
      content: 'Error: unknown skill "x". No skills are available.',
      isError: true,
    });
  });

  it('sees a reload at once and reports a skill broken since it was loaded', async () => {
    const { root, skills } = await loadedSkills({ 'home/skills/alpha/SKILL.md': skillFile('name: alpha\ndescription: A') });
    let current: readonly Skill[] = [];
    const tool = createSkillTool({ getSkills: () => current });
    expect((await callTool(tool, { name: 'alpha' }, { cwd: root })).isError).toBe(true);
    current = skills;
    expect((await callTool(tool, { name: 'alpha' }, { cwd: root })).isError).toBeUndefined();
    await writeFile(skills[0]!.location, '---\nname: alpha\n');
    expect(await callTool(tool, { name: 'alpha' }, { cwd: root })).toEqual({
      content:
        `Error: skill "alpha" cannot be loaded: ${skills[0]!.location} (line 1): ` +
        'the frontmatter is not closed: no `---` line after the first one',
      isError: true,
    });
  });
});
