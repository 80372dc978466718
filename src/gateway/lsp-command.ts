/**
 * `/lsp`: the language servers of the `code` tool, for an admin: each language with the server
 * this machine has for it (looked for again at each `/lsp`, so one installed since shows), what
 * runs now, and whether they run in the sandbox. Paths of the machine are shown, hence admins only.
 */
import { describeServer, type ServerStatus } from '../tools/code/installed-servers.ts';
import { isDriven } from '../tools/code/server-kinds.ts';
import type { LanguageServers } from '../tools/code/language-servers.ts';

/** The answer of `/lsp` for `servers`. */
export async function lspReport(servers: LanguageServers): Promise<string> {
  const installed: ServerStatus[] = await servers.installed(true);
  const running = servers.list();
  return [
    'Language servers of the code tool:',
    ...installed.map((status) => `- ${describeServer(status)}${status.state === 'ready' && !isDriven(status) ? ' (found; the code tool drives only the TypeScript server, pylsp and gopls so far)' : ''}`),
    running.length === 0 ? 'Running: none (each starts on the first code call about its project)' : `Running: ${running.map((server) => `${server.language} for ${server.root}`).join('; ')}`,
    `Isolation: ${servers.isolation === 'bubblewrap' ? 'in the bubblewrap sandbox' : 'none (no sandbox here: the code tool is the owner\'s alone)'}`,
  ].join('\n');
}
