/**
 * The options of the `operator` verbs: every verb refuses what it does not know (exit 2, naming
 * it), and `operator start --port/--host` win over operator.json and the environment.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseCommandArgs, UsageError } from '../../src/cli/cli-options.ts';
import { parseStartArgs } from '../../src/cli/start-command.ts';
import { freePort } from '../helpers/free-port.ts';
import { runOperator, spawnOperator, type OperatorProcess } from '../helpers/operator-process.ts';
import { createTempHome, removeTempHome } from '../helpers/temp-home.ts';

let home: string | undefined;
let gateway: OperatorProcess | undefined;
afterEach(async () => {
  await gateway?.kill();
  gateway = undefined;
  removeTempHome(home);
  home = undefined;
});

describe('parseCommandArgs', () => {
  const options = { profile: { type: 'string' }, json: { type: 'boolean' } } as const;

  it('reads options before, between and after positionals, and keeps what follows -- as positionals', () => {
    expect(parseCommandArgs(['--json', 'add', '--profile=p', 'x', '--', '--not-an-option'], options)).toMatchObject({
      values: { json: true, profile: 'p' },
      positionals: ['add', 'x', '--not-an-option'],
    });
  });

  it.each([
    [['--bogus'], 'unknown option --bogus'],
    [['list', '--bogus=1'], 'unknown option --bogus'],
    [['-x'], 'unknown option -x'],
    [['--toString'], 'unknown option --toString'],
    [['--profile'], '--profile needs a value'],
    [['--json=yes'], '--json takes no value'],
  ])('refuses %j: %s', (args, message) => {
    expect(() => parseCommandArgs(args, options)).toThrow(new UsageError(message));
  });

  it('refuses a positional where a command takes only options', () => {
    expect(() => parseCommandArgs(['extra'], options, { positionals: false })).toThrow('unexpected argument "extra"');
  });
});

describe('parseStartArgs', () => {
  it('reads --port and --host', () => {
    expect(parseStartArgs([])).toEqual({});
    expect(parseStartArgs(['--port', '9000', '--host=0.0.0.0'])).toEqual({ port: 9000, host: '0.0.0.0' });
    expect(parseStartArgs(['--port=1', '--host', '[::1]'])).toEqual({ port: 1, host: '[::1]' });
    expect(parseStartArgs(['--port', '65535', '--host', 'localhost'])).toEqual({ port: 65535, host: 'localhost' });
  });

  it.each(['0', '65536', '80.5', 'eighty', '', '1e3', '0x50'])('refuses --port %j', (port) => {
    expect(() => parseStartArgs(['--port', port])).toThrow(`--port takes a port number from 1 to 65535, not "${port}"`);
  });

  it('says how to give a value that starts with a dash', () => {
    expect(() => parseStartArgs(['--port', '-1'])).toThrow('--port needs a value; for one that starts with a dash, write --port=-1');
    expect(() => parseStartArgs(['--port=-1'])).toThrow('--port takes a port number from 1 to 65535, not "-1"');
  });

  it.each(['', 'bad/host', 'a b', 'http://x'])('refuses --host %j', (host) => {
    expect(() => parseStartArgs(['--host', host])).toThrow('--host takes an address to listen on');
  });
});

describe('every operator verb refuses an unknown option', () => {
  it.each([
    ['start'],
    ['chat'],
    ['config', 'check'],
    ['config', 'schema'],
    ['pairing', 'list'],
    ['pairing', 'approve', 'ABCDEFGH'],
    ['schedule', 'list'],
    ['pipeline', 'list'],
  ])('operator %s … --bogus: exit 2, naming it, with the usage', async (...verb) => {
    home = createTempHome('operator-cli-options-');
    const result = await runOperator([...verb, '--bogus'], { HOME: home, OPERATOR_HOME: home });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(new RegExp(`^operator ${verb[0]}: unknown option --bogus\\n\\nUsage: operator ${verb[0]}`));
  });

  it('also before the subcommand, and a short one', async () => {
    home = createTempHome('operator-cli-options-');
    const [before, short] = await Promise.all([
      runOperator(['schedule', '--bogus', 'list'], { HOME: home, OPERATOR_HOME: home }),
      runOperator(['chat', '-q'], { HOME: home, OPERATOR_HOME: home }),
    ]);
    expect(before).toMatchObject({ code: 2, stdout: '' });
    expect(before.stderr).toContain('unknown option --bogus');
    expect(short).toMatchObject({ code: 2, stdout: '' });
    expect(short.stderr).toContain('operator chat: unknown option -q');
  });

  it('refuses operator start with an invalid --port or --host, before anything starts', async () => {
    home = createTempHome('operator-cli-options-');
    const [port, host] = await Promise.all([
      runOperator(['start', '--port', '70000'], { HOME: home, OPERATOR_HOME: home }),
      runOperator(['start', '--host', 'not a host'], { HOME: home, OPERATOR_HOME: home }),
    ]);
    expect(port).toMatchObject({ code: 2, stdout: '' });
    expect(port.stderr).toContain('--port takes a port number from 1 to 65535, not "70000"');
    expect(host).toMatchObject({ code: 2, stdout: '' });
    expect(host.stderr).toContain('--host takes an address to listen on');
  });

  it('says --port and --host in operator start --help', async () => {
    const result = await runOperator(['start', '--help'], {});
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('operator start [--port N] [--host ADDRESS]');
    expect(result.stdout).toContain('--port and --host win over both');
  });
});

describe('operator start --port/--host', () => {
  it('listens where the options say, not where operator.json or PORT and HOST say', async () => {
    home = createTempHome('operator-cli-options-');
    const [port, filePort, envPort] = [await freePort(), await freePort(), await freePort()];
    writeFileSync(join(home, 'operator.json'), JSON.stringify({ port: filePort, host: '127.0.0.3' }));
    gateway = spawnOperator(['start', '--port', String(port), '--host', '127.0.0.1'], { home, env: { PORT: String(envPort), HOST: '127.0.0.2' } });
    const [, origin] = await gateway.output.waitFor(/^operator is running\b.*\n\s*web chat: (http:\/\/[^/]+)\//m, { timeoutMs: 15_000, label: 'the start-up banner' });
    expect(origin).toBe(`http://localhost:${port}`);
    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(health.status).toBe(200);
    expect(await gateway.stop()).toBe(0);
  });
});
