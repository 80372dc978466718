/**
 * The run folder, written as the run goes, for every run (the command line's and the chats'):
 * `manifest.json` when the run starts and when it ends; per node `status.json` when an attempt
 * begins (`running`) and when it ends (with the run's totals so far), `prompt.md` before the
 * model is asked, `response.md` with its answer. A run killed mid-node leaves its manifest
 * `running` and that node's status `running`: where it stopped (`show` reads the steps' files
 * for its order and totals).
 * The hooks queue a node's writes and return: the run does not wait for the disk (a node's
 * writes took 2-6 times their plain cost beside the checkpoint's own on a busy virtual disk;
 * see bench/RESULTS.md). They go on while the node works (a model call takes seconds), one
 * file's in order and different files' side by side, and `finish` waits for them all; so a run
 * killed within a few milliseconds of a node's end may show that node still running. A status is
 * written whole (renamed into place): a killed run never leaves half of one. A write that failed
 * is told at the next hook (`hook_failed`), and the run goes on.
 *
 * Private to the owner: the folders are 0700, the files 0600, under `OPERATOR_HOME/runs/`. What
 * is written passes a scrubber (the values of secret environment variables and credential
 * shapes become `[REDACTED]`): the prompt is what the model saw, and never a token. Writes are
 * queued in order; a JSON file is written whole (a temporary file renamed), so a killed run
 * never leaves half a manifest. When a run starts, the oldest folders past `keep` are removed.
 */
import { chmod, mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { redactSecretPatterns } from '../../guardrails/secret-patterns.ts';
import { secretValues } from '../../guardrails/secret-redactor.ts';
import type { PipelineContext } from '../engine/pipeline-context.ts';
import type { PipelineEvent } from '../engine/pipeline-events.ts';
import type { RunRecord } from '../engine/run-record.ts';
import type { HandlerHook } from '../handlers/handler.ts';
import { addUsage, type NodeResult, type NodeUsage, type PipelineNode } from '../types.ts';
import { nodeFolderName, noTokens, type NodeStatusFile, type RunManifest } from './run-files.ts';

/** What a run folder is opened with. */
export interface RunFolderOptions {
  /** `OPERATOR_HOME/runs`. */
  root: string;
  record: Pick<RunRecord, 'id' | 'pipeline' | 'file' | 'startedAt'>;
  goal: string;
  model: string;
  provider: string;
  /** Run folders kept; the oldest past it are removed when this one opens. */
  keep: number;
  /** The environment whose secret values never reach the files. */
  env: NodeJS.ProcessEnv;
}

/** What a node's visit has gathered so far (across its attempts). */
interface Visit {
  status: NodeStatusFile;
  started: number;
  usage?: NodeUsage;
}

const fileMode = 0o600;
const folderMode = 0o700;

/** One run's folder. Open it with {@link RunFolder.open}; `hook` and `onEvent` feed it; `finish` ends it. */
export class RunFolder {
  readonly directory: string;
  readonly #manifest: RunManifest;
  readonly #scrub: (text: string) => string;
  readonly #visits = new Map<string, Visit>();
  readonly #counts = new Map<string, number>();
  readonly #made = new Map<string, Promise<string>>();
  /** The last queued write of each file. */
  readonly #writes = new Map<string, Promise<void>>();
  #failure: unknown;

  private constructor(directory: string, manifest: RunManifest, scrub: (text: string) => string) {
    this.directory = directory;
    this.#manifest = manifest;
    this.#scrub = scrub;
  }

  /**
   * Opens (makes, or for a resumed run takes up) the folder of `options.record`, writes its
   * manifest, and removes the oldest folders past `keep`.
   */
  static async open(options: RunFolderOptions): Promise<RunFolder> {
    await mkdir(options.root, { recursive: true, mode: folderMode });
    await chmod(options.root, folderMode);
    const directory = join(options.root, options.record.id);
    await mkdir(directory, { recursive: true, mode: folderMode });
    const earlier = await readFile(join(directory, 'manifest.json'), 'utf8').then((text) => JSON.parse(text) as RunManifest, () => undefined);
    const scrub = scrubber(options.env);
    const manifest: RunManifest = earlier
      ? { ...earlier, status: 'running', endedAt: undefined, error: undefined }
      : {
          id: options.record.id,
          graph: options.record.pipeline,
          ...(options.record.file ? { file: options.record.file } : {}),
          goal: scrub(options.goal),
          status: 'running',
          startedAt: new Date(options.record.startedAt).toISOString(),
          model: options.model,
          provider: options.provider,
          cost: 0,
          tokens: noTokens(),
          nodes: [],
        };
    const folder = new RunFolder(directory, manifest, scrub);
    await folder.#writeManifest();
    await pruneRuns(options.root, options.keep, options.record.id);
    return folder;
  }

  /** The hook the engine calls around each attempt. */
  readonly hook: HandlerHook = {
    beforeNode: (node, _context, step) => this.#before(node, step.attempt),
    afterNode: (node, context, result, step) => this.#after(node, context, result, step),
  };

  /** Takes the run's events: a node's prompt is written as it is sent (a child pipeline's, whose run id differs, are not this run's). */
  onEvent(event: PipelineEvent): void {
    if (event.type === 'node_prompt' && event.runId === this.#manifest.id) this.#writeText(event.node, 'prompt.md', event.prompt);
  }

  /** Writes the manifest as `record` ended (or was left to go on); waits for every write. */
  async finish(record: Pick<RunRecord, 'status' | 'endedAt' | 'error'>): Promise<void> {
    Object.assign(this.#manifest, { status: record.status, endedAt: record.endedAt ? new Date(record.endedAt).toISOString() : undefined, error: record.error ? this.#scrub(record.error) : undefined });
    await this.#writeManifest();
    this.#throwFailure();
  }

  #before(node: PipelineNode, attempt: number): void {
    let visit = this.#visits.get(node.name);
    if (attempt === 1 || !visit) {
      const count = (this.#counts.get(node.name) ?? 0) + 1;
      this.#counts.set(node.name, count);
      const now = Date.now();
      visit = { started: now, status: { node: node.name, outcome: 'running', attempts: 0, visit: count, startedAt: new Date(now).toISOString(), durationMs: 0, tokens: noTokens(), cost: 0 } };
      this.#visits.set(node.name, visit);
      this.#manifest.nodes.push(node.name);
      visit.status.sequence = this.#manifest.nodes.length;
    }
    const status = { ...visit.status, outcome: 'running' as const, attempts: attempt, endedAt: undefined };
    visit.status = status;
    this.#writeNodeJson(node.name, 'status.json', status);
    this.#throwFailure();
  }

  #after(node: PipelineNode, _context: PipelineContext, result: NodeResult, step: { attempt: number; final: boolean }): void {
    const visit = this.#visits.get(node.name);
    if (!visit) return;
    visit.usage = addUsage(visit.usage, result.usage);
    const usage = visit.usage;
    const now = Date.now();
    visit.status = {
      ...visit.status,
      outcome: result.status,
      attempts: step.attempt,
      endedAt: new Date(now).toISOString(),
      durationMs: now - visit.started,
      tokens: usage ? { input: usage.input, output: usage.output, cacheRead: usage.cacheRead, cacheWrite: usage.cacheWrite } : noTokens(),
      cost: usage?.cost ?? 0,
      ...(result.failureReason ? { failureReason: this.#scrub(result.failureReason) } : { failureReason: undefined }),
      ...(result.notes ? { notes: this.#scrub(result.notes) } : { notes: undefined }),
    };
    if (result.usage) {
      const tokens = this.#manifest.tokens;
      this.#manifest.cost += result.usage.cost;
      Object.assign(tokens, { input: tokens.input + result.usage.input, output: tokens.output + result.usage.output, cacheRead: tokens.cacheRead + result.usage.cacheRead, cacheWrite: tokens.cacheWrite + result.usage.cacheWrite });
    }
    // The run's totals so far ride along: the manifest is written only at the start and the end.
    visit.status.runTotals = { cost: this.#manifest.cost, tokens: { ...this.#manifest.tokens } };
    const status = visit.status;
    // The answer a codergen node gave (a tool node's output is in the context, `NODE.output`).
    if (result.output !== undefined && node.handlerType === 'codergen') this.#writeText(node.name, 'response.md', result.output);
    this.#writeNodeJson(node.name, 'status.json', status);
    // An earlier write's failure is told now (the ones just queued are told at the next hook).
    this.#throwFailure();
  }

  /** Throws the first write that failed since it was last told (the engine tells it as `hook_failed`). */
  #throwFailure(): void {
    const failure = this.#failure;
    this.#failure = undefined;
    if (failure !== undefined) throw new Error(`the run folder ${this.directory} could not be written: ${failure instanceof Error ? failure.message : String(failure)}`);
  }

  /** Made once per node; the node's writes wait for it. */
  #nodeFolder(node: string): Promise<string> {
    const folder = join(this.directory, nodeFolderName(node));
    let made = this.#made.get(folder);
    if (!made) {
      made = mkdir(folder, { recursive: true, mode: folderMode }).then(() => folder);
      this.#made.set(folder, made);
    }
    return made;
  }

  /**
   * Queues `text` for `name` in `node`'s folder: writes of one file happen in order, those of
   * different files side by side. A failure is kept for the next hook to throw.
   */
  #write(node: string, name: string, text: string, whole = false): void {
    const key = `${node}\n${name}`;
    const previous = this.#writes.get(key) ?? Promise.resolve();
    const next = previous
      .then(() => this.#nodeFolder(node))
      .then(async (folder) => {
        const path = join(folder, name);
        if (!whole) return writeFile(path, text, { mode: fileMode });
        await writeFile(`${path}.tmp`, text, { mode: fileMode });
        await rename(`${path}.tmp`, path);
      })
      .catch((error: unknown) => {
        this.#failure ??= error;
      });
    this.#writes.set(key, next);
    void next.then(() => {
      if (this.#writes.get(key) === next) this.#writes.delete(key);
    });
  }

  #writeText(node: string, name: string, text: string): void {
    this.#write(node, name, this.#scrub(text));
  }

  /** A status, whole (a temporary file renamed over it): a run killed while writing it leaves the one before. */
  #writeNodeJson(node: string, name: string, value: unknown): void {
    this.#write(node, name, `${JSON.stringify(value, null, 2)}\n`, true);
  }

  /** The manifest, whole (a temporary file renamed over it), once every queued write is done. */
  async #writeManifest(): Promise<void> {
    await Promise.all(this.#writes.values());
    const path = join(this.directory, 'manifest.json');
    await writeFile(`${path}.tmp`, `${JSON.stringify(this.#manifest, null, 2)}\n`, { mode: fileMode });
    await rename(`${path}.tmp`, path);
  }
}

/** Replaces the values of `env`'s secret variables and every credential shape by `[REDACTED]`. */
function scrubber(env: NodeJS.ProcessEnv): (text: string) => string {
  const values = secretValues(env);
  return (text) => {
    let result = text;
    for (const value of values) if (result.includes(value)) result = result.split(value).join('[REDACTED]');
    return redactSecretPatterns(result).text;
  };
}

/**
 * Removes the oldest run folders so that at most `keep` remain, `current` among them and never
 * removed. Ended runs go first, oldest (last written) first; a run not ended (still running,
 * waiting at a gate for days, or killed) goes only once no ended one is left to remove. A folder
 * that cannot be read or removed is left.
 */
export async function pruneRuns(root: string, keep: number, current: string): Promise<void> {
  const entries = await readdir(root, { withFileTypes: true }).catch(() => []);
  const folders = entries.filter((entry) => entry.isDirectory() && entry.name !== current);
  const excess = folders.length + 1 - Math.max(1, keep);
  if (excess <= 0) return;
  const dated = await Promise.all(
    folders.map(async (entry) => {
      const folder = join(root, entry.name);
      const manifest = join(folder, 'manifest.json');
      const written = await stat(manifest).catch(() => stat(folder)).catch(() => undefined);
      const ended = await readFile(manifest, 'utf8').then((text) => typeof (JSON.parse(text) as { endedAt?: unknown }).endedAt === 'string', () => true);
      return { folder, ended, at: written?.mtimeMs ?? 0 };
    }),
  );
  dated.sort((a, b) => Number(b.ended) - Number(a.ended) || a.at - b.at);
  await Promise.all(dated.slice(0, excess).map(({ folder }) => rm(folder, { recursive: true, force: true }).catch(() => undefined)));
}
