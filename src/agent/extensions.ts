/**
 * Extensions: modules that register handlers for agent and engine events, tools and guardrails.
 * A handler that throws is recorded in `errors` and skipped; it never aborts a turn.
 */
import { readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ConfigurationError, errorMessage } from '../core/errors.ts';
import type { ToolCallPart, ToolResultContent } from '../llm/types.ts';
import type { Tool } from '../tools/tool.ts';
import type { AgentEvent, AgentEventOf, AgentEventType } from './agent-events.ts';
import type { ExtensionContext } from './extension-context.ts';
import type { Guardrail } from './guardrail.ts';

/** A handler for one event type. What it may return depends on the event (see AgentEvent). */
export type ExtensionHandler<T extends AgentEventType = AgentEventType> = (
  event: AgentEventOf<T>,
  context: ExtensionContext,
) => unknown;

/** What an extension module's default export receives to register itself. */
export interface ExtensionAPI {
  on<T extends AgentEventType>(type: T, handler: ExtensionHandler<T>): void;
  registerTool(tool: Tool): void;
  registerGuardrail(guardrail: Guardrail): void;
}

/** An extension module's default export. */
export type ExtensionFactory = (api: ExtensionAPI) => void | Promise<void>;

/** A loaded extension. */
export interface Extension {
  name: string;
  handlers: Map<AgentEventType, ExtensionHandler[]>;
  tools: Tool[];
  guardrails: Guardrail[];
}

/** A handler failure, kept for `/status` and tests. */
export interface ExtensionFailure {
  extension: string;
  event: AgentEventType | 'load';
  message: string;
}

/** Tools registered by extensions: their code runs in the gateway process, not in a sandbox. */
const extensionTools = new WeakSet<Tool>();

/**
 * Whether `tool` came from an extension. Such a tool's own code runs in the gateway process, so
 * what it says it does (`machine: 'read'`) is not a boundary: the gateway offers it to seats other
 * than the owner's only by an explicit grant of its group.
 */
export function isExtensionTool(tool: Tool): boolean {
  return extensionTools.has(tool);
}

/** Builds an extension from a factory (used for modules and for in-code extensions). */
export async function createExtension(name: string, factory: ExtensionFactory): Promise<Extension> {
  const extension: Extension = { name, handlers: new Map(), tools: [], guardrails: [] };
  await factory({
    on(type, handler) {
      const list = extension.handlers.get(type) ?? [];
      list.push(handler as unknown as ExtensionHandler);
      extension.handlers.set(type, list);
    },
    registerTool(tool) {
      extensionTools.add(tool);
      extension.tools.push(tool);
    },
    registerGuardrail(guardrail) {
      extension.guardrails.push(guardrail);
    },
  });
  return extension;
}

/**
 * Imports extension modules (each with a default-exported {@link ExtensionFactory}). A module that
 * fails to load is reported in `failures` and skipped, so one broken file cannot stop the agent.
 * `fresh` imports them anew (for a reload after the files changed).
 */
export async function loadExtensions(
  paths: readonly string[],
  options: { fresh?: boolean } = {},
): Promise<{ extensions: Extension[]; failures: ExtensionFailure[] }> {
  const extensions: Extension[] = [];
  const failures: ExtensionFailure[] = [];
  for (const path of paths) {
    try {
      const url = pathToFileURL(resolve(path));
      // A reload must see edited files: a new query string is a new module to the loader.
      if (options.fresh) url.search = `?reload=${Date.now()}-${++reloadCounter}`;
      const module = (await import(url.href)) as { default?: unknown };
      if (typeof module.default !== 'function') throw new ConfigurationError(`${path} has no default-exported extension function`);
      extensions.push(await createExtension(path, module.default as ExtensionFactory));
    } catch (error) {
      failures.push({ extension: path, event: 'load', message: errorMessage(error) });
    }
  }
  return { extensions, failures };
}

let reloadCounter = 0;

const moduleExtensions = /\.(?:ts|mts|js|mjs)$/;

/**
 * Loads every extension module directly in `directory` (`*.ts`, `*.mts`, `*.js`, `*.mjs`, in name
 * order). A missing folder means no extensions. TypeScript files are loaded through tsx, which is
 * registered only when such a file exists.
 */
export async function loadExtensionsFromDirectory(
  directory: string,
  options: { fresh?: boolean } = {},
): Promise<{ extensions: Extension[]; failures: ExtensionFailure[] }> {
  let names: string[];
  try {
    names = (await readdir(directory)).filter((name) => moduleExtensions.test(name)).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { extensions: [], failures: [] };
    return { extensions: [], failures: [{ extension: directory, event: 'load', message: errorMessage(error) }] };
  }
  if (names.some((name) => /\.m?ts$/.test(name))) {
    const { register } = await import('tsx/esm/api');
    register();
  }
  return loadExtensions(
    names.map((name) => join(directory, name)),
    options,
  );
}

/** Dispatches events to extensions, collecting results and failures. */
export class ExtensionRunner {
  readonly extensions: readonly Extension[];
  /** Failures so far (bounded: the oldest are dropped). */
  readonly errors: ExtensionFailure[] = [];

  constructor(extensions: readonly Extension[] = []) {
    this.extensions = extensions;
  }

  /** Whether any extension handles `type` (lets hot paths skip building event objects). */
  handles(type: AgentEventType): boolean {
    return this.extensions.some((extension) => extension.handlers.has(type));
  }

  /** Runs every handler for the event in load order; returns the non-undefined results. */
  async emit(event: AgentEvent, context: ExtensionContext): Promise<unknown[]> {
    const results: unknown[] = [];
    for (const extension of this.extensions) {
      const handlers = extension.handlers.get(event.type);
      if (!handlers) continue;
      for (const handler of handlers) {
        const result = await this.call(extension, handler, event, context);
        if (result !== undefined) results.push(result);
      }
    }
    return results;
  }

  /** Calls one handler, recording a failure instead of throwing. */
  async call(extension: Extension, handler: ExtensionHandler, event: AgentEvent, context: ExtensionContext): Promise<unknown> {
    try {
      return await handler(event as never, context);
    } catch (error) {
      this.#fail(extension.name, event.type, error);
      return undefined;
    }
  }

  /**
   * Runs the `tool_result` handlers over a tool's result, each seeing it as the previous one
   * patched it (`content`, `isError`, `terminate`).
   */
  async patchToolResult<T extends { content: ToolResultContent[]; isError: boolean; terminate: boolean }>(call: ToolCallPart, result: T, context: ExtensionContext): Promise<T> {
    let patched = result;
    if (!this.handles('tool_result')) return patched;
    for (const extension of this.extensions) {
      for (const handler of extension.handlers.get('tool_result') ?? []) {
        const patch = await this.call(extension, handler, { type: 'tool_result', call, content: patched.content, isError: patched.isError }, context);
        if (typeof patch !== 'object' || patch === null) continue;
        const fields = patch as { content?: unknown; isError?: unknown; terminate?: unknown };
        if (Array.isArray(fields.content)) patched = { ...patched, content: fields.content as ToolResultContent[] };
        if (typeof fields.isError === 'boolean') patched = { ...patched, isError: fields.isError };
        if (fields.terminate === true) patched = { ...patched, terminate: true };
      }
    }
    return patched;
  }

  #fail(extension: string, event: AgentEventType, error: unknown): void {
    this.errors.push({ extension, event, message: errorMessage(error) });
    if (this.errors.length > 100) this.errors.shift();
  }

  /** Tools registered by extensions. */
  tools(): Tool[] {
    return this.extensions.flatMap((extension) => extension.tools);
  }

  /** Guardrails registered by extensions. */
  guardrails(): Guardrail[] {
    return this.extensions.flatMap((extension) => extension.guardrails);
  }
}
