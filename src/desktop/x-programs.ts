/**
 * Runs the X11 programs the desktop is driven with (xdotool, maim, xwininfo), each with a clean
 * environment: the display and a fixed PATH, never the gateway's own variables (its tokens). A
 * failure becomes a {@link DesktopError} that says what to do: install a program, start or name a
 * display.
 */
import { execFile, type ExecFileException } from 'node:child_process';
import { findExecutable } from '../core/executables.ts';

/** The programs the desktop needs, and the Debian package each comes from. */
export const desktopPrograms = { xdotool: 'xdotool', maim: 'maim', xwininfo: 'x11-utils' } as const;

/** A program of {@link desktopPrograms}. */
export type DesktopProgram = keyof typeof desktopPrograms;

/** Why a desktop action could not run, in words for the model and the people reading along. */
export class DesktopError extends Error {
  override readonly name = 'DesktopError';
}

/** Where the programs are looked up: system folders only, whatever the gateway's own PATH says. */
export const searchPath = '/usr/local/bin:/usr/bin:/bin';

/** How long one program may run before it is stopped (a display that does not answer). */
const programTimeoutMs = 10_000;

/** The X display to talk to and the environment that reaches it. */
export interface XDisplay {
  /** `:99`, `host:0.0`. */
  name: string;
  /** XAUTHORITY of the gateway's environment, when set: a real desktop session needs its cookie file. */
  xauthority?: string;
  /** Folders the programs are looked up in (default: the system's, {@link searchPath}). */
  searchPath?: string;
}

/** What a program printed. */
export interface ProgramOutput {
  stdout: Buffer;
  stderr: string;
}

/**
 * Runs `program args` against `display`. Rejects with a {@link DesktopError} when the program is
 * missing, the display cannot be opened, or the program fails (its own first line of complaint).
 */
export function runX(
  program: DesktopProgram,
  args: readonly string[],
  display: XDisplay,
  signal?: AbortSignal,
  timeoutMs = programTimeoutMs,
): Promise<ProgramOutput> {
  const env: NodeJS.ProcessEnv = { DISPLAY: display.name, PATH: display.searchPath ?? searchPath, LANG: 'C.UTF-8' };
  if (display.xauthority) env.XAUTHORITY = display.xauthority;
  return new Promise((resolve, reject) => {
    execFile(
      program,
      args,
      { env, encoding: 'buffer', maxBuffer: 64 * 1024 * 1024, timeout: timeoutMs, signal, windowsHide: true },
      (error, stdout, stderrBuffer) => {
        const stderr = stderrBuffer.toString('utf8');
        if (!error) return resolve({ stdout, stderr });
        reject(programError(program, display, error, stderr, timeoutMs, signal));
      },
    );
  });
}

function programError(
  program: DesktopProgram,
  display: XDisplay,
  error: ExecFileException,
  stderr: string,
  timeoutMs: number,
  signal?: AbortSignal,
): Error {
  if (signal?.aborted) return signal.reason instanceof Error ? signal.reason : new DesktopError(`${program} was stopped`);
  if (error.code === 'ENOENT') return new DesktopError(`${program} is not installed on this machine (apt-get install ${desktopPrograms[program]})`);
  if (/(can'?t|cannot|unable to|failed to) open (x )?display/i.test(stderr)) {
    return new DesktopError(`the display ${display.name} cannot be opened: is an X server running there?`);
  }
  if (error.killed) return new DesktopError(`${program} did not finish within ${timeoutMs / 1000} s (the display ${display.name} does not answer)`);
  const said = stderr.trim().split('\n').find((line) => line.trim() !== '');
  return new DesktopError(`${program} failed${said ? `: ${said.slice(0, 300)}` : ` (exit code ${String(error.code)})`}`);
}

/** The programs of {@link desktopPrograms} not installed here, by a look at the search path (none runs). */
export function missingPrograms(folders = searchPath): DesktopProgram[] {
  return (Object.keys(desktopPrograms) as DesktopProgram[]).filter((program) => findExecutable(program, folders) === undefined);
}
