/**
 * The log's lines of a stretch of work go out in one write (src/gateway/ops/line-batch.ts);
 * line-batch-e2e.test.ts shows none is lost when the process ends right after writing them.
 */
import { describe, expect, it } from 'vitest';
import { LineBatch } from '../../../src/gateway/ops/line-batch.ts';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

function recorder(isTTY?: boolean) {
  const writes: string[] = [];
  return { writes, output: { isTTY, write: (text: string) => writes.push(text) } };
}

describe('a batch of log lines', () => {
  it('writes the lines of one stretch of work, promises included, as one write, in order, once it has run', async () => {
    const { writes, output } = recorder();
    const batch = new LineBatch(output);
    batch.write('a\n');
    await Promise.resolve();
    batch.write('b\n');
    expect(writes).toEqual([]);
    await nextTurn();
    expect(writes).toEqual(['a\nb\n']);
    batch.write('c\n');
    await nextTurn();
    expect(writes).toEqual(['a\nb\n', 'c\n']);
    await nextTurn();
    expect(writes).toHaveLength(2);
  });

  it('writes at once what reaches its limit, and on flush, and keeps the output terminal or not', async () => {
    const { writes, output } = recorder(true);
    const batch = new LineBatch(output, { limit: 10 });
    expect(batch.isTTY).toBe(true);
    batch.write('12345\n');
    batch.write('67890\n');
    expect(writes).toEqual(['12345\n67890\n']);
    batch.write('x\n');
    batch.flush();
    expect(writes).toEqual(['12345\n67890\n', 'x\n']);
    batch.flush();
    await nextTurn();
    expect(writes).toHaveLength(2);
  });
});
