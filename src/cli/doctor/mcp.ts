/**
 * Doctor check: each configured MCP server started as the gateway would start it (a command in
 * the sandbox with what its entry grants, a URL reached with its headers), its tools listed, then
 * stopped. One line per server, none when no server is configured. `--offline` skips the servers
 * reached over the network. Nothing of MCP is loaded without a server.
 */
import type { GatewayConfig } from '../../gateway/config/index.ts';
import { mcpConfigOf } from '../../gateway/config/index.ts';
import { envFilePaths } from '../../core/private-paths.ts';
import { operatorHome } from '../../store/from-env.ts';
import { hasMcpServers, isStdio, type McpConfig, type McpServers } from '../../tools/mcp/mcp-settings.ts';
import { createSandbox } from '../../tools/sandbox/create-sandbox.ts';
import type { CheckResult } from './check.ts';

/** The lines of every configured server, in the order of the configuration (top-level first). */
export async function checkMcp(config: Pick<GatewayConfig, 'mcp' | 'profileSettings' | 'sandbox'>, env: NodeJS.ProcessEnv, offline: boolean): Promise<CheckResult[]> {
  const all = mcpConfigOf(config);
  if (!hasMcpServers(all)) return [];
  // As the runtime makes it: OPERATOR_HOME and the `.env` files operator loads are never shown.
  const home = operatorHome(env);
  const sandbox = createSandbox(config.sandbox, { hidden: [home, ...envFilePaths(process.cwd(), home)], env });
  const skipped: CheckResult[] = [];
  const keep = (servers: McpServers, profile?: string): McpServers => {
    const kept: Record<string, McpServers[string]> = {};
    for (const [name, settings] of Object.entries(servers)) {
      if (offline && !isStdio(settings)) skipped.push({ level: 'WARN', name: label(name, profile), detail: `not checked (--offline): reached at ${new URL(settings.url).origin}` });
      else kept[name] = settings;
    }
    return kept;
  };
  const checked: McpConfig = { base: keep(all.base), profiles: Object.fromEntries(Object.entries(all.profiles).map(([profile, servers]) => [profile, keep(servers, profile)])) };
  const { McpHub } = await import('../../tools/mcp/mcp-hub.ts');
  // One try each: a server that fails is reported, not started again.
  const hub = new McpHub({ config: checked, sandbox, env, backoff: { baseMs: 3_600_000 } });
  try {
    await hub.start();
    const results = hub.status().map((server): CheckResult => {
      const name = label(server.name, server.profile);
      const how = server.transport === 'stdio' ? (sandbox.kind === 'bubblewrap' ? 'in the sandbox' : 'NOT sandboxed (no bubblewrap): its tools are the owner\'s alone') : `at ${server.where}`;
      const why = (server.lastError ?? 'no answer').replace(/^it could not be started: /, '');
      if (server.state !== 'ready') return { level: 'FAIL', name, detail: `could not be started ${how}: ${why}`, fix: `check mcp.servers.${server.name} in operator.json` };
      const tools = server.tools.length > 0 ? `${server.tools.length} tool${server.tools.length === 1 ? '' : 's'}: ${server.tools.join(', ')}` : 'no tools';
      const skippedTools = server.skipped.length > 0 ? `; not offered: ${server.skipped.join('; ')}` : '';
      return { level: server.skipped.length > 0 ? 'WARN' : 'OK', name, detail: `started ${how}, ${tools}${skippedTools}` };
    });
    return [...results, ...skipped];
  } finally {
    await hub.close();
  }
}

function label(name: string, profile: string | undefined): string {
  return profile ? `MCP ${name} (profile ${profile})` : `MCP ${name}`;
}
