/**
 * The docs-reference layer: where operator's own documentation lives, topic by topic, so the agent
 * can read it when asked about operator itself. Only files that exist are listed; with none, the
 * layer is left out.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** Topic -> file, relative to the repository root. */
const topics: [string, string][] = [
  ['overview, quick start, commands', 'README.md'],
  ['reference, one file per topic: configuration, platforms, profiles and extensions, tools, guardrails, security, scheduling, pipelines, storage, operations, deployment', 'docs'],
  ['how a turn works: lifecycle, retries, compaction, events', 'src/agent/README.md'],
  ['model providers, catalog, errors', 'src/llm/README.md'],
  ['sessions and their storage', 'src/session/README.md'],
  ['the store and its backends', 'src/store/README.md'],
  ['memory files', 'src/memory/README.md'],
  ['benchmarks', 'bench/RESULTS.md'],
];

/** The docs reference block for the docs under `root`, or undefined when none exists. */
export function docsReference(root: string): string | undefined {
  const present = topics.filter(([, file]) => existsSync(join(root, file)));
  if (present.length === 0) return undefined;
  const lines = present.map(([topic, file]) => `- ${topic}: ${join(root, file)}`);
  return [`operator's own documentation (read it when asked how operator works or is configured):`, ...lines].join('\n');
}
