/**
 * No log line is lost when the process ends in the turn of the event loop that wrote it: the
 * gateway flushes its batch of lines (src/gateway/ops/line-batch.ts) on `exit`, which an
 * uncaught exception reaches too.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

describe('a batch of log lines, as its process ends', () => {
  for (const end of ['exit', 'throw'] as const) {
    it(`loses no line when the process ends in the same turn (${end})`, () => {
      const runTs = fileURLToPath(new URL('../../../bin/run-ts.js', import.meta.url));
      const script = fileURLToPath(new URL('../../fixtures/line-batch/exit-after-lines.ts', import.meta.url));
      const run = spawnSync(process.execPath, [runTs, script, end], { encoding: 'utf8', timeout: 60_000 });
      expect(run.status).toBe(end === 'exit' ? 3 : 1);
      expect(run.stderr).toContain('line 1\nline 2\nline 3\n');
      if (end === 'throw') expect(run.stderr).toContain('crashed after the lines');
    });
  }
});
