/**
 * An MCP server's tools as operator's tools: `mcp__NAME__TOOL` with the server's own JSON Schema,
 * in the `mcp` tool group, calling the server with its time limit. What a call returns is outside
 * content, like a web page: it taints the turn (a later call that acts asks a person first, see
 * `turn-taint.ts`), and the engine cuts it like any tool's result. A tool that says it only reads
 * (`readOnlyHint`) does not act; any other does.
 */
import * as z from 'zod';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ToolResultContent } from '../../llm/types.ts';
import { defineTool, type Tool, type ToolOutput } from '../tool.ts';
import { McpCallError, type McpServerConnection, type McpToolInfo } from './mcp-server.ts';

/** The prefix of every MCP tool's name. */
export const mcpToolPrefix = 'mcp__';

/** Longest tool name the providers take (OpenAI's 64; Anthropic's 128). */
const maxNameLength = 64;

/** Longest description passed on; the rest is cut. */
const maxDescription = 2_000;

/** Extra time the engine gives a call beyond the server's limit, so the server's own timeout (which cancels it there) speaks first. */
const engineGraceMs = 5_000;

/** What an argument object is checked against here: the server checks it against its own schema. */
const anyArguments = z.record(z.string(), z.unknown());

/**
 * The name `tool` of `server` is offered as: `mcp__SERVER__TOOL`, characters the providers refuse
 * in a name made `_`; undefined when that is longer than 64 characters.
 */
export function mcpToolName(server: string, tool: string): string | undefined {
  const name = `${mcpToolPrefix}${server}__${tool.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  return name.length <= maxNameLength ? name : undefined;
}

/** A server's tools as offered, and the names of those it could not offer, with why. */
export interface OfferedMcpTools {
  tools: Tool[];
  skipped: string[];
  /** The server's own name of each tool offered, by the name offered. */
  original: ReadonlyMap<string, string>;
}

/** The tools of `server` as it last listed them. */
export function toolsOf(server: McpServerConnection): OfferedMcpTools {
  const tools: Tool[] = [];
  const skipped: string[] = [];
  const names = new Map<string, string>();
  for (const info of server.tools) {
    const name = mcpToolName(server.name, info.name);
    if (name === undefined) skipped.push(`${info.name} (its name would be longer than ${maxNameLength} characters)`);
    else if (names.has(name)) skipped.push(`${info.name} (another of its tools has the same name once made safe)`);
    else {
      names.set(name, info.name);
      tools.push(mcpTool(server, info, name));
    }
  }
  return { tools, skipped, original: names };
}

function mcpTool(server: McpServerConnection, info: McpToolInfo, name: string): Tool {
  const said = (info.description ?? info.title ?? '').trim();
  return defineTool({
    name,
    description: `Tool ${info.name} of the MCP server ${server.name}${said ? `: ${said.slice(0, maxDescription)}` : '.'}`,
    parameters: anyArguments,
    inputSchema: { ...info.inputSchema, type: 'object' },
    timeoutMs: server.timeoutMs + engineGraceMs,
    machine: 'mcp',
    runsInSandbox: server.transport === 'stdio',
    acts: info.annotations?.readOnlyHint !== true,
    untrustedSource: () => `the MCP server ${server.name}`,
    async execute(args, context): Promise<ToolOutput> {
      try {
        return toOutput(await server.call(info.name, args, context.signal), (text) => server.scrub(text));
      } catch (error) {
        if (error instanceof McpCallError) return { content: `Error: ${error.message}`, isError: true };
        throw error;
      }
    },
  }) as unknown as Tool;
}

/** A call's result as a tool's output: text and images as they are, anything else described. */
export function toOutput(result: CallToolResult, scrub: (text: string) => string): ToolOutput {
  const content: ToolResultContent[] = [];
  for (const block of result.content ?? []) {
    switch (block.type) {
      case 'text':
        content.push({ type: 'text', text: scrub(block.text) });
        break;
      case 'image':
        content.push({ type: 'image', data: block.data, mediaType: block.mimeType });
        break;
      case 'audio':
        content.push({ type: 'text', text: `[audio (${block.mimeType}), not shown]` });
        break;
      case 'resource_link':
        content.push({ type: 'text', text: scrub(`[resource ${block.name}: ${block.uri}]`) });
        break;
      case 'resource': {
        const resource = block.resource;
        content.push({ type: 'text', text: scrub('text' in resource ? resource.text : `[resource ${resource.uri} (${resource.mimeType ?? 'binary'}), not shown]`) });
        break;
      }
    }
  }
  if (content.length === 0 && result.structuredContent !== undefined) content.push({ type: 'text', text: scrub(JSON.stringify(result.structuredContent)) });
  if (content.length === 0) content.push({ type: 'text', text: result.isError ? 'The tool failed and said nothing.' : '(no output)' });
  return { content, isError: result.isError === true };
}
