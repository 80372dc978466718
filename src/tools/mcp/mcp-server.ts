/**
 * One configured MCP server, shared by every conversation that uses it: one connection (for a
 * command, one process in the sandbox), its tool list kept current (`notifications/tools/list_changed`,
 * `/reload`), calls with a time limit. A server that cannot start, or stops, is started again with
 * backoff (1 s, 2 s, 4 s, ... at most a minute; back to 1 s once a connection lasted a while);
 * meanwhile its tools stay listed and a call waits for it within its own time limit.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError, ToolListChangedNotificationSchema, type CallToolResult, type Tool as McpToolInfo } from '@modelcontextprotocol/sdk/types.js';
import { errorMessage } from '../../core/errors.ts';
import type { Sandbox } from '../sandbox/sandbox.ts';
import { isCredentialHeader, resolvePlaceholders, scrubberOf } from './mcp-secrets.ts';
import { isStdio, type McpServerSettings } from './mcp-settings.ts';
import { SandboxedStdioTransport } from './sandboxed-stdio.ts';

export type { McpToolInfo };

/** Where a server stands: starting (first time), ready, waiting to start again, closed. */
export type McpServerState = 'starting' | 'ready' | 'waiting' | 'closed';

/** How long to wait between starts. */
export interface McpBackoff {
  /** The first wait, doubled after each failed start (default 1,000 ms). */
  baseMs: number;
  /** The longest wait (default 60,000 ms). */
  maxMs: number;
  /** A connection that lasted this long starts the waits over (default 30,000 ms). */
  stableMs: number;
}

/** The default {@link McpBackoff}. */
export const defaultMcpBackoff: McpBackoff = { baseMs: 1_000, maxMs: 60_000, stableMs: 30_000 };

/** What {@link McpServerConnection} needs. */
export interface McpServerOptions {
  /** The server's name in the configuration. */
  name: string;
  settings: McpServerSettings;
  /** Where a command runs. */
  sandbox: Sandbox;
  /** The gateway's environment: `${NAME}` values come from it. */
  env: NodeJS.ProcessEnv;
  backoff?: Partial<McpBackoff>;
}

/** A call that did not give a result: why, in words for the model and people (secrets scrubbed). */
export class McpCallError extends Error {}

/** Most pages of a tool list read (a server that pages for ever stops here). */
const maxPages = 50;

/** A configured server and its connection. */
export class McpServerConnection {
  readonly name: string;
  readonly settings: McpServerSettings;
  readonly #options: McpServerOptions;
  readonly #backoff: McpBackoff;
  readonly #listeners = new Set<(change: 'tools' | 'state') => void>();
  #state: McpServerState = 'starting';
  #started = false;
  #client: Client | undefined;
  #transport: Transport | undefined;
  #tools: readonly McpToolInfo[] = [];
  /** Failed starts since the last stable connection: the next wait is `base * 2^failures`. */
  #failures = 0;
  #restarts = 0;
  #lastError: string | undefined;
  #nextWaitMs: number | undefined;
  #waits: number[] = [];
  #timer: NodeJS.Timeout | undefined;
  #connecting: Promise<void> | undefined;
  #firstTry: Promise<void>;
  #settleFirst: () => void = () => undefined;
  #waiting = new Set<() => void>();
  #scrub: (text: string) => string = (text) => text;

  constructor(options: McpServerOptions) {
    this.name = options.name;
    this.settings = options.settings;
    this.#options = options;
    this.#backoff = { ...defaultMcpBackoff, ...options.backoff };
    this.#firstTry = new Promise((resolve) => (this.#settleFirst = resolve));
  }

  /** `stdio` for a command operator starts, `http` for a server it reaches. */
  get transport(): 'stdio' | 'http' {
    return isStdio(this.settings) ? 'stdio' : 'http';
  }

  get state(): McpServerState {
    return this.#state;
  }

  /** The server's tools as it last listed them (kept while it restarts). */
  get tools(): readonly McpToolInfo[] {
    return this.#tools;
  }

  /** Starts after a failure or a stop so far (a crash, a refused connection). */
  get restarts(): number {
    return this.#restarts;
  }

  /** Why it last failed or stopped, scrubbed of its secrets. */
  get lastError(): string | undefined {
    return this.#lastError;
  }

  /** The wait before its next start, while it waits. */
  get nextWaitMs(): number | undefined {
    return this.#state === 'waiting' ? this.#nextWaitMs : undefined;
  }

  /** Every wait before a start so far, in order (the backoff as it went). */
  get waits(): readonly number[] {
    return this.#waits;
  }

  /** The process id of a command's server while it runs (bwrap's, in the sandbox). */
  get pid(): number | undefined {
    return this.#transport instanceof SandboxedStdioTransport ? this.#transport.pid : undefined;
  }

  /**
   * The SDK client while connected: what a call goes through, for a benchmark that sets a bare
   * SDK call beside operator's on the same connection and server process.
   */
  get sdkClient(): Client | undefined {
    return this.#client;
  }

  /** The longest a call may take, in ms. */
  get timeoutMs(): number {
    return this.settings.timeoutSeconds * 1000;
  }

  /** Replaces this server's secrets in `text` (what its calls return, its errors). */
  scrub(text: string): string {
    return this.#scrub(text);
  }

  /** Listens to changes of its tools or its state; returns the unsubscribe. */
  onChange(listener: (change: 'tools' | 'state') => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Starts the first connection (once); resolves when that first try has worked or failed. */
  start(): Promise<void> {
    if (!this.#started) {
      this.#started = true;
      void this.#connect();
    }
    return this.#firstTry;
  }

  /**
   * Reads the tool list again (`/reload`); a server waiting to start again starts now. Resolves
   * when that is done; never rejects (a failure is its `lastError`).
   */
  async refresh(): Promise<void> {
    if (this.#state === 'closed') return;
    if (!this.#started) return this.start();
    if (this.#state === 'waiting') {
      clearTimeout(this.#timer);
      return this.#connect();
    }
    if (this.#connecting) return this.#connecting;
    const client = this.#client;
    if (client) await this.#list(client).catch((error: unknown) => this.#note(`its tools could not be listed: ${this.#describe(error)}`));
  }

  /** Calls `tool` with `args`; rejects with an {@link McpCallError} saying why there is no result. */
  async call(tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult> {
    const deadline = Date.now() + this.timeoutMs;
    const client = this.#client ?? (await this.#whenConnected(signal, deadline));
    // A signal of the call's own: the SDK leaves its listener on the signal it is given, which
    // here may be a turn's, alive for many calls.
    const call = new AbortController();
    const stop = () => call.abort(signal.reason);
    signal.addEventListener('abort', stop, { once: true });
    try {
      return (await client.callTool({ name: tool, arguments: args }, undefined, { signal: call.signal, timeout: Math.max(1, deadline - Date.now()) })) as CallToolResult;
    } catch (error) {
      throw new McpCallError(this.#callFailure(tool, error, signal));
    } finally {
      signal.removeEventListener('abort', stop);
    }
  }

  /** Stops it for good (the gateway stops): the connection closed, a command's process ended. */
  async close(): Promise<void> {
    this.#state = 'closed';
    clearTimeout(this.#timer);
    for (const wake of this.#waiting) wake();
    const client = this.#client;
    this.#client = undefined;
    await this.#connecting?.catch(() => undefined);
    await (client ?? this.#transport)?.close().catch(() => undefined);
    this.#settleFirst();
  }

  #connect(): Promise<void> {
    this.#connecting ??= this.#open().finally(() => {
      this.#connecting = undefined;
      this.#settleFirst();
    });
    return this.#connecting;
  }

  async #open(): Promise<void> {
    if (this.#state === 'closed') return;
    let client: Client | undefined;
    try {
      const transport = this.#makeTransport();
      this.#transport = transport;
      client = new Client({ name: 'operator', version: '1' }, { capabilities: {} });
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        if (client === this.#client) void this.refresh();
      });
      const since = Date.now();
      const opened = client;
      client.onclose = () => this.#lost(opened, since);
      await client.connect(transport, { timeout: this.timeoutMs });
      await this.#list(client);
      if ((this.#state as McpServerState) === 'closed') {
        await client.close().catch(() => undefined);
        return;
      }
      this.#client = client;
      this.#lastError = undefined;
      this.#setState('ready');
      for (const wake of this.#waiting) wake();
    } catch (error) {
      const why = this.#describe(error);
      if (client) {
        client.onclose = undefined;
        await client.close().catch(() => undefined);
      }
      if ((this.#state as McpServerState) === 'closed') return;
      this.#note(`it could not be started: ${why}`);
      this.#retryLater();
    }
  }

  /** The connection ended (the process died, the server closed it): start again after a wait. */
  #lost(client: Client, since: number): void {
    if (client !== this.#client || this.#state === 'closed') return;
    this.#client = undefined;
    if (Date.now() - since >= this.#backoff.stableMs) this.#failures = 0;
    this.#note(`it stopped: ${this.#stderrOf(this.#transport) ?? 'the connection closed'}`);
    this.#retryLater();
  }

  #retryLater(): void {
    const wait = Math.min(this.#backoff.maxMs, this.#backoff.baseMs * 2 ** this.#failures);
    this.#failures += 1;
    this.#restarts += 1;
    this.#nextWaitMs = wait;
    this.#waits.push(wait);
    this.#setState('waiting');
    this.#timer = setTimeout(() => void this.#connect(), wait);
    // A server waiting to start again never keeps the process alive.
    this.#timer.unref();
  }

  async #list(client: Client): Promise<void> {
    const tools: McpToolInfo[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < maxPages; page++) {
      const answer = await client.listTools(cursor === undefined ? undefined : { cursor }, { timeout: this.timeoutMs });
      tools.push(...answer.tools);
      cursor = answer.nextCursor;
      if (cursor === undefined) break;
    }
    if (JSON.stringify(tools) === JSON.stringify(this.#tools)) return;
    this.#tools = tools;
    this.#tell('tools');
  }

  /** The transport of the settings, with `${NAME}` put in (a missing variable stops the start). */
  #makeTransport(): Transport {
    const settings = this.settings;
    if (isStdio(settings)) {
      const env = resolvePlaceholders(settings.env, this.#options.env);
      this.#scrub = scrubberOf(env.secrets);
      if (env.missing.length > 0) throw new Error(`${env.missing.join(', ')} ${env.missing.length === 1 ? 'is' : 'are'} not set in the gateway's environment (named in mcp.servers.${this.name}.env)`);
      const spec = this.#options.sandbox.programSpec({
        argv: [settings.command, ...settings.args],
        cwd: settings.cwd ?? '/tmp',
        writable: settings.readWrite,
        readOnly: settings.readOnly,
        network: settings.network,
        env: env.values,
      });
      return new SandboxedStdioTransport(spec);
    }
    const headers = resolvePlaceholders(settings.headers, this.#options.env, isCredentialHeader);
    this.#scrub = scrubberOf(headers.secrets);
    if (headers.missing.length > 0) throw new Error(`${headers.missing.join(', ')} ${headers.missing.length === 1 ? 'is' : 'are'} not set in the gateway's environment (named in mcp.servers.${this.name}.headers)`);
    return new StreamableHTTPClientTransport(new URL(settings.url), { requestInit: { headers: headers.values } });
  }

  /** Waits until the server is connected, the call is stopped or its time is up. */
  async #whenConnected(signal: AbortSignal, deadline: number): Promise<Client> {
    if (this.#state === 'closed') throw new McpCallError(`the MCP server ${this.name} is stopped`);
    if (this.#state === 'waiting') {
      clearTimeout(this.#timer);
      void this.#connect();
    }
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        this.#waiting.delete(done);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, deadline - Date.now()));
      signal.addEventListener('abort', done, { once: true });
      this.#waiting.add(done);
    });
    if (this.#client) return this.#client;
    if (signal.aborted) throw new McpCallError('the call was stopped');
    throw new McpCallError(`the MCP server ${this.name} is not running (${this.#lastError ?? 'it is starting'}); it was not called`);
  }

  #callFailure(tool: string, error: unknown, signal: AbortSignal): string {
    if (error instanceof McpError && error.code === (ErrorCode.RequestTimeout as number)) {
      return `the MCP server ${this.name} did not answer ${tool} within ${this.settings.timeoutSeconds} s (mcp.servers.${this.name}.timeoutSeconds); the call was cancelled`;
    }
    if (signal.aborted) return 'the call was stopped';
    if (error instanceof McpError && error.code === (ErrorCode.ConnectionClosed as number)) {
      return `the MCP server ${this.name} stopped during the call (${this.#stderrOf(this.#transport) ?? 'the connection closed'}); it is started again`;
    }
    const message = this.#describe(error);
    // A server reached over HTTP that is gone: connect again (with backoff) for the next call.
    if (this.transport === 'http' && this.#client && !(error instanceof McpError)) {
      const client = this.#client;
      this.#client = undefined;
      this.#note(`a call failed: ${message}`);
      void client.close().catch(() => undefined);
      this.#retryLater();
    }
    return `the MCP server ${this.name} could not run ${tool}: ${message}`;
  }

  #describe(error: unknown): string {
    const cause = error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message})` : '';
    const stderr = this.#stderrOf(this.#transport);
    return this.#scrub(`${errorMessage(error)}${cause}${stderr && !errorMessage(error).includes(stderr) ? `; it said: ${stderr}` : ''}`).slice(0, 600);
  }

  /** How a command's process ended and the last line it wrote to stderr, when there is one. */
  #stderrOf(transport: Transport | undefined): string | undefined {
    if (!(transport instanceof SandboxedStdioTransport)) return undefined;
    const last = transport.stderr.trim().split('\n').at(-1)?.trim();
    const parts = [transport.exit ? `the process ${transport.exit}` : undefined, last ? `its last words: ${last}` : undefined].filter(Boolean);
    return parts.length > 0 ? this.#scrub(parts.join('; ')).slice(0, 400) : undefined;
  }

  #note(error: string): void {
    this.#lastError = this.#scrub(error);
  }

  #setState(state: McpServerState): void {
    this.#state = state;
    this.#tell('state');
  }

  #tell(change: 'tools' | 'state'): void {
    for (const listener of this.#listeners) listener(change);
  }
}
