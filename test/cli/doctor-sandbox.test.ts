/**
 * `operator doctor`'s sandbox check, run for real: bubblewrap, and with the network on one command
 * in a network of its own through slirp4netns (a default route through tap0 is what it looks for).
 * Without slirp4netns it warns that commands share this machine's network; with a slirp4netns that
 * cannot make the network it fails, saying why.
 */
import { describe, expect, it } from 'vitest';
import { checkSandbox } from '../../src/cli/doctor/sandbox.ts';
import { defaultSandboxSettings } from '../../src/tools/sandbox/sandbox.ts';
import { makeTempDir } from '../helpers/temp-dir.ts';

describe('the doctor sandbox check', () => {
  it('is fine when a command gets a network of its own, or the network is off', async () => {
    const home = await makeTempDir();
    const env = { PATH: process.env.PATH, OPERATOR_HOME: home };
    expect(await checkSandbox(defaultSandboxSettings, env)).toEqual({ level: 'OK', name: 'Sandbox', detail: 'commands run in bubblewrap (network on, a namespace of its own through slirp4netns)' });
    expect(await checkSandbox({ ...defaultSandboxSettings, network: false }, env, { slirp4netns: '/nonexistent/slirp4netns' })).toEqual({
      level: 'OK',
      name: 'Sandbox',
      detail: 'commands run in bubblewrap (network off)',
    });
  });

  it("warns when commands with the network on share this machine's, naming what to install", async () => {
    const home = await makeTempDir();
    const result = await checkSandbox(defaultSandboxSettings, { PATH: process.env.PATH, OPERATOR_HOME: home }, { slirp4netns: '/nonexistent/slirp4netns' });
    expect(result).toEqual({
      level: 'WARN',
      name: 'Sandbox',
      detail:
        'commands run in bubblewrap (network on, shared with this machine and its loopback services: slirp4netns was not found at /nonexistent/slirp4netns (apt-get install slirp4netns))',
      fix: 'install slirp4netns (apt-get install slirp4netns) so that commands get a network of their own, or set sandbox.network to false',
    });
  });

  it('fails when slirp4netns cannot make the network, saying why', async () => {
    const home = await makeTempDir();
    // A real program that exits before the network is up, as a slirp4netns that cannot work here does.
    const result = await checkSandbox(defaultSandboxSettings, { PATH: process.env.PATH, OPERATOR_HOME: home }, { slirp4netns: '/bin/false' });
    expect(result.level).toBe('FAIL');
    expect(result.detail).toBe(
      "commands run in bubblewrap (network on, a namespace of its own through slirp4netns), but the command's own network could not be made: slirp4netns stopped before it was ready (exit code 1)",
    );
    expect(result.fix).toContain('set sandbox.network to false');
  });
});
