/**
 * `/mcp`: the MCP servers of the conversation's profile, their state and their tools. Answered to
 * whoever may use those tools here (the `mcp` tool group: the owner's seats, or a grant) and to
 * admins; anyone else is told the tools are not theirs here and sees no server's name. Errors
 * are shown as the servers' connections keep them: scrubbed of the servers' secrets.
 */
import type { McpServerStatus } from '../tools/mcp/mcp-hub.ts';
import type { ToolSeat } from './access/tool-grants.ts';
import type { Gateway } from './gateway.ts';

/** What `/mcp` needs of the gateway. */
export type McpCommandGateway = Pick<Gateway, 'runtime' | 'grants'>;

/** The answer to `/mcp` from `seat` in a conversation of `profile`. */
export async function mcpCommand(gateway: McpCommandGateway, seat: ToolSeat, profile: string): Promise<string> {
  const rights = gateway.grants.seatTools(seat);
  if (!rights.owner && !rights.groups.has('mcp') && !seat.admin) {
    return 'MCP tools are not offered to you here: they are for the owner and for people an admin granted the "mcp" tool group (tools.grants).';
  }
  const loading = gateway.runtime.mcp.hub();
  if (!loading) return 'No MCP servers are configured (mcp.servers in operator.json).';
  const servers = (await loading).status(profile);
  if (servers.length === 0) return `Profile ${profile} has no MCP servers.`;
  const offered = rights.owner || rights.groups.has('mcp') ? 'Their tools are offered to you here.' : 'Their tools are not offered to you here (no "mcp" grant), though as an admin you see them.';
  return [`MCP servers of profile ${profile}:`, ...servers.map(describeServer), offered].join('\n');
}

/** One server's lines: name, how it runs, state, tools, approval, the last error. */
export function describeServer(server: McpServerStatus): string {
  const how = server.transport === 'stdio' ? `command ${server.where}, in the sandbox` : server.where;
  const lines = [`• ${server.name} (${how}${server.profile ? `, profile ${server.profile}'s own` : ''}): ${stateWords(server)}`];
  lines.push(server.tools.length > 0 ? `  tools: ${server.tools.join(', ')}` : '  tools: none listed');
  if (server.skipped.length > 0) lines.push(`  not offered: ${server.skipped.join('; ')}`);
  if (server.approval !== 'never') lines.push(`  asks first: ${server.approval === 'always' ? 'every call' : server.approval.join(', ')}`);
  if (server.lastError && server.state !== 'ready') lines.push(`  last error: ${server.lastError}`);
  return lines.join('\n');
}

function stateWords(server: McpServerStatus): string {
  const restarts = server.restarts > 0 ? `, ${server.restarts} restart${server.restarts === 1 ? '' : 's'} so far` : '';
  switch (server.state) {
    case 'ready':
      return `ready${restarts}`;
    case 'starting':
      return 'starting';
    case 'waiting':
      return `not running, starting again in ${Math.ceil((server.nextWaitMs ?? 0) / 1000)} s${restarts}`;
    case 'closed':
      return 'stopped';
  }
}
