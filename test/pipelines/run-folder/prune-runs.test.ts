/**
 * Which run folders go when there are more than `pipelines.keepRuns`: ended runs first, the
 * oldest first; a run not ended (waiting at a gate for days, or killed) only when no ended one is
 * left; never the run starting now.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pruneRuns } from '../../../src/pipelines/run-folder/run-folder.ts';

let root: string | undefined;
afterEach(() => {
  if (root) rmSync(root, { recursive: true, force: true });
  root = undefined;
});

/** A run folder whose manifest was last written `daysAgo` days ago. */
function run(id: string, daysAgo: number, ended: boolean): void {
  mkdirSync(join(root!, id, 'step'), { recursive: true });
  const manifest = join(root!, id, 'manifest.json');
  writeFileSync(manifest, JSON.stringify({ id, status: ended ? 'finished' : 'waiting', ...(ended ? { endedAt: new Date().toISOString() } : {}) }));
  const at = new Date(Date.now() - daysAgo * 86_400_000);
  utimesSync(manifest, at, at);
}

describe('pruneRuns', () => {
  it('removes ended runs first, the oldest first, and a run not ended only when no ended one is left', async () => {
    root = mkdtempSync(join(tmpdir(), 'operator-prune-'));
    run('aaaaaa', 9, false);
    run('bbbbbb', 5, true);
    run('cccccc', 3, true);
    run('dddddd', 1, true);
    run('eeeeee', 0, false);
    await pruneRuns(root, 4, 'eeeeee');
    expect(readdirSync(root).sort()).toEqual(['aaaaaa', 'cccccc', 'dddddd', 'eeeeee']);
    await pruneRuns(root, 2, 'eeeeee');
    expect(readdirSync(root).sort()).toEqual(['aaaaaa', 'eeeeee']);
    await pruneRuns(root, 1, 'eeeeee');
    expect(readdirSync(root)).toEqual(['eeeeee']);
  });

  it('keeps all within keep, and leaves a folder with no manifest to be removed like an ended one', async () => {
    root = mkdtempSync(join(tmpdir(), 'operator-prune-'));
    run('aaaaaa', 2, false);
    mkdirSync(join(root, 'bbbbbb'));
    await pruneRuns(root, 3, 'cccccc');
    expect(readdirSync(root).sort()).toEqual(['aaaaaa', 'bbbbbb']);
    await pruneRuns(root, 2, 'cccccc');
    expect(readdirSync(root)).toEqual(['aaaaaa']);
  });
});
