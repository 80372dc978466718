/**
 * Starting and resuming runs, for the command line and the chat alike: the DOT text parsed and
 * validated (a run never starts with a step nothing can run), a run record made (with the text,
 * so a resumed run follows the graph it began with), the handlers bound to operator's services,
 * and the engine driven to the end or a stop. One process runs a given run at most once at a
 * time.
 */
import type { Runtime } from '../runtime/runtime.ts';
import { runPipeline } from './engine/engine.ts';
import type { Interviewer } from './engine/interviewer.ts';
import type { PipelineEvent } from './engine/pipeline-events.ts';
import { newRunId, RunStore, type RunRecord } from './engine/run-record.ts';
import { parsePipeline } from './graph/parse.ts';
import { formatFinding, hasErrors, validatePipeline, type ValidateOptions } from './graph/validate.ts';
import { providerRegistry } from '../llm/model-client.ts';
import { createHandlerRegistry } from './handlers/registry.ts';
import { operatorServices, type PipelineHost } from './operator-services.ts';
import { findPipeline } from './pipeline-files.ts';
import { readFile } from 'node:fs/promises';
import { errorMessage } from '../core/errors.ts';
import { runModelOf, unsentTemperature } from './node-model.ts';
import { applyStylesheet, parseStylesheet } from './graph/stylesheet.ts';
import { RunFolder } from './run-folder/run-folder.ts';
import { runsRoot } from './run-folder/run-files.ts';
import type { Pipeline, ValidationFinding } from './types.ts';
import { createTaskMemoryHook, taskMemoryOn } from './task/task-memory-hook.ts';

/** A pipeline that may not start: its errors, formatted. */
export class PipelineInvalidError extends Error {
  override name = 'PipelineInvalidError';
  readonly findings: readonly ValidationFinding[];

  constructor(findings: readonly ValidationFinding[], file: string | undefined) {
    const errors = findings.filter((finding) => finding.level === 'error');
    super(`${file ?? 'the pipeline'} has ${errors.length} error${errors.length === 1 ? '' : 's'}:\n${errors.map((finding) => `  ${formatFinding(finding, file)}`).join('\n')}`);
    this.findings = findings;
  }
}

/** The handler types this build runs (what validation accepts). */
export const runnableHandlers: readonly string[] = ['start', 'exit', 'conditional', 'codergen', 'wait.human', 'tool', 'parallel', 'parallel.fan_in', 'stack.manager_loop'];

/** What validation is told in operator: the handlers it runs and the providers it talks to. */
export const operatorValidation: ValidateOptions = { knownHandlers: runnableHandlers, knownProviders: Object.keys(providerRegistry) };

/** Parses and validates `source`; throws `PipelineSyntaxError` or {@link PipelineInvalidError}, else gives the pipeline and its warnings. */
export function loadPipeline(source: string, file?: string): { pipeline: Pipeline; findings: ValidationFinding[] } {
  const pipeline = parsePipeline(source, file);
  const findings = validatePipeline(pipeline, operatorValidation);
  if (hasErrors(findings)) throw new PipelineInvalidError(findings, file);
  return { pipeline, findings };
}

/** How a run is driven. */
export interface RunOptions extends Omit<PipelineHost, 'runId'> {
  onEvent?: (event: PipelineEvent) => void;
  signal?: AbortSignal;
  /** See `EngineOptions.interrupted`. */
  interrupted?: () => boolean;
  /** Run folders kept under `OPERATOR_HOME/runs/` (`pipelines.keepRuns`); 0: none is written. Default {@link defaultKeepRuns}. */
  keepRuns?: number;
}

/** Run folders kept when operator.json says nothing (`pipelines.keepRuns`). */
export const defaultKeepRuns = 200;

/** Runs currently driven by this process, by id. */
const driving = new Set<string>();

/** Starts a new run of `source`; resolves to its record once it ended or was stopped. `goal` replaces the graph's. */
export async function startRun(source: string, options: RunOptions & { file?: string; goal?: string; origin?: Record<string, unknown>; onStarted?: (record: RunRecord) => void }): Promise<RunRecord> {
  const { pipeline } = loadPipeline(source, options.file);
  const now = Date.now();
  const record: RunRecord = {
    id: newRunId(),
    pipeline: pipeline.name,
    source,
    file: options.file,
    status: 'running',
    currentNode: pipeline.startNode,
    nodeBegun: false,
    completedNodes: [],
    nodeOutcomes: {},
    nodeRetries: {},
    steps: 0,
    context: { data: options.goal ? { goal: options.goal, 'graph.goal': options.goal } : {}, logs: [] },
    origin: { ...options.origin, profile: options.profile, ...(options.model ? { model: options.model } : {}), ...(options.provider ? { provider: options.provider } : {}) },
    startedAt: now,
    updatedAt: now,
  };
  const runs = new RunStore(options.runtime.store);
  await runs.create(record);
  options.onStarted?.(record);
  return drive(options.goal ? { ...pipeline, goal: options.goal } : pipeline, record, runs, options);
}

/** Goes on with the stored run `id` where its checkpoint says; throws a clear error for an unknown or ended one. */
export async function resumeRun(id: string, options: RunOptions): Promise<RunRecord> {
  const runs = new RunStore(options.runtime.store);
  const record = await runs.load(id);
  if (!record) throw new Error(`No pipeline run "${id}".`);
  if (!record.source) throw new Error(`Run ${id} has lost its pipeline text: it cannot go on.`);
  if (record.status === 'finished' || record.status === 'failed') throw new Error(`Run ${id} already ${record.status}${record.error ? `: ${record.error}` : ''}.`);
  const pipeline = parsePipeline(record.source, record.file);
  const goal = typeof record.context.data.goal === 'string' ? record.context.data.goal : pipeline.goal;
  // The run's `--model` and `--provider` go on with it.
  const kept = (key: string) => (typeof record.origin?.[key] === 'string' ? (record.origin[key] as string) : undefined);
  return drive({ ...pipeline, goal }, record, runs, { ...options, model: options.model ?? kept('model'), provider: options.provider ?? kept('provider') });
}

async function drive(pipeline: Pipeline, record: RunRecord, runs: RunStore, options: RunOptions): Promise<RunRecord> {
  if (driving.has(record.id)) throw new Error(`Run ${record.id} is already running here.`);
  driving.add(record.id);
  const { services, close } = await operatorServices({ ...options, runId: record.id });
  try {
    const { runtime, profile } = options;
    // A manager loop's child: found as `/run NAME` would find it, and valid, or the sprint fails saying why.
    const loadChild = async (name: string) => {
      const file = findPipeline(name, { home: runtime.home, profile, builtin: runtime.builtin });
      if (!file) throw new Error(`no pipeline "${name}"`);
      return loadPipeline(await readFile(file, 'utf8'), file).pipeline;
    };
    const folder = await openRunFolder(pipeline, record, options);
    warnUnsent(pipeline, record, options);
    const onEvent = (event: PipelineEvent) => {
      folder?.onEvent(event);
      options.onEvent?.(event);
    };
    // The task memory (`task_memory=true`) first: the context it sets is the node's.
    const hooks = [...(taskMemoryOn(pipeline.attributes) ? [createTaskMemoryHook({ runCommand: services.runCommand, signal: options.signal ?? new AbortController().signal, untested: pipeline.attributes['task_untested'] === 'fail' ? 'fail' : 'pass' })] : []), ...(folder ? [folder.hook] : [])];
    try {
      return await runPipeline(pipeline, record, { handlers: createHandlerRegistry(services), runs, interviewer: options.interviewer, onEvent, signal: options.signal, interrupted: options.interrupted, loadChild, hooks });
    } finally {
      await folder?.finish(record).catch((error: unknown) => options.onEvent?.({ type: 'hook_failed', runId: record.id, node: '', error: errorMessage(error) }));
    }
  } finally {
    close();
    driving.delete(record.id);
  }
}

/** Tells (a `warning` event) of each step whose temperature its model will not be sent. */
function warnUnsent(pipeline: Pipeline, record: RunRecord, options: RunOptions): void {
  const { runtime } = options;
  const stylesheet = pipeline.modelStylesheet ? parseStylesheet(pipeline.modelStylesheet) : undefined;
  const configured = { provider: runtime.client.provider.name, model: runtime.client.model };
  for (const declared of pipeline.nodes.values()) {
    const node = stylesheet ? applyStylesheet(stylesheet, declared) : declared;
    const message = unsentTemperature(node, options, configured, runtime.env);
    if (message) options.onEvent?.({ type: 'warning', runId: record.id, message });
  }
}

/** The run's folder (see `run-folder/`), or undefined when none is kept or it cannot be made (said as a `hook_failed` event). */
async function openRunFolder(pipeline: Pipeline, record: RunRecord, options: RunOptions): Promise<RunFolder | undefined> {
  const keep = options.keepRuns ?? defaultKeepRuns;
  if (keep <= 0) return undefined;
  const { runtime } = options;
  const { model, provider } = runModelOf(options, { provider: runtime.client.provider.name, model: runtime.client.model }, runtime.env);
  try {
    return await RunFolder.open({ root: runsRoot(runtime.home), record, goal: pipeline.goal, model, provider, keep, env: runtime.env });
  } catch (error) {
    options.onEvent?.({ type: 'hook_failed', runId: record.id, node: '', error: `the run folder could not be made: ${errorMessage(error)}` });
    return undefined;
  }
}

/** The runs in the store, the latest first. */
export function listRuns(runtime: Runtime): Promise<Omit<RunRecord, 'source'>[]> {
  return new RunStore(runtime.store).list();
}

/** The final context as `key: value` lines, the engine's own keys (`_...`) left out. */
export function contextSummary(record: RunRecord): string[] {
  return Object.entries(record.context.data)
    .filter(([key]) => !key.startsWith('_'))
    .map(([key, value]) => `${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`);
}

export type { Interviewer };
