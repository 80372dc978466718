/**
 * `operator pipeline`: run, validate, resume, list and show pipelines from the command line. The
 * terminal is the Interviewer (gates are answered on stdin); each step is printed as it happens
 * (with `--verbose`, its events too: see `pipeline-events-text.ts`), and the final context at the
 * end. `--model` and `--provider` are those of steps that name none. Runs are kept in the store
 * like the gateway's, so `list` and `resume` see the ones the chat started too; `show` reads a
 * run's folder (`OPERATOR_HOME/runs/ID`, kept per `pipelines.keepRuns`). A run's model calls count against its own cap
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
import { contextSummary, listRuns, operatorValidation, PipelineInvalidError, resumeRun, startRun } from '../pipelines/pipeline-runner.ts';
import { findPipeline } from '../pipelines/pipeline-files.ts';
import { Runtime } from '../runtime/runtime.ts';
import { parseCommandArgs, UsageError } from './cli-options.ts';
import { describeEvent } from './pipeline-events-text.ts';
import { providerRegistry } from '../llm/model-client.ts';
import { describeRunFolder, readRunFolder } from '../pipelines/run-folder/read-run-folder.ts';
import { operatorHome } from '../store/from-env.ts';
import { createTerminalInterviewer } from './terminal-interviewer.ts';

/** The usage text of `operator pipeline`. */
export const pipelineUsage = [
  'operator pipeline run FILE.dot|NAME [--goal TEXT] [--model M] [--provider P] [--profile NAME] [--verbose]',
  '       operator pipeline validate FILE.dot [--strict]',
  '       operator pipeline resume RUN_ID [--verbose]',
  '       operator pipeline list',
  '       operator pipeline show RUN_ID',
  '',
  '  run       run the pipeline (a file, or a name: the profile\'s, OPERATOR_HOME\'s or a built-in one such as task or coder);',
  '            gates are answered here (a number, a choice, or text); prints the final context.',
  '            --model and --provider (anthropic, openai, gemini) are those of steps that name none;',
  '            --verbose (-v) tells each step\'s events as they happen (what it was asked, tokens, cost, why an edge)',
  '  validate  check the file: errors and warnings with their line; exit 1 on an error (or any finding with --strict)',
  '  resume    go on with a run that stopped (Ctrl+C, a restart) where its checkpoint says',
  '  list      the runs kept in the store, the latest first',
  '  show      a run from its folder (OPERATOR_HOME/runs/RUN_ID): status, model, cost, and each step',
].join('\n');

/** Runs `operator pipeline <subcommand>`; resolves to the exit code (throws a UsageError for bad arguments). */
export async function runPipelineCommand(args: string[]): Promise<number> {
  const parsed = parseCommandArgs(args, { goal: { type: 'string' }, model: { type: 'string' }, provider: { type: 'string' }, profile: { type: 'string' }, strict: { type: 'boolean' }, verbose: { type: 'boolean', short: 'v' } });
  const { values } = parsed;
  const providers = Object.keys(providerRegistry);
  if (values.provider !== undefined && !providers.includes(values.provider.toLowerCase())) throw new UsageError(`--provider must be one of ${providers.join(', ')}, not "${values.provider}"`);
  const verbose = values.verbose === true;
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
      return withRuntime((runtime) => runCommand(runtime, positionals[0]!, { ...values, verbose }));
    case 'resume':
      takes(1, 'one RUN_ID');
      return withRuntime((runtime) => drive(runtime, (options) => resumeRun(positionals[0]!, options), { profile: values.profile, verbose }));
    case 'list':
      takes(0, 'no arguments');
      return withRuntime(listCommand);
    case 'show':
      takes(1, 'one RUN_ID');
      return showCommand(positionals[0]!);
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
    const findings = validatePipeline(parsePipeline(source, file), operatorValidation);
    for (const finding of findings) process.stdout.write(`${formatFinding(finding, file)}\n`);
    const failed = hasErrors(findings) || (strict && findings.length > 0);
    process.stdout.write(failed ? `${file}: not valid.\n` : `${file}: valid${findings.length > 0 ? ` (${findings.length} warning${findings.length === 1 ? '' : 's'})` : ''}.\n`);
    return failed ? 1 : 0;
  } catch (error) {
    process.stderr.write(`${errorMessage(error)}\n`);
    return 1;
  }
}

async function runCommand(runtime: Runtime, given: string, values: { goal?: string; model?: string; provider?: string; profile?: string; verbose: boolean }): Promise<number> {
  // A name (`task`) is looked up like the chat's `/run task`; anything else is a file.
  const file = given.endsWith('.dot') || given.includes('/') ? given : (findPipeline(given, { home: runtime.home, profile: values.profile ?? 'default', builtin: runtime.builtin }) ?? given);
  const source = await readSource(file);
  if (source === undefined) return 1;
  const provider = values.provider?.toLowerCase();
  return drive(
    runtime,
    (options) => startRun(source, { ...options, file: resolve(file), goal: values.goal, model: values.model, provider, origin: { from: 'terminal' }, onStarted: (record) => process.stdout.write(`Run ${record.id} of ${record.pipeline} started.\n`) }),
    values,
  );
}

/** Drives a run with the terminal as its Interviewer; Ctrl+C stops it (resumable). */
async function drive(runtime: Runtime, go: (options: Parameters<typeof startRun>[1]) => Promise<RunRecord>, how: { profile?: string; verbose: boolean }): Promise<number> {
  const profile = how.profile ?? 'default';
  const interviewer = createTerminalInterviewer();
  const stop = new AbortController();
  const onInterrupt = () => stop.abort(new Error('stopped with Ctrl+C'));
  process.on('SIGINT', onInterrupt);
  try {
    runtime.assertProfile(profile);
    const onEvent = (event: PipelineEvent) => {
      if (event.type === 'hook_failed') process.stderr.write(`operator pipeline: warning: ${event.error}\n`);
      else if (event.type === 'warning') process.stderr.write(`operator pipeline: warning: ${event.message}\n`);
      else process.stdout.write(describeEvent(event, how.verbose));
    };
    const config = loadConfig(runtime.env).config;
    const record = await go({ runtime, profile, interviewer, signal: stop.signal, onEvent, spend: runSpend(runtime, profile), keepRuns: config.pipelines.keepRuns });
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

/** `show RUN_ID`: the run's folder, read back; needs no model or store. */
async function showCommand(id: string): Promise<number> {
  try {
    const view = await readRunFolder(operatorHome(process.env), id);
    process.stdout.write(`${describeRunFolder(view).join('\n')}\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`operator pipeline: ${errorMessage(error)}\n`);
    return 1;
  }
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
