/** A command runner for the task tests: bash in `cwd`, as the sandbox runs a `tool` node's command (no sandbox here). */
import { execFile } from 'node:child_process';
import type { CommandRunner } from '../../../src/pipelines/handlers/tool-handler.ts';

/** Runs each command with bash in `cwd`; `commands` gets each one run. */
export function bashRunner(cwd: string, commands: string[] = []): CommandRunner {
  return (command, { signal }) => {
    commands.push(command);
    return new Promise((resolve) =>
      execFile('bash', ['-c', command], { cwd, signal, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) =>
        resolve({ exitCode: error ? (typeof (error as { code?: unknown }).code === 'number' ? ((error as { code: number }).code) : null) : 0, output: [stdout, stderr].filter(Boolean).join('\n') }),
      ),
    );
  };
}
