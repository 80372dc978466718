/**
 * The `code` tool: code navigation in TypeScript and JavaScript through the TypeScript language
 * server, in Python through `pylsp` and in Go through `gopls` where the machine has them.
 * `definition` (where a symbol is declared), `references` (where it is used), `hover`
 * (its type and documentation) and `diagnostics` (a file's syntax and type errors). It asks
 * about files inside the turn's workspace by read_file's rules, but it runs a program (the
 * language server) that reads what the project's tsconfig.json and imports reach, and its hovers
 * and errors can show what it read there: so it is in the `shell` group (the owner's; others by
 * grant, and only where the sandbox works), not `read`, which every seat has. The server runs in
 * the seat's sandbox and sees the workspace root that holds the project, read-only (see
 * `server-program.ts`). The tool's own reads (the file asked about, the other open documents,
 * the source lines it shows) are the turn's file worker's, in the seat's sandbox too (see
 * `code-files.ts`). The server starts on the first call about a project (for TypeScript a folder
 * with a package.json or tsconfig.json; for Python one with a pyproject.toml, setup.py, setup.cfg
 * or requirements.txt, else the workspace root; for Go a module, a folder with a go.mod) and this
 * module loads no client and starts nothing before that.
 * Offered only where the server is installed (see `server-install.ts`).
 */
import path from 'node:path';
import * as z from 'zod';
import { errorMessage } from '../../core/errors.ts';
import { isInside, resolveRealPath } from '../../guardrails/real-path.ts';
import { fileAccessOf, resolvePath, workingDirectory, type BuiltinToolOptions } from '../builtin/paths.ts';
import { errorResult } from '../builtin/results.ts';
import { turnFiles, workerErrorResult, type TurnFiles } from '../files/turn-files.ts';
import { defineTool, type Tool, type ToolContext, type ToolOutput } from '../tool.ts';
import { readText, workerLister, workerReader } from './code-files.ts';
import { asLocations, formatDiagnostics, formatLocations, hoverText, type LocationView } from './code-format.ts';
import { CodeServerError } from './code-server-error.ts';
import { CodeWorkspace } from './code-workspace.ts';
import { languageOf } from './file-languages.ts';
import { describeServer, type ServerStatus } from './installed-servers.ts';
import { isDriven, knownExtensions, serverKindOf, serverKinds } from './server-kinds.ts';
import type { LanguageServer } from './language-server.ts';
import type { LspPosition } from './lsp-types.ts';
import { LanguageServers } from './language-servers.ts';
import { findPosition, linesOf } from './positions.ts';
import { findProjectRoot } from './project-root.ts';

/** The actions, in the order the model reads them. */
export const codeActions = ['definition', 'references', 'hover', 'diagnostics'] as const;

/** Options of {@link createCodeTool}. */
export interface CodeToolOptions extends Pick<BuiltinToolOptions, 'cwd' | 'files'> {
  /** The language servers (shared by every agent, stopped by the runtime). Default: a pool of this tool's own. */
  servers?: LanguageServers;
  /** Paths no call may reach in any workspace: operator's private state (see `privatePaths`). */
  hidden?: readonly string[];
  /** Most references listed. Default 50. */
  maxReferences?: number;
  /** Most diagnostics listed. Default 50 (at most 400 characters each: well within the 30,000 the engine passes on uncut). */
  maxDiagnostics?: number;
}

/** Largest file the tool opens in the server, in bytes. */
const maxFileBytes = 4 * 1024 * 1024;

const parameters = z.object({
  action: z.enum(codeActions),
  path: z.string().min(1).describe('The file: absolute, or relative to the working directory.'),
  line: z.int().min(1).optional().describe('definition, references, hover: the line, from 1 (as read_file numbers lines).'),
  column: z.int().min(1).optional().describe('definition, references, hover: the column on that line, from 1, in characters.'),
  symbol: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe('definition, references, hover: instead of column, the name to look up on that line (with column too: the occurrence nearest it).'),
});

type CodeArgs = z.infer<typeof parameters>;

const description =
  'Navigate TypeScript and JavaScript code with the TypeScript language server, Python code with pylsp and Go code ' +
  'with gopls where they are installed. Actions: definition (where the symbol is declared), references (every use of ' +
  'it), hover (its type and documentation), diagnostics (the syntax and type errors of the file; for Python, what ' +
  'pyflakes finds; for Go, compile errors only, not go vet\'s). definition, references and hover need line and either ' +
  'column or symbol (a name on that line). A TypeScript file must be in a project folder (a package.json or ' +
  'tsconfig.json at or above it), a Go file in a module (a go.mod at or above it); the first call about a project ' +
  'starts the server and takes a few seconds.';

/** Creates the `code` tool. */
export function createCodeTool(options: CodeToolOptions = {}): Tool<typeof parameters> {
  const servers = options.servers ?? new LanguageServers();
  const workspace = new CodeWorkspace(options.hidden);
  const maxReferences = options.maxReferences ?? 50;
  const maxDiagnostics = options.maxDiagnostics ?? 50;
  return defineTool({
    name: 'code',
    machine: 'shell',
    description,
    parameters,
    timeoutMs: 120_000,
    async execute(args, context): Promise<ToolOutput> {
      context.signal.throwIfAborted();
      if (args.action !== 'diagnostics' && (args.line === undefined || (args.column === undefined && args.symbol === undefined))) {
        return errorResult(`${args.action} needs line and either column or symbol (the name on that line)`);
      }
      const cwd = workingDirectory(options, context);
      const file = resolvePath(cwd, args.path);
      const refusal = await workspace.refusal(file, cwd, context.turn);
      if (refusal !== undefined) return errorResult(refusal);
      const kind = serverKindOf(file);
      if (kind === undefined) {
        const extension = path.extname(file);
        return errorResult(
          `${args.path}: the code tool reads ${serverKinds.map((known) => known.language).join(', ')} files (${knownExtensions.join(', ')}), not ${extension ? `${extension} files` : 'files without an extension'}`,
        );
      }
      if (kind.id !== 'typescript') {
        const status = (await servers.installed()).find((entry) => entry.kind.id === kind.id)!;
        if (!isDriven(status)) return errorResult(notServed(args.path, status));
      }
      const languageId = languageOf(file)!;
      // Read by the turn's file worker, in the seat's sandbox: never opened by this process.
      const files = turnFiles(fileAccessOf(options), context, cwd);
      let real: string;
      let text: string;
      try {
        real = (await files.call<{ real: string }>('realpath', { path: file })).real;
        const read = await readText(files, real, maxFileBytes);
        if (read.tooLarge) return errorResult(`${args.path} is ${read.size} bytes, more than the ${maxFileBytes} bytes the code tool opens`);
        if (read.content === null) return errorResult(`file not found: ${args.path}`);
        text = read.content;
      } catch (error) {
        return workerErrorResult(error, args.path, `reading ${args.path}`, context.signal);
      }
      const root = await workspace.rootOf(real, cwd, context.turn);
      const found = root === undefined ? undefined : await findProjectRoot(path.dirname(real), root, (marker) => isFileIn(files, marker), kind.projectMarkers);
      const project = found ?? (kind.workspaceFallback ? root : undefined);
      if (root === undefined || project === undefined) {
        return errorResult(
          `${args.path} is not in a project: no ${kind.projectMarkers.join(' or ')} in its folder or above it inside the workspace. ` +
            `The code tool starts the ${kind.id === 'typescript' ? 'TypeScript' : kind.language} language server only for a project folder.`,
        );
      }
      const lines = linesOf(text);
      let position: LspPosition | undefined;
      if (args.action !== 'diagnostics') {
        const found = findPosition(lines, args.path, args.line!, args.column, args.symbol);
        if ('error' in found) return errorResult(found.error);
        position = found.position;
      }
      const view = await locationView(cwd, context, workspace, files, real, text);
      try {
        // The server sees the workspace root that holds the project: one per project and root.
        return await servers.use({ project, roots: [root], language: kind.id }, async (server) => {
          await server.open(real, languageId, text, workerReader(files, maxFileBytes), workerLister(files));
          if (args.action === 'diagnostics') {
            const found = formatDiagnostics(await server.diagnostics(real, context.signal), view.display(real), text, maxDiagnostics);
            return { content: found.length === 0 ? `No ${server.problems} in ${view.display(real)}.` : found.join('\n') };
          }
          return await answer(server, args, real, position!, view, context.signal, maxReferences);
        });
      } catch (error) {
        context.signal.throwIfAborted();
        if (error instanceof CodeServerError) return errorResult(error.message);
        return errorResult(`the ${kind.id === 'typescript' ? 'TypeScript' : kind.language} language server failed: ${errorMessage(error)}`);
      }
    },
  });
}

/** Why the code tool does not answer about a file of `status`'s language: its server is missing, does not run, or is not driven yet. */
function notServed(file: string, status: ServerStatus): string {
  const { language, programs, install } = status.kind;
  if (status.state === 'missing') return `${file}: ${language} files need a ${language} language server (${programs.join(', ')}), and none is installed here (${install}).`;
  if (status.state === 'broken') return `${file}: ${language} files need a ${language} language server. ${describeServer(status).replace(/\.?$/, '.')}`;
  return `${file}: ${describeServer(status)} is installed, but the code tool drives only the TypeScript language server, Python's pylsp and Go's gopls so far.`;
}

/** The answer to definition, references or hover at `position` of the open `file`. */
async function answer(
  server: LanguageServer,
  args: CodeArgs,
  file: string,
  position: LspPosition,
  view: LocationView,
  signal: AbortSignal,
  maxReferences: number,
): Promise<ToolOutput> {
  const what = `${args.symbol !== undefined ? `\`${args.symbol}\` at ` : ''}${view.display(file)}:${args.line}${args.column !== undefined ? `:${args.column}` : ''}`;
  if (args.action === 'hover') {
    const text = hoverText(await server.hover(file, position, signal));
    return { content: text === '' ? `No type information for ${what}.` : text };
  }
  if (args.action === 'definition') {
    const locations = asLocations(await server.definition(file, position, signal));
    if (locations.length === 0) return { content: `No definition found for ${what}.` };
    return { content: (await formatLocations(locations, view, maxReferences)).join('\n') };
  }
  const locations = (await server.references(file, position, signal)) ?? [];
  if (locations.length === 0) return { content: `No references found for ${what}.` };
  const lines = await formatLocations(locations, view, maxReferences);
  return { content: [`${locations.length} reference${locations.length === 1 ? '' : 's'} to ${what}:`, ...lines].join('\n') };
}

/** Whether `file` is a regular file, as the turn's file worker sees it. */
async function isFileIn(files: TurnFiles, file: string): Promise<boolean> {
  return files.call<{ type: string }>('stat', { path: file }).then(
    (info) => info.type === 'file',
    () => false,
  );
}

/**
 * How this call shows locations: paths relative to the working directory, the workspace rules of
 * the turn, and file texts read at most once (the asked file's from what was just read), by the
 * turn's file worker.
 */
async function locationView(cwd: string, context: ToolContext, workspace: CodeWorkspace, files: TurnFiles, file: string, text: string): Promise<LocationView> {
  const realCwd = await resolveRealPath(cwd);
  const texts = new Map<string, Promise<string | undefined>>([[file, Promise.resolve(text)]]);
  return {
    display: (target) => (isInside(realCwd, target) ? path.relative(realCwd, target) || '.' : target),
    visibility: (target) => workspace.visibility(target, cwd, context.turn),
    text: (target) => {
      let read = texts.get(target);
      if (!read) {
        read = readText(files, target, maxFileBytes).then(
          (found) => found.content ?? undefined,
          () => undefined,
        );
        texts.set(target, read);
      }
      return read;
    },
  };
}
