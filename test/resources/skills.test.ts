import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSkills, maxSkillFileBytes } from '../../src/resources/skills.ts';
import { layersIn, makeTempDir, skillFile, writeTree } from './temp-tree.ts';

const skill = (name: string, description = `The ${name} skill`, extra = ''): string =>
  skillFile(`name: ${name}\ndescription: ${description}${extra}`);

describe('loadSkills', () => {
  it('takes each name from the highest layer: profile, home, built-in profile, built-in', async () => {
    const root = await makeTempDir();
    await writeTree(root, {
      'home/profiles/work/skills/alpha/SKILL.md': skill('alpha', 'from profile'),
      'home/skills/alpha/SKILL.md': skill('alpha', 'from home'),
      'home/skills/beta/SKILL.md': skill('beta', 'from home'),
      'builtin/profiles/work/skills/alpha/SKILL.md': skill('alpha', 'from builtin profile'),
      'builtin/profiles/work/skills/beta/SKILL.md': skill('beta', 'from builtin profile'),
      'builtin/profiles/work/skills/gamma/SKILL.md': skill('gamma', 'from builtin profile'),
      'builtin/skills/alpha/SKILL.md': skill('alpha', 'from builtin'),
      'builtin/skills/beta/SKILL.md': skill('beta', 'from builtin'),
      'builtin/skills/gamma/SKILL.md': skill('gamma', 'from builtin'),
      'builtin/skills/delta/SKILL.md': skill('delta', 'from builtin'),
    });
    const { skills, problems } = loadSkills(layersIn(root));
    expect(problems).toEqual([]);
    expect(skills.map((loaded) => [loaded.name, loaded.source, loaded.description])).toEqual([
      ['alpha', 'profile', 'from profile'],
      ['beta', 'home', 'from home'],
      ['delta', 'builtin', 'from builtin'],
      ['gamma', 'builtin-profile', 'from builtin profile'],
    ]);
  });

  it('gives absolute paths and the two flags', async () => {
    const root = await makeTempDir();
    await writeTree(root, {
      'home/skills/deploy/SKILL.md': skill('deploy', 'Deploy', '\nuser-invocable: true\ndisable-model-invocation: true\nlicense: MIT'),
      'home/skills/plain/SKILL.md': skill('plain'),
    });
    const { skills } = loadSkills({ ...layersIn(root), home: path.relative(process.cwd(), path.join(root, 'home')) });
    expect(skills).toEqual([
      {
        name: 'deploy',
        description: 'Deploy',
        location: path.join(root, 'home/skills/deploy/SKILL.md'),
        directory: path.join(root, 'home/skills/deploy'),
        userInvocable: true,
        disableModelInvocation: true,
        source: 'home',
      },
      expect.objectContaining({ name: 'plain', userInvocable: false, disableModelInvocation: false }),
    ]);
  });

  it('ignores missing layer folders, folders without SKILL.md, hidden folders and stray files', async () => {
    const root = await makeTempDir();
    await writeTree(root, {
      'builtin/skills/README.md': '# Built-in skills',
      'builtin/skills/notes/readme.txt': 'not a skill',
      'builtin/skills/.hidden/SKILL.md': 'garbage',
      'builtin/skills/real/SKILL.md': skill('real'),
    });
    expect(loadSkills(layersIn(root))).toEqual({ skills: [expect.objectContaining({ name: 'real' })], problems: [] });
    expect(loadSkills(layersIn(path.join(root, 'nowhere')))).toEqual({ skills: [], problems: [] });
  });

  it('follows a symbolic link to a skill folder', async () => {
    const root = await makeTempDir();
    await writeTree(root, { 'elsewhere/linked/SKILL.md': skill('linked') });
    await mkdir(path.join(root, 'home/skills'), { recursive: true });
    await symlink(path.join(root, 'elsewhere/linked'), path.join(root, 'home/skills/linked'));
    expect(loadSkills(layersIn(root)).skills.map((loaded) => loaded.name)).toEqual(['linked']);
  });

  it('reports every invalid skill with its file, line and reason, and loads the rest', async () => {
    const root = await makeTempDir();
    const longName = 'a'.repeat(65);
    const okName = 'b'.repeat(64);
    await writeTree(root, {
      'home/skills/bad-yaml/SKILL.md': skillFile('name: bad-yaml\ndescription: x: y'),
      'home/skills/unclosed/SKILL.md': '---\nname: unclosed\ndescription: x\n# Body',
      'home/skills/no-frontmatter/SKILL.md': '# Just Markdown\n',
      'home/skills/no-name/SKILL.md': skillFile('description: no name'),
      'home/skills/number-name/SKILL.md': skillFile('name: 42\ndescription: x'),
      'home/skills/wrong-folder/SKILL.md': skillFile('description: x\nname: other'),
      'home/skills/Bad_Chars/SKILL.md': skill('Bad_Chars'),
      [`home/skills/${longName}/SKILL.md`]: skill(longName),
      [`home/skills/${okName}/SKILL.md`]: skill(okName),
      'home/skills/no-description/SKILL.md': skillFile('name: no-description'),
      'home/skills/empty-description/SKILL.md': skillFile('name: empty-description\ndescription: ""'),
      'home/skills/long-description/SKILL.md': skill('long-description', 'd'.repeat(1025)),
      'home/skills/max-description/SKILL.md': skill('max-description', 'é'.repeat(1024)),
      'home/skills/list-description/SKILL.md': skill('list-description', '[a, b]'),
      'home/skills/bad-flag/SKILL.md': skill('bad-flag', 'x', '\nuser-invocable: yes'),
      'home/skills/bad-flag-2/SKILL.md': skill('bad-flag-2', 'x', '\ndisable-model-invocation: 1'),
      'home/skills/oversize/SKILL.md': skill('oversize', 'x', `\nlicense: ${'z'.repeat(maxSkillFileBytes)}`),
      'home/skills/folder-skill/SKILL.md/keep': '',
      'home/skills/bad-utf8/SKILL.md': Buffer.concat([Buffer.from(skill('bad-utf8')), Buffer.from([0xff, 0xfe, 0x0a])]),
    });
    const file = (name: string): string => path.join(root, 'home/skills', name, 'SKILL.md');
    const { skills, problems } = loadSkills(layersIn(root));
    expect(skills.map((loaded) => loaded.name)).toEqual(['bad-utf8', okName, 'max-description']);
    const rule = 'may contain only lowercase letters, digits and hyphens (a-z, 0-9, -)';
    expect(problems).toEqual([
      { file: file('Bad_Chars'), line: 2, message: `\`name\` "Bad_Chars" ${rule}` },
      { file: file(longName), line: 2, message: '`name` is 65 characters long, more than the 64 allowed' },
      { file: file('bad-flag'), line: 4, message: '`user-invocable` must be true or false, not the text "yes"' },
      { file: file('bad-flag-2'), line: 4, message: '`disable-model-invocation` must be true or false, not the number 1' },
      { file: file('bad-yaml'), line: 3, message: 'invalid YAML frontmatter: Nested mappings are not allowed in compact mappings' },
      { file: file('empty-description'), line: 3, message: '`description` is empty' },
      { file: file('folder-skill'), message: 'is a directory, not a file' },
      { file: file('list-description'), line: 3, message: '`description` must be a string, not a list' },
      { file: file('long-description'), line: 3, message: '`description` is 1025 characters long, more than the 1024 allowed' },
      { file: file('no-description'), message: '`description` is missing from the frontmatter' },
      {
        file: file('no-frontmatter'),
        line: 1,
        message: 'no YAML frontmatter: SKILL.md must start with a `---` line, then `name:` and `description:`',
      },
      { file: file('no-name'), message: '`name` is missing from the frontmatter' },
      { file: file('number-name'), line: 2, message: '`name` must be a string, not the number 42' },
      {
        file: file('oversize'),
        message: `SKILL.md is ${Buffer.byteLength(skill('oversize', 'x', `\nlicense: ${'z'.repeat(maxSkillFileBytes)}`))} bytes, more than the 262144 allowed`,
      },
      { file: file('unclosed'), line: 1, message: 'invalid YAML frontmatter: the frontmatter is not closed: no `---` line after the first one' },
      { file: file('wrong-folder'), line: 3, message: '`name` "other" does not match the folder name "wrong-folder"' },
    ]);
  });

  it('falls back to a lower layer when the higher copy is invalid, and says so', async () => {
    const root = await makeTempDir();
    await writeTree(root, {
      'home/profiles/work/skills/deploy/SKILL.md': skillFile('name: deploy'),
      'builtin/skills/deploy/SKILL.md': skill('deploy', 'built-in deploy'),
    });
    const { skills, problems } = loadSkills(layersIn(root));
    expect(skills.map((loaded) => [loaded.name, loaded.source])).toEqual([['deploy', 'builtin']]);
    expect(problems).toEqual([
      { file: path.join(root, 'home/profiles/work/skills/deploy/SKILL.md'), message: '`description` is missing from the frontmatter' },
    ]);
  });

  it('never throws when a skills folder is a file', async () => {
    const root = await makeTempDir();
    await mkdir(path.join(root, 'home'), { recursive: true });
    await writeFile(path.join(root, 'home/skills'), 'not a folder');
    expect(loadSkills(layersIn(root))).toEqual({ skills: [], problems: [] });
  });
});
