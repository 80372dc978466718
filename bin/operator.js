#!/usr/bin/env node
// The `operator` command. Runs the compiled JavaScript in dist/ when it is at least as new as
// every source file (`npm install` builds it), and the TypeScript sources through tsx otherwise,
// so an edited checkout never runs stale code and an installed one starts without a compiler.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const stamp = join(root, 'dist', '.built');

function newestSource(directory) {
  let newest = 0;
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

const compiled = existsSync(stamp) && statSync(stamp).mtimeMs >= newestSource(join(root, 'src'));
let main;
if (compiled) {
  ({ main } = await import('../dist/cli/main.js'));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../src/cli/main.ts'));
}
process.exitCode = await main(process.argv.slice(2));
