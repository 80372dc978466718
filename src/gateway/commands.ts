/**
 * Chat commands. Every command is answered by the gateway itself and never reaches the model; an
 * admin-only command asked by someone else gets a clear refusal and does nothing. In groups, a
 * command that changes the conversation for everyone (`/new`, `/model NAME`, `/think`,
 * `/compact`, ...) is an admin's; `/stop`, `/approve` and `/deny` belong to the person whose turn
 * it is, or an admin.
 */
import type { Agent } from '../agent/agent.ts';
import type { ChannelAdapter, CommandInfo, InboundMessage, OutboundMessage } from '../channels/types.ts';
import { diffCommand, undoCommand } from './change-commands.ts';
import { subagentStatus } from './subagent-status.ts';
import { formatCost, formatCount, formatTokens, plural } from './status-format.ts';
import { answerGateCommand, listRunsCommand, runPipelineCommand } from './pipelines/pipeline-commands.ts';
import { errorMessage } from '../core/errors.ts';
import { answerApproval } from './approvals.ts';
import type { ReloadReport } from '../runtime/profile-resources.ts';
import { modelChoiceKey, parseThinkingChoice, thinkingChoiceKey } from './conversations.ts';
import type { Gateway } from './gateway.ts';
import { formatAddress } from './known-conversations.ts';
import { describeJobs } from './schedule-tool.ts';
import { jobLabel, ScheduleError } from './scheduler/index.ts';
import { skillHelpLines, skillsFor } from './skill-commands.ts';
import { describeReload, reloadNotes, reportReload } from './profile-reload.ts';
import { describeGroup } from './access/pairing-group.ts';
import { memoryCommand, memoryViews } from './memory-command.ts';
import { configCommand } from './config-command.ts';
import { configParts } from './config-parts.ts';
import { budgetCommand, budgetReport } from './budget/budget-command.ts';
import { mcpCommand } from './mcp-command.ts';
import { lspReport } from './lsp-command.ts';
import type { TurnContext } from '../tools/tool.ts';

/** What a command is asked with. */
export interface CommandContext {
  gateway: Gateway;
  adapter: ChannelAdapter;
  message: InboundMessage;
  admin: boolean;
  args: string;
}

/** A command's answer: its text, or text with files. */
export type CommandReply = string | Pick<OutboundMessage, 'text' | 'files' | 'buttons'>;

/** One chat command. */
export interface Command extends CommandInfo {
  adminOnly?: boolean;
  /** In a group only an admin may use it (it changes the conversation for everyone there). */
  groupAdminOnly?: boolean;
  run(context: CommandContext): Promise<CommandReply>;
}

const commands: Command[] = [
  { name: 'help', description: 'What I can do and the commands', run: async ({ gateway, message }) => helpText(await skillHelp(gateway, message)) },
  { name: 'new', description: 'Start a fresh conversation', groupAdminOnly: true, run: (context) => fresh(context) },
  { name: 'reset', description: 'Same as /new', groupAdminOnly: true, run: (context) => fresh(context) },
  {
    name: 'stop',
    description: 'Stop the current answer',
    async run({ gateway, message, admin }) {
      const conversation = await gateway.conversations.peek(message.sessionKey);
      if (!conversation) return 'Nothing is running.';
      if (conversation.agent.phase !== 'turn') {
        // Stopping also means the browser: it stops whatever a page is doing.
        return (await closeBrowser(conversation.agent)) ? 'Nothing is running; closed the browser.' : 'Nothing is running.';
      }
      if (!admin && conversation.turnSender !== message.sender.id) return 'Only the person being answered, or an admin, can stop this answer.';
      conversation.agent.abort();
      const children = (await conversation.agent.options.subagents?.stopAll()) ?? 0;
      const browser = await closeBrowser(conversation.agent);
      return `Stopping${children > 0 ? ` (and ${children} subagent${children === 1 ? '' : 's'})` : ''}${browser ? ', and closed the browser' : ''}.`;
    },
  },
  {
    name: 'status',
    description: 'Model, profile, context, tokens, cost, queue',
    async run({ gateway, message, admin }) {
      const conversation = await gateway.conversations.get(message);
      const { agent } = conversation;
      const stats = await agent.sessionStats();
      const context = await agent.getContextUsage();
      const reviews = agent.reviewTotals;
      const failures = await gateway.ledger.recentFailures(message.sessionKey);
      const lines = [
        `Model: ${agent.model}`,
        `Profile: ${conversation.profile}`,
        `Thinking: ${agent.options.reasoningEffort ?? 'off'}`,
        `Tools granted here (/config): ${gateway.grants.chatGroups(message.address.platform, message.address.conversationId).join(', ') || 'none'}`,
        `Context: ${formatCount(context.tokens)} of ${formatTokens(context.contextWindow)} (${(context.fraction * 100).toFixed(1)}%)`,
        `Tokens: ${formatCount(stats.usage.input)} in, ${formatCount(stats.usage.output)} out, ${formatCount(stats.usage.cacheRead)} from cache; cost ${formatCost(stats.cost.total)} over ${formatCount(stats.calls)} ${plural(stats.calls, 'call')}`,
        `Queue: ${agent.phase === 'turn' ? 'answering' : 'idle'}${agent.hasPendingMessages() ? ', messages waiting' : ''}`,
      ];
      if (reviews.reviews > 0) lines.push(`Memory reviews: ${formatCount(reviews.reviews)}, ${formatCount(reviews.usage.input + reviews.usage.cacheRead)} tokens in, ${formatCost(reviews.cost.total)}`);
      if (agent.options.subagents) lines.push(...subagentStatus(await agent.options.subagents.list()));
      for (const cut of agent.promptTruncations) lines.push(`Prompt cut: ${cut}`);
      if (failures.length > 0) lines.push(`Undelivered replies: ${formatCount(failures.length)} (last: ${failures.at(-1)!.error})`);
      lines.push(await budgetReport(gateway.spending, spendingSeat(message, admin, conversation.profile)));
      return lines.join('\n');
    },
  },
  {
    name: 'compact',
    description: 'Summarize older messages now',
    groupAdminOnly: true,
    async run({ gateway, message }) {
      const conversation = await gateway.conversations.get(message);
      const entry = await gateway.queue.run(message.sessionKey, (slot) => conversation.agent.runCompaction(undefined, { slot }));
      return entry ? `Summarized ${formatTokens(entry.tokensBefore)} of earlier conversation.` : 'Nothing to summarize yet.';
    },
  },
  {
    name: 'model',
    description: 'Show or choose the model of this conversation',
    async run({ gateway, message, admin, args }) {
      const conversation = await gateway.conversations.get(message);
      const wanted = args.trim();
      if (!wanted) return `Model: ${conversation.agent.model}`;
      if (message.scope === 'group' && !admin) return 'Only an admin can choose the model of a group.';
      const client = gateway.runtime.clientFor(wanted);
      await gateway.runtime.store.set(modelChoiceKey(message.sessionKey), wanted);
      await gateway.queue.run(message.sessionKey, () => gateway.conversations.forget(message.sessionKey));
      return `Model is now ${client.model}${client.info ? '' : ' (not in the catalog: no prices or limits known)'}.`;
    },
  },
  {
    name: 'think',
    description: 'Show or set how hard the model thinks: low, medium, high, off',
    groupAdminOnly: true,
    run: (context) => thinkCommand(context),
  },
  {
    name: 'profile',
    description: 'Show or choose the persona',
    async run({ gateway, message, admin, args }) {
      const conversation = await gateway.conversations.get(message);
      const wanted = args.trim();
      if (!wanted) return `Profile: ${conversation.profile}`;
      gateway.runtime.assertProfile(wanted);
      if (message.scope === 'dm') {
        await gateway.runtime.bindings.bindPerson(`${message.address.platform}:${message.sender.id}`, wanted === 'default' ? undefined : wanted);
      } else {
        if (!admin) return 'Only an admin can choose the profile of a group.';
        const key = `${message.address.platform}:${message.address.conversationId}${message.address.threadId ? `:${message.address.threadId}` : ''}`;
        await gateway.runtime.bindings.bindChannel(key, wanted === 'default' ? undefined : wanted);
      }
      await gateway.queue.run(message.sessionKey, () => gateway.conversations.forget(message.sessionKey));
      return `Profile is now ${wanted}.`;
    },
  },
  {
    name: 'schedule',
    description: 'Scheduled jobs here: list, cancel ID, pause ID, resume ID',
    run: (context) => scheduleCommand(context),
  },
  {
    name: 'config',
    description: "This conversation's settings: profile, model, thinking, tools granted here",
    async run({ gateway, message, admin, args }) {
      const conversation = await gateway.conversations.get(message);
      return configCommand(args, configParts(gateway, conversation, { sessionKey: message.sessionKey, address: message.address, senderId: message.sender.id, admin }));
    },
  },
  {
    name: 'budget',
    description: 'What is spent today against the spending caps here; pause, resume (admins)',
    run: async ({ gateway, message, admin, args }) => budgetCommand(gateway.spending, args, spendingSeat(message, admin, (await gateway.conversations.get(message)).profile)),
  },
  {
    name: 'memory',
    description: 'What I keep about you and this conversation: mine, log, undo, forget N, keep N',
    run: (context) => memoryCommandOf(context),
  },
  {
    name: 'mcp',
    description: "The MCP servers here: state and tools (for those who may use them, and admins)",
    async run({ gateway, message, admin }) {
      const { platform, conversationId, threadId } = message.address;
      const seat = { platform, scope: message.scope, conversationId, threadId, senderId: message.sender.id, admin };
      return mcpCommand(gateway, seat, (await gateway.conversations.get(message)).profile);
    },
  },
  undoCommand,
  diffCommand,
  runPipelineCommand,
  listRunsCommand,
  answerGateCommand,
  { name: 'approve', description: 'Approve the waiting tool call (hour: its tool, here, for an hour)', run: (context) => answerApprovalCommand(context, true) },
  { name: 'deny', description: 'Deny the waiting tool call', run: (context) => answerApprovalCommand(context, false) },
  {
    name: 'pair',
    description: 'Approve a pairing code (admins)',
    adminOnly: true,
    async run({ gateway, args }) {
      const approved = await gateway.access.approvePairing(args.trim());
      // Told at once rather than at the next sweep (which would find the notice just the same).
      await gateway.notifier.sweep();
      if ('group' in approved) return `Approved the group ${describeGroup(approved.group)}. I'm letting the group know I answer there now.`;
      return `Paired: ${approved.platform}:${approved.userId}${approved.name ? ` (${approved.name})` : ''}. I'm letting them know they can talk to me now.`;
    },
  },
  {
    name: 'lsp',
    description: "The code tool's language servers (admins)",
    adminOnly: true,
    run: async ({ gateway }) => lspReport(await gateway.runtime.codeServers()),
  },
  {
    name: 'reload',
    description: 'Re-read profiles, skills, knowledge, rules (admins)',
    adminOnly: true,
    async run({ gateway, message }) {
      const conversation = await gateway.conversations.get(message);
      // Worded by profile-reload.ts, which the admin console's reload shares.
      const report = (await conversation.agent.reload()) as ReloadReport | undefined;
      reportReload(gateway.ops, report, `${message.address.platform}:${message.sender.id}`, { platform: message.address.platform, conversation: message.sessionKey });
      return describeReload(report);
    },
  },
];

/**
 * The gateway's own commands, for platform menus (which add the skill commands after them: see
 * `command-menus.ts`). A skill of the same name as one of these is not a command: these win.
 */
export const commandList: CommandInfo[] = commands.map(({ name, description }) => ({ name, description }));

/** True when `message` is one of the gateway's own commands (which never reach the model). */
export function isGatewayCommand(message: InboundMessage): boolean {
  return findCommand(message) !== undefined;
}

function findCommand(message: InboundMessage): Command | undefined {
  return message.command ? commands.find((candidate) => candidate.name === message.command!.name) : undefined;
}

/**
 * Answers `message` if it is one of the gateway's commands; returns false for anything else
 * (e.g. a skill's `/name`, which becomes a turn: see `skill-commands.ts`). `/help` lists the
 * skill commands of the conversation's profile too; `/reload` also names skills a command hides
 * and registers the command menus again if their skills changed.
 */
export async function handleCommand(gateway: Gateway, adapter: ChannelAdapter, message: InboundMessage, admin: boolean): Promise<boolean> {
  const command = findCommand(message);
  if (!command) return false;
  let reply: CommandReply;
  if (command.adminOnly && !admin) reply = `/${command.name} is for admins only.`;
  else if (command.groupAdminOnly && message.scope === 'group' && !admin) reply = `In a group, /${command.name} is for admins only: it changes the conversation for everyone here.`;
  else {
    try {
      reply = await command.run({ gateway, adapter, message, admin, args: message.command?.args ?? '' });
      if (command.name === 'reload' && typeof reply === 'string') reply = [reply, ...(await afterReload(gateway, message).catch(() => []))].join('\n');
    } catch (error) {
      reply = `/${command.name} failed: ${errorMessage(error)}`;
    }
  }
  const answer = typeof reply === 'string' ? { text: reply } : reply;
  await adapter.send(message.address, { ...answer, replyTo: message.scope === 'group' ? message.id : undefined }).catch((error: unknown) => gateway.log(`${message.sessionKey}: command reply not sent: ${errorMessage(error)}`));
  return true;
}

async function fresh({ gateway, message }: CommandContext): Promise<string> {
  const conversation = await gateway.conversations.get(message);
  await gateway.queue.run(message.sessionKey, () => conversation.agent.newSession());
  await conversation.agent.closeSurfaces();
  await conversation.agent.options.subagents?.closeAll();
  return 'Started a fresh conversation.';
}

/** Closes the conversation's browser; whether one was open. */
async function closeBrowser(agent: Agent): Promise<boolean> {
  return (await agent.closeSurfaces()).includes('browser');
}

async function answerApprovalCommand({ gateway, message, admin, args }: CommandContext, allowed: boolean): Promise<string> {
  const words = args.trim().split(/\s+/).filter((word) => word !== '');
  const forAnHour = allowed && words[0] === 'hour';
  // `/approve [hour] ID`: a copy of another conversation's question, in an admin's direct messages.
  const id = words.find((word) => /^[0-9a-f]{8}$/.test(word));
  if (id !== undefined) return gateway.approvals.desk.answer(id, allowed, forAnHour, { id: message.sender.id, admin });
  return answerApproval(await gateway.conversations.peek(message.sessionKey), allowed, message.sender.id, admin, { forAnHour });
}

/**
 * `/think [low | medium | high | off | default]`: shows or sets the conversation's reasoning
 * effort, kept in the store like `/model`'s choice (`default` forgets it: the profile's default
 * applies again). A change replaces the conversation's agent once a running turn is over, as
 * `/model`'s does.
 */
async function thinkCommand({ gateway, message, args }: CommandContext): Promise<string> {
  const conversation = await gateway.conversations.get(message);
  const key = thinkingChoiceKey(message.sessionKey);
  const wanted = args.trim().toLowerCase();
  const profileDefault = gateway.runtime.reasoningEffortOf(conversation.profile) ?? 'off';
  const { agent } = conversation;
  if (!wanted) {
    const chosen = parseThinkingChoice(await gateway.runtime.store.get(key));
    const source = chosen ? "chosen here; /think default for the profile's" : `the default of profile ${conversation.profile}`;
    return `Thinking: ${agent.options.reasoningEffort ?? 'off'} (${source}).${cannotReason(agent, agent.options.reasoningEffort ?? 'off')}`;
  }
  const choice = wanted === 'default' ? undefined : parseThinkingChoice(wanted);
  if (wanted !== 'default' && !choice) return "Usage: /think low | medium | high | off, or /think default for the profile's.";
  if (choice) await gateway.runtime.store.set(key, choice);
  else await gateway.runtime.store.delete(key);
  await gateway.queue.run(message.sessionKey, () => gateway.conversations.forget(message.sessionKey));
  const now = choice ?? profileDefault;
  return `${choice ? `Thinking is now ${now}` : `Thinking follows profile ${conversation.profile} again: ${now}`}.${cannotReason(agent, now)}`;
}

/** The seat `/budget` and `/status` report spending for: the sender, here, with the conversation's profile. */
function spendingSeat(message: InboundMessage, admin: boolean, profile: string): TurnContext {
  return { sessionKey: message.sessionKey, platform: message.address.platform, senderId: message.sender.id, admin, scheduled: false, profile };
}

/** `/memory ...` in `context`'s conversation, from its sender's seat (see `memory-command.ts`). */
async function memoryCommandOf({ gateway, message, admin, args }: CommandContext): Promise<string> {
  const conversation = await gateway.conversations.get(message);
  const { resources } = await gateway.runtime.resources(conversation.profile);
  const { platform, conversationId, threadId } = message.address;
  const owner = gateway.grants.seatTools({ platform, scope: message.scope, conversationId, threadId, senderId: message.sender.id, admin }).owner;
  const person = `${platform}:${message.sender.id}`;
  const direct = message.scope === 'dm';
  const profile = { memoryPath: resources.memoryPath, userPath: resources.userPath, limits: resources.memoryLimits };
  const views = memoryViews({ owner, admin, direct, sessionKey: message.sessionKey, person, profile, place: gateway.runtime.conversationMemory });
  const reply = await memoryCommand(args, views, { person, name: message.sender.name, conversation: message.sessionKey, direct });
  // A change shows in the conversation's next prompt (the speaker's notes are read at each call anyway).
  if (/^\s*(forget|keep|undo)\b/.test(args)) conversation.agent.invalidatePromptCache(message.sessionKey);
  return reply;
}

/** A note when the conversation's model cannot use a reasoning effort (per the catalog). */
function cannotReason(agent: Agent, effort: string): string {
  return effort !== 'off' && agent.options.modelInfo?.reasoning === false ? ` ${agent.model} does not reason, so this applies once the conversation uses a model that does.` : '';
}

/** `/schedule [list [all]] | cancel ID | pause ID | resume ID`: the creator or an admin acts on a job. */
async function scheduleCommand({ gateway, message, admin, args }: CommandContext): Promise<string> {
  const [verb = 'list', id, ...extra] = args.trim().split(/\s+/).filter((word) => word !== '');
  const { scheduler } = gateway;
  if (verb === 'list' && (id === undefined || (id === 'all' && extra.length === 0))) {
    if (id === 'all' && !admin) return 'Only an admin can list the jobs of every conversation.';
    const jobs = id === 'all' ? scheduler.list() : scheduler.list({ sessionKey: message.sessionKey });
    const spend = await gateway.spending.jobs.describeAll(jobs);
    if (id === 'all') return describeJobs(scheduler, jobs, true, spend);
    // How this conversation is named to `operator schedule add --to`, which people rarely know otherwise.
    return `${describeJobs(scheduler, jobs, false, spend)}\n\nThis conversation is ${formatAddress(message.address)} (for operator schedule add --to).`;
  }
  if ((verb !== 'cancel' && verb !== 'pause' && verb !== 'resume') || id === undefined || extra.length > 0) {
    return 'Usage: /schedule [list | list all | cancel ID | pause ID | resume ID]';
  }
  try {
    const job = await scheduler[verb](id, { id: message.sender.id, name: message.sender.name, admin, fromJob: false });
    const next = verb === 'resume' ? scheduler.nextRunOf(job) : undefined;
    return `${{ cancel: 'Cancelled', pause: 'Paused', resume: 'Resumed' }[verb]} job ${jobLabel(job)}.${next ? ` Next run ${next.words}.` : ''}`;
  } catch (error) {
    if (error instanceof ScheduleError) return error.message;
    throw error;
  }
}

/** The `/help` answer: the gateway's commands, then `skillLines` (the skill commands, if any). */
function helpText(skillLines: readonly string[] = []): string {
  return ['I answer messages here; in groups, mention me or reply to me.', '', ...commands.map((command) => `/${command.name} — ${command.description}`), ...skillLines].join('\n');
}

/** `/help`'s lines for the skill commands of `message`'s conversation (none when its profile cannot load). */
async function skillHelp(gateway: Gateway, message: InboundMessage): Promise<string[]> {
  const skills = await skillsFor(gateway, message).catch(() => []);
  return skillHelpLines(skills, commandList.map((command) => command.name), message.address.platform);
}

/** What `/reload` adds: skills hidden by a command of the same name, and command menus registered again. */
async function afterReload(gateway: Gateway, message: InboundMessage): Promise<string[]> {
  const conversation = await gateway.conversations.get(message);
  return reloadNotes(gateway, conversation.profile);
}
