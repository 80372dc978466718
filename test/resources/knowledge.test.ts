import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadKnowledge, maxKnowledgeFileBytes, selectKnowledgeForInjection } from '../../src/resources/knowledge.ts';
import type { KnowledgeDocument } from '../../src/resources/types.ts';
import { layersIn, makeTempDir, writeTree } from './temp-tree.ts';

describe('loadKnowledge', () => {
  it('loads Markdown files recursively, named by their path in the folder, with titles', async () => {
    const root = await makeTempDir();
    await writeTree(root, {
      'home/knowledge/deploy/runbook.md': 'Intro\n\n## Rollback\n\nSteps\n',
      'home/knowledge/glossary.md': 'No heading here',
      'home/knowledge/notes.txt': 'not Markdown',
      'home/knowledge/.drafts/secret.md': '# hidden',
      'home/knowledge/a-b.md': '```sh\n# not a heading\n```\n# Real heading\n',
    });
    const { documents, problems } = loadKnowledge(layersIn(root));
    expect(problems).toEqual([]);
    expect(documents.map(({ name, title, source, path: file }) => ({ name, title, source, file }))).toEqual([
      { name: 'a-b.md', title: 'Real heading', source: 'home', file: path.join(root, 'home/knowledge/a-b.md') },
      { name: 'deploy/runbook.md', title: 'Rollback', source: 'home', file: path.join(root, 'home/knowledge/deploy/runbook.md') },
      { name: 'glossary.md', title: 'glossary.md', source: 'home', file: path.join(root, 'home/knowledge/glossary.md') },
    ]);
    expect(documents[1]!.text).toBe('Intro\n\n## Rollback\n\nSteps\n');
  });

  it('lets a higher layer replace a lower document of the same name: profile, home, built-in profile, built-in', async () => {
    const root = await makeTempDir();
    await writeTree(root, {
      'home/profiles/work/knowledge/a.md': 'profile a',
      'home/knowledge/a.md': 'home a',
      'home/knowledge/b.md': 'home b',
      'builtin/profiles/work/knowledge/a.md': 'builtin-profile a',
      'builtin/profiles/work/knowledge/b.md': 'builtin-profile b',
      'builtin/profiles/work/knowledge/c.md': 'builtin-profile c',
      'builtin/knowledge/a.md': 'builtin a',
      'builtin/knowledge/c.md': 'builtin c',
      'builtin/knowledge/d.md': 'builtin d',
      'builtin/knowledge/sub/a.md': 'builtin sub/a',
    });
    const { documents } = loadKnowledge(layersIn(root));
    expect(documents.map((document) => [document.name, document.source, document.text])).toEqual([
      ['a.md', 'profile', 'profile a'],
      ['b.md', 'home', 'home b'],
      ['c.md', 'builtin-profile', 'builtin-profile c'],
      ['d.md', 'builtin', 'builtin d'],
      ['sub/a.md', 'builtin', 'builtin sub/a'],
    ]);
  });

  it('skips README.md at the top of a built-in folder only', async () => {
    const root = await makeTempDir();
    await writeTree(root, {
      'builtin/knowledge/README.md': '# Built-in knowledge (explains the folder)',
      'builtin/profiles/work/knowledge/README.md': '# explains the folder',
      'builtin/knowledge/tools/README.md': '# Tools',
    });
    expect(loadKnowledge(layersIn(root)).documents.map((document) => [document.name, document.source])).toEqual([
      ['tools/README.md', 'builtin'],
    ]);
    await writeTree(root, { 'home/profiles/work/knowledge/README.md': '# My own readme' });
    expect(loadKnowledge(layersIn(root)).documents.map((document) => [document.name, document.source])).toEqual([
      ['README.md', 'profile'],
      ['tools/README.md', 'builtin'],
    ]);
  });

  it('skips an oversize document with a problem and reads malformed UTF-8 with replacements', async () => {
    const root = await makeTempDir();
    await writeTree(root, {
      'home/knowledge/huge.md': 'x'.repeat(maxKnowledgeFileBytes + 1),
      'home/knowledge/latin1.md': Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]),
    });
    const { documents, problems } = loadKnowledge(layersIn(root));
    expect(documents.map((document) => [document.name, document.text])).toEqual([['latin1.md', 'caf\uFFFD\n']]);
    expect(problems).toEqual([
      { file: path.join(root, 'home/knowledge/huge.md'), message: 'the document is 524289 bytes, more than the 524288 allowed' },
    ]);
  });

  it('is empty without any knowledge folder', async () => {
    expect(loadKnowledge(layersIn(await makeTempDir()))).toEqual({ documents: [], problems: [] });
  });
});

const document = (name: string, text: string): KnowledgeDocument => ({
  name,
  path: `/k/${name}`,
  title: name,
  text,
  source: 'home',
});

describe('selectKnowledgeForInjection', () => {
  it('wraps each injected document and writes them in name order', () => {
    const result = selectKnowledgeForInjection([document('b.md', '\nB text\n'), document('a.md', 'A')]);
    expect(result).toEqual({
      text: '<knowledge file="a.md">\nA\n</knowledge>\n\n<knowledge file="b.md">\nB text\n</knowledge>',
      injected: ['a.md', 'b.md'],
      omitted: [],
    });
  });

  it('leaves out documents over the size limit and fills the budget smallest first', () => {
    const documents = [
      document('big.md', 'x'.repeat(101)),
      document('m1.md', 'm'.repeat(40)),
      document('s.md', 's'.repeat(10)),
      document('m2.md', 'n'.repeat(40)),
      document('blank.md', '  \n'),
    ];
    const wrapped = (name: string, size: number): number => `<knowledge file="${name}">\n\n</knowledge>`.length + size;
    // s.md and m1.md fit (with one separator); m2.md would pass the budget by one character.
    const budgetChars = wrapped('s.md', 10) + 2 + wrapped('m1.md', 40) + 2 + wrapped('m2.md', 40) - 1;
    const result = selectKnowledgeForInjection(documents, { maxDocumentChars: 100, budgetChars });
    expect(result.injected).toEqual(['m1.md', 's.md']);
    expect(result.omitted).toEqual(['big.md', 'm2.md']);
    expect(result.text.length).toBeLessThanOrEqual(budgetChars);
    const roomy = selectKnowledgeForInjection(documents, { maxDocumentChars: 100, budgetChars: budgetChars + 1 });
    expect(roomy.injected).toEqual(['m1.md', 'm2.md', 's.md']);
    expect(roomy.text.length).toBe(budgetChars + 1);
  });

  it('gives the same bytes whatever the order of the documents', () => {
    const documents = ['d', 'a', 'c', 'b', 'e'].map((name, index) => document(`${name}.md`, `${name}`.repeat(index + 3)));
    const first = selectKnowledgeForInjection(documents, { budgetChars: 120 });
    const second = selectKnowledgeForInjection([...documents].reverse(), { budgetChars: 120 });
    expect(second).toEqual(first);
    expect(first.injected.length).toBeGreaterThan(0);
    expect(first.omitted.length).toBeGreaterThan(0);
  });

  it('uses the default limits (4,000 per document, 12,000 in all)', () => {
    const documents = [
      document('too-big.md', 'x'.repeat(4_001)),
      ...['a', 'b', 'c', 'd'].map((name) => document(`${name}.md`, name.repeat(3_900))),
    ];
    const result = selectKnowledgeForInjection(documents);
    expect(result.injected).toEqual(['a.md', 'b.md', 'c.md']);
    expect(result.omitted).toEqual(['d.md', 'too-big.md']);
  });

  it('escapes a quote in a file name', () => {
    expect(selectKnowledgeForInjection([document('say "hi".md', 'x')]).text).toBe(
      '<knowledge file="say &quot;hi&quot;.md">\nx\n</knowledge>',
    );
  });
});
