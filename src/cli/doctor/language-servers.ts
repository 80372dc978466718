/**
 * Doctor check: the language servers of the `code` tool, as `/lsp` lists them, looked for and
 * asked `--version` in the sandbox the gateway would run them in. TypeScript's missing is a
 * warning (no `code` tool); another language's missing is fine (its files are not navigated); one
 * found that does not run is a warning, with how to install it properly.
 */
import { ConfigurationError } from '../../core/errors.ts';
import type { SandboxSettings } from '../../gateway/config/index.ts';
import { operatorHome } from '../../store/from-env.ts';
import { describeServer, findLanguageServers, type ServerStatus } from '../../tools/code/installed-servers.ts';
import type { ServerInstall } from '../../tools/code/server-install.ts';
import { createSandbox } from '../../tools/sandbox/create-sandbox.ts';
import type { CheckResult } from './check.ts';

const name = 'Language servers';

/** One line for every language the code tool knows. `install` overrides operator's own TypeScript install (null: none). */
export async function checkLanguageServers(settings: SandboxSettings, env: NodeJS.ProcessEnv, install?: ServerInstall | null): Promise<CheckResult> {
  let statuses: ServerStatus[];
  try {
    statuses = await findLanguageServers({ sandbox: createSandbox(settings, { hidden: [operatorHome(env)], env }), env, install });
  } catch (error) {
    if (!(error instanceof ConfigurationError)) throw error;
    return { level: 'WARN', name, detail: 'not checked: the sandbox the servers run in cannot start here', fix: 'see the Sandbox line' };
  }
  const detail = statuses.map(describeServer).join('; ');
  const typescript = statuses.find((status) => status.kind.id === 'typescript')!;
  if (typescript.state !== 'ready') return { level: 'WARN', name, detail, fix: `the code tool is not offered without the TypeScript server: install ${typescript.kind.install}` };
  const broken = statuses.filter((status) => status.state === 'broken');
  if (broken.length > 0) return { level: 'WARN', name, detail, fix: broken.map((status) => `${status.kind.language}: ${status.kind.install}`).join('; ') };
  return { level: 'OK', name, detail };
}
