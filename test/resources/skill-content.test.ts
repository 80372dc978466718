import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSkillContent } from '../../src/resources/skill-content.ts';
import { loadSkills } from '../../src/resources/skills.ts';
import type { Skill } from '../../src/resources/types.ts';
import { layersIn, makeTempDir, skillFile, writeTree } from './temp-tree.ts';

async function skillWith(files: Record<string, string | Uint8Array>): Promise<Skill> {
  const root = await makeTempDir();
  await writeTree(root, {
    'home/skills/report/SKILL.md': skillFile('name: report\ndescription: Weekly report', '\n# Report\n\nRun scripts/build.sh.\n\n'),
    ...Object.fromEntries(Object.entries(files).map(([name, content]) => [`home/skills/report/${name}`, content])),
  });
  const { skills } = loadSkills(layersIn(root));
  return skills[0]!;
}

describe('readSkillContent', () => {
  it('gives the body without frontmatter, reference texts sorted, script and asset paths', async () => {
    const skill = await skillWith({
      'references/z-last.md': 'last',
      'references/api.md': 'API notes\n',
      'references/deep/more.md': 'deeper',
      'scripts/build.sh': '#!/bin/sh\necho secret-script-content\n',
      'scripts/lib/util.py': 'print(1)',
      'assets/template.md': 'asset content',
      'notes.txt': 'not listed',
    });
    expect(readSkillContent(skill)).toEqual({
      body: '# Report\n\nRun scripts/build.sh.',
      references: [
        { path: 'references/api.md', text: 'API notes\n', truncated: false },
        { path: 'references/deep/more.md', text: 'deeper', truncated: false },
        { path: 'references/z-last.md', text: 'last', truncated: false },
      ],
      omittedReferences: [],
      scripts: ['scripts/build.sh', 'scripts/lib/util.py'],
      assets: ['assets/template.md'],
      cutListings: [],
      problems: [],
    });
  });

  it('works for a skill with no extra folders', async () => {
    const skill = await skillWith({});
    expect(readSkillContent(skill)).toMatchObject({ references: [], scripts: [], assets: [], problems: [] });
  });

  it('cuts a long reference with a visible notice and stops at the total budget', async () => {
    const skill = await skillWith({
      'references/a.md': 'a'.repeat(100),
      'references/b.md': 'b'.repeat(30),
      'references/c.md': 'c'.repeat(10),
      'references/d.md': 'd',
    });
    const content = readSkillContent(skill, { maxReferenceBytes: 50, maxTotalReferenceBytes: 70 });
    if ('problem' in content) throw new Error('unexpected problem');
    const file = path.join(skill.directory, 'references/a.md');
    expect(content.references).toEqual([
      {
        path: 'references/a.md',
        text: `${'a'.repeat(50)}\n\n[cut: only the first 50 of 100 bytes are shown; read ${file} for the rest]`,
        truncated: true,
      },
      {
        path: 'references/b.md',
        text: `${'b'.repeat(20)}\n\n[cut: only the first 20 of 30 bytes are shown; read ${path.join(skill.directory, 'references/b.md')} for the rest]`,
        truncated: true,
      },
    ]);
    expect(content.omittedReferences).toEqual([
      { path: 'references/c.md', reason: 'the budget for reference text was used up' },
      { path: 'references/d.md', reason: 'the budget for reference text was used up' },
    ]);
  });

  it('leaves binary references out and caps long listings', async () => {
    const skill = await skillWith({
      'references/image.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x00]),
      'assets/1.txt': '',
      'assets/2.txt': '',
      'assets/3.txt': '',
    });
    const content = readSkillContent(skill, { maxListedFiles: 2 });
    expect(content).toMatchObject({
      references: [],
      omittedReferences: [{ path: 'references/image.png', reason: 'binary file' }],
      assets: ['assets/1.txt', 'assets/2.txt'],
      cutListings: ['assets/'],
    });
  });

  it('reports a SKILL.md that broke after loading', async () => {
    const skill = await skillWith({});
    await writeFile(skill.location, '---\nname: report\n');
    expect(readSkillContent(skill)).toEqual({
      problem: { file: skill.location, line: 1, message: 'the frontmatter is not closed: no `---` line after the first one' },
    });
    await writeFile(skill.location, skillFile('name: report\ndescription: x', 'y'.repeat(300 * 1024)));
    expect(readSkillContent(skill)).toEqual({
      problem: { file: skill.location, message: expect.stringMatching(/^SKILL\.md is \d+ bytes, more than the 262144 allowed$/) },
    });
  });
});
