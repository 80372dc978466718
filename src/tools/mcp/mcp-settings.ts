/**
 * The MCP servers operator.json names (`mcp.servers`, and `profileSettings.<profile>.mcp.servers`)
 * as the runtime takes them. Kept free of the SDK and of zod: the gateway reads these types at
 * every start, and loads the rest of `src/tools/mcp/` only when a server is configured.
 */

/** Which of a server's tools ask a person first: every one, none, or those named. */
export type McpApproval = 'always' | 'never' | readonly string[];

/** What every server entry may say. */
interface McpServerCommon {
  /** Which calls ask a person first (default `never`; guardrails and a tainted turn may still ask). */
  approval: McpApproval;
  /** Longest a call (and the start) may take, in seconds (default 60). */
  timeoutSeconds: number;
}

/**
 * A server operator starts: `command` with `args`, in the command sandbox, seeing only what the
 * entry grants. `env` values may name variables of the gateway's environment (`${NAME}`).
 */
export interface McpStdioSettings extends McpServerCommon {
  command: string;
  args: readonly string[];
  env: Readonly<Record<string, string>>;
  /** Its working directory (default: its own empty `/tmp`). */
  cwd?: string;
  /** Whether it may use the network (default false). */
  network: boolean;
  /** Folders it may read. */
  readOnly: readonly string[];
  /** Folders it may change. */
  readWrite: readonly string[];
}

/** A server reached over Streamable HTTP; `headers` values may name variables (`Bearer ${TOKEN}`). */
export interface McpHttpSettings extends McpServerCommon {
  url: string;
  headers: Readonly<Record<string, string>>;
}

/** One server entry. */
export type McpServerSettings = McpStdioSettings | McpHttpSettings;

/** `mcp.servers`: entries by name. */
export type McpServers = Readonly<Record<string, McpServerSettings>>;

/** Every profile's servers: the top-level ones, and a profile's own over them (same name: the profile's). */
export interface McpConfig {
  base: McpServers;
  profiles: Readonly<Record<string, McpServers>>;
}

/** The defaults of an entry. */
export const mcpDefaults = { approval: 'never', timeoutSeconds: 60 } as const;

/** A server's name: letters, digits, `-` and single `_` (a tool is offered as `mcp__NAME__TOOL`). */
export const mcpServerNamePattern = /^(?!.*__)[A-Za-z0-9][A-Za-z0-9_-]{0,31}$/;

/** Whether `settings` is a server operator starts (else one reached over HTTP). */
export function isStdio(settings: McpServerSettings): settings is McpStdioSettings {
  return 'command' in settings;
}

/** Whether any server is configured anywhere (else nothing of MCP loads). */
export function hasMcpServers(config: McpConfig | undefined): boolean {
  if (!config) return false;
  return Object.keys(config.base).length > 0 || Object.values(config.profiles).some((servers) => Object.keys(servers).length > 0);
}

/** The servers of `profile`: the top-level ones with the profile's own over them. */
export function serversOf(config: McpConfig, profile: string): McpServers {
  const own = Object.hasOwn(config.profiles, profile) ? config.profiles[profile] : undefined;
  return own ? { ...config.base, ...own } : config.base;
}

/**
 * One line for the start-up output: the servers by name and how each runs, or undefined when
 * none is configured. Never a command's arguments, a URL's path or a header.
 *
 * @example
 * describeMcpSetup(config, 'bubblewrap'); // '2 servers: fs (a command, in the sandbox), tracker (https://mcp.example.com); they start now, /mcp shows them'
 */
export function describeMcpSetup(config: McpConfig, sandbox: 'bubblewrap' | 'none'): string | undefined {
  const entries = [...Object.entries(config.base), ...Object.values(config.profiles).flatMap((servers) => Object.entries(servers))];
  if (entries.length === 0) return undefined;
  const how = (settings: McpServerSettings) =>
    isStdio(settings) ? (sandbox === 'bubblewrap' ? 'a command, in the sandbox' : "a command, NOT sandboxed: its tools are the owner's alone") : originOf(settings.url);
  const names = entries.map(([name, settings]) => `${name} (${how(settings)})`);
  return `${entries.length} server${entries.length === 1 ? '' : 's'}: ${names.join(', ')}; they start now, /mcp shows them`;
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'an address';
  }
}
