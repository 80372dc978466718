import { describe, expect, it } from 'vitest';
import { hasFrontmatter, parseFrontmatter } from '../../src/resources/frontmatter.ts';

describe('parseFrontmatter', () => {
  it('splits the YAML mapping from the body and notes the line of each key', () => {
    expect(parseFrontmatter('---\nname: deploy\ndescription: "Ship it"\n---\n# Deploy\n\nSteps.\n')).toEqual({
      data: { name: 'deploy', description: 'Ship it' },
      body: '# Deploy\n\nSteps.\n',
      keyLines: { name: 2, description: 3 },
    });
  });

  it('accepts CRLF line ends, a `...` closing fence and trailing spaces on fences', () => {
    expect(parseFrontmatter('--- \r\nname: a\r\n...\r\nbody\r\n')).toEqual({
      data: { name: 'a' },
      body: 'body\r\n',
      keyLines: { name: 2 },
    });
  });

  it('treats text without a leading fence as all body', () => {
    expect(parseFrontmatter('# Title\n---\nname: x\n---\n')).toEqual({ data: {}, body: '# Title\n---\nname: x\n---\n', keyLines: {} });
    expect(hasFrontmatter('# Title')).toBe(false);
    expect(hasFrontmatter('---\r\nx: 1')).toBe(true);
  });

  it('gives an empty mapping for empty frontmatter and an empty body at the end of the file', () => {
    expect(parseFrontmatter('---\n---\nbody')).toEqual({ data: {}, body: 'body', keyLines: {} });
    expect(parseFrontmatter('---\nname: a\n---')).toEqual({ data: { name: 'a' }, body: '', keyLines: { name: 2 } });
  });

  it('reports a YAML error at its line in the file, not in the YAML', () => {
    // The parser notices the missing quote where the YAML ends: the closing fence, line 5.
    const result = parseFrontmatter('---\nname: a\ndescription: "unclosed\nother: 1\n---\nbody\n');
    expect(result).toMatchObject({ line: 5 });
    expect(parseFrontmatter('---\nname: a\n\ndescription: x: y\nlicense: MIT\n---\n')).toEqual({
      error: 'Nested mappings are not allowed in compact mappings',
      line: 4,
    });
    expect(parseFrontmatter('---\nname: a\n\tdescription: x\n---\n')).toEqual({ error: 'Tabs are not allowed as indentation', line: 3 });
    expect((result as { error: string }).error).toMatch(/quote/i);
    expect(parseFrontmatter('---\nname: a\nname: b\n---\n')).toEqual({ error: 'Map keys must be unique', line: 3 });
    expect(parseFrontmatter('---\nname: a\n  bad: : x\n---\n')).toMatchObject({ line: 2 });
  });

  it('reports an unclosed frontmatter at line 1', () => {
    expect(parseFrontmatter('---\nname: a\n# Body')).toEqual({
      error: 'the frontmatter is not closed: no `---` line after the first one',
      line: 1,
    });
    expect(parseFrontmatter('---')).toMatchObject({ line: 1 });
  });

  it('refuses frontmatter that is not a mapping', () => {
    expect(parseFrontmatter('---\n- a\n- b\n---\n')).toEqual({
      error: 'the frontmatter must be a YAML mapping of `key: value` lines',
      line: 2,
    });
    expect(parseFrontmatter('---\njust text\n---\n')).toMatchObject({ line: 2 });
  });

  it('keeps YAML types: booleans, numbers, lists; `yes` stays text (YAML 1.2)', () => {
    expect(parseFrontmatter('---\na: true\nb: 3\nc: [x, y]\nd: yes\n---\n')).toMatchObject({
      data: { a: true, b: 3, c: ['x', 'y'], d: 'yes' },
    });
  });

  it('refuses an alias bomb instead of expanding it', () => {
    const lines = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (let level = 1; level < 8; level++) {
      const previous = String.fromCharCode(96 + level);
      const current = String.fromCharCode(97 + level);
      lines.push(`${current}: &${current} [${Array(10).fill(`*${previous}`).join(', ')}]`);
    }
    expect(parseFrontmatter(`---\n${lines.join('\n')}\n---\n`)).toHaveProperty('error');
  });
});

describe('parseFrontmatter fast path', () => {
  it('reads simple key: value lines exactly as the YAML parser does', async () => {
    const { parse } = await import('yaml');
    const samples = [
      'name: deploy\ndescription: How to deploy the web app, safely (with checks)\n',
      'name: a\ndescription: Uses foo-bar and baz.\nuser-invocable: true\ndisable-model-invocation: False\n',
      'name: x\r\ndescription: windows line endings\r\n',
    ];
    for (const yaml of samples) {
      const parsed = parseFrontmatter(`---\n${yaml}---\nbody\n`);
      expect('data' in parsed && parsed.data).toEqual(parse(yaml));
      expect('body' in parsed && parsed.body).toBe('body\n');
    }
  });

  it('leaves anything unusual to the YAML parser', () => {
    const cases: [string, unknown][] = [
      ['name: yes\n', { name: 'yes' }], // YAML 1.2: a string
      ['count: 12\n', { count: 12 }],
      ["name: 'quoted: value'\n", { name: 'quoted: value' }],
      ['name: a # comment\n', { name: 'a' }],
      ['name: a: b\n', undefined],
      ['tags:\n  - one\n', { tags: ['one'] }],
    ];
    for (const [yaml, expected] of cases) {
      const parsed = parseFrontmatter(`---\n${yaml}---\n`);
      if (expected === undefined) expect('error' in parsed).toBe(true);
      else expect('data' in parsed && parsed.data).toEqual(expected);
    }
    const repeated = parseFrontmatter('---\nname: a\nname: b\n---\n');
    expect('error' in repeated).toBe(true);
  });
});
