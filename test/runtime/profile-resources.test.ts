import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.ts';
import { BackgroundReviewer } from '../../src/agent/reviewer.ts';
import { getModelInfo } from '../../src/llm/catalog.ts';
import { createAnthropicProvider } from '../../src/llm/providers/anthropic.ts';
import { ProfileResources } from '../../src/runtime/profile-resources.ts';
import { SessionManager } from '../../src/session/session-manager.ts';
import { createStore } from '../../src/store/unstorage-store.ts';
import { startFakeModelServer } from '../fakes/fake-model-server.ts';
import type { FakeModelServer } from '../fakes/fake-model-server.ts';

let root: string;
let home: string;
let builtin: string;
let cwd: string;

function write(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

const context = (toolNames: string[] = ['skill', 'read_file'], channel?: string) => ({ channel, sessionId: 'sess-1', cwd, date: '2026-11-22', toolNames });

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'operator-resources-'));
  home = join(root, 'home');
  builtin = join(root, 'builtin');
  cwd = join(root, 'project');
  mkdirSync(cwd, { recursive: true });
  write(join(builtin, 'profiles', 'default', 'SOUL.md'), 'BUILTIN DEFAULT SOUL');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

async function load(profile = 'default') {
  return ProfileResources.load({ profile, home, builtin, cwd, env: {} });
}

describe('profile resources', () => {
  it('takes each identity file from the highest layer that has it', async () => {
    expect((await (await load('team')).resources.buildPrompt(context())).startsWith('BUILTIN DEFAULT SOUL')).toBe(true);
    write(join(builtin, 'profiles', 'team', 'SOUL.md'), 'BUILTIN TEAM SOUL');
    expect((await (await load('team')).resources.buildPrompt(context())).startsWith('BUILTIN TEAM SOUL')).toBe(true);
    write(join(home, 'SOUL.md'), 'GLOBAL SOUL');
    expect((await (await load('team')).resources.buildPrompt(context())).startsWith('GLOBAL SOUL')).toBe(true);
    write(join(home, 'profiles', 'team', 'SOUL.md'), 'PERSONAL TEAM SOUL');
    const prompt = await (await load('team')).resources.buildPrompt(context());
    expect(prompt.startsWith('PERSONAL TEAM SOUL')).toBe(true);
    write(join(home, 'SYSTEM.md'), 'CUSTOM SYSTEM PROMPT');
    const custom = await (await load('team')).resources.buildPrompt(context());
    expect(custom.startsWith('CUSTOM SYSTEM PROMPT\n\n')).toBe(true);
    expect(custom).not.toContain('PERSONAL TEAM SOUL');
    expect(custom).toContain(`Profile MEMORY.md: ${join(home, 'profiles', 'team', 'MEMORY.md')}`);
  });

  it('assembles rules, AGENT.md, knowledge, memory, user notes, skills and the platform hint', async () => {
    write(join(cwd, '.operator', 'rules.md'), 'PROJECT RULE');
    write(join(home, 'rules.md'), 'USER RULE');
    write(join(home, 'AGENT.md'), 'AGENT NOTES');
    write(join(home, 'knowledge', 'glossary.md'), '# Glossary\nOKR means objectives and key results.');
    write(join(home, 'profiles', 'default', 'MEMORY.md'), '- The deploy window is Tuesday 10:00.\n');
    write(join(home, 'profiles', 'default', 'USER.md'), '- Ada prefers short answers.\n');
    write(join(home, 'skills', 'deploy', 'SKILL.md'), '---\nname: deploy\ndescription: How to deploy the app\n---\nRun make deploy.\n');
    const { resources, report } = await load();
    expect(report.problems).toEqual([]);
    const prompt = await resources.buildPrompt(context(['skill'], 'telegram:group:-100'));
    const order = ['BUILTIN DEFAULT SOUL', 'PROJECT RULE', 'USER RULE', 'AGENT NOTES', 'OKR means', 'MEMORY [', 'The deploy window', 'USER [', 'Ada prefers', '<available_skills>', 'You are talking on Telegram', 'Current date: 2026-11-22', 'Session ID: sess-1'];
    const positions = order.map((text) => prompt.indexOf(text));
    expect(positions.every((position) => position >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(prompt).toContain('PROJECT RULE\n\n---\n\nUSER RULE');
    expect(prompt).toMatch(/MEMORY \[\d+% - 35\/2,200 chars\]/);
    // Without a way to load skills the skills layer is left out.
    expect(await resources.buildPrompt(context(['shell']))).not.toContain('<available_skills>');
  });

  it('reports every broken file and keeps what loaded; reload says what changed', async () => {
    write(join(home, 'skills', 'good', 'SKILL.md'), '---\nname: good\ndescription: fine\n---\nbody\n');
    const { resources, report } = await load();
    expect(report.loaded.skills).toBe(1);
    write(join(home, 'skills', 'broken', 'SKILL.md'), '---\nname: [unclosed\ndescription: x\n---\n');
    write(join(home, 'skills', 'new-one', 'SKILL.md'), '---\nname: new-one\ndescription: added later\n---\nbody\n');
    write(join(home, 'guardrails', 'bad.yaml'), 'rules:\n  - tool: shell\n    decision: explode\n');
    write(join(cwd, '.operator', 'guardrails', 'workspace-confinement.yaml'), 'rules: []\n');
    write(join(home, 'extensions', 'oops.mjs'), 'export default 1;\n');
    const reloaded = await resources.reload();
    expect(reloaded.changed).toContain('skills: +new-one');
    const files = reloaded.problems.map((problem) => problem.file);
    expect(files).toContain(join(home, 'skills', 'broken', 'SKILL.md'));
    expect(files).toContain(join(home, 'guardrails', 'bad.yaml'));
    expect(files).toContain(join(home, 'extensions', 'oops.mjs'));
    expect(reloaded.problems.find((problem) => problem.file.endsWith('workspace-confinement.yaml'))?.message).toMatch(/built-in/);
    // The built-in confinement still stands.
    expect(resources.guardrails().map((guardrail) => guardrail.name)).toContain('workspace-confinement');
    expect(resources.skills.map((skill) => skill.name)).toEqual(['good', 'new-one']);
  });
});

describe('profile resources in an agent', () => {
  let server: FakeModelServer;
  beforeEach(async () => {
    server = await startFakeModelServer({ promptCache: true });
  });
  afterEach(async () => {
    await server.close();
  });

  function agentFor(resources: ProfileResources) {
    return new Agent({
      provider: createAnthropicProvider({ apiKey: 'sk-test', baseURL: server.anthropicBaseURL }),
      model: 'claude-sonnet-4-6',
      modelInfo: getModelInfo('claude-sonnet-4-6'),
      sessions: new SessionManager(createStore({ driver: 'memory' })),
      sessionKey: 'telegram:dm:42',
      resources,
      cwd,
    });
  }

  it('keeps the prompt byte-identical across turns until reload, then picks up changes', async () => {
    const { resources } = await load();
    const agent = agentFor(resources);
    await agent.invoke('one', { channel: 'telegram:dm:42' });
    write(join(home, 'SOUL.md'), 'EDITED SOUL');
    write(join(home, 'rules.md'), 'EDITED RULE');
    await agent.invoke('two', { channel: 'telegram:dm:42' });
    const [first, second] = server.requests;
    expect(JSON.stringify(second!.body.system)).toBe(JSON.stringify(first!.body.system));
    expect(JSON.stringify(second!.body.tools)).toBe(JSON.stringify(first!.body.tools));
    const report = (await agent.reload()) as { changed: string[] };
    expect(report.changed).toEqual(['files: +rules, ~SOUL.md']);
    await agent.invoke('three', { channel: 'telegram:dm:42' });
    expect(JSON.stringify(server.requests[2]!.body.system)).toContain('EDITED SOUL');
    // The append layer is made once per load: the reload's new rules are in, not the first load's.
    expect(JSON.stringify(server.requests[2]!.body.system)).toContain('EDITED RULE');
    expect(JSON.stringify(second!.body.system)).not.toContain('EDITED RULE');
    const toolNames = (first!.body.tools as { name: string }[]).map((tool) => tool.name);
    expect(toolNames).toEqual(['skill', 'skill_manage', 'knowledge_search', 'memory']);
  });

  it('a review saves memory with the real memory tool; the next prompt carries it', async () => {
    const { resources } = await load();
    const agent = agentFor(resources);
    const reviewer = new BackgroundReviewer(agent, { everyTurns: 1 });
    agent.setReviewer(reviewer);
    server.enqueue(
      { text: 'Noted.' },
      { toolCalls: [{ name: 'memory', arguments: { action: 'add', target: 'memory', content: 'Releases go out on Fridays.' } }] },
      { text: 'saved one fact' },
    );
    await agent.invoke('We release on Fridays.', { channel: 'telegram:dm:42' });
    expect((await reviewer.running)?.status).toBe('done');
    expect(readFileSync(join(home, 'profiles', 'default', 'MEMORY.md'), 'utf8')).toContain('Releases go out on Fridays.');
    agent.setReviewer(undefined);
    await agent.invoke('When do we release?', { channel: 'telegram:dm:42' });
    expect(JSON.stringify(server.requests.at(-1)!.body.system)).toContain('Releases go out on Fridays.');
  });
});
