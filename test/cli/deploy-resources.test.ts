/**
 * `operator deploy resources --out FILE`, run for real: each profile's resources as the gateway
 * loads them (built-in ones overridden and extended by OPERATOR_HOME) in `wrangler kv bulk put`'s
 * format, broken files and files carrying a secret reported with file and line and left out.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { BundleIndex, ResourceBundle } from '../../src/cli/deploy/resource-bundle-format.ts';
import { runOperator } from '../helpers/operator-process.ts';
import { createTempHome, removeTempHome } from '../helpers/temp-home.ts';

let home: string | undefined;
afterEach(() => {
  removeTempHome(home);
  home = undefined;
});

function makeHome(files: Record<string, string>): string {
  home = createTempHome('operator-deploy-');
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(home, path)), { recursive: true });
    writeFileSync(join(home, path), text);
  }
  return home;
}

const skill = (name: string, description: string, body = `# ${name}\n\nDo it.`): string => `---\nname: ${name}\ndescription: ${description}\n---\n${body}\n`;

/** Runs the deploy into a file and reads the file back, each value parsed. */
async function deploy(folder: string, args: string[] = [], env: Record<string, string> = {}) {
  const out = join(folder, 'resources.json');
  const run = await runOperator(['deploy', 'resources', '--out', out, ...args], { HOME: folder, OPERATOR_HOME: folder, ...env });
  expect(run.code, run.stderr).toBe(0);
  const text = readFileSync(out, 'utf8');
  const pairs = JSON.parse(text) as unknown[];
  for (const pair of pairs) expect(pair).toEqual({ key: expect.any(String), value: expect.any(String) });
  const values = new Map((pairs as { key: string; value: string }[]).map((pair) => [pair.key, JSON.parse(pair.value) as unknown]));
  return { run, text, keys: [...values.keys()], bundle: (profile: string) => values.get(`profile:${profile}`) as ResourceBundle, index: values.get('profiles') as BundleIndex };
}

describe('operator deploy resources', () => {
  it("bundles each profile's resources as the gateway loads them, OPERATOR_HOME over the built-in ones", async () => {
    const folder = makeHome({
      'SOUL.md': 'You are Quill, the team assistant.\n',
      'rules.md': 'Answer in English.\n',
      'skills/summarize/SKILL.md': skill('summarize', 'Summarize the way this team likes it'),
      'skills/deploy-app/SKILL.md': skill('deploy-app', 'Deploy the app', '# Deploy\n\nRun the pipeline.'),
      'skills/deploy-app/references/checklist.md': 'Check the canary first.\n',
      'knowledge/runbook.md': '# Runbook\n\nRoll back with the previous tag.\n',
      'profiles/default/MEMORY.md': '- Releases go out on Tuesdays.\n',
      'profiles/ops/SOUL.md': 'You are the on-call helper.\n',
    });
    const { run, keys, bundle, index } = await deploy(folder);

    expect(keys).toEqual(['profile:default', 'profile:ops', 'profiles']);
    expect(index).toEqual({ format: 1, stamp: expect.stringMatching(/^[0-9a-f]{16}$/), deployedAt: expect.any(String), profiles: ['default', 'ops'] });
    const main = bundle('default');
    expect(main.identity.soul).toEqual({ label: 'SOUL.md', text: 'You are Quill, the team assistant.\n' });
    expect(main.rules).toEqual({ text: 'Answer in English.', files: ['OPERATOR_HOME/rules.md'] });
    const skills = new Map(main.skills.map((entry) => [entry.name, entry]));
    // OPERATOR_HOME's summarize replaces the built-in one; the other built-ins stay.
    expect(skills.get('summarize')).toMatchObject({ description: 'Summarize the way this team likes it', source: 'home', location: 'skills/summarize/SKILL.md' });
    expect(skills.get('plan')).toMatchObject({ source: 'builtin' });
    expect(skills.get('deploy-app')!.text).toContain('<skill name="deploy-app" directory="skills/deploy-app">');
    expect(skills.get('deploy-app')!.text).toContain('<reference file="references/checklist.md"');
    expect(skills.get('deploy-app')!.text).toContain('Check the canary first.');
    expect(main.knowledge.map((document) => document.name)).toEqual(expect.arrayContaining(['runbook.md', 'operator-commands.md']));
    // Injected as on Node: the team's knowledge, never the built-in documents.
    expect(main.knowledgeInjection).toContain('<knowledge file="runbook.md">');
    expect(main.knowledgeInjection).not.toContain('operator-commands.md');
    expect(main.memorySeed).toEqual({ memory: '- Releases go out on Tuesdays.\n' });
    expect(main.problems).toEqual([]);
    expect(JSON.stringify(main)).not.toContain(folder);

    expect(bundle('ops').identity.soul?.text).toBe('You are the on-call helper.\n');
    expect(bundle('ops').memorySeed).toEqual({});
    expect(run.stdout).toMatch(/^Profile default: SOUL\.md, 6 skills, 3 knowledge documents, rules \(1 file\), memory to start from: MEMORY\.md - [\d.]+ KiB$/m);
    expect(run.stdout).toMatch(/^Profile ops: SOUL\.md, 6 skills, 3 knowledge documents, rules \(1 file\) - [\d.]+ KiB$/m);
    expect(run.stdout).toContain('Wrote 3 entries');
    expect(run.stderr).toBe('');
  });

  it('reports a broken skill with its file and line, and leaves it out', async () => {
    const folder = makeHome({
      'skills/broken/SKILL.md': '---\nname: broken\ndescription: [unclosed\n---\nBody\n',
      'skills/fine/SKILL.md': skill('fine', 'A skill that loads'),
    });
    const { run, bundle } = await deploy(folder, ['--profile', 'default']);
    const names = bundle('default').skills.map((entry) => entry.name);
    expect(names).toContain('fine');
    expect(names).not.toContain('broken');
    expect(run.stderr).toMatch(new RegExp(`^1 problem \\(files left out of the upload, or cut\\):\\n  ${join(folder, 'skills/broken/SKILL.md')}:\\d+: invalid YAML frontmatter`, 'm'));
    // The Worker's reload report shows it too, by a label rather than this machine's path.
    expect(bundle('default').problems).toEqual([{ file: 'OPERATOR_HOME/skills/broken/SKILL.md', line: expect.any(Number), message: expect.stringContaining('invalid YAML frontmatter') }]);
  });

  it("refuses files that carry this environment's secrets or credentials, and says so", async () => {
    const token = 'tok-4f9a8b7c6d5e4f3a2b1c';
    const folder = makeHome({
      'knowledge/leaky.md': `# Access\n\nThe deploy token:\n${token}\n`,
      'knowledge/fine.md': '# Fine\n\nNothing secret here.\n',
      'skills/release/SKILL.md': skill('release', 'Release the app'),
      'skills/release/references/auth.md': 'Use ghp_abcdefghijklmnopqrstuvwxyz0123456789 to push.\n',
      'SOUL.md': `You are Quill. Our key is ${token}.\n`,
    });
    const { run, text, bundle } = await deploy(folder, [], { ACME_DEPLOY_TOKEN: token });
    expect(text).not.toContain(token);
    expect(text).not.toContain('ghp_abcdefghijklmnopqrstuvwxyz0123456789');
    const main = bundle('default');
    expect(main.knowledge.map((document) => document.name)).toContain('fine.md');
    expect(main.knowledge.map((document) => document.name)).not.toContain('leaky.md');
    expect(main.skills.map((entry) => entry.name)).not.toContain('release');
    // The refused SOUL.md does not hide the built-in one below it, as a broken file would not.
    expect(main.identity.soul?.text).toContain('You are operator');
    expect(run.stderr).toContain(`${join(folder, 'knowledge/leaky.md')}:4: not uploaded: it looks like it carries a secret (the value of ACME_DEPLOY_TOKEN)`);
    expect(run.stderr).toContain(`${join(folder, 'skills/release/references/auth.md')}:1: not uploaded: it looks like it carries a secret (a credential (GitHub token))`);
    expect(run.stderr).toContain(`${join(folder, 'SOUL.md')}:1: not uploaded`);
    expect(run.stderr).not.toContain(token);
  });

  it('takes --profile, and refuses bad arguments with the usage', async () => {
    const folder = makeHome({ 'profiles/ops/SOUL.md': 'On call.\n' });
    expect((await deploy(folder, ['--profile', 'ops'])).keys).toEqual(['profile:ops', 'profiles']);
    const env = { HOME: folder, OPERATOR_HOME: folder };
    for (const args of [['deploy'], ['deploy', 'everything'], ['deploy', 'resources', '--out', 'x.json', '--local'], ['deploy', 'resources', '--bogus']]) {
      const run = await runOperator(args, env);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr).toContain('Usage: operator deploy resources');
    }
    const missing = await runOperator(['deploy', 'resources', '--profile', 'nobody', '--out', join(folder, 'x.json')], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('Profile "nobody" not found');
    const help = await runOperator(['--help'], env);
    expect(help.stdout).toMatch(/^ {2}deploy +Upload the profiles' resources/m);
    expect((await runOperator(['deploy', '--help'], env)).stdout).toContain('Who may deploy: whoever runs this on a machine with the Cloudflare credentials');
  });
});
