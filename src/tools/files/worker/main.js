// @ts-check
/**
 * The file worker: the process that does the file tools' work for one conversation, inside that
 * seat's sandbox (bubblewrap shows it only the seat's folders), so the gateway itself never opens
 * a path, a glob or a pattern the model chose. It reads requests as lines of JSON on stdin and
 * answers each with a line of JSON on stdout: `{ id, result }` or `{ id, error: { code, message } }`.
 *
 * Plain JavaScript on purpose: it runs on bare `node` inside the sandbox, where no TypeScript
 * loader is (or should be) visible, and starts in tens of milliseconds. It imports nothing but
 * Node's own modules and picomatch, whose folder the gateway shows it read-only and names in
 * `process.argv[2]`.
 */
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { readOp, readTextOp, readBytesOp, realpathOp, statOp, writeOp, removeOp } from './file-ops.js';
import { listOp } from './list-op.js';
import { globOp, grepOp } from './search-ops.js';
import { stampsOp } from './stamps-op.js';
import { snapshotCompareOp, snapshotDropOp, snapshotTakeOp } from './snapshot-ops.js';

const settings = JSON.parse(process.argv[2] ?? '{}');
/** @type {any} */
const picomatch = settings.picomatch ? (await import(pathToFileURL(settings.picomatch).href)).default : undefined;

/** @type {Record<string, (request: any, tools: { picomatch: any }) => Promise<unknown> | unknown>} */
const operations = {
  stat: statOp,
  realpath: realpathOp,
  read: readOp,
  readText: readTextOp,
  readBytes: readBytesOp,
  write: writeOp,
  remove: removeOp,
  list: listOp,
  glob: globOp,
  grep: grepOp,
  stamps: stampsOp,
  snapshotTake: snapshotTakeOp,
  snapshotCompare: snapshotCompareOp,
  snapshotDrop: snapshotDropOp,
};

/** @param {unknown} message */
function send(message) {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on('line', (line) => {
  /** @type {{ id: number, op: string }} */
  let request;
  try {
    request = JSON.parse(line);
  } catch {
    send({ id: -1, error: { code: 'EPROTO', message: 'the request is not JSON' } });
    return;
  }
  const operation = Object.hasOwn(operations, request.op) ? operations[request.op] : undefined;
  if (!operation) {
    send({ id: request.id, error: { code: 'EPROTO', message: `no operation "${request.op}"` } });
    return;
  }
  Promise.resolve()
    .then(() => operation(request, { picomatch }))
    .then(
      (result) => send({ id: request.id, result }),
      (error) => send({ id: request.id, error: { code: typeof error?.code === 'string' ? error.code : 'EFAIL', message: String(error?.message ?? error) } }),
    );
});
// The gateway closing stdin (or dying) ends the worker.
lines.on('close', () => process.exit(0));
