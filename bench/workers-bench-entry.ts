/**
 * The bench-only entry module put around the Worker as it is built for deployment, when the
 * benchmark loads it into local workerd: the Worker itself, unchanged, plus what only a benchmark
 * needs and production must never have, so it lives here and not in `src/worker/`:
 *
 * - Every Durable Object class is a subclass that counts, per class, the requests its objects
 *   take (each RPC method call and each alarm is one billed request) and what they do to their
 *   storage as Cloudflare bills it, whichever request (or work it left running) it is for: rows
 *   read and rows written (a key `get`/`put`/`delete` is one row, a `list` reads a row per key
 *   it returns, a `setAlarm` or `deleteAlarm` writes one).
 * - `GET /__bench/footprint?session=<session key>` answers what that conversation's object
 *   holds (keys, their bytes, and `ctx.storage.sql.databaseSize`, what storage is billed by).
 * - `GET /__bench/counts` answers the counters so far; `POST /__bench/counts` sets them to zero.
 *
 * It is JavaScript for workerd, kept as text: it is written next to the built `index.js`.
 */

/** The module's source; it imports the built Worker from `./index.js`. */
export const benchEntrySource = String.raw`
import app, * as worker from './index.js';

const tallies = new Map();
function tally(kind) {
  let found = tallies.get(kind);
  if (!found) tallies.set(kind, (found = { objects: new Set(), requests: {}, rowsRead: 0, rowsWritten: 0, calls: {} }));
  return found;
}

const keysIn = (argument) => (Array.isArray(argument) ? argument.length : 1);
const rowsOf = {
  get: (args, result) => ({ read: keysIn(args[0]) }),
  list: (args, result) => ({ read: Math.max(1, result?.size ?? 0) }),
  put: (args) => ({ written: typeof args[0] === 'object' && args[0] !== null ? Object.keys(args[0]).length : 1 }),
  delete: (args) => ({ written: keysIn(args[0]) }),
  setAlarm: () => ({ written: 1 }),
  deleteAlarm: () => ({ written: 1 }),
};

/** ctx with a storage that counts every call into the tally of kind. */
function countingState(ctx, kind) {
  const storage = new Proxy(ctx.storage, {
    get(target, name) {
      const value = Reflect.get(target, name, target);
      if (typeof value !== 'function') return value;
      return (...args) => {
        const counts = tally(kind);
        counts.calls[name] = (counts.calls[name] ?? 0) + 1;
        const result = value.apply(target, args);
        const note = (resolved) => {
          const rows = rowsOf[name]?.(args, resolved) ?? {};
          counts.rowsRead += rows.read ?? 0;
          counts.rowsWritten += rows.written ?? 0;
          return resolved;
        };
        return result instanceof Promise ? result.then(note) : note(result);
      };
    },
  });
  return new Proxy(ctx, {
    get(target, name) {
      if (name === 'storage') return storage;
      const value = Reflect.get(target, name, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** Base, with each of its methods counted as a request of kind, and the footprint read. */
function counted(Base, kind) {
  class Counted extends Base {
    constructor(ctx, env) {
      // workerd's base class takes only the real state; the counting one is put over it after.
      super(ctx, env);
      Object.defineProperty(this, 'ctx', { value: countingState(ctx, kind) });
      this.benchStorage = ctx.storage;
      tally(kind).objects.add(ctx.id.toString());
    }
  }
  for (const name of Object.getOwnPropertyNames(Base.prototype)) {
    const method = Object.getOwnPropertyDescriptor(Base.prototype, name).value;
    if (name === 'constructor' || typeof method !== 'function') continue;
    Counted.prototype[name] = async function (...args) {
      const counts = tally(kind);
      counts.requests[name] = (counts.requests[name] ?? 0) + 1;
      return method.apply(this, args);
    };
  }
  Counted.prototype.benchFootprint = async function () {
    const entries = await this.benchStorage.list();
    const encoder = new TextEncoder();
    let bytes = 0;
    for (const [key, value] of entries) bytes += encoder.encode(key).length + encoder.encode(typeof value === 'string' ? value : JSON.stringify(value)).length;
    return { keys: entries.size, bytes, databaseSize: this.benchStorage.sql.databaseSize };
  };
  return Counted;
}

export const ConversationObject = counted(worker.ConversationObject, 'conversation');
export const AccessObject = counted(worker.AccessObject, 'access');

function counts() {
  const result = {};
  for (const [kind, counted] of tallies) result[kind] = { ...counted, objects: counted.objects.size };
  return result;
}

export default {
  async fetch(request, env, ctx) {
    const url = new URL(request.url);
    if (url.pathname === '/__bench/footprint') {
      const stub = env.CONVERSATIONS.get(env.CONVERSATIONS.idFromName(url.searchParams.get('session') ?? ''));
      return Response.json(await stub.benchFootprint());
    }
    if (url.pathname === '/__bench/counts') {
      if (request.method === 'POST') tallies.clear();
      return Response.json(counts());
    }
    return app.fetch(request, env, ctx);
  },
};
`;
