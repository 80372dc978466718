/**
 * The seat's files, for tools whose code is not operator's own (an extension's): reading, writing,
 * listing and finding files through the turn's file worker, inside the seat's sandbox, the same
 * worker and view the built-in file tools use. The tool's own code still runs in the gateway, so a
 * path it opens itself is not confined; what it does through these methods is, by the operating
 * system: a seat sees only its roots, never OPERATOR_HOME's private entries or a `.env` file, and
 * writes only where the turn may change files and the tool says it does (`machine: 'write'` or
 * `'shell'`).
 */
import path from 'node:path';
import type { MachineAccess, ToolContext } from '../tool.ts';
import type { FileAccess } from './file-access.ts';
import { FileWorkerError } from './file-worker.ts';
import { turnFiles, type TurnFiles } from './turn-files.ts';

/** Largest file {@link SeatFiles.read} and {@link SeatFiles.readBytes} take unless told: 10 MB. */
export const defaultSeatReadBytes = 10 * 1024 * 1024;

/** One entry of {@link SeatFiles.stat}. */
export interface SeatFileInfo {
  kind: 'file' | 'directory' | 'other';
  size: number;
  modifiedMs: number;
}

/**
 * A tool call's files, in the seat's sandbox. Paths are absolute or relative to the call's
 * working directory. A missing file, a folder where a file was expected, or a path outside the
 * seat's view throws a {@link FileWorkerError} whose `code` says which (`ENOENT`, `EISDIR`,
 * `EROFS`, `EFBIG`...); a call past the time limit throws `FileWorkerTimeoutError`.
 */
export interface SeatFiles {
  /** Whether {@link write} may change files in this call. */
  readonly writable: boolean;
  /** A file's text (UTF-8), refused past `maxBytes` (default {@link defaultSeatReadBytes}). */
  read(file: string, options?: { maxBytes?: number }): Promise<string>;
  /** A file's bytes, refused past `maxBytes` (default {@link defaultSeatReadBytes}). */
  readBytes(file: string, options?: { maxBytes?: number }): Promise<Uint8Array>;
  /** Creates or replaces a file (its folders made as needed); recorded for `/undo` when text. */
  write(file: string, content: string | Uint8Array): Promise<void>;
  /** What is at `file`, or undefined when nothing is. */
  stat(file: string): Promise<SeatFileInfo | undefined>;
  /** Files matching a glob (`src/**\/*.ts`), below `base` (default the working directory), newest first, absolute. */
  glob(pattern: string, options?: { base?: string }): Promise<string[]>;
}

/**
 * How the engine gets a call's {@link SeatFiles} without loading the file workers itself (the
 * engine runs on Workers too, where there are none): the runtime hands one of these in, made by
 * {@link seatFilesFor} over its `FileAccess`.
 */
export type SeatFilesSource = (context: Pick<ToolContext, 'turn' | 'signal' | 'changes'>, cwd: string, machine: MachineAccess | 'none' | undefined, toolName: string) => SeatFiles | undefined;

/** The tool kinds that get {@link SeatFiles}: what says it touches files. */
const withFiles: ReadonlySet<MachineAccess | 'none'> = new Set(['read', 'write', 'shell']);

/**
 * The files of one call of a tool that says it does `machine` (unset counts as `shell`), or
 * undefined for a tool that says it touches no files. Reads always; writes when the tool says it
 * writes and the turn's seat may change files.
 */
export function seatFilesFor(access: FileAccess, context: Pick<ToolContext, 'turn' | 'signal' | 'changes'>, cwd: string, machine: MachineAccess | 'none' | undefined, toolName: string): SeatFiles | undefined {
  cwd = path.resolve(cwd);
  const kind = machine ?? 'shell';
  if (!withFiles.has(kind)) return undefined;
  const turn = turnFiles(access, context, cwd);
  const writable = kind !== 'read' && turn.view.writable;
  // A reading tool gets a worker whose roots are mounted read-only, whatever the turn may do.
  const files: TurnFiles = writable || !turn.view.writable ? turn : turnFiles(access, { ...context, turn: context.turn && { ...context.turn, tools: new Set() } }, cwd);
  const at = (file: string) => path.resolve(cwd, file);
  const tooLarge = (file: string, size: number, maxBytes: number) => new FileWorkerError('EFBIG', `${file} is ${size} bytes, more than ${maxBytes}`);
  return {
    writable,
    async read(file, options = {}) {
      const maxBytes = options.maxBytes ?? defaultSeatReadBytes;
      const result = await files.call<{ content: string | null; tooLarge?: boolean; size?: number }>('readText', { path: at(file), maxBytes });
      if (result.tooLarge) throw tooLarge(file, result.size ?? 0, maxBytes);
      if (result.content === null) throw new FileWorkerError('ENOENT', `${file}: no such file`);
      return result.content;
    },
    async readBytes(file, options = {}) {
      const maxBytes = options.maxBytes ?? defaultSeatReadBytes;
      const result = await files.call<{ kind: string; size?: number; data?: string }>('readBytes', { path: at(file), maxBytes });
      if (result.kind === 'too-large') throw tooLarge(file, result.size ?? 0, maxBytes);
      if (result.kind === 'directory') throw new FileWorkerError('EISDIR', `${file} is a folder`);
      if (result.kind !== 'file') throw new FileWorkerError('EINVAL', `${file} is not a regular file`);
      return new Uint8Array(Buffer.from(result.data ?? '', 'base64'));
    },
    async write(file, content) {
      // The worker's mounts refuse it too (read-only roots): this only says so plainly.
      if (!writable) throw new FileWorkerError('EROFS', `${file}: this tool may not change files here`);
      const text = typeof content === 'string';
      const written = await files.call<{ before?: string | null }>('write', {
        path: at(file),
        content: text ? content : Buffer.from(content).toString('base64'),
        encoding: text ? 'utf8' : 'base64',
        keepBefore: text && context.changes !== undefined,
      });
      if (text) await context.changes?.record({ path: at(file), before: written.before ?? null, after: content, tool: toolName });
    },
    async stat(file) {
      try {
        const info = await files.call<{ type: SeatFileInfo['kind'] | 'broken-link'; size: number; mtimeMs: number }>('stat', { path: at(file) });
        // A link to nothing (or to what the seat may not see) is nothing.
        if (info.type === 'broken-link') return undefined;
        return { kind: info.type, size: info.size, modifiedMs: info.mtimeMs };
      } catch (error) {
        if (error instanceof FileWorkerError && (error.code === 'ENOENT' || error.code === 'ENOTDIR')) return undefined;
        throw error;
      }
    },
    async glob(pattern, options = {}) {
      const result = await files.call<{ files: string[] }>('glob', { base: at(options.base ?? '.'), pattern, ignore: ['**/node_modules/**', '**/.git/**'] });
      return result.files;
    },
  };
}
