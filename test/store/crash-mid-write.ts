/**
 * Child process for the fs driver's crash test: sets `<key>` to `<value>` on the fs store at
 * `<base>` and dies by SIGKILL at the rename, after the temp file is written: a crash at the
 * worst moment of a write. Usage: `node bin/run-ts.js test/store/crash-mid-write.ts <base> <key> <value>`.
 */
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';

const [base, key, value] = process.argv.slice(2);
if (!base || !key || value === undefined) throw new Error('usage: crash-mid-write.ts <base> <key> <value>');

fs.renameSync = () => {
  process.kill(process.pid, 'SIGKILL');
  throw new Error('unreachable: killed');
};
// Named imports of node:fs (as the driver uses) see the patched function only after this.
syncBuiltinESMExports();

const { createStore } = await import('../../src/store/unstorage-store.ts');
await createStore({ driver: 'fs', base }).set(key, value);
throw new Error('the write finished: renameSync was not reached');
