import { rm } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSkills } from '../../src/resources/skills.ts';
import { findUserSkill, shadowedNote, shadowedSkills, skillCommands, skillNameOfCommand } from '../../src/resources/skill-invocation.ts';
import { skillInvocationInput } from '../../src/resources/skill-invocation-input.ts';
import type { Skill } from '../../src/resources/types.ts';
import { callTool } from '../tools/tool-harness.ts';
import { createSkillTool } from '../../src/tools/resources/skill.ts';
import { layersIn, makeTempDir, skillFile, writeTree } from './temp-tree.ts';

async function loaded(files: Record<string, string>): Promise<{ root: string; skills: Skill[] }> {
  const root = await makeTempDir();
  await writeTree(root, files);
  const { skills, problems } = loadSkills(layersIn(root));
  expect(problems).toEqual([]);
  return { root, skills };
}

const fixture = {
  'home/skills/deploy-app/SKILL.md': skillFile('name: deploy-app\ndescription: Deploy the app\nuser-invocable: true', '\n# Deploy\n\nRun scripts/go.sh with the target.\n'),
  'home/skills/deploy-app/scripts/go.sh': 'echo go\n',
  'home/skills/help/SKILL.md': skillFile('name: help\ndescription: A skill called help\nuser-invocable: true'),
  'home/skills/private/SKILL.md': skillFile('name: private\ndescription: Only for the model'),
  'home/skills/manual/SKILL.md': skillFile('name: manual\ndescription: Only for people\nuser-invocable: true\ndisable-model-invocation: true'),
};

describe('skills as commands', () => {
  it('reads a command name as a skill name: lowercase, no slash, _ as -', () => {
    expect(skillNameOfCommand('deploy_app')).toBe('deploy-app');
    expect(skillNameOfCommand('/Deploy_App')).toBe('deploy-app');
    expect(skillNameOfCommand('deploy-app')).toBe('deploy-app');
  });

  it('finds only user-invocable skills, by either spelling', async () => {
    const { skills } = await loaded(fixture);
    expect(findUserSkill('deploy-app', skills)?.name).toBe('deploy-app');
    expect(findUserSkill('deploy_app', skills)?.name).toBe('deploy-app');
    expect(findUserSkill('DEPLOY_APP', skills)?.name).toBe('deploy-app');
    expect(findUserSkill('manual', skills)?.name).toBe('manual');
    expect(findUserSkill('private', skills)).toBeUndefined();
    expect(findUserSkill('nothing', skills)).toBeUndefined();
  });

  it('leaves out skills a command of the same name hides, and names them', async () => {
    const { skills } = await loaded(fixture);
    expect(skillCommands(skills, ['help', 'status']).map((skill) => skill.name)).toEqual(['deploy-app', 'manual']);
    expect(shadowedSkills(skills, ['help', 'status']).map((skill) => skill.name)).toEqual(['help']);
    // A command spelled the Telegram way hides the skill too.
    expect(shadowedSkills(skills, ['deploy_app']).map((skill) => skill.name)).toEqual(['deploy-app']);
    expect(shadowedNote(skills.find((skill) => skill.name === 'help')!, 'default')).toContain('/help is a built-in command, which wins');
  });

  it('gives the turn a header with the arguments, then the skill as the skill tool returns it', async () => {
    const { root, skills } = await loaded(fixture);
    const skill = findUserSkill('deploy_app', skills)!;
    const tool = await callTool(createSkillTool({ getSkills: () => skills }), { name: 'deploy-app' }, { cwd: root });
    const input = skillInvocationInput(skill, '  staging now ');
    expect(input).toBe(`Run the skill "deploy-app" with: staging now\n\n${tool.content}`);
    expect(input).toContain('Run scripts/go.sh with the target.');
    expect(input).toContain(path.join(root, 'home/skills/deploy-app/scripts/go.sh'));
    expect(skillInvocationInput(skill, '')).toBe(`Run the skill "deploy-app".\n\n${tool.content}`);
  });

  it('runs a skill hidden from the model when a person asks for it', async () => {
    const { skills } = await loaded(fixture);
    const input = skillInvocationInput(findUserSkill('manual', skills)!, 'x');
    expect(input).toMatch(/^Run the skill "manual" with: x\n\n<skill name="manual"/);
  });

  it('says why when SKILL.md can no longer be read', async () => {
    const { root, skills } = await loaded(fixture);
    const skill = findUserSkill('deploy-app', skills)!;
    await rm(path.join(root, 'home/skills/deploy-app/SKILL.md'));
    const input = skillInvocationInput(skill, 'staging');
    expect(input.split('\n\n')[0]).toBe('Run the skill "deploy-app" with: staging');
    expect(input).toContain("The skill's instructions could not be loaded");
    expect(input).toContain(path.join(root, 'home/skills/deploy-app/SKILL.md'));
  });
});
