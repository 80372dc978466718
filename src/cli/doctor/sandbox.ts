/** Doctor check: whether commands run in bubblewrap here, as the gateway would choose at its start. */
import { ConfigurationError } from '../../core/errors.ts';
import type { SandboxSettings } from '../../gateway/config/index.ts';
import { operatorHome } from '../../store/from-env.ts';
import { createSandbox } from '../../tools/sandbox/create-sandbox.ts';
import type { CheckResult } from './check.ts';

const name = 'Sandbox';
const install = 'install bubblewrap (Debian and Ubuntu: apt-get install bubblewrap), where user namespaces are allowed';

/** Starts one real sandbox, with `settings` as operator.json gives them. */
export function checkSandbox(settings: SandboxSettings, env: NodeJS.ProcessEnv): CheckResult {
  try {
    const sandbox = createSandbox(settings, { hidden: [operatorHome(env)], env });
    if (sandbox.kind === 'bubblewrap') return { level: 'OK', name, detail: sandbox.describe() };
    if (settings.mode === 'off') return { level: 'WARN', name, detail: `commands run unsandboxed: ${sandbox.describe()}`, fix: 'set sandbox.mode to "auto" to use bubblewrap where it works' };
    return { level: 'WARN', name, detail: `commands would run unsandboxed: ${sandbox.describe()}`, fix: install };
  } catch (error) {
    if (!(error instanceof ConfigurationError)) throw error;
    return { level: 'FAIL', name, detail: 'sandbox.mode is "required" in operator.json, but bubblewrap cannot run here', fix: `${install}, or set sandbox.mode to "auto"` };
  }
}
