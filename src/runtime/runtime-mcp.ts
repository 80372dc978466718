/**
 * The runtime's MCP servers, made on first use and only when operator.json names one: with
 * `mcp.servers` empty nothing of `src/tools/mcp/` (nor the SDK) is ever imported, so a bot
 * without servers starts and idles as before.
 */
import type { Guardrail } from '../agent/guardrail.ts';
import type { McpHub } from '../tools/mcp/mcp-hub.ts';
import { hasMcpServers, type McpConfig } from '../tools/mcp/mcp-settings.ts';
import type { Sandbox } from '../tools/sandbox/sandbox.ts';
import type { Tool } from '../tools/tool.ts';

/**
 * The longest a conversation's first turn waits for its profile's servers to start: a server
 * started with `npx` may download for a minute, and a person should not wait for it.
 */
export const firstTryWaitMs = 10_000;

/** What {@link RuntimeMcp} needs of the runtime. */
export interface RuntimeMcpParts {
  sandbox: Sandbox;
  env: NodeJS.ProcessEnv;
  /** Where lines about the servers go. */
  log(line: string): void;
}

/** What an agent of a profile gets from its MCP servers. */
export interface AgentMcpParts {
  liveTools?: () => readonly Tool[];
  guardrails?: Guardrail[];
}

/** The MCP servers of one runtime. */
export class RuntimeMcp {
  readonly #config: McpConfig | undefined;
  readonly #parts: RuntimeMcpParts;
  #hub: Promise<McpHub> | undefined;

  constructor(config: McpConfig | undefined, parts: RuntimeMcpParts) {
    this.#config = hasMcpServers(config) ? config : undefined;
    this.#parts = parts;
  }

  /** Whether any server is configured. */
  get configured(): boolean {
    return this.#config !== undefined;
  }

  /** The servers, loaded (not started) on the first call; undefined when none is configured. */
  hub(): Promise<McpHub> | undefined {
    const config = this.#config;
    if (!config) return undefined;
    this.#hub ??= import('../tools/mcp/mcp-hub.ts').then(({ McpHub }) => new McpHub({ config, sandbox: this.#parts.sandbox, env: this.#parts.env, log: (line) => this.#parts.log(line) }));
    return this.#hub;
  }

  /** Starts every server in the background (the gateway's warm-up); never rejects. */
  async warm(): Promise<void> {
    await this.hub()
      ?.then((hub) => hub.start())
      .catch((error: unknown) => this.#parts.log(`MCP servers could not be loaded: ${error instanceof Error ? error.message : String(error)}`));
  }

  /**
   * An agent's tools and approval rule for `profile`: once its servers had their first try, or
   * {@link firstTryWaitMs} passed (a server slower to start, or failing, joins a later turn), the
   * tools as they are at each turn.
   */
  async forAgent(profile: string): Promise<AgentMcpParts> {
    const loading = this.hub();
    if (!loading) return {};
    const hub = await loading;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([hub.ready(profile), new Promise<void>((resolve) => (timer = setTimeout(resolve, firstTryWaitMs)))]);
    clearTimeout(timer);
    return { liveTools: () => hub.tools(profile), guardrails: [hub.approvalGuardrail(profile)] };
  }

  /**
   * `/reload`: reads `profile`'s servers' tools again, starting those waiting to start again;
   * resolves to a line for the reload's report, or undefined when the profile has no server.
   */
  async refresh(profile: string): Promise<string | undefined> {
    const loading = this.hub();
    if (!loading) return undefined;
    const hub = await loading;
    await hub.refresh(profile);
    const servers = hub.status(profile);
    if (servers.length === 0) return undefined;
    const ready = servers.filter((server) => server.state === 'ready').length;
    const tools = servers.reduce((sum, server) => sum + server.tools.length, 0);
    return `MCP: ${ready} of ${servers.length} server${servers.length === 1 ? '' : 's'} ready, ${tools} tool${tools === 1 ? '' : 's'} (/mcp for more).`;
  }

  /** Stops the servers that were started. */
  async close(): Promise<void> {
    await (await this.#hub?.catch(() => undefined))?.close();
  }
}
