/**
 * Identifiers of sessions and entries.
 */
import { randomBytes } from 'node:crypto';

/**
 * A short random entry id (8 hex digits). Unique within a session only by checking: callers
 * draw again when the id is taken.
 */
export function createEntryId(): string {
  return randomBytes(4).toString('hex');
}

/** A session id that sorts by creation time: base-36 milliseconds, a dash and 8 random hex digits. */
export function createSessionId(now: number = Date.now()): string {
  return `${now.toString(36)}-${randomBytes(4).toString('hex')}`;
}

const SESSION_ID = /^[A-Za-z0-9_-]{1,128}$/;

/** Throws unless `id` can name a session (letters, digits, `-` and `_`; it becomes a store key segment). */
export function assertValidSessionId(id: string): void {
  if (typeof id !== 'string' || !SESSION_ID.test(id)) throw new TypeError(`Invalid session id ${JSON.stringify(id)}`);
}
