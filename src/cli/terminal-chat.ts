/**
 * The terminal channel: a person types, the agent's answer streams back rendered from Markdown,
 * tool calls show as one-line summaries (a failed one with its error's first line). Slash commands
 * the chat does not know are refused, never sent to the model. Ctrl+C aborts a running turn; a
 * second Ctrl+C in a row exits.
 */
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import type { Agent } from '../agent/agent.ts';
import type { AgentEvent } from '../agent/agent-events.ts';
import { errorMessage } from '../core/errors.ts';
import { reasoningEfforts } from '../llm/types.ts';
import { formatStatus, summarizeToolCall } from './chat-format.ts';
import { messageText, parseSlashCommand, unknownCommandText } from './slash-command.ts';
import type { TerminalApprovals } from './terminal-approvals.ts';
import { terminalDisplay } from './terminal-display.ts';
import { renderTerminalMarkdown } from './terminal-markdown.ts';
import { TerminalMarkdownStream } from './terminal-markdown-stream.ts';
import { terminalCommandNames, terminalSkillHelp, terminalSkillNames, terminalSkillRun } from './terminal-skill-commands.ts';
import { terminalStyle } from './terminal-style.ts';
import { toolErrorLine } from './tool-error-line.ts';
import type { Skill } from '../resources/types.ts';
import { diffCommand, undoCommand } from '../tools/changes/changes-command.ts';
import type { FileAccess } from '../tools/files/file-access.ts';
import { defaultFileAccess, filesIn, localKey } from '../tools/files/turn-files.ts';
import type { TurnContext } from '../tools/tool.ts';

/** Where the chat reads, writes and hears Ctrl+C. */
export interface TerminalChatOptions {
  agent: Agent;
  /**
   * Further slash commands (`/profile`, `/reload`, ...): called with the command name and the rest
   * of the line; resolves to the text to show (and, to switch agents, the new agent), or undefined
   * when the command is not theirs.
   */
  commands?: (name: string, args: string, agent: Agent) => Promise<{ text: string; agent?: Agent } | undefined>;
  /** Approval questions asked through this chat (the agent's `requestApproval`). */
  approvals?: TerminalApprovals;
  /** The context of each turn (the owner's seat and what untrusted content its session holds); unset: none. */
  turn?: (agent: Agent) => Promise<TurnContext>;
  /**
   * The skills of the agent's profile: each user-invocable one is a command, `/name args`, that
   * runs a turn with the skill (the chat's own commands win over a skill of the same name).
   */
  skills?: (agent: Agent) => Promise<readonly Skill[]>;
  /** Extra lines for `/status` (profile, reviews, truncations). */
  statusExtra?: (agent: Agent) => Promise<string[]> | string[];
  input: Readable;
  /** Where the chat writes; colours and in-place rendering only on a terminal (see `terminal-display.ts`). */
  output: Writable;
  /** Read for NO_COLOR and TERM; default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * Where `/undo` and `/diff` read and write files: the runtime's file workers (the terminal's
   * view is the working directory). Default: an unconfined worker.
   */
  files?: FileAccess;
  /** Emits `SIGINT` (the process, in real use). */
  signals: { on(event: 'SIGINT', listener: () => void): unknown; off(event: 'SIGINT', listener: () => void): unknown };
}

const helpText = [
  '/new            start a fresh session',
  '/compact        summarize older messages now',
  '/status         model, tokens, cost, context use and what the prompt had to cut',
  '/profile [NAME] show the persona, or switch this terminal to another one',
  '/think [EFFORT] show or set how hard the model thinks: low, medium, high or off',
  '/reload         re-read profiles, skills, knowledge, rules, guardrails and extensions',
  "/undo           undo the agent's last file change; /undo turn, /undo file PATH; add force to overwrite",
  '/diff           the file changes that stand, as a diff',
  '/exit           quit (or Ctrl+C twice, Ctrl+D)',
  '',
  'Any other /word is refused as an unknown command; start a line with // to send it as text (//tmp is full).',
].join('\n');

/** Runs the chat until the input ends or the person exits; resolves to the exit code. */
export async function runTerminalChat(options: TerminalChatOptions): Promise<number> {
  const { output } = options;
  let agent = options.agent;
  let atLineStart = true;
  const write = (text: string) => {
    if (text === '') return;
    output.write(text);
    atLineStart = text.endsWith('\n');
  };
  const display = terminalDisplay(output, options.env ?? process.env);
  const style = terminalStyle(display.color);
  const answer = new TerminalMarkdownStream({ write, render: (markdown) => renderTerminalMarkdown(markdown, style), screen: display.screen });
  const lines = createInterface({ input: options.input, terminal: false });
  let busy = false;
  let interrupts = 0;
  let finish!: (code: number) => void;
  const done = new Promise<number>((resolve) => (finish = resolve));

  let unsubscribe = agent.subscribe((event) => render(event));
  function render(event: AgentEvent): void {
    switch (event.type) {
      case 'text_delta':
        answer.push(event.text);
        break;
      case 'message_end':
        if (event.message.role === 'assistant') answer.finish();
        break;
      case 'tool_execution_start':
        newline();
        write(`  > ${summarizeToolCall(event.call)}\n`);
        break;
      case 'tool_execution_end':
        if (event.isError) write(`  ! ${event.call.name}: ${toolErrorLine(event.output)}\n`);
        break;
      case 'retry_start':
        newline();
        write(`  (model call failed: ${event.error.message}; retry ${event.attempt}/${event.maxRetries} in ${Math.round(event.delayMs / 1000)} s)\n`);
        break;
      case 'session_compact':
        newline();
        write('  (older messages summarized)\n');
        break;
      case 'loop_detection':
        newline();
        write(`  (the agent seems to repeat ${event.pattern.tools.join(', ')})\n`);
        break;
    }
  }
  /** Ends the answer's text (writing what is left of it) and starts a fresh line. */
  function newline(): void {
    answer.finish();
    if (!atLineStart) write('\n');
  }

  const onInterrupt = () => {
    interrupts++;
    if (busy && interrupts === 1) {
      agent.abort();
      newline();
      write('  (aborted; Ctrl+C again to exit)\n');
      return;
    }
    if (interrupts >= 2) {
      newline();
      finish(130);
      return;
    }
    newline();
    write('  (Ctrl+C again to exit)\n');
  };
  options.signals.on('SIGINT', onInterrupt);

  const queue: string[] = [];
  async function handle(line: string): Promise<void> {
    if (!line.trim()) return;
    const command = parseSlashCommand(line);
    if (command) return runCommand(command.name, command.args);
    await runTurn(messageText(line)!);
  }

  async function runCommand(name: string, args: string): Promise<void> {
    switch (name) {
      case 'exit':
      case 'quit':
        return finish(0);
      case 'help':
        return void write(`${[helpText, ...terminalSkillHelp(await skills())].join('\n')}\n`);
      case 'new': {
        const tree = await agent.newSession();
        await agent.closeSurfaces();
        await agent.options.subagents?.closeAll();
        return void write(`  (new session ${tree.id})\n`);
      }
      case 'status': {
        const extra = (await options.statusExtra?.(agent)) ?? [];
        const status = formatStatus(agent.model, (await agent.session()).id, await agent.sessionStats(), await agent.getContextUsage());
        return void write(`${[status, ...extra].join('\n')}\n`);
      }
      case 'undo':
      case 'diff': {
        const log = agent.options.changes;
        if (!log) return void write('  (this chat keeps no file changes)\n');
        const cwd = agent.options.cwd ?? process.cwd();
        const files = filesIn(options.files ?? defaultFileAccess(), localKey, { cwd, roots: [cwd], writable: true, hidden: [] });
        const text = name === 'diff' ? (await diffCommand(log, cwd, { files })).text : await undoCommand(log, args, cwd, files);
        return void write(`${text}\n`);
      }
      case 'think':
        return void write(`${think(agent, args)}\n`);
      case 'compact': {
        const entry = await agent.runCompaction();
        return void write(entry ? `  (compacted: ${entry.tokensBefore} tokens summarized)\n` : '  (nothing to compact yet)\n');
      }
    }
    const handled = await options.commands?.(name, args, agent);
    if (handled) {
      if (handled.agent && handled.agent !== agent) {
        unsubscribe();
        agent = handled.agent;
        unsubscribe = agent.subscribe((event) => render(event));
      }
      return void write(`${handled.text}\n`);
    }
    const available = await skills();
    const run = terminalSkillRun({ name, args }, available);
    if (!run) return void write(`${unknownCommandText(name, [...terminalCommandNames, ...terminalSkillNames(available)])}\n`);
    write(`  (running the skill ${run.skill.name})\n`);
    await runTurn(run.input);
  }

  async function skills(): Promise<readonly Skill[]> {
    return (await options.skills?.(agent)) ?? [];
  }

  async function runTurn(input: string): Promise<void> {
    busy = true;
    try {
      const result = await agent.invoke(input, { turn: await options.turn?.(agent) });
      newline();
      if (result.aborted) write('  (turn aborted)\n');
    } finally {
      busy = false;
    }
  }

  let draining = false;
  async function drain(): Promise<void> {
    if (draining) return;
    draining = true;
    while (queue.length > 0) {
      const line = queue.shift()!;
      try {
        await handle(line);
      } catch (error) {
        newline();
        write(`  error: ${errorMessage(error)}\n`);
      }
    }
    draining = false;
    if (inputClosed) finish(0);
  }

  let inputClosed = false;
  options.approvals?.attach(write);
  lines.on('line', (line) => {
    interrupts = 0;
    // The terminal echoed what was typed where the answer was streaming.
    answer.interrupt();
    if (options.approvals?.answer(line)) {
      atLineStart = true;
      return;
    }
    const message = line.trim() ? messageText(line) : undefined;
    if (busy && message !== undefined) {
      // Typed while the agent works: answered right after the current turn.
      agent.followUp(message);
      write('  (queued)\n');
      return;
    }
    queue.push(line);
    void drain();
  });
  lines.on('close', () => {
    inputClosed = true;
    if (!draining) finish(0);
  });

  const code = await done;
  options.signals.off('SIGINT', onInterrupt);
  unsubscribe();
  lines.close();
  if (busy) {
    agent.abort();
    await agent.waitForIdle();
  }
  return code;
}

/**
 * `/think [low | medium | high | off]`: shows or sets the reasoning effort of this chat's agent,
 * from its next model call on (the profile's `reasoningEffort` in operator.json is where it
 * starts; not kept after the chat ends).
 */
function think(agent: Agent, args: string): string {
  const wanted = args.trim().toLowerCase();
  const current = agent.options.reasoningEffort ?? 'off';
  const note = (effort: string) => (effort !== 'off' && agent.options.modelInfo?.reasoning === false ? `; ${agent.model} does not reason, so it has no effect` : '');
  if (!wanted) return `  thinking: ${current}${note(current)}`;
  const effort = reasoningEfforts.find((candidate) => candidate === wanted);
  if (!effort && wanted !== 'off') return '  usage: /think low | medium | high | off';
  agent.options.reasoningEffort = effort;
  return `  (thinking ${wanted}${note(wanted)})`;
}

