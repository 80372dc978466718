/**
 * What kind of project a workspace holds, read from its files: the main language, the package
 * manager, and the commands that run its tests. The task workflow's VERIFY step runs those
 * commands, and its context pack names them, instead of each prompt guessing.
 *
 * Works on a listing and a few manifests the caller read for it (through the sandboxed file
 * worker: the gateway never opens a workspace's files itself, as a tool may have made any of
 * them a link to somewhere else).
 */

/** A workspace's project, as far as its files tell. */
export interface ProjectProfile {
  /** The main language (`TypeScript`, `JavaScript`, `Rust`, `Go`, `Python`...), undefined when nothing tells. */
  language: string | undefined;
  /** `npm`, `pnpm`, `yarn`, `bun`, `cargo`, `go`, `uv`, `poetry`, `pipenv`, `pip`; undefined when none is used. */
  packageManager: string | undefined;
  /** Commands that run the tests, the likeliest first; empty when none was found. */
  testCommands: string[];
}

/** The manifests {@link projectProfileOf} reads, by their path relative to the workspace. */
export const profileManifests = ['package.json', 'Makefile', 'pyproject.toml'] as const;

/** The text of a manifest of {@link profileManifests}, or undefined when there is none. */
export type ManifestReader = (path: (typeof profileManifests)[number]) => string | undefined;

/** The script `npm init` writes, which runs no test. */
const placeholderTest = /no test specified/;

/** File extensions and the language they are written in. */
const languages: Readonly<Record<string, string>> = {
  ts: 'TypeScript', tsx: 'TypeScript', mts: 'TypeScript', cts: 'TypeScript',
  js: 'JavaScript', jsx: 'JavaScript', mjs: 'JavaScript', cjs: 'JavaScript',
  py: 'Python', rs: 'Rust', go: 'Go', java: 'Java', kt: 'Kotlin', rb: 'Ruby', php: 'PHP', cs: 'C#', c: 'C', cpp: 'C++', cc: 'C++', swift: 'Swift',
};

/**
 * The profile of a workspace whose files (paths relative to it, `/`-separated) are `files`.
 *
 * @example
 * projectProfileOf(['package.json', 'pnpm-lock.yaml', 'src/a.ts'], (path) => manifests[path])
 * // { language: 'TypeScript', packageManager: 'pnpm', testCommands: ['pnpm test'] }
 */
export function projectProfileOf(files: readonly string[], read: ManifestReader): ProjectProfile {
  const present = new Set(files);
  const has = (...names: string[]) => names.some((name) => present.has(name));
  const language = mainLanguage(files);
  const tests: string[] = [];
  let packageManager: string | undefined;

  if (has('package.json')) {
    packageManager = has('pnpm-lock.yaml') ? 'pnpm' : has('yarn.lock') ? 'yarn' : has('bun.lock', 'bun.lockb') ? 'bun' : 'npm';
    const test = packageScripts(read('package.json')).test;
    if (test !== undefined && !placeholderTest.test(test)) tests.push(`${packageManager} test`);
  }
  if (has('Cargo.toml')) {
    packageManager ??= 'cargo';
    tests.push('cargo test');
  }
  if (has('go.mod')) {
    packageManager ??= 'go';
    tests.push('go test ./...');
  }
  if (has('pyproject.toml', 'setup.py', 'setup.cfg', 'requirements.txt', 'pytest.ini', 'Pipfile')) {
    const python = has('uv.lock') ? 'uv' : has('poetry.lock') ? 'poetry' : has('Pipfile') ? 'pipenv' : 'pip';
    packageManager ??= python;
    if (usesPytest(files, has('pytest.ini', 'conftest.py'), read('pyproject.toml'))) tests.push(python === 'pip' ? 'python3 -m pytest -q' : `${python} run pytest -q`);
  }
  if (has('Makefile') && /^test\s*:/m.test(read('Makefile') ?? '')) tests.push('make test');
  return { language: language ?? manifestLanguage(present), packageManager, testCommands: tests };
}

/** The language most of the source files are in (by extension), undefined when none is known. */
function mainLanguage(files: readonly string[]): string | undefined {
  const counts = new Map<string, number>();
  for (const file of files) {
    if (file.startsWith('node_modules/') || file.includes('/node_modules/') || file.startsWith('target/') || file.startsWith('dist/')) continue;
    const dot = file.lastIndexOf('.');
    const language = dot === -1 || dot < file.lastIndexOf('/') ? undefined : languages[file.slice(dot + 1).toLowerCase()];
    if (language) counts.set(language, (counts.get(language) ?? 0) + 1);
  }
  let best: [string, number] | undefined;
  for (const entry of counts) if (!best || entry[1] > best[1]) best = entry;
  return best?.[0];
}

/** The language a manifest implies, for a workspace with no source file yet. */
function manifestLanguage(present: ReadonlySet<string>): string | undefined {
  if (present.has('Cargo.toml')) return 'Rust';
  if (present.has('go.mod')) return 'Go';
  if (present.has('pyproject.toml') || present.has('setup.py') || present.has('requirements.txt')) return 'Python';
  if (present.has('tsconfig.json')) return 'TypeScript';
  if (present.has('package.json')) return 'JavaScript';
  return undefined;
}

/** `scripts` of a package.json text; none when it is missing or not JSON. */
function packageScripts(text: string | undefined): Record<string, string> {
  try {
    const scripts = (JSON.parse(text ?? '') as { scripts?: unknown }).scripts;
    if (typeof scripts !== 'object' || scripts === null) return {};
    return Object.fromEntries(Object.entries(scripts).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
  } catch {
    return {};
  }
}

/** Whether a Python project's tests run with pytest: its configuration, or test files pytest finds. */
function usesPytest(files: readonly string[], configured: boolean, pyproject: string | undefined): boolean {
  if (configured || /\[tool\.pytest|pytest/.test(pyproject ?? '')) return true;
  return files.some((file) => /(^|\/)(test_[^/]*|[^/]*_test)\.py$/.test(file));
}
