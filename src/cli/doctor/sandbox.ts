/**
 * Doctor check: whether commands run in bubblewrap here, as the gateway would choose at its start,
 * and with the network on whether they get a network of their own: one real command is run
 * through slirp4netns to see its `tap0` come up.
 */
import { ConfigurationError, errorMessage } from '../../core/errors.ts';
import type { SandboxSettings } from '../../gateway/config/index.ts';
import { operatorHome } from '../../store/from-env.ts';
import { runCommand } from '../../tools/builtin/run-command.ts';
import { createSandbox, type CreateSandboxOptions } from '../../tools/sandbox/create-sandbox.ts';
import { slirp4netnsInstall } from '../../tools/sandbox/detect-slirp4netns.ts';
import type { Sandbox } from '../../tools/sandbox/sandbox.ts';
import type { CheckResult } from './check.ts';

const name = 'Sandbox';
const install = 'install bubblewrap (Debian and Ubuntu: apt-get install bubblewrap), where user namespaces are allowed';
const probeTimeoutMs = 10_000;

/**
 * Starts one real sandbox, with `settings` as operator.json gives them, and with the network on
 * one command in a network of its own. `programs` names other executables (as `createSandbox` takes them).
 */
export async function checkSandbox(settings: SandboxSettings, env: NodeJS.ProcessEnv, programs: Pick<CreateSandboxOptions, 'bwrap' | 'slirp4netns'> = {}): Promise<CheckResult> {
  let sandbox: Sandbox;
  try {
    sandbox = createSandbox(settings, { hidden: [operatorHome(env)], env, ...programs });
  } catch (error) {
    if (!(error instanceof ConfigurationError)) throw error;
    return { level: 'FAIL', name, detail: 'sandbox.mode is "required" in operator.json, but bubblewrap cannot run here', fix: `${install}, or set sandbox.mode to "auto"` };
  }
  if (sandbox.kind !== 'bubblewrap') {
    if (settings.mode === 'off') return { level: 'WARN', name, detail: `commands run unsandboxed: ${sandbox.describe()}`, fix: 'set sandbox.mode to "auto" to use bubblewrap where it works' };
    return { level: 'WARN', name, detail: `commands would run unsandboxed: ${sandbox.describe()}`, fix: install };
  }
  const spec = sandbox.spawnSpec({ shell: '/bin/sh', command: 'cat /proc/net/route', cwd: '/', writable: [] });
  if (spec.ownNetwork === undefined) {
    if (!settings.network) return { level: 'OK', name, detail: sandbox.describe() };
    return {
      level: 'WARN',
      name,
      detail: sandbox.describe(),
      fix: `install slirp4netns (${slirp4netnsInstall}) so that commands get a network of their own, or set sandbox.network to false`,
    };
  }
  const failed = (why: string): CheckResult => ({
    level: 'FAIL',
    name,
    detail: `${sandbox.describe()}, but ${why}`,
    fix: 'commands with the network on fail until slirp4netns works here (it needs /dev/net/tun, and user namespaces when unprivileged); set sandbox.network to false to run them without a network meanwhile',
  });
  try {
    const result = await runCommand({ spawn: spec, timeoutMs: probeTimeoutMs, signal: new AbortController().signal });
    // /proc/net/route names the namespace's devices: a default route (destination 00000000) through tap0.
    if (/^tap0\s+00000000\s/m.test(result.stdout)) return { level: 'OK', name, detail: sandbox.describe() };
    const why = result.timedOut ? `did not finish within ${probeTimeoutMs / 1000} s` : `had no default route through tap0 (${result.stderr.trim().slice(0, 200) || `exit code ${result.exitCode}`})`;
    return failed(`a command in its own network ${why}`);
  } catch (error) {
    return failed(errorMessage(error));
  }
}
