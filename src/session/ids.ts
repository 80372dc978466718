/**
 * Identifiers of sessions and entries.
 */
import { randomBytes } from 'node:crypto';

/**
 * A short random entry id (8 hex digits). Unique within a session only by checking: callers
 * draw again when the id is taken.
 */
export function createEntryId(): string {
  return randomHex4();
}

// Random bytes are drawn 4 KiB at a time: one `randomBytes` call per id costs a system call and
// showed up as a visible share of a turn's own time.
let pool = Buffer.alloc(0);
let offset = 0;

function randomHex4(): string {
  if (offset + 4 > pool.length) {
    pool = randomBytes(4096);
    offset = 0;
  }
  const hex = pool.toString('hex', offset, offset + 4);
  offset += 4;
  return hex;
}

/** A session id that sorts by creation time: base-36 milliseconds, a dash and 8 random hex digits. */
export function createSessionId(now: number = Date.now()): string {
  return `${now.toString(36)}-${randomHex4()}`;
}

const SESSION_ID = /^[A-Za-z0-9_-]{1,128}$/;

/** Throws unless `id` can name a session (letters, digits, `-` and `_`; it becomes a store key segment). */
export function assertValidSessionId(id: string): void {
  if (typeof id !== 'string' || !SESSION_ID.test(id)) throw new TypeError(`Invalid session id ${JSON.stringify(id)}`);
}
