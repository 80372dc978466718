#!/usr/bin/env node
// The `operator` command. Runs the compiled JavaScript in dist/ when it is at least as new as
// every source file (`npm install` builds it), and the TypeScript sources through tsx otherwise,
// so an edited checkout never runs stale code and an installed one starts without a compiler.
import { existsSync } from 'node:fs';
import module from 'node:module';
import { fileURLToPath } from 'node:url';
import { compiledIsCurrentSoon } from './compiled.js';

const root = fileURLToPath(new URL('..', import.meta.url));

/** dist/'s entry. */
function loadCompiled() {
  // Node 22.1 and newer keep the code they compiled for the next start (most of a start's
  // compile time): beside dist/, as trusted as the code itself (not the shared temp folder), and
  // emptied by every build. Where dist/ is read-only, the start only compiles again.
  module.enableCompileCache?.(fileURLToPath(new URL('../dist/.compile-cache', import.meta.url)));
  return import('../dist/cli/main.js');
}

// Whether the sources changed since the build is asked of `find` while dist/ loads: the load is
// most of a start, and `find` takes a few milliseconds beside it. A stale dist/ loaded so is left
// unused (its modules only define what they export).
const current = compiledIsCurrentSoon(root);
const loading = existsSync(`${root}dist/.built`) ? loadCompiled() : undefined;
loading?.catch(() => undefined);
let main;
if (loading && (await current)) {
  ({ main } = await loading);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../src/cli/main.ts'));
}

process.exitCode = await main(process.argv.slice(2));
