/**
 * Reloading a profile's resources and the report people read afterwards: the chat's `/reload`
 * and the admin console's reload button both answer with {@link describeReload} and
 * {@link reloadNotes}, so the two never word the same reload differently.
 */
import type { ReloadReport } from '../runtime/profile-resources.ts';
import { commandList } from './commands.ts';
import type { Gateway } from './gateway.ts';
import { shadowedLines } from './skill-commands.ts';
import type { OpsEvents } from './ops/ops-events.ts';

/**
 * The report's lines: what loaded, what changed, and each problem with its file and line.
 *
 * @example
 * describeReload(report);
 * // 'Reloaded default: 5 skills, 0 knowledge files, 4 guardrails.\nNothing changed.\nProblem: /home/me/.operator/skills/x/SKILL.md:3: ...'
 */
export function describeReload(report: ReloadReport | undefined): string {
  if (!report) return 'Reloaded.';
  const lines = [`Reloaded ${report.profile}: ${report.loaded.skills} skills, ${report.loaded.knowledge} knowledge files, ${report.loaded.guardrails} guardrails.`];
  lines.push(...(report.changed.length > 0 ? report.changed.map((change) => `Changed ${change}`) : ['Nothing changed.']));
  for (const problem of report.problems) lines.push(`Problem: ${problem.file}${problem.line ? `:${problem.line}` : ''}: ${problem.message}`);
  return lines.join('\n');
}

/**
 * What a reload of `profile` adds to its report: skills a command of the same name hides, the
 * platforms whose command menus were registered again because their skills changed, and its MCP
 * servers' tools, listed again.
 */
export async function reloadNotes(gateway: Pick<Gateway, 'runtime' | 'menus' | 'adapters'>, profile: string): Promise<string[]> {
  const skills = (await gateway.runtime.resources(profile)).resources.skills;
  const lines = shadowedLines(skills, commandList.map((command) => command.name), profile);
  const updated = await gateway.menus.update(gateway.adapters.values());
  if (updated.length > 0) lines.push(`Command menus updated (${updated.join(', ')}).`);
  // The profile's MCP servers list their tools again (a server's list changes without a restart).
  const mcp = await gateway.runtime.mcp.refresh(profile);
  if (mcp) lines.push(mcp);
  return lines;
}

/** Reports a reload for the log (who asked, what changed, how many problems), wherever it was asked. */
export function reportReload(ops: OpsEvents, report: ReloadReport | undefined, by: string, place: { platform?: string; conversation?: string } = {}): void {
  if (report) ops.emit({ type: 'reload', ...place, by, profile: report.profile, changed: report.changed.length, problems: report.problems.length });
}

/**
 * Reloads `profile` as `/reload` in one of its conversations would: through a live conversation's
 * agent when there is one (its tools, guardrails and prompt are rebuilt), else the shared
 * resources alone; the other live conversations of the profile build their prompts anew. Resolves
 * to the report and its text, notes included.
 */
export async function reloadProfile(
  gateway: Pick<Gateway, 'runtime' | 'menus' | 'adapters' | 'conversations' | 'ops'>,
  profile: string,
  by = 'the admin console',
): Promise<{ report: ReloadReport; text: string }> {
  gateway.runtime.assertProfile(profile);
  const live = (await gateway.conversations.all()).filter((conversation) => conversation.profile === profile);
  const report = live[0]
    ? ((await live[0].agent.reload()) as ReloadReport)
    : await (await gateway.runtime.resources(profile)).resources.reload();
  for (const conversation of live.slice(1)) conversation.agent.invalidatePromptCache();
  reportReload(gateway.ops, report, by);
  const notes = await reloadNotes(gateway, profile).catch(() => []);
  return { report, text: [describeReload(report), ...notes].join('\n') };
}
