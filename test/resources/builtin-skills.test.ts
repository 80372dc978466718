/**
 * The skills and knowledge that ship in the repository's `skills/` and `knowledge/` folders, loaded
 * by the real loaders from the real folders: every one is valid, documented, listed in the system
 * prompt, loadable through the `skill` tool in an agent turn, and found by `knowledge_search`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.ts';
import { getModelInfo } from '../../src/llm/catalog.ts';
import { createAnthropicProvider } from '../../src/llm/providers/anthropic.ts';
import { loadKnowledge, selectKnowledgeForInjection } from '../../src/resources/knowledge.ts';
import { builtinRoot } from '../../src/resources/layers.ts';
import type { ResourceLayers } from '../../src/resources/layers.ts';
import { parseSkillFile } from '../../src/resources/skill-metadata.ts';
import { loadSkills } from '../../src/resources/skills.ts';
import { ProfileResources } from '../../src/runtime/profile-resources.ts';
import { SessionManager } from '../../src/session/session-manager.ts';
import { createStore } from '../../src/store/unstorage-store.ts';
import { startFakeModelServer } from '../fakes/fake-model-server.ts';
import type { FakeModelServer } from '../fakes/fake-model-server.ts';
import { makeTempDir } from '../helpers/temp-dir.ts';
import { callTool, textOf } from '../tools/tool-harness.ts';

const skillsFolder = join(builtinRoot, 'skills');
const knowledgeFolder = join(builtinRoot, 'knowledge');

/** The folders of `skills/` (what ships), read apart from the loader. */
const skillFolders = readdirSync(skillsFolder, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
  .map((entry) => entry.name)
  .sort();

/** The knowledge documents of `knowledge/` (README.md explains the folder and is none). */
const knowledgeFiles = readdirSync(knowledgeFolder)
  .filter((name) => name.endsWith('.md') && name.toLowerCase() !== 'readme.md')
  .sort();

/** Layers with an empty OPERATOR_HOME: only the shipped resources. */
async function shippedLayers(): Promise<ResourceLayers> {
  return { profile: 'default', home: await makeTempDir('operator-builtin-home-'), builtin: builtinRoot };
}

/** The shipped resources of the default profile, as a conversation gets them. */
async function shippedResources(): Promise<{ resources: ProfileResources; cwd: string }> {
  const home = await makeTempDir('operator-builtin-home-');
  const cwd = await makeTempDir('operator-builtin-cwd-');
  const { resources, report } = await ProfileResources.load({ profile: 'default', home, cwd, env: {} });
  expect(report.problems).toEqual([]);
  return { resources, cwd };
}

/** The instructions of a SKILL.md: its text after the frontmatter. */
function instructionsOf(name: string): string {
  const parsed = parseSkillFile(readFileSync(join(skillsFolder, name, 'SKILL.md'), 'utf8'), name);
  if ('reason' in parsed) throw new Error(`${name}: ${parsed.reason}`);
  return parsed.body.trim();
}

/** The backticked names in the first column of a README's table. */
function tableNames(readme: string): string[] {
  return [...readme.matchAll(/^\| `([^`]+)` \|/gm)].map((match) => match[1]!).sort();
}

describe('built-in skills', () => {
  it('ship at least the day-one set, and every one loads with no problem', async () => {
    expect(skillFolders).toEqual(expect.arrayContaining(['plan', 'research', 'review', 'standup', 'summarize']));
    const { skills, problems } = loadSkills(await shippedLayers());
    expect(problems).toEqual([]);
    expect(skills.map((skill) => skill.name)).toEqual(skillFolders);
    for (const skill of skills) {
      expect(skill.source).toBe('builtin');
      expect(skill.location).toBe(join(skillsFolder, skill.name, 'SKILL.md'));
      expect(skill.disableModelInvocation).toBe(false);
      expect(instructionsOf(skill.name).length).toBeGreaterThan(0);
    }
  });

  it('keep descriptions to one short line, and /name-able ones fit the chat platforms', async () => {
    const { skills } = loadSkills(await shippedLayers());
    for (const skill of skills) {
      expect(skill.description, skill.name).not.toMatch(/\n/);
      expect(skill.description.length, skill.name).toBeLessThanOrEqual(120);
      if (!skill.userInvocable) continue;
      // Telegram commands are [a-z0-9_]{1,32}, skill names [a-z0-9-]: only hyphen-free names are both.
      expect(skill.name, skill.name).toMatch(/^[a-z0-9]{1,32}$/);
      // Discord slash-command descriptions are 1-100 characters.
      expect(skill.description.length, skill.name).toBeLessThanOrEqual(100);
    }
    const invocable = skills.filter((skill) => skill.userInvocable).map((skill) => skill.name);
    expect(invocable).toEqual(expect.arrayContaining(['plan', 'research', 'review', 'standup', 'summarize']));
  });

  it('are the ones skills/README.md and docs/profiles-and-resources.md list', () => {
    expect(tableNames(readFileSync(join(skillsFolder, 'README.md'), 'utf8'))).toEqual(skillFolders);
    const doc = readFileSync(join(builtinRoot, 'docs', 'profiles-and-resources.md'), 'utf8');
    const start = doc.indexOf('\n## Built-in skills and knowledge\n');
    expect(start).toBeGreaterThan(-1);
    const end = doc.indexOf('\n## ', start + 1);
    const section = doc.slice(start, end === -1 ? undefined : end);
    expect(tableNames(section)).toEqual(skillFolders);
    for (const file of knowledgeFiles) expect(section, file).toContain(`\`${file}\``);
  });

  it('are listed in the system prompt with name, description and location', async () => {
    const { resources, cwd } = await shippedResources();
    const prompt = await resources.buildPrompt({ channel: 'telegram:dm:42', sessionId: 'sess-1', cwd, date: '2026-11-22', toolNames: ['skill'] });
    const block = prompt.slice(prompt.indexOf('<available_skills>'), prompt.indexOf('</available_skills>'));
    expect(block).not.toBe('');
    for (const skill of resources.skills) {
      expect(block).toContain(
        `<name>${skill.name}</name>\n    <description>${skill.description}</description>\n    <location>${skill.location}</location>`,
      );
    }
    expect([...block.matchAll(/<name>([^<]+)<\/name>/g)].map((match) => match[1])).toEqual(skillFolders);
  });
});

describe('built-in skills in an agent turn', () => {
  let server: FakeModelServer;
  beforeEach(async () => {
    server = await startFakeModelServer();
  });
  afterEach(async () => {
    await server.close();
  });

  it.each(skillFolders)('the model loads %s with the skill tool and gets its instructions', async (name) => {
    const { resources, cwd } = await shippedResources();
    const agent = new Agent({
      provider: createAnthropicProvider({ apiKey: 'sk-test', baseURL: server.anthropicBaseURL }),
      model: 'claude-sonnet-4-6',
      modelInfo: getModelInfo('claude-sonnet-4-6'),
      sessions: new SessionManager(createStore({ driver: 'memory' })),
      sessionKey: 'telegram:dm:42',
      resources,
      cwd,
    });
    server.enqueue({ toolCalls: [{ id: 'toolu_skill', name: 'skill', arguments: { name } }] }, { text: 'Following the skill.' });
    const result = await agent.invoke(`/${name} the release`, { channel: 'telegram:dm:42' });
    expect(result.text).toBe('Following the skill.');

    const [first, second] = server.requests;
    const system = (first!.body.system as { text: string }[]).map((part) => part.text).join('');
    expect(system).toContain(`<name>${name}</name>`);
    expect((first!.body.tools as { name: string }[]).map((tool) => tool.name)).toContain('skill');

    const results = (second!.body.messages.at(-1).content as { type: string; tool_use_id: string; is_error?: boolean; content: unknown }[]).filter(
      (block) => block.type === 'tool_result',
    );
    expect(results).toHaveLength(1);
    expect(results[0]!.tool_use_id).toBe('toolu_skill');
    expect(results[0]!.is_error ?? false).toBe(false);
    const content = results[0]!.content;
    const text = typeof content === 'string' ? content : (content as { type: string; text?: string }[]).map((part) => part.text ?? '').join('');
    expect(text).toContain(`<skill name="${name}" directory="${join(skillsFolder, name)}">`);
    expect(text).toContain(instructionsOf(name));
  });
});

describe('built-in knowledge', () => {
  it('loads every document with no problem, and the README lists them', async () => {
    expect(knowledgeFiles).toEqual(expect.arrayContaining(['operator-commands.md', 'writing-for-chat.md']));
    const { documents, problems } = loadKnowledge(await shippedLayers());
    expect(problems).toEqual([]);
    expect(documents.map((document) => [document.name, document.source])).toEqual(knowledgeFiles.map((name) => [name, 'builtin']));
    expect(tableNames(readFileSync(join(knowledgeFolder, 'README.md'), 'utf8'))).toEqual(knowledgeFiles);
  });

  it('costs no prompt: shipped documents are searchable, never injected, and leave the budget to the team\'s own', async () => {
    const { documents } = loadKnowledge(await shippedLayers());
    const injection = selectKnowledgeForInjection(documents);
    expect(injection.text).toBe('');
    const own = { name: 'runbook.md', path: '/home/knowledge/runbook.md', title: 'Runbook', text: 'Restart the worker first.', source: 'home' as const };
    expect(selectKnowledgeForInjection([...documents, own]).injected).toEqual(['runbook.md']);
  });

  it.each([
    ['undo file change', 'operator-commands.md'],
    ['who may reload', 'operator-commands.md'],
    ['telegram message length', 'writing-for-chat.md'],
    ['discord mention', 'writing-for-chat.md'],
  ])('knowledge_search for "%s" finds %s first', async (query, file) => {
    const { resources, cwd } = await shippedResources();
    const search = resources.tools().find((tool) => tool.name === 'knowledge_search')!;
    const answer = textOf(await callTool(search, { query }, { cwd }));
    expect(answer).toMatch(new RegExp(`^1\\. ${file.replace('.', '\\.')}`));
    expect(answer).toContain(join(knowledgeFolder, file));
  });
});
