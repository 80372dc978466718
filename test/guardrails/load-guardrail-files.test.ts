import { chmod, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { guardrailFolders, loadGuardrailFiles } from '../../src/guardrails/index.ts';
import { makeTempDir } from '../tools/tool-harness.ts';
import { before, toolCall, writeFiles } from './helpers.ts';

const fixtures = path.resolve('test/fixtures/guardrails/mixed');
const blockShell = (reason: string) => `rules:\n  - { tool: shell, decision: block, reason: ${reason} }\n`;

describe('loadGuardrailFiles', () => {
  it('reports every bad file with its line and still loads the good ones', () => {
    const { guardrails, problems } = loadGuardrailFiles([{ path: fixtures, source: 'home' }]);
    expect(guardrails.map((guardrail) => [guardrail.name, guardrail.source])).toEqual([
      ['file-tools', 'home'],
      ['shell-policy', 'home'],
    ]);
    const reported = problems.map((problem) => ({ ...problem, file: path.relative(fixtures, problem.file) }));
    expect(reported).toEqual([
      { file: 'bad-json.json', line: 3, message: expect.stringMatching(/^invalid JSON: Expected double-quoted property name/) },
      { file: 'bad-regex.yaml', line: 6, message: 'rules[0].arguments.path: Invalid regular expression: /(secrets/: Unterminated group' },
      { file: 'bad-yaml.yaml', line: 4, message: 'invalid YAML: Sequence item without - indicator' },
      { file: 'empty.yaml', line: 1, message: 'the file is empty; it needs a `rules:` list' },
      { file: 'missing-tool.json', line: 3, message: 'rules[0].tool: required: a tool name or a glob such as "*_file"' },
      { file: 'unknown-decision.yml', line: 4, message: 'rules[0].decision: unknown decision "deny": use one of block, halt, ask, warn, allow' },
      { file: 'unknown-key.yaml', line: 5, message: 'rules[0]: Unrecognized key: "maxCallsPerturn"' },
      { file: 'unquoted-glob.yaml', line: 2, message: 'invalid YAML: "*_file" is read as an alias; quote globs that start with *, e.g. tool: "*_file"' },
      { file: 'wrong-types.yaml', line: 5, message: 'rules[0].maxCallsPerTurn: Invalid input: expected number, received string' },
      { file: 'wrong-types.yaml', line: 8, message: 'rules[1].phase: warn applies after a call: use phase "after" or leave phase out' },
    ]);
  });

  it('reports block/ask in the after phase, a missing reason and a wrong top level', async () => {
    const folder = await writeFiles(path.join(await makeTempDir(), 'g'), {
      'phases.yaml': 'rules:\n  - { tool: a, decision: block, phase: after, reason: r }\n  - { tool: b, decision: ask }\n',
      'list.json': '[{"tool": "a"}]',
      'no-rules.yml': 'description: forgot the rules\n',
    });
    const { guardrails, problems } = loadGuardrailFiles([{ path: folder, source: 'home' }]);
    expect(guardrails).toEqual([]);
    expect(problems.map((problem) => [path.basename(problem.file), problem.line, problem.message])).toEqual([
      ['list.json', 1, 'Invalid input: expected object, received array'],
      ['no-rules.yml', 1, 'rules: Invalid input: expected array, received undefined'],
      ['phases.yaml', 2, 'rules[0].phase: block can only apply before a call: use phase "before" or leave phase out'],
      ['phases.yaml', 3, 'rules[1].reason: a ask rule needs a reason (the model and the person read it)'],
    ]);
  });

  it('lets a higher folder replace a lower file of the same name, and keeps the others', async () => {
    const root = await makeTempDir();
    const profile = await writeFiles(path.join(root, 'profile'), { 'shell.yaml': blockShell('profile says no'), 'only-profile.yml': blockShell('p') });
    const home = await writeFiles(path.join(root, 'home'), { 'shell.json': JSON.stringify({ rules: [] }), 'only-home.yaml': blockShell('h') });
    const { guardrails, problems } = loadGuardrailFiles([
      { path: profile, source: 'profile' },
      { path: home, source: 'home' },
      { path: path.join(root, 'missing'), source: 'builtin' },
    ]);
    expect(problems).toEqual([]);
    expect(guardrails.map((guardrail) => [guardrail.name, guardrail.source, path.basename(guardrail.file)])).toEqual([
      ['only-profile', 'profile', 'only-profile.yml'],
      ['shell', 'profile', 'shell.yaml'],
      ['only-home', 'home', 'only-home.yaml'],
    ]);
    expect(await before(guardrails[1]!, toolCall('shell'))).toEqual({ action: 'block', reason: 'profile says no' });
  });

  it('lets an empty rule list switch a lower guardrail off', async () => {
    const root = await makeTempDir();
    const home = await writeFiles(path.join(root, 'home'), { 'shell.yaml': 'rules: []\n' });
    const builtin = await writeFiles(path.join(root, 'builtin'), { 'shell.yaml': blockShell('shipped') });
    const { guardrails } = loadGuardrailFiles([{ path: home, source: 'home' }, { path: builtin, source: 'builtin' }]);
    expect(guardrails.map((guardrail) => guardrail.source)).toEqual(['home']);
    expect(await before(guardrails[0]!, toolCall('shell'))).toEqual({ action: 'allow' });
  });

  it('falls back to the lower file when the higher one is broken, and says so', async () => {
    const root = await makeTempDir();
    const profile = await writeFiles(path.join(root, 'profile'), { 'shell.yaml': 'rules:\n  - { tool: shell, decision: nope, reason: x }\n' });
    const home = await writeFiles(path.join(root, 'home'), { 'shell.yaml': blockShell('home says no') });
    const { guardrails, problems } = loadGuardrailFiles([{ path: profile, source: 'profile' }, { path: home, source: 'home' }]);
    expect(problems).toEqual([{ file: path.join(profile, 'shell.yaml'), line: 2, message: 'rules[0].decision: unknown decision "nope": use one of block, halt, ask, warn, allow' }]);
    expect(guardrails.map((guardrail) => guardrail.file)).toEqual([path.join(home, 'shell.yaml')]);
  });

  it('within one folder prefers .yaml over .yml over .json and reports the others', async () => {
    const folder = await writeFiles(path.join(await makeTempDir(), 'g'), {
      'shell.json': JSON.stringify({ rules: [] }),
      'shell.yml': 'rules: []\n',
      'shell.yaml': blockShell('yaml'),
      'notes.txt': 'not a guardrail',
      '.hidden.yaml': 'rules: [oops',
    });
    const { guardrails, problems } = loadGuardrailFiles([{ path: folder, source: 'home' }]);
    expect(guardrails.map((guardrail) => path.basename(guardrail.file))).toEqual(['shell.yaml']);
    expect(problems).toEqual([
      { file: path.join(folder, 'shell.yml'), message: 'ignored: shell.yaml in the same folder defines guardrail "shell"' },
      { file: path.join(folder, 'shell.json'), message: 'ignored: shell.yaml in the same folder defines guardrail "shell"' },
    ]);
  });

  it('reports a folder or file it cannot read', async () => {
    const root = await makeTempDir();
    const notAFolder = await writeFiles(root, { 'plain.yaml': 'rules: []\n' });
    const unreadable = await writeFiles(path.join(root, 'locked'), { 'secret.yaml': 'rules: []\n' });
    await mkdir(path.join(unreadable, 'folder.yaml')); // a folder is not a guardrail file: skipped silently
    await chmod(path.join(unreadable, 'secret.yaml'), 0o000);
    const { problems } = loadGuardrailFiles([
      { path: path.join(notAFolder, 'plain.yaml'), source: 'home' },
      { path: unreadable, source: 'profile' },
    ]);
    expect(problems[0]).toMatchObject({ file: path.join(root, 'plain.yaml'), message: expect.stringMatching(/^cannot read the folder: .*ENOTDIR/) });
    if (process.getuid?.() !== 0) {
      expect(problems).toHaveLength(2);
      expect(problems[1]).toMatchObject({ file: path.join(unreadable, 'secret.yaml'), message: expect.stringMatching(/^cannot read the file: .*EACCES/) });
    } else {
      expect(problems).toHaveLength(1); // root reads any file
    }
  });
});

describe('guardrailFolders', () => {
  it('lists the profile, home, built-in folders, then the project last', () => {
    expect(guardrailFolders({ profile: 'ops', home: '/h', builtin: '/b' }, '/work')).toEqual([
      { path: '/h/profiles/ops/guardrails', source: 'profile' },
      { path: '/h/guardrails', source: 'home' },
      { path: '/b/profiles/ops/guardrails', source: 'builtin-profile' },
      { path: '/b/guardrails', source: 'builtin' },
      { path: '/work/.operator/guardrails', source: 'project' },
    ]);
  });
});
