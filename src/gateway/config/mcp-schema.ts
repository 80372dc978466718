/**
 * `mcp` in operator.json (and `profileSettings.<profile>.mcp`): the MCP servers whose tools the
 * agent is offered as `mcp__NAME__TOOL`. An entry is a command operator starts in the sandbox
 * (`command`, `args`, `env`, what it may see) or a server reached over Streamable HTTP (`url`,
 * `headers`). Values may name environment variables (`${NAME}`), so secrets stay out of the file.
 */
import * as z from 'zod';
import { mcpDefaults, mcpServerNamePattern } from '../../tools/mcp/mcp-settings.ts';
import { absolutePath } from './agent-feature-schemas.ts';

const variableName = /^[A-Za-z_][A-Za-z0-9_]*$/;

const approval = z
  .union([z.enum(['always', 'never']), z.array(z.string().min(1)).min(1)])
  .describe('Which calls ask a person first, with the chat\'s approval buttons: "always", "never" (default), or a list of the server\'s own tool names.')
  .default(mcpDefaults.approval);

const timeoutSeconds = z.number().positive().max(3_600).describe('Longest a call may take, in seconds; the start too (default 60).').default(mcpDefaults.timeoutSeconds);

const stdioOnly = ['command', 'args', 'env', 'cwd', 'network', 'readOnly', 'readWrite'] as const;
const httpOnly = ['url', 'headers'] as const;

/** One server: `command` (run in the sandbox) or `url` (Streamable HTTP), never both. */
const serverSchema = z
  .strictObject({
    command: z.string().min(1).optional().describe('The program to run, in the command sandbox (found on PATH there, or an absolute path).'),
    args: z.array(z.string()).optional().describe('Its arguments.'),
    env: z
      .record(z.string().regex(variableName, 'expected an environment variable name'), z.string())
      .optional()
      .describe('Variables it gets beyond the allowlisted ones; a value may name the gateway\'s variables: "${GITHUB_TOKEN}".'),
    cwd: absolutePath.optional().describe('Its working directory (default: its own empty /tmp).'),
    network: z.boolean().optional().describe('Whether it may use the network (default false): its own through slirp4netns where installed, else this machine\'s.'),
    readOnly: z.array(absolutePath).optional().describe('Folders it may read (its program\'s own install, data).'),
    readWrite: z.array(absolutePath).optional().describe('Folders it may change.'),
    url: z
      .url({ protocol: /^https?$/, error: 'expected an http or https URL' })
      .optional()
      .describe('The Streamable HTTP endpoint of a server reached over the network.'),
    headers: z.record(z.string().min(1), z.string()).optional().describe('HTTP headers sent with every request; a value may name variables: "Bearer ${MY_TOKEN}". Never logged.'),
    approval,
    timeoutSeconds,
  })
  .superRefine((entry, context) => {
    const stdio = entry.command !== undefined;
    const http = entry.url !== undefined;
    if (stdio === http) context.addIssue({ code: 'custom', path: [], message: 'give either "command" (a server operator starts) or "url" (one it reaches over HTTP)' });
    const wrong = stdio ? httpOnly : http ? stdioOnly : [];
    for (const key of wrong) if (entry[key] !== undefined) context.addIssue({ code: 'custom', path: [key], message: `not a setting of a server with ${stdio ? '"command"' : '"url"'}` });
  })
  .transform((entry) =>
    entry.command !== undefined
      ? {
          command: entry.command,
          args: entry.args ?? [],
          env: entry.env ?? {},
          ...(entry.cwd !== undefined && { cwd: entry.cwd }),
          network: entry.network ?? false,
          readOnly: entry.readOnly ?? [],
          readWrite: entry.readWrite ?? [],
          approval: entry.approval,
          timeoutSeconds: entry.timeoutSeconds,
        }
      : { url: entry.url!, headers: entry.headers ?? {}, approval: entry.approval, timeoutSeconds: entry.timeoutSeconds },
  );

/** `mcp` in operator.json, and in a profile's settings. */
export const mcpSchema = z
  .strictObject({
    servers: z
      .record(z.string().regex(mcpServerNamePattern, 'expected a server name of letters, digits, "-" and single "_" (at most 32)'), serverSchema)
      .default({})
      .describe('MCP servers by name; their tools are offered as mcp__NAME__TOOL to the seats with the "mcp" tool group.'),
  })
  .describe('MCP servers whose tools the agent may use (docs/tools.md, "MCP servers").');
