/**
 * `operator pipeline`: run, validate, resume and list pipelines from the command line. The
 * terminal is the Interviewer (gates are answered on stdin); each step is printed as it happens,
 * and the final context at the end. Runs are kept in the store like the gateway's, so `list` and
 * `resume` see the ones the chat started too. A run's model calls count against its own cap
 * (`budgets.pipelineRun.run` in operator.json), kept in this process; the gateway's caps are the
 * gateway's (two processes writing one day's spend would lose each other's). Exit codes: 0
 * finished (or valid), 1 a parse or validation error or a run that did not finish, 2 bad usage.
 */
import { configuredBudgets } from '../gateway/config/budget-schema.ts';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { SpendGate } from '../agent/spend-gate.ts';
import { errorMessage } from '../core/errors.ts';
import { budgetGate, pipelineRunLine } from '../gateway/budget/budget-gate.ts';
import { SpendBook } from '../gateway/budget/spend-book.ts';
import { loadConfig } from '../gateway/config/index.ts';
import type { PipelineEvent } from '../pipelines/engine/pipeline-events.ts';
import type { RunRecord } from '../pipelines/engine/run-record.ts';
import { parsePipeline } from '../pipelines/graph/parse.ts';
import { formatFinding, hasErrors, validatePipeline } from '../pipelines/graph/validate.ts';
import { contextSummary, listRuns, PipelineInvalidError, resumeRun, runnableHandlers, startRun } from '../pipelines/pipeline-runner.ts';
import { findPipeline } from '../pipelines/pipeline-files.ts';
import { Runtime } from '../runtime/runtime.ts';
import { parseCommandArgs, UsageError } from './cli-options.ts';
import { createTerminalInterviewer } from './terminal-interviewer.ts';

/** The usage text of `operator pipeline`. */
export const pipelineUsage = [
  'operator pipeline run FILE.dot|NAME [--goal TEXT] [--model M] [--profile NAME]',
  '       operator pipeline validate FILE.dot [--strict]',
  '       operator pipeline resume RUN_ID',
  '       operator pipeline list',
  '',
  '  run       run the pipeline (a file, or a name: the profile\'s, OPERATOR_HOME\'s or a built-in one such as task or coder);',
  '            gates are answered here (a number, a choice, or text); prints the final context',
  '  validate  check the file: errors and warnings with their line; exit 1 on an error (or any finding with --strict)',
  '  resume    go on with a run that stopped (Ctrl+C, a restart) where its checkpoint says',
  '  list      the runs kept in the store, the latest first',
].join('\n');

/** Runs `operator pipeline <subcommand>`; resolves to the exit code (throws a UsageError for bad arguments). */
export async function runPipelineCommand(args: string[]): Promise<number> {
  const parsed = parseCommandArgs(args, { goal: { type: 'string' }, model: { type: 'string' }, profile: { type: 'string' }, strict: { type: 'boolean' } });
  const { values } = parsed;
  const [subcommand, ...positionals] = parsed.positionals;
  const takes = (count: number, what: string) => {
    if (positionals.length !== count) throw new UsageError(`${subcommand} takes ${what}`);
  };
  switch (subcommand) {
    case 'validate':
      takes(1, 'one FILE.dot');
      return validateCommand(positionals[0]!, values.strict === true);
    case 'run':
      takes(1, 'one FILE.dot or pipeline NAME');
      return withRuntime((runtime) => runCommand(runtime, positionals[0]!, values));
    case 'resume':
      takes(1, 'one RUN_ID');
      return withRuntime((runtime) => drive(runtime, (options) => resumeRun(positionals[0]!, options), values.profile));
    case 'list':
      takes(0, 'no arguments');
      return withRuntime(listCommand);
    default:
      throw new UsageError(subcommand === undefined ? 'operator pipeline needs a subcommand' : `unknown subcommand "${subcommand}"`);
  }
}

/** The DOT text of `file`, or undefined (said on stderr) when it cannot be read. */
async function readSource(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    process.stderr.write(`operator pipeline: cannot read ${file}: ${errorMessage(error)}\n`);
    return undefined;
  }
}

async function validateCommand(file: string, strict: boolean): Promise<number> {
  const source = await readSource(file);
  if (source === undefined) return 1;
  try {
    const findings = validatePipeline(parsePipeline(source, file), { knownHandlers: runnableHandlers });
    for (const finding of findings) process.stdout.write(`${formatFinding(finding, file)}\n`);
    const failed = hasErrors(findings) || (strict && findings.length > 0);
    process.stdout.write(failed ? `${file}: not valid.\n` : `${file}: valid${findings.length > 0 ? ` (${findings.length} warning${findings.length === 1 ? '' : 's'})` : ''}.\n`);
    return failed ? 1 : 0;
  } catch (error) {
    process.stderr.write(`${errorMessage(error)}\n`);
    return 1;
  }
}

async function runCommand(runtime: Runtime, given: string, values: { goal?: string; model?: string; profile?: string }): Promise<number> {
  // A name (`task`) is looked up like the chat's `/run task`; anything else is a file.
  const file = given.endsWith('.dot') || given.includes('/') ? given : (findPipeline(given, { home: runtime.home, profile: values.profile ?? 'default', builtin: runtime.builtin }) ?? given);
  const source = await readSource(file);
  if (source === undefined) return 1;
  return drive(runtime, (options) => startRun(source, { ...options, file: resolve(file), goal: values.goal, model: values.model, origin: { from: 'terminal' }, onStarted: (record) => process.stdout.write(`Run ${record.id} of ${record.pipeline} started.\n`) }), values.profile);
}

/** Drives a run with the terminal as its Interviewer; Ctrl+C stops it (resumable). */
async function drive(runtime: Runtime, go: (options: Parameters<typeof startRun>[1]) => Promise<RunRecord>, profile = 'default'): Promise<number> {
  const interviewer = createTerminalInterviewer();
  const stop = new AbortController();
  const onInterrupt = () => stop.abort(new Error('stopped with Ctrl+C'));
  process.on('SIGINT', onInterrupt);
  try {
    runtime.assertProfile(profile);
    const record = await go({ runtime, profile, interviewer, signal: stop.signal, onEvent: (event) => process.stdout.write(describe(event)), spend: runSpend(runtime, profile) });
    if (record.status === 'finished') {
      process.stdout.write(`\nFinal context:\n${contextSummary(record).map((line) => `  ${line}`).join('\n')}\n`);
      return 0;
    }
    if (record.status === 'stopped') process.stdout.write(`Run ${record.id} stopped at ${record.currentNode}; go on with: operator pipeline resume ${record.id}\n`);
    return 1;
  } catch (error) {
    process.stderr.write(`${error instanceof PipelineInvalidError ? error.message : `operator pipeline: ${errorMessage(error)}`}\n`);
    return 1;
  } finally {
    process.off('SIGINT', onInterrupt);
    interviewer.close();
  }
}

/**
 * The gate of a run's model calls: its cap (`budgets.pipelineRun.run`), counted in this process;
 * undefined when none is set. Throws a `ConfigurationError` for an operator.json that is not valid.
 */
function runSpend(runtime: Runtime, profile: string): ((runId: string) => SpendGate) | undefined {
  const budgets = configuredBudgets(loadConfig(runtime.env).config)(profile);
  const cap = budgets.pipelineRun.run;
  if (cap === undefined) return undefined;
  const book = new SpendBook({ store: runtime.store, log: (line) => process.stderr.write(`operator pipeline: ${line}\n`) });
  return (runId) => budgetGate(book, () => budgets, { lines: () => [pipelineRunLine(runId, cap)] });
}

async function listCommand(runtime: Runtime): Promise<number> {
  const runs = await listRuns(runtime);
  if (runs.length === 0) process.stdout.write('No pipeline runs.\n');
  for (const run of runs) {
    const at = new Date(run.updatedAt).toISOString().slice(0, 16).replace('T', ' ');
    process.stdout.write(`${run.id}  ${run.pipeline}  ${run.status}${run.status === 'finished' ? '' : ` at ${run.currentNode}`}  ${at} UTC${run.error ? `  (${run.error})` : ''}\n`);
  }
  return 0;
}

/** One line (or a few) per event. */
function describe(event: PipelineEvent): string {
  switch (event.type) {
    case 'run_start':
      return event.resumed ? `Resuming run ${event.runId}.\n` : '';
    case 'node_rerun':
      return `${event.node} was running when the run stopped: it runs again.\n`;
    case 'node_start':
      return `> ${event.node}${event.attempt > 1 ? ` (attempt ${event.attempt})` : ''}\n`;
    case 'node_end':
      return `  ${event.status} in ${(event.durationMs / 1000).toFixed(1)} s${event.failureReason ? `: ${event.failureReason.split('\n')[0]}` : ''}\n`;
    case 'retry':
      return `  retrying: ${event.reason.split('\n')[0]}\n`;
    case 'edge':
      return `  -> ${event.to}${event.label ? ` (${event.label})` : ''}\n`;
    case 'gate_answered':
      return event.answer.timedOut ? '' : `  answer: ${event.answer.value}\n`;
    case 'run_end':
      // The sentence ends once: an error may end in its own full stop (a spending cap's refusal does).
      return `Run ${event.runId} ${event.status}${event.error ? `: ${event.error.replace(/\.$/, '')}` : ''}.\n`;
    default:
      return '';
  }
}

async function withRuntime(work: (runtime: Runtime) => Promise<number>): Promise<number> {
  let runtime: Runtime;
  try {
    runtime = new Runtime({ requireModel: false });
  } catch (error) {
    process.stderr.write(`operator pipeline: ${errorMessage(error)}\n`);
    return 1;
  }
  try {
    return await work(runtime);
  } finally {
    await runtime.close();
  }
}
