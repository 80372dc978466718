/**
 * The context pack: what a task step's prompt is given about the work, assembled fresh before the
 * step: the goal, the project profile, the files relevant to the goal and the last error (found by
 * keyword, with their first lines), the last error, the current diff, the last test results and
 * the memory (`task-format.ts`), rendered within a size limit, the least important given up first.
 */
import { fitSections } from './task-format.ts';
import type { TaskState } from './task-state.ts';
import { extractKeywords, readSnippets, searchFiles, type Run, type WorkspaceIndex } from './workspace-index.ts';

/** What a step is given. */
export interface ContextPack {
  goal: string;
  projectProfile: string;
  relevantFiles: string;
  recentError: string;
  currentDiff: string;
  testResults: string;
  verificationSuccess: boolean;
  memorySummary: string;
}

/** The pack's sections, in the order shown. */
export const packSections = ['Goal', 'Project Profile', 'Relevant Files', 'Recent Error', 'Current Diff', 'Test Results', 'Memory'] as const;
type PackSection = (typeof packSections)[number];

/** Kept first when they do not all fit. */
const priority: readonly PackSection[] = ['Goal', 'Recent Error', 'Memory', 'Project Profile', 'Relevant Files', 'Test Results', 'Current Diff'];

/** The default size limit of a pack, in characters. */
export const defaultPackChars = 12_000;
/** Relevant files shown at most. */
const maxRelevant = 5;
/** Characters of each relevant file shown. */
const snippetChars = 1_500;

/** Builds the pack for `state` (its memory rendered as `memorySummary`), searching the workspace through `run`. */
export async function buildContextPack(run: Run, state: TaskState, options: { goal: string; index: WorkspaceIndex; memorySummary: string }): Promise<ContextPack> {
  const { goal, index } = options;
  const error = state.lastError;
  const profile = index.profile;
  return {
    goal,
    projectProfile: [
      `Language: ${profile.language ?? 'unknown'}`,
      `Package manager: ${profile.packageManager ?? 'none'}`,
      `Test command: ${profile.testCommands.join(' ; ') || 'none found'}`,
      `Files: ${index.files.length}${index.truncated ? '+ (the listing was cut)' : ''}${index.git ? ' (a git repository)' : ''}`,
    ].join('\n'),
    relevantFiles: await relevantFiles(run, index, `${goal}\n${error?.summary ?? ''}\n${error?.stderrTail ?? ''}`),
    recentError: error ? [`${error.summary} (${error.category}: ${error.reason})`, `Reproduce with: ${error.reproCommand}`, error.stderrTail].join('\n') : '',
    currentDiff: state.artifacts.currentDiff,
    // The test command's failure is the last error: its output is shown there, not twice.
    testResults: error !== undefined && error.reproCommand === profile.testCommands[0] ? '(the output is under Recent Error)' : state.artifacts.testResults,
    verificationSuccess: state.artifacts.verificationSuccess,
    memorySummary: options.memorySummary,
  };
}

/**
 * The files `text` names (listed in the workspace), then those holding its keywords, with their
 * first lines.
 */
async function relevantFiles(run: Run, index: WorkspaceIndex, text: string): Promise<string> {
  const listed = new Set(index.files);
  const named = [...new Set((text.match(/[\w./-]+\.\w+/g) ?? []).flatMap((path) => listedSuffix(path, listed) ?? []))];
  // The named files' stems (`sum` of test/sum.test.js) find the code they test.
  const stems = named.map((path) => path.slice(path.lastIndexOf('/') + 1).split('.')[0]!).filter((stem) => stem.length >= 3);
  const keywords = [...new Set([...stems, ...extractKeywords(text)])].slice(0, 6);
  const found = named.length >= maxRelevant ? [] : await searchFiles(run, keywords, maxRelevant);
  const paths = [...new Set([...named, ...found])].filter((path) => !secretLike.test(path)).slice(0, maxRelevant);
  const snippets = await readSnippets(run, paths, snippetChars);
  return paths
    .filter((path) => snippets.has(path))
    .map((path) => {
      const snippet = snippets.get(path)!;
      return `### ${path}\n${snippet}${snippet.length >= snippetChars ? '\n[...]' : ''}`;
    })
    .join('\n\n');
}

/**
 * Files that hold secrets by their name: never put into a prompt unasked (the agent may still
 * read one with its tools, under their guardrails).
 */
const secretLike = /(^|\/)(\.env(\..*)?|\.npmrc|\.netrc|\.pypirc|id_(rsa|dsa|ecdsa|ed25519)[^/]*|[^/]*\.(pem|key|p12|pfx|keystore)|credentials[^/]*|secrets?\.[^/]+)$/i;

/** `path` as the listing has it: itself, or its longest tail that is listed (an absolute path in a stack trace); undefined when none is. */
function listedSuffix(path: string, listed: ReadonlySet<string>): string | undefined {
  const parts = path.split('/');
  for (let start = 0; start < parts.length; start++) {
    const tail = parts.slice(start).join('/');
    if (listed.has(tail)) return tail;
  }
  return undefined;
}

/** The pack as a prompt's text, at most `maxChars` characters; empty sections left out. */
export function contextPackText(pack: ContextPack, maxChars = defaultPackChars): string {
  const bodies = new Map<PackSection, string>();
  const add = (section: PackSection, body: string) => {
    if (body.trim() !== '') bodies.set(section, body);
  };
  add('Goal', pack.goal);
  add('Project Profile', pack.projectProfile);
  add('Relevant Files', pack.relevantFiles);
  add('Recent Error', pack.recentError);
  add('Current Diff', pack.currentDiff);
  add('Test Results', pack.testResults ? `${pack.verificationSuccess ? 'Passed' : 'Failed'}:\n${pack.testResults}` : '');
  add('Memory', pack.memorySummary);
  return fitSections(packSections, priority, bodies, maxChars, '#');
}
