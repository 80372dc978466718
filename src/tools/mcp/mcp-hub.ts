/**
 * The MCP servers of a runtime: one {@link McpServerConnection} per configured entry, shared by
 * every conversation of the profiles that have it (a top-level entry is one process for all;
 * a profile's own entry is that profile's). It gives each profile its tools as one list that stays
 * the same array until a server's tools change, the approval rule of each server as a guardrail,
 * and the servers' status for `/mcp`, `operator doctor` and the admin console. Loaded only when a
 * server is configured (the SDK with it).
 */
import type { Guardrail } from '../../agent/guardrail.ts';
import type { Sandbox } from '../sandbox/sandbox.ts';
import type { Tool } from '../tool.ts';
import { McpServerConnection, type McpBackoff, type McpServerState } from './mcp-server.ts';
import { isStdio, serversOf, type McpConfig, type McpServerSettings } from './mcp-settings.ts';
import { toolsOf, type OfferedMcpTools } from './mcp-tools.ts';

/** What the hub needs. */
export interface McpHubOptions {
  config: McpConfig;
  sandbox: Sandbox;
  /** The gateway's environment (`${NAME}` values come from it). */
  env: NodeJS.ProcessEnv;
  /** Where lines about the servers go (starts, failures); never a secret. */
  log?: (line: string) => void;
  backoff?: Partial<McpBackoff>;
}

/** One server as `/mcp`, `operator doctor` and the console show it. */
export interface McpServerStatus {
  name: string;
  /** The profile whose own entry it is; unset for a top-level one. */
  profile?: string;
  transport: 'stdio' | 'http';
  /** What it is: the command's program, or the URL's origin (never its path, query or headers). */
  where: string;
  state: McpServerState;
  /** Tools as offered (`mcp__NAME__TOOL`). */
  tools: string[];
  /** Its tools that are not offered, with why. */
  skipped: string[];
  restarts: number;
  lastError?: string;
  /** The wait before its next start, while it waits. */
  nextWaitMs?: number;
  /** Which calls ask a person first. */
  approval: McpServerSettings['approval'];
}

/** The runtime's MCP servers. */
export class McpHub {
  readonly #options: McpHubOptions;
  /** By key: the name for a top-level entry, `profile/name` for a profile's own. */
  readonly #servers = new Map<string, McpServerConnection>();
  readonly #offered = new Map<McpServerConnection, OfferedMcpTools>();
  readonly #lists = new Map<string, readonly Tool[]>();
  readonly #guards = new Map<string, Guardrail>();
  readonly #listeners = new Set<() => void>();

  constructor(options: McpHubOptions) {
    this.#options = options;
    for (const [name, settings] of Object.entries(options.config.base)) this.#add(name, name, settings);
    for (const [profile, servers] of Object.entries(options.config.profiles)) {
      for (const [name, settings] of Object.entries(servers)) this.#add(`${profile}/${name}`, name, settings);
    }
  }

  /** Starts every server (once each); resolves when each has had its first try. */
  start(): Promise<void> {
    return Promise.all([...this.#servers.values()].map((server) => server.start())).then(() => undefined);
  }

  /** Starts `profile`'s servers; resolves when each has had its first try (a conversation's first turn waits for it once). */
  ready(profile: string): Promise<void> {
    return Promise.all(this.#serversOf(profile).map((server) => server.start())).then(() => undefined);
  }

  /** The tools of `profile`'s servers as they are now: the same array until one of them changes. */
  tools(profile: string): readonly Tool[] {
    let list = this.#lists.get(profile);
    if (!list) {
      list = this.#serversOf(profile).flatMap((server) => this.#offeredBy(server).tools);
      this.#lists.set(profile, list);
    }
    return list;
  }

  /** The guardrail that asks a person before the calls `profile`'s servers' `approval` names. */
  approvalGuardrail(profile: string): Guardrail {
    let guard = this.#guards.get(profile);
    if (!guard) {
      guard = {
        name: 'mcp-approval',
        beforeCall: (call) => {
          for (const server of this.#serversOf(profile)) {
            const own = this.#offeredBy(server).original.get(call.name);
            if (own === undefined) continue;
            const approval = server.settings.approval;
            if (approval === 'always' || (Array.isArray(approval) && approval.includes(own))) {
              return { action: 'ask', reason: `the MCP server ${server.name} asks a person before ${approval === 'always' ? 'each of its tools' : own} (mcp.servers.${server.name}.approval)` };
            }
            return;
          }
        },
      };
      this.#guards.set(profile, guard);
    }
    return guard;
  }

  /** The servers of `profile` (every server, each once, when unset) as they stand now. */
  status(profile?: string): McpServerStatus[] {
    const servers = profile === undefined ? [...this.#servers.values()] : this.#serversOf(profile);
    return servers.map((server) => {
      const key = [...this.#servers].find(([, candidate]) => candidate === server)?.[0] ?? server.name;
      const offered = this.#offeredBy(server);
      const settings = server.settings;
      return {
        name: server.name,
        ...(key.includes('/') && { profile: key.slice(0, key.indexOf('/')) }),
        transport: server.transport,
        where: isStdio(settings) ? settings.command : new URL(settings.url).origin,
        state: server.state,
        tools: offered.tools.map((tool) => tool.name),
        skipped: offered.skipped,
        restarts: server.restarts,
        ...(server.lastError !== undefined && { lastError: server.lastError }),
        ...(server.nextWaitMs !== undefined && { nextWaitMs: server.nextWaitMs }),
        approval: settings.approval,
      };
    });
  }

  /** The connection of `name` as `profile` sees it (for tests and the status). */
  server(name: string, profile = 'default'): McpServerConnection | undefined {
    return this.#serversOf(profile).find((server) => server.name === name);
  }

  /** Reads `profile`'s servers' tools again (every server's when unset), starting those waiting to start again (`/reload`). */
  async refresh(profile?: string): Promise<void> {
    const servers = profile === undefined ? [...this.#servers.values()] : this.#serversOf(profile);
    await Promise.all(servers.map((server) => server.refresh()));
  }

  /** Listens to any server's change of tools or state; returns the unsubscribe. */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Stops every server. */
  async close(): Promise<void> {
    await Promise.all([...this.#servers.values()].map((server) => server.close()));
  }

  #add(key: string, name: string, settings: McpServerSettings): void {
    const server = new McpServerConnection({ name, settings, sandbox: this.#options.sandbox, env: this.#options.env, backoff: this.#options.backoff });
    let state = server.state;
    let listed = false;
    // Said: a change of a list once listed, a start that failed or a stop, a start again after
    // those; a first start that works is quiet (the terminal chat writes these on its stderr).
    server.onChange((change) => {
      if (change === 'tools') {
        this.#offered.delete(server);
        this.#lists.clear();
        if (listed) this.#options.log?.(`MCP server ${name}: its tools changed (${server.tools.length} now)`);
        listed = true;
      } else if (server.state !== state) {
        state = server.state;
        if (state === 'ready' && server.restarts > 0) this.#options.log?.(`MCP server ${name}: running again (${server.restarts} restart${server.restarts === 1 ? '' : 's'} so far)`);
        if (state === 'waiting') this.#options.log?.(`MCP server ${name}: ${server.lastError ?? 'stopped'}; starting again in ${Math.round((server.nextWaitMs ?? 0) / 100) / 10} s`);
      }
      for (const listener of this.#listeners) listener();
    });
    this.#servers.set(key, server);
  }

  #serversOf(profile: string): McpServerConnection[] {
    return Object.keys(serversOf(this.#options.config, profile)).map((name) => this.#servers.get(`${profile}/${name}`) ?? this.#servers.get(name)!);
  }

  #offeredBy(server: McpServerConnection): OfferedMcpTools {
    let offered = this.#offered.get(server);
    if (!offered) {
      offered = toolsOf(server);
      this.#offered.set(server, offered);
    }
    return offered;
  }
}
