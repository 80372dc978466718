/**
 * The chat commands a conversation answers itself on Workers. Who may use each, as on Node:
 * `/help`, `/status` and `/budget` anyone the bot talks with (they act on their own conversation only),
 * `/budget pause|resume` admins (see `worker-budget-command.ts`);
 * `/new` and `/profile NAME` anyone in a direct conversation, admins in a group; `/memory` anyone,
 * changing what is theirs to change (see `src/gateway/memory-command.ts`); `/reload` and
 * `/pair CODE` admins only (configured in `OPERATOR_ADMINS`). (`/stop` is taken before a message is queued: the
 * person being answered or an admin.) Any other `/command` goes to the agent as text.
 */
import type { Agent } from '../agent/agent.ts';
import { formatCost, formatTokens } from '../gateway/status-format.ts';
import { profileCommand, type ProfileChoice } from './conversation-profile.ts';

/** What the commands act on. */
export interface WorkerCommandContext {
  agent(): Promise<Agent>;
  /** Approves a pairing code (see `AccessObject.approve`). */
  approve(code: string): Promise<{ person: { platform: string; userId: string; name?: string } } | { group: { group: { platform: string; kind: string; id: string; title?: string } } } | { error: string }>;
  /** The conversation's profile and the choice of another. */
  profile: ProfileChoice;
  /** `/memory ARGS` for the asker (see `src/gateway/memory-command.ts`). */
  memory(args: string): Promise<string>;
  /** `/budget ARGS` for the asker: the spend against the caps here, or the kill switch (see `worker-budget-command.ts`). */
  budget(args: string): Promise<string>;
}

const help = [
  'Commands:',
  '/ask TEXT: say something to me (where a platform only sends commands, as Discord on Workers)',
  '/new: start a new conversation (the old one is kept)',
  '/status: the model and what this conversation has used',
  '/profile [NAME]: show or choose the persona (admins, in a group)',
  '/memory [mine | log | undo | forget N | keep N]: what I keep about you and this conversation, with sources',
  '/budget: what is spent today against the spending caps here (/budget pause | resume: stop or restart every model call, admins)',
  '/reload: read the profiles, skills and knowledge again (admins)',
  '/pair CODE: let the person (or group) with this pairing code talk with me (admins)',
].join('\n');

/** The reply to `command`, or undefined when it is not one of these (the agent answers it). */
export async function workerCommand(command: { name: string; args: string }, seat: { admin: boolean; scope: 'dm' | 'group' }, context: WorkerCommandContext): Promise<string | undefined> {
  const { admin } = seat;
  switch (command.name) {
    case 'help':
    case 'start':
      return help;
    case 'new':
      if (seat.scope === 'group' && !admin) return 'In a group, only an admin may start a new conversation.';
      await (await context.agent()).newSession();
      return 'Started a new conversation.';
    case 'status': {
      const agent = await context.agent();
      const stats = await agent.sessionStats();
      return [`Model: ${agent.providerName}:${agent.model}`, `This conversation: ${stats.calls} model calls, ${formatTokens(stats.usage.input + stats.usage.output)} tokens, ${formatCost(stats.cost.total)}`, 'Runtime: Cloudflare Workers'].join('\n');
    }
    case 'profile':
      return profileCommand(command.args, seat, context.profile);
    case 'memory':
      return context.memory(command.args);
    case 'budget':
      return context.budget(command.args);
    case 'reload': {
      if (!admin) return 'Only an admin of this bot may reload.';
      const report = (await (await context.agent()).reload()) as { changed?: string[]; problems?: { file: string; message: string }[] } | undefined;
      const changed = report?.changed?.length ? report.changed.join('\n') : 'nothing changed';
      const problems = report?.problems?.length ? `\nProblems:\n${report.problems.map((problem) => `${problem.file}: ${problem.message}`).join('\n')}` : '';
      return `Reloaded: ${changed}${problems}`;
    }
    case 'pair': {
      if (!admin) return 'Only an admin of this bot may approve pairing codes.';
      const code = command.args.trim();
      if (!code) return 'Usage: /pair CODE (the code the person was given)';
      const outcome = await context.approve(code);
      if ('error' in outcome) return outcome.error;
      if ('group' in outcome) {
        const { group } = outcome.group;
        return `Approved the group ${group.platform}:${group.kind}:${group.id}${group.title ? ` "${group.title}"` : ''}: I answer there now (the group is told).`;
      }
      const { person } = outcome;
      return `Approved: ${person.name ?? person.userId} (${person.platform}:${person.userId}) may talk with me now.`;
    }
    default:
      return undefined;
  }
}
