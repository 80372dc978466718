/**
 * The question a guardrail's approval asks, as text every platform shows: why, the tool, then its
 * arguments one per line as a person reads them (`command: git push --force`), never raw JSON. A
 * multi-line value (a patch, a file's content) shows its first lines and how many follow; a
 * nested value is written short. The web chat draws its own card from the same call.
 */
import { shorten } from '../core/shorten.ts';

/** Arguments shown before the rest is counted. */
const maxArguments = 8;
/** Lines of a multi-line value shown. */
const maxValueLines = 6;
/** Characters of one value shown. */
const maxValueChars = 300;

/** The question for `call`, asked because of `reason`. */
export function approvalQuestion(call: { name: string; arguments: unknown }, reason: string): string {
  const lines = [`Approval needed: ${reason}`, `Tool: \`${call.name}\``];
  const args = typeof call.arguments === 'object' && call.arguments !== null ? Object.entries(call.arguments as Record<string, unknown>) : [];
  for (const [name, value] of args.slice(0, maxArguments)) lines.push(...argumentLines(name, value));
  if (args.length > maxArguments) lines.push(`(${args.length - maxArguments} more arguments)`);
  return lines.join('\n');
}

function argumentLines(name: string, value: unknown): string[] {
  if (typeof value !== 'string') return [`${name}: \`${shorten(JSON.stringify(value) ?? String(value), maxValueChars)}\``];
  const valueLines = value.split('\n');
  if (valueLines.length === 1) return [`${name}: \`${shorten(value.replaceAll('`', "'"), maxValueChars)}\``];
  const shown = valueLines.slice(0, maxValueLines).map((line) => shorten(line, 200));
  const more = valueLines.length - shown.length;
  return [`${name}:`, '```', ...shown.map((line) => line.replaceAll('```', "'''")), '```', ...(more > 0 ? [`(${more} more lines)`] : [])];
}
