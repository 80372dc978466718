/**
 * Libraries of the built-in tools, imported when a tool first runs rather than when the tools are
 * created: every process that makes agents (the gateway among them, before it is ready) would
 * otherwise load them at start-up, though most conversations never patch or search files.
 */
import type * as Diff from 'diff';
import type * as Tinyglobby from 'tinyglobby';

let diff: Promise<typeof Diff> | undefined;
let tinyglobby: Promise<typeof Tinyglobby> | undefined;

/** `diff` (unified-diff parsing and applying, for `apply_patch`), loaded once. */
export function loadDiff(): Promise<typeof Diff> {
  return (diff ??= import('diff'));
}

/** `tinyglobby` (file-tree globbing, for `glob` and `grep`), loaded once. */
export function loadTinyglobby(): Promise<typeof Tinyglobby> {
  return (tinyglobby ??= import('tinyglobby'));
}
