/**
 * `.env` files: before any verb reads its configuration, `operator` loads `.env` from the working
 * directory and then `OPERATOR_HOME/.env` (whose location the first may set) with Node's own
 * `process.loadEnvFile`. A variable is only ever added, never replaced, so the precedence is:
 * the real environment > ./.env > OPERATOR_HOME/.env.
 *
 * Node's parser takes nearly anything (a line without `=` silently becomes part of the next
 * name), so each file is checked first; a malformed one is an error naming the file and the line,
 * never quoting it: `.env` files hold secrets.
 */
import { readFileSync } from 'node:fs';
import { ConfigurationError } from '../core/errors.ts';
import { envFilePaths } from '../core/private-paths.ts';
import { operatorHome } from '../store/from-env.ts';

/**
 * Loads `<cwd>/.env`, then `OPERATOR_HOME/.env` (once if they are the same file), into
 * `process.env` without replacing what it holds. A missing file (or a directory called `.env`,
 * such as a Python virtualenv) is skipped. Returns the files loaded.
 *
 * Both are private entries (`envFilePaths` in `core/private-paths.ts`): no tool reaches them, and
 * every value in them is redacted from tool results like a secret of the environment.
 *
 * @throws ConfigurationError naming the file (and line) of a malformed or unreadable file.
 */
export function loadEnvFiles(cwd: string = process.cwd()): string[] {
  const loaded: string[] = [];
  const local = envFilePaths(cwd, operatorHome(process.env))[0]!;
  if (loadEnvFile(local)) loaded.push(local);
  // Found after the working directory's file is loaded: that file may say where OPERATOR_HOME is.
  const home = envFilePaths(cwd, operatorHome(process.env)).find((file) => file !== local);
  if (home !== undefined && loadEnvFile(home)) loaded.push(home);
  return loaded;
}

/** Adds the variables of `file` that `process.env` lacks; false when there is no such file. */
function loadEnvFile(file: string): boolean {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR') return false;
    throw new ConfigurationError(`Cannot read ${file}: ${code ?? 'unknown error'}`, { file });
  }
  checkEnvSyntax(file, text);
  // process.loadEnvFile leaves set variables alone in the Node versions we know; what was there
  // is put back all the same, so no version of Node can let a file override the environment.
  const before = Object.entries(process.env);
  try {
    process.loadEnvFile(file);
  } catch (error) {
    throw new ConfigurationError(`Cannot load ${file}: ${(error as NodeJS.ErrnoException).code ?? 'unknown error'}`, { file });
  } finally {
    for (const [name, value] of before) if (process.env[name] !== value) process.env[name] = value;
  }
  return true;
}

const assignment = /^(?:export\s+)?[A-Za-z_][A-Za-z0-9_.-]*\s*=(.*)$/;

/**
 * Throws unless every line of `text` is blank, a `#` comment or `NAME=value` (`export NAME=value`
 * too); a value opening with a quote (" ' `) may go on over lines until the quote closes.
 */
export function checkEnvSyntax(file: string, text: string): void {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!.trim();
    if (line === '' || line.startsWith('#')) continue;
    const match = assignment.exec(line);
    if (!match) throw malformed(file, index + 1, 'expected NAME=value or a # comment');
    const value = match[1]!.trimStart();
    const quote = value[0];
    if (quote !== '"' && quote !== "'" && quote !== '`') continue;
    let rest = value.slice(1);
    let end = index;
    while (!rest.includes(quote)) {
      end += 1;
      if (end >= lines.length) throw malformed(file, index + 1, `the value's opening ${quote} is never closed`);
      rest = lines[end]!;
    }
    index = end;
  }
}

function malformed(file: string, line: number, reason: string): ConfigurationError {
  return new ConfigurationError(`Malformed ${file}, line ${line}: ${reason} (the line is not shown: it may hold a secret)`, { file, line });
}
