/**
 * Repairs the line counts in unified-diff hunk headers. Models often get `@@ -a,b +c,d @@` counts
 * wrong, or leave the numbers out, and a strict parser then rejects an otherwise clear patch.
 * Start lines are kept as written (a missing one becomes 1): the patch applier searches near
 * them for the context anyway.
 */

const hunkHeader = /^@@(?:\s+-(\d+)(?:,\d+)?\s+\+(\d+)(?:,\d+)?)?\s*@@(.*)$/;

/**
 * The patch with every hunk header's counts recomputed from the hunk's lines. Throws when a line
 * after a hunk belongs to no hunk and starts no file: guessing there could drop part of a change.
 */
export function recountHunks(patch: string): string {
  const lines = patch.split('\n');
  const output: string[] = [];
  let index = 0;
  while (index < lines.length) {
    const header = hunkHeader.exec(lines[index]!);
    if (header === null) {
      output.push(lines[index]!);
      index++;
      continue;
    }
    const body: string[] = [];
    index++;
    while (index < lines.length && isHunkLine(lines, index)) body.push(lines[index++]!);
    // Blank lines after the last change are the gap before the next file, not context.
    const trailing: string[] = [];
    while (body.length > 0 && body.at(-1) === '') trailing.push(body.pop()!);
    let oldCount = 0;
    let newCount = 0;
    for (const line of body) {
      if (line.startsWith('\\')) continue;
      if (!line.startsWith('+')) oldCount++;
      if (!line.startsWith('-')) newCount++;
    }
    const oldStart = header[1] ?? (oldCount === 0 ? '0' : '1');
    const newStart = header[2] ?? (newCount === 0 ? '0' : '1');
    output.push(`@@ -${oldStart},${oldCount} +${newStart},${newCount} @@${header[3] ?? ''}`);
    for (const line of body) output.push(line === '' ? ' ' : line);
    output.push(...trailing);
    if (index < lines.length && !startsSection(lines, index)) {
      throw new Error(`line ${index + 1} is neither part of a hunk nor a file header: ${lines[index]}`);
    }
  }
  return output.join('\n');
}

function startsSection(lines: readonly string[], index: number): boolean {
  const line = lines[index]!;
  return (
    line.startsWith('@@') ||
    line.startsWith('diff ') ||
    line.startsWith('Index: ') ||
    (line.startsWith('--- ') && lines[index + 1]?.startsWith('+++ ') === true)
  );
}

function isHunkLine(lines: readonly string[], index: number): boolean {
  const line = lines[index]!;
  if (line.startsWith('--- ') && lines[index + 1]?.startsWith('+++ ')) return false;
  if (line.startsWith('@@') || line.startsWith('diff ') || line.startsWith('Index: ')) return false;
  return line === '' || line.startsWith(' ') || line.startsWith('+') || line.startsWith('-') || line.startsWith('\\');
}
