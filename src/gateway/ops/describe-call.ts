/**
 * A tool call in a few words for the log and the console: the command of a `shell` call, the
 * path of a file tool's, the URL of a fetch, else the arguments in short. Never the contents a
 * call writes (they may be long, and are the person's business).
 */
import { shorten } from '../../core/shorten.ts';

/** Arguments that say what a call acts on, in the order they are looked for. */
const telling = ['command', 'path', 'url', 'action', 'pattern', 'task', 'name'];

/** A one-line description of `call`, at most `max` characters. */
export function describeCall(call: { name: string; arguments: unknown }, max = 200): string {
  const args = call.arguments;
  if (typeof args !== 'object' || args === null) return call.name;
  const record = args as Record<string, unknown>;
  const parts = telling.filter((key) => typeof record[key] === 'string' && record[key] !== '').map((key) => `${key}: ${String(record[key])}`);
  const text = parts.length > 0 ? parts.join(', ') : Object.keys(record).join(', ');
  return shorten(text.replace(/\s+/g, ' ').trim(), max);
}
