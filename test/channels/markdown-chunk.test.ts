/** The shared Markdown chunker: limits, block boundaries, code fences closed and reopened. */
import { describe, expect, it } from 'vitest';
import { chunkMarkdown } from '../../src/channels/markdown/index.ts';

/** Whether every fence opened in `chunk` is closed in it. */
function fencesBalanced(chunk: string): boolean {
  let open: string | undefined;
  for (const line of chunk.split('\n')) {
    const fence = /^\s*(`{3,}|~{3,})(.*)$/.exec(line);
    if (!fence) continue;
    if (!open) open = fence[1];
    else if (fence[1]![0] === open[0] && fence[1]!.length >= open.length && fence[2]!.trim() === '') open = undefined;
  }
  return open === undefined;
}

describe('chunkMarkdown', () => {
  it('keeps a message that fits whole (trimmed), and gives nothing for an empty one', () => {
    expect(chunkMarkdown('  hello **world**  \n', { maxLength: 100 })).toEqual(['hello **world**']);
    expect(chunkMarkdown(' \n\n ', { maxLength: 100 })).toEqual([]);
  });

  it('splits between paragraphs, losing nothing', () => {
    const paragraphs = Array.from({ length: 30 }, (_, index) => `Paragraph ${index} ${'text '.repeat(10)}`.trim());
    const chunks = chunkMarkdown(paragraphs.join('\n\n'), { maxLength: 300 });
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(300);
    expect(chunks.join('\n\n')).toBe(paragraphs.join('\n\n'));
  });

  it('closes a long code block at the end of a chunk and reopens it with its language', () => {
    const lines = Array.from({ length: 60 }, (_, index) => `print(${index})  # line ${index}`);
    const markdown = `Before.\n\n\`\`\`python\n${lines.join('\n')}\n\`\`\`\n\nAfter.`;
    const chunks = chunkMarkdown(markdown, { maxLength: 400 });
    expect(chunks.length).toBeGreaterThan(2);
    for (const chunk of chunks) {
      expect(chunk.length).toBeLessThanOrEqual(400);
      expect(fencesBalanced(chunk)).toBe(true);
    }
    expect(chunks.slice(1, -1).every((chunk) => chunk.startsWith('```python\n'))).toBe(true);
    const code = chunks.flatMap((chunk) => chunk.split('\n')).filter((line) => line.startsWith('print('));
    expect(code).toEqual(lines);
    expect(chunks[0]!.startsWith('Before.')).toBe(true);
    expect(chunks.at(-1)!.endsWith('After.')).toBe(true);
  });

  it('handles tilde fences, longer markers, and fences nested in list items', () => {
    const body = Array.from({ length: 40 }, (_, index) => `x${index} = ${'y'.repeat(20)}`);
    for (const markdown of [
      `~~~sh\n${body.join('\n')}\n~~~`,
      `\`\`\`\`md\n\`\`\`\n${body.join('\n')}\n\`\`\`\n\`\`\`\``,
      `- step one\n- step two:\n  \`\`\`js\n${body.map((line) => `  ${line}`).join('\n')}\n  \`\`\`\n- step three`,
    ]) {
      const chunks = chunkMarkdown(markdown, { maxLength: 250 });
      expect(chunks.length).toBeGreaterThan(1);
      for (const chunk of chunks) {
        expect(chunk.length).toBeLessThanOrEqual(250);
        expect(fencesBalanced(chunk)).toBe(true);
      }
      expect(chunks.join('\n').match(/x\d+ =/g)).toEqual(body.map((line) => line.split(' ')[0] + ' ='));
    }
  });

  it('splits lists between items, numbering continuing in the next chunk', () => {
    const items = Array.from({ length: 20 }, (_, index) => `${index + 1}. item number ${index + 1} with some words`);
    const chunks = chunkMarkdown(items.join('\n'), { maxLength: 200 });
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) expect(/^\d+\. item/.test(chunk)).toBe(true);
    expect(chunks.join('\n')).toBe(items.join('\n'));
  });

  it('splits a table between rows, repeating the header', () => {
    const rows = Array.from({ length: 30 }, (_, index) => `| ${index} | value ${index} |`);
    const markdown = `| id | value |\n|---|---|\n${rows.join('\n')}`;
    const chunks = chunkMarkdown(markdown, { maxLength: 200 });
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) expect(chunk.startsWith('| id | value |\n|---|---|\n')).toBe(true);
    expect(chunks.flatMap((chunk) => chunk.split('\n').slice(2))).toEqual(rows);
  });

  it('splits an overlong line at spaces, and a word longer than the limit at characters', () => {
    const words = Array.from({ length: 100 }, (_, index) => `word${index}`).join(' ');
    const wordChunks = chunkMarkdown(words, { maxLength: 80 });
    for (const chunk of wordChunks) expect(chunk.length).toBeLessThanOrEqual(80);
    expect(wordChunks.join(' ')).toBe(words);
    const blob = 'x'.repeat(1000);
    const blobChunks = chunkMarkdown(blob, { maxLength: 90 });
    expect(blobChunks.every((chunk) => chunk.length <= 90)).toBe(true);
    expect(blobChunks.join('')).toBe(blob);
  });

  it('measures with the platform measure', () => {
    const markdown = Array.from({ length: 10 }, (_, index) => `Paragraph ${index}.`).join('\n\n');
    const chunks = chunkMarkdown(markdown, { maxLength: 100, measure: (chunk) => chunk.length * 4 });
    for (const chunk of chunks) expect(chunk.length * 4).toBeLessThanOrEqual(100);
    expect(chunks.join('\n\n')).toBe(markdown);
  });

  it('chunks a very long reply completely', () => {
    const section = (index: number) => `## Section ${index}\n\n${'Some prose here. '.repeat(30)}\n\n\`\`\`ts\n${'const value = compute();\n'.repeat(20)}\`\`\``;
    const markdown = Array.from({ length: 60 }, (_, index) => section(index)).join('\n\n');
    const chunks = chunkMarkdown(markdown, { maxLength: 2000 });
    expect(chunks.every((chunk) => chunk.length <= 2000 && fencesBalanced(chunk))).toBe(true);
    expect(chunks.join('\n\n').match(/## Section \d+/g)).toHaveLength(60);
    expect(chunks.join('\n').match(/const value = compute\(\);/g)).toHaveLength(60 * 20);
  });
});
