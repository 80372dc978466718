/**
 * A run folder read back (`operator pipeline show RUN`): its manifest and each node's status, in
 * the order the nodes began, as lines for a person. A node's prompt and response stay in their
 * files (the lines name the folder); they may be long.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isRunId, runsRoot, type NodeStatusFile, type RunManifest } from './run-files.ts';

/** A run folder as read. */
export interface RunFolderView {
  directory: string;
  manifest: RunManifest;
  /** The last status of each node, in the order the nodes first began. */
  nodes: NodeStatusFile[];
}

/**
 * The folder of run `id` under `home`; throws a clear error for an id that is not one, or a run
 * with no folder (never kept, or removed past `pipelines.keepRuns`).
 */
export async function readRunFolder(home: string, id: string): Promise<RunFolderView> {
  if (!isRunId(id)) throw new Error(`"${id}" is not a run id (six hex digits, as \`operator pipeline list\` shows).`);
  const directory = join(runsRoot(home), id);
  let manifest: RunManifest;
  try {
    manifest = JSON.parse(await readFile(join(directory, 'manifest.json'), 'utf8')) as RunManifest;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new Error(`No run folder for ${id}: no such run, or it was removed (pipelines.keepRuns keeps the latest ones).`, { cause: error });
    throw new Error(`The manifest of run ${id} cannot be read: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  // The steps' own files: the manifest lists them only once the run ended.
  const folders = (await readdir(directory, { withFileTypes: true })).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
  const statuses = await Promise.all(folders.map((folder) => readFile(join(directory, folder, 'status.json'), 'utf8').then((text) => JSON.parse(text) as NodeStatusFile, () => undefined)));
  const nodes = statuses.filter((status): status is NodeStatusFile => status !== undefined).sort((a, b) => (a.sequence ?? 0) - (b.sequence ?? 0) || a.startedAt.localeCompare(b.startedAt));
  if (!manifest.endedAt) {
    // Not ended (running, or killed): the totals as the last step to end knew them.
    const latest = nodes.reduce<NodeStatusFile['runTotals']>((best, node) => (node.runTotals && (!best || node.runTotals.cost >= best.cost) ? node.runTotals : best), undefined);
    if (latest) manifest = { ...manifest, cost: latest.cost, tokens: latest.tokens };
  }
  return { directory, manifest, nodes };
}

/** The run as lines: the manifest, then one line per node. */
export function describeRunFolder(view: RunFolderView): string[] {
  const { manifest } = view;
  const ended = manifest.endedAt ? `, ended ${clock(manifest.endedAt)} (${seconds(Date.parse(manifest.endedAt) - Date.parse(manifest.startedAt))})` : '';
  const lines = [
    `Run ${manifest.id} of ${manifest.graph}: ${manifest.status}${manifest.error ? ` (${manifest.error})` : ''}`,
    `  goal: ${manifest.goal || '(none)'}`,
    `  started ${clock(manifest.startedAt)}${ended}`,
    `  model: ${manifest.provider}:${manifest.model}; ${tokens(manifest.tokens)}; ${dollars(manifest.cost)}`,
    `  folder: ${view.directory}`,
  ];
  if (view.nodes.length === 0) return [...lines, '  no step has begun'];
  const width = Math.max(...view.nodes.map((node) => node.node.length));
  lines.push('  steps:');
  for (const node of view.nodes) {
    const visit = node.visit > 1 ? `, visit ${node.visit}` : '';
    const used = node.tokens.input + node.tokens.output > 0 ? `  ${tokens(node.tokens)}  ${dollars(node.cost)}` : '';
    const why = node.failureReason ?? node.notes;
    lines.push(`    ${node.node.padEnd(width)}  ${node.outcome.padEnd(15)} ${node.attempts} attempt${node.attempts === 1 ? '' : 's'}${visit}  ${seconds(node.durationMs)}${used}${why ? `  ${why.split('\n')[0]!.slice(0, 160)}` : ''}`);
  }
  return lines;
}

function clock(iso: string): string {
  return `${iso.slice(0, 19).replace('T', ' ')} UTC`;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

function tokens(count: { input: number; output: number }): string {
  return `${count.input.toLocaleString('en-US')} in / ${count.output.toLocaleString('en-US')} out`;
}

function dollars(value: number): string {
  return `$${value.toFixed(4)}`;
}
