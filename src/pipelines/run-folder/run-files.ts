/**
 * The shapes and places of a run folder (`OPERATOR_HOME/runs/<run-id>/`), shared by the writer
 * (`run-folder.ts`) and the reader (`read-run-folder.ts`): `manifest.json` for the run, and per
 * node `<node>/prompt.md`, `response.md` and `status.json`. A node's folder is its id with every
 * character but letters, digits, `_` and `-` written as `%XX`, so no id (DOT allows any quoted
 * text) can reach outside the run's folder or take the manifest's name.
 */
import { join } from 'node:path';
import type { RunStatus } from '../engine/run-record.ts';
import type { OutcomeStatus } from '../types.ts';

/** Tokens as the run folder counts them. */
export interface RunTokens {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

/** `manifest.json`. */
export interface RunManifest {
  id: string;
  /** The pipeline's (DOT graph's) name. */
  graph: string;
  /** The DOT file it was read from, when there was one. */
  file?: string;
  goal: string;
  status: RunStatus;
  /** ISO times. */
  startedAt: string;
  endedAt?: string;
  /** Why it failed or stopped. */
  error?: string;
  /** The model of nodes that name none, and its provider. */
  model: string;
  provider: string;
  /** USD of the nodes' model calls so far. */
  cost: number;
  tokens: RunTokens;
  /** The nodes in the order they began (a node visited again is listed again); written when the run ends. */
  nodes: string[];
}

/** `<node>/status.json`. */
export interface NodeStatusFile {
  node: string;
  /** `running` until the node ends (a killed run's last node stays so). */
  outcome: OutcomeStatus | 'running';
  /** Attempts of this visit so far. */
  attempts: number;
  /** Which visit of the node this is (loops come back). */
  visit: number;
  /** The place of this visit among all the run's (1: the first node that began). */
  sequence?: number;
  startedAt: string;
  endedAt?: string;
  /** From the first attempt's start to the last one's end, waits between them included. */
  durationMs: number;
  tokens: RunTokens;
  cost: number;
  failureReason?: string;
  notes?: string;
  /** The run's cost and tokens when the node ended (the manifest has them only once the run ends). */
  runTotals?: { cost: number; tokens: RunTokens };
}

/** The folder of the runs under `home`. */
export function runsRoot(home: string): string {
  return join(home, 'runs');
}

/** Whether `id` is a run id (what `newRunId` makes, or longer): never a path. */
export function isRunId(id: string): boolean {
  return /^[0-9a-f]{1,32}$/.test(id);
}

/** The folder name of node `name` (see the file's comment). */
export function nodeFolderName(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, (character) => [...Buffer.from(character)].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join(''));
}

/** No tokens. */
export function noTokens(): RunTokens {
  return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
}
