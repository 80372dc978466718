/**
 * The console's pipeline runs, read from their run folders (`OPERATOR_HOME/runs/`, see
 * `src/pipelines/run-folder/`): the list, each linking to its run, and one run with its steps, each
 * step's prompt and response (the first 20,000 characters of each; the files hold the rest). The
 * console is the admins' (its token); what it answers is scrubbed of secrets besides.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readRunFolder } from '../../pipelines/run-folder/read-run-folder.ts';
import { isRunId, nodeFolderName, runsRoot, type RunManifest } from '../../pipelines/run-folder/run-files.ts';
import type { AdminGateway } from './admin-routes.ts';

/** Characters of a prompt or response the console shows. */
const shownCharacters = 20_000;

/** A run as the console lists it. */
export interface RunSummary {
  id: string;
  graph: string;
  goal: string;
  status: RunManifest['status'];
  startedAt: string;
  endedAt?: string;
  cost: number;
  /** The console's page of the run. */
  link: string;
}

/** Every run that has a folder, the latest started first. */
export async function listPipelineRuns(gateway: Pick<AdminGateway, 'runtime'>): Promise<RunSummary[]> {
  const root = runsRoot(gateway.runtime.home);
  const names = (await readdir(root).catch(() => [] as string[])).filter(isRunId);
  const manifests = await Promise.all(names.map((name) => readFile(join(root, name, 'manifest.json'), 'utf8').then((text) => JSON.parse(text) as RunManifest, () => undefined)));
  return manifests
    .filter((manifest): manifest is RunManifest => manifest !== undefined)
    .map((manifest) => ({ id: manifest.id, graph: manifest.graph, goal: manifest.goal.slice(0, 300), status: manifest.status, startedAt: manifest.startedAt, endedAt: manifest.endedAt, cost: manifest.cost, link: `#run/${manifest.id}` }))
    .sort((a, b) => b.startedAt.localeCompare(a.startedAt));
}

/** Run `id` from its folder, with each step's prompt and response; `{ error }` for one there is not. */
export async function pipelineRunDetail(gateway: Pick<AdminGateway, 'runtime'>, id: string): Promise<unknown> {
  try {
    const view = await readRunFolder(gateway.runtime.home, id);
    const cut = (text: string | undefined) => (text === undefined || text.length <= shownCharacters ? text : `${text.slice(0, shownCharacters)}\n[… ${text.length - shownCharacters} more characters in the file]`);
    const steps = await Promise.all(
      view.nodes.map(async (node) => {
        const folder = join(view.directory, nodeFolderName(node.node));
        const [prompt, response] = await Promise.all(['prompt.md', 'response.md'].map((name) => readFile(join(folder, name), 'utf8').catch(() => undefined)));
        return { ...node, prompt: cut(prompt), response: cut(response) };
      }),
    );
    return { run: view.manifest, folder: view.directory, steps };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}
