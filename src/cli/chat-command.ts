/**
 * `operator chat`: builds the runtime from the environment, resolves the terminal's profile and
 * runs the terminal chat on stdin/stdout, with `/profile` (which shows the persona) and `/reload`
 * on top of the chat's own commands.
 */
import type { Agent } from '../agent/agent.ts';
import type { BrowserConfig } from '../browser/browser-settings.ts';
import type { DesktopConfig } from '../desktop/desktop-settings.ts';
import { errorMessage } from '../core/errors.ts';
import { browserConfigOf, desktopConfigOf, loadConfig, mcpConfigOf, personIdProfilesOf, reasoningEffortsOf, requestOptionsByProfile } from '../gateway/config/index.ts';
import type { McpConfig } from '../tools/mcp/mcp-settings.ts';
import type { SubagentSettings } from '../agent/subagents/subagent-settings.ts';
import type { ReasoningEffort, RequestOptions } from '../llm/types.ts';
import { subagentStatus } from '../gateway/subagent-status.ts';
import { resolveProfile } from '../resources/profile-binding.ts';
import type { ReloadReport } from '../runtime/profile-resources.ts';
import { Runtime } from '../runtime/runtime.ts';
import { shadowedNote, shadowedSkills } from '../resources/skill-invocation.ts';
import { parseCommandArgs } from './cli-options.ts';
import { describePersona, readProfilePersona } from './profile-persona.ts';
import { TerminalApprovals } from './terminal-approvals.ts';
import { terminalCommandNames } from './terminal-skill-commands.ts';
import { runTerminalChat } from './terminal-chat.ts';
import { terminalTurns } from './terminal-turn.ts';
import type { TaintMode } from '../tools/turn-taint.ts';

/**
 * The browser, desktop, subagent and MCP settings of operator.json, and the profiles' reasoning efforts;
 * the defaults (browser on, desktop off, no thinking) when it cannot be read: the terminal chat
 * needs nothing else from it, and says what is wrong.
 */
function terminalToolConfig(): { browser?: BrowserConfig; desktop?: DesktopConfig; subagents?: SubagentSettings; reasoningEfforts?: Record<string, ReasoningEffort>; requestOptions?: Record<string, RequestOptions>; personIdProfiles?: string[]; taintMode?: TaintMode; mcp?: McpConfig } {
  try {
    const { config } = loadConfig(process.env);
    return { browser: browserConfigOf(config), desktop: desktopConfigOf(config), subagents: config.subagents, reasoningEfforts: reasoningEffortsOf(config), requestOptions: requestOptionsByProfile(config), personIdProfiles: personIdProfilesOf(config), taintMode: config.taint.mode, mcp: mcpConfigOf(config) };
  } catch (error) {
    process.stderr.write(`operator: the browser and desktop use their defaults, since the configuration cannot be used: ${errorMessage(error)}\n`);
    return {};
  }
}

/** The terminal is one person's direct conversation. */
const terminalPerson = 'local';

/** Runs `operator chat [--profile NAME] [--session KEY]`; resolves to the exit code. */
export async function runChatCommand(args: string[]): Promise<number> {
  const { values } = parseCommandArgs(args, { profile: { type: 'string' }, session: { type: 'string' } }, { positionals: false });
  const { taintMode = 'approve', ...toolConfig } = terminalToolConfig();
  const runtime = new Runtime({
    ...toolConfig,
    onReview: (outcome) => {
      if (outcome.status === 'failed') process.stderr.write(`operator: background memory review failed: ${outcome.error}\n`);
    },
  });
  try {
    const bindings = await runtime.bindings.bindings();
    const profile = values.profile ?? resolveProfile({ platform: 'terminal', conversationId: terminalPerson, senderId: terminalPerson, isDirect: true }, bindings).profile;
    const sessionKeyFor = (name: string) => values.session ?? (name === 'default' ? 'terminal:local' : `terminal:local:${name}`);
    let current = profile;
    const approvals = new TerminalApprovals();
    const { agent, report } = await runtime.createAgent({ sessionKey: sessionKeyFor(profile), profile, requestApproval: approvals.request });
    reportProblems(report);
    const persona = async (name: string) => describePersona(await readProfilePersona({ profile: name, home: runtime.home, builtin: runtime.builtin }));
    const shadowed = async (name: string) => shadowedSkills((await runtime.resources(name)).resources.skills, terminalCommandNames).map((skill) => shadowedNote(skill, name));
    for (const note of await shadowed(profile)) process.stderr.write(`operator: ${note}\n`);

    return await runTerminalChat({
      agent,
      input: process.stdin,
      output: process.stdout,
      env: process.env,
      signals: process,
      files: runtime.files,
      approvals,
      // The owner's seat, whose session is tainted once a tool read a web page (see `turn-taint.ts`).
      turn: terminalTurns(runtime.store, taintMode, `terminal:${terminalPerson}`),
      statusExtra: (active) => statusLines(current, active),
      skills: async () => (await runtime.resources(current)).resources.skills,
      commands: async (name, rest, active) => {
        if (name === 'reload') {
          const reloaded = (await active.reload()) as ReloadReport;
          const mcp = await runtime.mcp.refresh(current);
          return { text: [describeReload(reloaded), ...(await shadowed(current)).map((note) => `  note ${note}`), ...(mcp ? [mcp] : [])].join('\n') };
        }
        if (name !== 'profile') return undefined;
        const wanted = rest.trim();
        if (!wanted) return { text: [`  profile: ${current}`, ...(await persona(current))].join('\n') };
        try {
          const next = await runtime.createAgent({ sessionKey: sessionKeyFor(wanted), profile: wanted, requestApproval: approvals.request });
          await runtime.bindings.bindPerson(`terminal:${terminalPerson}`, wanted === 'default' ? undefined : wanted);
          current = wanted;
          reportProblems(next.report);
          const lines = [`  (profile ${wanted}; its own session continues from where it was)`, ...(await persona(wanted))];
          return { text: lines.join('\n'), agent: next.agent };
        } catch (error) {
          return { text: `  error: ${errorMessage(error)}` };
        }
      },
    });
  } finally {
    await runtime.close();
  }
}

function reportProblems(report: ReloadReport): void {
  for (const problem of report.problems) {
    process.stderr.write(`operator: ${problem.file}${problem.line ? `:${problem.line}` : ''}: ${problem.message}\n`);
  }
}

async function statusLines(profile: string, agent: Agent): Promise<string[]> {
  const reviews = agent.reviewTotals;
  const lines = [`profile  ${profile}`];
  if (reviews.reviews > 0) {
    lines.push(`reviews  ${reviews.reviews}: ${reviews.usage.input + reviews.usage.cacheRead} in (${reviews.usage.cacheRead} cached), ${reviews.usage.output} out, $${reviews.cost.total.toFixed(4)}`);
  }
  if (agent.options.subagents) lines.push(...subagentStatus(await agent.options.subagents.list()));
  for (const cut of agent.promptTruncations) lines.push(`prompt   cut: ${cut}`);
  return lines;
}

/** The `/reload` answer: counts, changes and problems with file and line. */
export function describeReload(report: ReloadReport): string {
  const { loaded } = report;
  const lines = [
    `  reloaded profile ${report.profile}: ${loaded.skills} skills, ${loaded.knowledge} knowledge files, ${loaded.guardrails} guardrails, ${loaded.extensions} extensions, ${loaded.rulesFiles} rules files`,
  ];
  lines.push(...(report.changed.length > 0 ? report.changed.map((change) => `  changed ${change}`) : ['  nothing changed']));
  for (const problem of report.problems) lines.push(`  problem ${problem.file}${problem.line ? `:${problem.line}` : ''}: ${problem.message}`);
  return lines.join('\n');
}
