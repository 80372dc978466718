import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadGuardrailFiles } from '../../src/guardrails/index.ts';
import type { FileGuardrail } from '../../src/guardrails/index.ts';
import { makeTempDir } from '../tools/tool-harness.ts';
import { after, before, toolCall, writeFiles } from './helpers.ts';

async function loadOne(text: string, fileName = 'policy.yaml'): Promise<FileGuardrail> {
  const folder = await writeFiles(path.join(await makeTempDir(), 'guardrails'), { [fileName]: text });
  const { guardrails, problems } = loadGuardrailFiles([{ path: folder, source: 'home' }]);
  expect(problems).toEqual([]);
  expect(guardrails).toHaveLength(1);
  return guardrails[0]!;
}

describe('rule guardrails from files', () => {
  it('gives every decision type, in the right phase', async () => {
    const guardrail = await loadOne(`
rules:
  - { tool: deploy, decision: halt, reason: deploys stop everything }
  - { tool: shell, arguments: { command: '^sudo ' }, decision: block, reason: no sudo }
  - { tool: shell, arguments: { command: 'git push' }, decision: ask, reason: pushing needs a yes }
  - { tool: shell, arguments: { command: 'rm ' }, decision: warn, reason: check what was removed }
  - { tool: shell, arguments: { command: 'drop table' }, decision: halt, phase: after, reason: a table was dropped }
`);
    expect(guardrail.name).toBe('policy');
    expect(await before(guardrail, toolCall('deploy'))).toEqual({ action: 'halt', reason: 'deploys stop everything' });
    expect(await before(guardrail, toolCall('shell', { command: 'sudo ls' }))).toEqual({ action: 'block', reason: 'no sudo' });
    expect(await before(guardrail, toolCall('shell', { command: 'git push origin' }))).toEqual({ action: 'ask', reason: 'pushing needs a yes' });
    // warn and after-phase halt never decide before the call ...
    expect(await before(guardrail, toolCall('shell', { command: 'rm -r build' }))).toEqual({ action: 'allow' });
    expect(await before(guardrail, toolCall('shell', { command: 'psql -c "drop table x"' }))).toEqual({ action: 'allow' });
    // ... but after it.
    expect(await after(guardrail, toolCall('shell', { command: 'rm -r build' }))).toEqual({ action: 'warn', reason: 'check what was removed' });
    expect(await after(guardrail, toolCall('shell', { command: 'psql -c "drop table x"' }))).toEqual({ action: 'halt', reason: 'a table was dropped' });
    expect(await after(guardrail, toolCall('shell', { command: 'ls' }))).toEqual({ action: 'allow' });
  });

  it('lets an earlier allow rule make an exception to a later block', async () => {
    const guardrail = await loadOne(`
rules:
  - { tool: shell, arguments: { command: '^git status$' }, decision: allow }
  - { tool: shell, decision: block, reason: no shell here }
`);
    expect(await before(guardrail, toolCall('shell', { command: 'git status' }))).toEqual({ action: 'allow' });
    expect(await before(guardrail, toolCall('shell', { command: 'git status --short' }))).toEqual({ action: 'block', reason: 'no shell here' });
  });

  it('matches tool names by glob', async () => {
    const guardrail = await loadOne(`
rules:
  - { tool: "*_file", decision: block, reason: files }
  - { tool: "{grep,glob}", decision: block, reason: search }
  - { tool: "mcp__*", decision: ask, reason: remote }
`);
    for (const name of ['read_file', 'write_file', 'edit_file']) expect((await before(guardrail, toolCall(name))).action).toBe('block');
    expect(await before(guardrail, toolCall('glob'))).toEqual({ action: 'block', reason: 'search' });
    expect((await before(guardrail, toolCall('mcp__github__create_issue'))).action).toBe('ask');
    for (const name of ['file', 'shell', 'list_dir', 'read_file_x']) expect(await before(guardrail, toolCall(name))).toEqual({ action: 'allow' });
  });

  it('matches argument regexes on the string form of each argument, all of them', async () => {
    const guardrail = await loadOne(`
rules:
  - tool: http
    arguments: { method: '^(POST|PUT)$', url: 'prod\\.example\\.com' }
    decision: block
    reason: no writes to prod
  - tool: http
    arguments: { headers: '"x-debug":true' }
    decision: block
    reason: no debug header
`);
    expect((await before(guardrail, toolCall('http', { method: 'POST', url: 'https://prod.example.com/a' }))).action).toBe('block');
    expect((await before(guardrail, toolCall('http', { method: 'GET', url: 'https://prod.example.com/a' }))).action).toBe('allow');
    expect((await before(guardrail, toolCall('http', { method: 'POST', url: 'https://staging.example.com' }))).action).toBe('allow');
    expect((await before(guardrail, toolCall('http', { url: 'https://prod.example.com' }))).action).toBe('allow');
    // Non-string arguments are matched as canonical JSON (sorted keys).
    expect(await before(guardrail, toolCall('http', { headers: { 'x-debug': true, accept: '*/*' } }))).toEqual({ action: 'block', reason: 'no debug header' });
  });

  it('matches `match` against the canonical JSON of all arguments', async () => {
    const guardrail = await loadOne(JSON.stringify({ rules: [{ tool: '*', match: '^\\{"a":1,"b":"/etc/', decision: 'block', reason: 'etc' }] }), 'etc.json');
    expect(guardrail.name).toBe('etc');
    expect((await before(guardrail, toolCall('anything', { b: '/etc/passwd', a: 1 }))).action).toBe('block');
    expect((await before(guardrail, toolCall('anything', { b: '/home/me', a: 1 }))).action).toBe('allow');
  });

  it('counts maxCallsPerTurn per rule and starts over each turn', async () => {
    const guardrail = await loadOne(`
rules:
  - { tool: web_fetch, decision: block, reason: enough fetching, maxCallsPerTurn: 2 }
  - { tool: shell, decision: warn, reason: lots of shell, maxCallsPerTurn: 1 }
`);
    const fetches = async () => Promise.all([1, 2, 3, 4].map(async (n) => (await before(guardrail, toolCall('web_fetch', { url: `u${n}` }))).action));
    expect(await fetches()).toEqual(['allow', 'allow', 'block', 'block']);
    expect(await before(guardrail, toolCall('web_fetch'))).toEqual({ action: 'block', reason: 'enough fetching (5 matching calls this turn, at most 2)' });
    expect(await after(guardrail, toolCall('shell'))).toEqual({ action: 'allow' });
    expect((await after(guardrail, toolCall('shell'))).action).toBe('warn');
    guardrail.onTurnStart!();
    expect(await fetches()).toEqual(['allow', 'allow', 'block', 'block']);
    expect(await after(guardrail, toolCall('shell'))).toEqual({ action: 'allow' });
  });

  it('treats maxCallsPerTurn: 0 as "never"', async () => {
    const guardrail = await loadOne('rules:\n  - { tool: shell, decision: block, reason: no shell, maxCallsPerTurn: 0 }\n');
    expect((await before(guardrail, toolCall('shell'))).action).toBe('block');
  });

  it('loads the example of src/guardrails/README.md (fixture)', async () => {
    const { guardrails, problems } = loadGuardrailFiles([{ path: path.resolve('test/fixtures/guardrails/mixed'), source: 'home' }]);
    const policy = guardrails.find((guardrail) => guardrail.name === 'shell-policy')!;
    expect(problems.some((problem) => problem.file.endsWith('shell-policy.yaml'))).toBe(false);
    expect(policy.description).toBe('Keep the shell polite');
    expect(policy.rules).toHaveLength(5);
    expect(await before(policy, toolCall('shell', { command: 'git push --force origin main' }))).toEqual({ action: 'ask', reason: "force-pushing needs a person's yes" });
    expect(await before(policy, toolCall('read_file', { path: '/etc/passwd' }))).toEqual({ action: 'block', reason: 'no system files' });
    expect(await before(policy, toolCall('shell', { command: 'git status /etc/' }))).toEqual({ action: 'allow' });
  });
});
