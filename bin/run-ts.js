#!/usr/bin/env node
// Runs a TypeScript entry file through tsx's loader: `node bin/run-ts.js path/to/file.ts [args]`.
import { register } from 'tsx/esm/api';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';

register();
const [, , entry, ...rest] = process.argv;
if (!entry) {
  console.error('usage: run-ts <file.ts> [args...]');
  process.exit(2);
}
process.argv = [process.argv[0], resolve(entry), ...rest];
await import(pathToFileURL(resolve(entry)).href);
