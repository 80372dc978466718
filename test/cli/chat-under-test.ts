/**
 * `operator chat` run for real against the fake model server, for the terminal chat's suites:
 * with its output to a pipe (as most tests read it), or to a real terminal (a pseudo-terminal
 * made by util-linux `script`), where stdout is a TTY the way it is for a person.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FakeModelServer } from '../fakes/fake-model-server.ts';
import { useFakeModelSuite } from '../helpers/fake-model-suite.ts';
import { captureOutput } from '../helpers/captured-output.ts';
import { fakeAnthropicEnv } from '../helpers/fake-model-env.ts';
import { spawnOperator, type OperatorProcess } from '../helpers/operator-process.ts';
import { isRunning } from '../helpers/stop-process.ts';
import { createTempHome, removeTempHome } from '../helpers/temp-home.ts';

const bin = fileURLToPath(new URL('../../bin/operator.js', import.meta.url));

/** The suite's fake model server and a fresh OPERATOR_HOME per test, and ways to start the chat. */
export interface ChatSuite {
  server(): FakeModelServer;
  /** This test's OPERATOR_HOME (made on first use). */
  home(): string;
  /** `operator chat ...args` with stdout to a pipe, and `env` on top of the fake model's. */
  start(args?: string[], env?: Record<string, string>): OperatorProcess;
  /**
   * `operator chat` in a terminal (stdout and stdin a TTY) of `size` (default: one that reports no
   * size, where the chat assumes 80 by 24), and `env` on top of the fake model's. Ctrl+C is typed
   * there as `child.stdin.write('\x03')`: the terminal turns it into SIGINT.
   */
  startInTerminal(env?: Record<string, string>, size?: TerminalSize): OperatorProcess;
  /** Writes `skills/<name>/SKILL.md` in the home with `frontmatter` lines and `body`. */
  writeSkill(name: string, frontmatter: string, body: string): void;
}

/** The size of the terminal a chat runs in. */
export interface TerminalSize {
  columns: number;
  rows: number;
}

/** Registers the hooks that start the server once and clean up after every test. */
export function chatSuite(): ChatSuite {
  let home: string | undefined;
  const fakes = useFakeModelSuite(() => {
    removeTempHome(home);
    home = undefined;
  });
  const suite: ChatSuite = {
    server: () => fakes.server(),
    home: () => (home ??= createTempHome('operator-terminal-')),
    start(args = [], env = {}) {
      return fakes.track(spawnOperator(['chat', ...args], { home: suite.home(), env: { ...fakeAnthropicEnv(fakes.server()), ...env } }));
    },
    startInTerminal(env = {}, size) {
      return fakes.track(spawnInTerminal(suite.home(), { TERM: 'xterm-256color', ...fakeAnthropicEnv(fakes.server()), ...env }, size));
    },
    writeSkill(name, frontmatter, body) {
      mkdirSync(join(suite.home(), 'skills', name), { recursive: true });
      writeFileSync(join(suite.home(), 'skills', name, 'SKILL.md'), `---\nname: ${name}\n${frontmatter}\n---\n${body}\n`);
    },
  };
  return suite;
}

/**
 * `operator chat` under `script`, which runs it on a new pseudo-terminal and relays our pipes to
 * it: what we write arrives as typed (and is echoed), what it prints comes back with CR LF.
 */
function spawnInTerminal(home: string, env: Record<string, string>, size: TerminalSize | undefined): OperatorProcess {
  const chat = [process.execPath, bin, 'chat'].map((part) => `'${part.replace(/'/g, `'\\''`)}'`).join(' ');
  // exec: the chat alone gets the terminal's SIGINT, and its exit code is script's.
  const command = `${size ? `stty cols ${size.columns} rows ${size.rows} && ` : ''}exec ${chat}`;
  const child = spawn('script', ['--quiet', '--return', '--command', command, '/dev/null'], {
    env: { PATH: process.env.PATH, SHELL: '/bin/sh', HOME: home, OPERATOR_HOME: home, ...env },
  });
  const output = captureOutput(child);
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const kill = async () => {
    if (isRunning(child)) child.kill('SIGKILL');
    return exited;
  };
  return { child, output, exited, send: (line) => void child.stdin.write(`${line}\n`), stop: kill, kill };
}
