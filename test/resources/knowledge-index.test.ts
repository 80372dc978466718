import { describe, expect, it } from 'vitest';
import { createKnowledgeIndex } from '../../src/resources/knowledge-index.ts';
import { splitSections } from '../../src/resources/knowledge-sections.ts';
import { makeSnippet } from '../../src/resources/knowledge-snippet.ts';
import type { KnowledgeDocument } from '../../src/resources/types.ts';

const document = (name: string, text: string): KnowledgeDocument => ({
  name,
  path: `/knowledge/${name}`,
  title: name,
  text,
  source: 'home',
});

const filler = (words: number): string =>
  Array.from({ length: words }, (_, index) => ['alpha', 'bravo', 'charlie', 'delta', 'echo'][index % 5]).join(' ');

const documents = [
  document(
    'deploy/runbook.md',
    'How we ship.\n\n# Deployment\n\nPush the tag, wait for CI.\n\n## Rollback\n\n' +
      `${filler(80)} If the release breaks, revert the tag and redeploy the previous image. ${filler(80)}\n`,
  ),
  document('faq.md', '# Questions\n\nCan I rollback a database migration? Only with a down migration.\n'),
  document('style.md', '# Writing\n\nUse short sentences.\n'),
];

describe('createKnowledgeIndex', () => {
  it('ranks a heading match first and names file, path and heading of each hit', () => {
    const hits = createKnowledgeIndex(documents).search('rollback');
    expect(hits.map((hit) => [hit.file, hit.path, hit.heading])).toEqual([
      ['deploy/runbook.md', '/knowledge/deploy/runbook.md', 'Rollback'],
      ['faq.md', '/knowledge/faq.md', 'Questions'],
    ]);
    expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
  });

  it('gives a short snippet around the best match', () => {
    const [hit] = createKnowledgeIndex(documents).search('revert previous image');
    expect(hit?.heading).toBe('Rollback');
    expect(hit!.snippet.length).toBeLessThanOrEqual(300);
    expect(hit!.snippet).toContain('revert the tag and redeploy the previous image');
    expect(hit!.snippet.startsWith('…')).toBe(true);
    expect(hit!.snippet.endsWith('…')).toBe(true);
  });

  it('names no heading for text before the first heading', () => {
    const [hit] = createKnowledgeIndex(documents).search('ship');
    expect(hit).toMatchObject({ file: 'deploy/runbook.md', heading: '', snippet: 'How we ship.' });
  });

  it('matches word prefixes and small typos', () => {
    const index = createKnowledgeIndex(documents);
    expect(index.search('deploym')[0]).toMatchObject({ file: 'deploy/runbook.md', heading: 'Deployment' });
    expect(index.search('sentenses')[0]).toMatchObject({ file: 'style.md', heading: 'Writing' });
    expect(index.search('migraton')[0]).toMatchObject({ file: 'faq.md' });
  });

  it('finds a document by its file name once, not every section of it', () => {
    expect(createKnowledgeIndex(documents).search('runbook')).toEqual([
      expect.objectContaining({ file: 'deploy/runbook.md', heading: '' }),
    ]);
  });

  it('returns nothing for an empty or unmatched query', () => {
    const index = createKnowledgeIndex(documents);
    expect(index.search('')).toEqual([]);
    expect(index.search('   ')).toEqual([]);
    expect(index.search('kubernetes')).toEqual([]);
    expect(createKnowledgeIndex([]).search('anything')).toEqual([]);
  });

  it('honours the limit (default 5)', () => {
    const many = Array.from({ length: 8 }, (_, index) => document(`n${index}.md`, `# Note ${index}\n\ncoffee ${'x '.repeat(index)}`));
    const index = createKnowledgeIndex(many);
    expect(index.search('coffee')).toHaveLength(5);
    expect(index.search('coffee', { limit: 2 })).toHaveLength(2);
  });

  it('orders equal scores by file name and position, whatever the input order', () => {
    const twins = ['c.md', 'a.md', 'b.md'].map((name) => document(name, '# Same\n\nidentical words here\n'));
    const expected = ['a.md', 'b.md', 'c.md'];
    expect(createKnowledgeIndex(twins).search('identical').map((hit) => hit.file)).toEqual(expected);
    expect(createKnowledgeIndex([...twins].reverse()).search('identical').map((hit) => hit.file)).toEqual(expected);
    const sameFile = document('one.md', '# First\n\nkiwi\n\n# Second\n\nkiwi\n');
    expect(createKnowledgeIndex([sameFile]).search('kiwi').map((hit) => hit.heading)).toEqual(['First', 'Second']);
  });
});

describe('splitSections', () => {
  it('splits at ATX headings outside code fences', () => {
    expect(splitSections('intro\n# One ##\ntext\n```\n# comment\n```\n### Two\n\n#hashtag\n')).toEqual([
      { heading: '', text: 'intro', line: 1 },
      { heading: 'One', text: 'text\n```\n# comment\n```', line: 2 },
      { heading: 'Two', text: '#hashtag', line: 7 },
    ]);
  });
});

describe('makeSnippet', () => {
  it('returns short text whole, whitespace collapsed', () => {
    expect(makeSnippet('  a\n\n b\tc ', ['b'])).toBe('a b c');
  });

  it('picks the window holding the most distinct terms', () => {
    const text = `apple ${filler(60)} apple banana cherry ${filler(60)} cherry`;
    const snippet = makeSnippet(text, ['apple', 'banana', 'cherry']);
    expect(snippet.length).toBeLessThanOrEqual(300);
    expect(snippet).toContain('apple banana cherry');
  });

  it('starts at the beginning when no term occurs and never splits a surrogate pair', () => {
    const text = `${'😀'.repeat(200)}`;
    const snippet = makeSnippet(text, ['zzz'], 101);
    expect(snippet.length).toBeLessThanOrEqual(101);
    expect(snippet.endsWith('…')).toBe(true);
    expect([...snippet.slice(0, -1)].every((character) => character === '😀')).toBe(true);
  });
});
