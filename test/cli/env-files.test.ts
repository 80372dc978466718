/**
 * `.env` files: the working directory's, then OPERATOR_HOME's, add what the real environment
 * lacks and never replace what it has (the environment > ./.env > OPERATOR_HOME/.env), for every
 * verb; a malformed file is an error naming the file and line, never its text.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkEnvSyntax, loadEnvFiles } from '../../src/cli/env-files.ts';
import { freePort } from '../helpers/free-port.ts';
import { spawnOperator, type OperatorProcessOptions } from '../helpers/operator-process.ts';
import { createTempHome, removeTempHome } from '../helpers/temp-home.ts';

const folders: string[] = [];
function folder(prefix: string): string {
  const path = createTempHome(prefix);
  folders.push(path);
  return path;
}
afterEach(() => {
  for (const path of folders.splice(0)) removeTempHome(path);
});

/** Runs `operator ...args` to its end in `cwd`; its exit code and output. */
async function operator(args: string[], options: OperatorProcessOptions) {
  const child = spawnOperator(args, options);
  const code = await child.exited;
  return { code, stdout: child.output.stdout(), stderr: child.output.stderr() };
}

describe('checkEnvSyntax', () => {
  it('accepts blank lines, comments, export, spaces, quotes and a quoted value over lines', () => {
    const text = ['# settings', '', 'A=1', 'export B = two # comment', "C='x y'", 'D="first', 'second"', 'E=`z`', 'F=', '  G=has = sign', ''].join('\n');
    expect(() => checkEnvSyntax('/x/.env', text)).not.toThrow();
    expect(() => checkEnvSyntax('/x/.env', 'A=1\r\nB=2\r\n')).not.toThrow();
  });

  it('refuses a line that is not NAME=value, naming file and line, never the line', () => {
    expect(() => checkEnvSyntax('/x/.env', 'A=1\nsk-secret-value\nB=2\n')).toThrow(/^Malformed \/x\/\.env, line 2: expected NAME=value or a # comment \(the line is not shown: it may hold a secret\)$/);
    expect(() => checkEnvSyntax('/x/.env', '1A=1')).toThrow('line 1');
    expect(() => checkEnvSyntax('/x/.env', 'A B=1')).toThrow('line 1');
  });

  it('refuses a quote that is never closed, naming the line it opens on', () => {
    expect(() => checkEnvSyntax('/x/.env', 'A=1\nB="sk-secret\nC=3\n')).toThrow(/^Malformed \/x\/\.env, line 2: the value's opening " is never closed/);
  });
});

describe('loadEnvFiles (in this process)', () => {
  const names = ['OPERATOR_TEST_REAL', 'OPERATOR_TEST_LOCAL', 'OPERATOR_TEST_HOME', 'OPERATOR_TEST_BOTH', 'OPERATOR_HOME'];
  const saved = Object.fromEntries(names.map((name) => [name, process.env[name]]));
  afterEach(() => {
    for (const name of names) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  });

  it('adds what is missing, ./.env before OPERATOR_HOME/.env, and finds OPERATOR_HOME in ./.env', () => {
    const cwd = folder('operator-env-cwd-');
    const home = folder('operator-env-home-');
    for (const name of names) delete process.env[name];
    process.env.OPERATOR_TEST_REAL = 'real';
    writeFileSync(join(cwd, '.env'), `OPERATOR_HOME=${home}\nOPERATOR_TEST_REAL=from-cwd\nOPERATOR_TEST_LOCAL=local\nOPERATOR_TEST_BOTH=from-cwd\n`);
    writeFileSync(join(home, '.env'), 'OPERATOR_TEST_REAL=from-home\nOPERATOR_TEST_HOME=home\nOPERATOR_TEST_BOTH=from-home\n');
    expect(loadEnvFiles(cwd)).toEqual([join(cwd, '.env'), join(home, '.env')]);
    expect(process.env.OPERATOR_TEST_REAL).toBe('real');
    expect(process.env.OPERATOR_TEST_LOCAL).toBe('local');
    expect(process.env.OPERATOR_TEST_HOME).toBe('home');
    expect(process.env.OPERATOR_TEST_BOTH).toBe('from-cwd');
  });

  it('keeps a variable that is set but empty, and skips a missing file and a directory called .env', () => {
    const cwd = folder('operator-env-cwd-');
    const home = folder('operator-env-home-');
    process.env.OPERATOR_HOME = home;
    process.env.OPERATOR_TEST_REAL = '';
    mkdirSync(join(cwd, '.env'));
    expect(loadEnvFiles(cwd)).toEqual([]);
    writeFileSync(join(home, '.env'), 'OPERATOR_TEST_REAL=from-home\n');
    expect(loadEnvFiles(cwd)).toEqual([join(home, '.env')]);
    expect(process.env.OPERATOR_TEST_REAL).toBe('');
  });

  it('loads OPERATOR_HOME/.env once when it is the working directory', () => {
    const home = folder('operator-env-home-');
    process.env.OPERATOR_HOME = home;
    writeFileSync(join(home, '.env'), 'OPERATOR_TEST_HOME=home\n');
    expect(loadEnvFiles(home)).toEqual([join(home, '.env')]);
  });
});

describe('.env files, through the operator command', () => {
  it('config check: ./.env sets what the environment lacks, never what it has, and OPERATOR_HOME/.env comes last', async () => {
    const home = folder('operator-env-home-');
    const cwd = folder('operator-env-cwd-');
    writeFileSync(join(cwd, '.env'), 'PORT=4321\nOPERATOR_MODEL=from-cwd-env\nSLACK_BOT_TOKEN=xoxb-never-shown\n');
    writeFileSync(join(home, '.env'), 'PORT=1111\nOPERATOR_MODEL=from-home-env\nOPERATOR_ADMINS=telegram:42\n');
    const fromFiles = await operator(['config', 'check'], { home, cwd });
    expect(fromFiles.stderr).toBe('');
    expect(fromFiles.code).toBe(0);
    expect(fromFiles.stdout).toContain('  port: 4321\n');
    expect(fromFiles.stdout).toContain('  model: from-cwd-env\n');
    expect(fromFiles.stdout).toContain('  admins: telegram:42\n');
    expect(fromFiles.stdout).toContain('slack: bot token set');
    expect(fromFiles.stdout).not.toContain('xoxb-never-shown');

    const real = await operator(['config', 'check'], { home, cwd, env: { PORT: '5555' } });
    expect(real.code).toBe(0);
    expect(real.stdout).toContain('  port: 5555\n');
    expect(real.stdout).toContain('  model: from-cwd-env\n');
  });

  it('pairing and schedule read it too', async () => {
    const home = folder('operator-env-home-');
    const cwd = folder('operator-env-cwd-');
    writeFileSync(join(cwd, '.env'), 'OPERATOR_STORE=memory\n');
    const [pairing, schedule] = await Promise.all([operator(['pairing', 'list'], { home, cwd }), operator(['schedule', 'list'], { home, cwd })]);
    expect(pairing.code).toBe(0);
    expect(pairing.stderr).toContain('OPERATOR_STORE=memory keeps nothing between processes');
    expect(schedule.code).toBe(1);
    expect(schedule.stderr).toContain('OPERATOR_STORE=memory keeps no jobs between processes');
  });

  it('start: listens on the PORT of ./.env', async () => {
    const home = folder('operator-env-home-');
    const cwd = folder('operator-env-cwd-');
    const port = await freePort();
    writeFileSync(join(cwd, '.env'), `PORT=${port}\n`);
    const gateway = spawnOperator(['start'], { home, cwd });
    try {
      await gateway.output.waitFor(new RegExp(`web chat: http://localhost:${port}/`), { timeoutMs: 15_000, label: 'the start-up banner' });
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
      expect(await gateway.stop()).toBe(0);
    } finally {
      await gateway.kill();
    }
  });

  it('a malformed .env stops every verb with its path and line, never its text', async () => {
    const home = folder('operator-env-home-');
    const cwd = folder('operator-env-cwd-');
    writeFileSync(join(home, '.env'), 'ANTHROPIC_API_KEY=sk-ant-fine\nsk-ant-pasted-without-a-name\n');
    for (const args of [['config', 'check'], ['chat'], ['start']]) {
      const result = await operator(args, { home, cwd });
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toBe(`operator: configuration error: Malformed ${join(home, '.env')}, line 2: expected NAME=value or a # comment (the line is not shown: it may hold a secret)\n`);
    }
  });

  it('the real environment may point OPERATOR_HOME elsewhere; a .env there is not read from the default home', async () => {
    const home = folder('operator-env-home-');
    const other = mkdtempSync(join(tmpdir(), 'operator-env-other-'));
    folders.push(other);
    writeFileSync(join(home, '.env'), 'PORT=1111\n');
    writeFileSync(join(other, '.env'), 'PORT=2222\n');
    const result = await operator(['config', 'check'], { home, cwd: folder('operator-env-cwd-'), env: { OPERATOR_HOME: other } });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('  port: 2222\n');
  });
});
