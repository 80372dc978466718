import { describe, expect, it } from 'vitest';
import { recountHunks } from '../../src/tools/builtin/recount-hunks.ts';

describe('recountHunks', () => {
  it('rewrites wrong counts and keeps the start lines', () => {
    expect(recountHunks('--- a/f\n+++ b/f\n@@ -7,10 +7,1 @@ section\n a\n-b\n+c\n+d\n')).toBe(
      '--- a/f\n+++ b/f\n@@ -7,2 +7,3 @@ section\n a\n-b\n+c\n+d\n',
    );
  });

  it('fills in a header without numbers', () => {
    expect(recountHunks('--- a/f\n+++ b/f\n@@ @@\n a\n-b\n+c\n')).toBe('--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n');
    expect(recountHunks('--- /dev/null\n+++ b/f\n@@ @@\n+new\n')).toBe('--- /dev/null\n+++ b/f\n@@ -0,0 +1,1 @@\n+new\n');
  });

  it('treats blank lines inside a hunk as blank context, and blank lines after it as a gap', () => {
    expect(recountHunks('--- a/f\n+++ b/f\n@@ -1 +1 @@\n a\n\n-b\n+c\n\n\n--- a/g\n+++ b/g\n@@ -1 +1 @@\n-x\n+y\n')).toBe(
      '--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n \n-b\n+c\n\n\n--- a/g\n+++ b/g\n@@ -1,1 +1,1 @@\n-x\n+y\n',
    );
  });

  it('does not count the no-newline marker', () => {
    expect(recountHunks('--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n')).toBe(
      '--- a/f\n+++ b/f\n@@ -1,1 +1,1 @@\n-a\n\\ No newline at end of file\n+b\n',
    );
  });

  it('refuses a stray line after a hunk instead of dropping the rest of the change', () => {
    expect(() => recountHunks('--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\nstray\n+b\n')).toThrow(
      'line 5 is neither part of a hunk nor a file header: stray',
    );
  });
});
