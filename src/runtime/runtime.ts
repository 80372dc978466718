/**
 * The composition root: one store, one model client and one session manager for the process, and
 * per profile its resources, from which agents are made. Shared by the terminal chat and the
 * gateway.
 */
import type { Agent } from '../agent/agent.ts';
import type { AgentOptions } from '../agent/agent-options.ts';
import type { ReviewOutcome } from '../agent/reviewer.ts';
import { randomBytes } from 'node:crypto';
import { ConfigurationError, InternalError } from '../core/errors.ts';
import { createModelClient, providerRegistry, resolveModel } from '../llm/model-client.ts';
import type { ModelClient } from '../llm/model-client.ts';
import type { ReasoningEffort, RequestOptions } from '../llm/types.ts';
import { createUnconfiguredClient } from '../llm/unconfigured-provider.ts';
import { builtinRoot } from '../resources/layers.ts';
import { ProfileBindingStore } from '../resources/profile-binding.ts';
import { SessionManager } from '../session/session-manager.ts';
import { createStoreFromEnv, operatorHome } from '../store/from-env.ts';
import type { Store } from '../store/store.ts';
import { createSandbox, type CreateSandboxOptions } from '../tools/sandbox/create-sandbox.ts';
import { defaultSandboxSettings } from '../tools/sandbox/sandbox.ts';
import type { Sandbox, SandboxSettings } from '../tools/sandbox/sandbox.ts';
import type { LiveSurface, Tool } from '../tools/tool.ts';
import { ChangeLog, flushChangeLogs } from '../tools/changes/change-log.ts';
import type { BrowserPool } from '../browser/browser-pool.ts';
import { defaultBrowserSettings, type BrowserConfig, type BrowserSettings } from '../browser/browser-settings.ts';
import { defaultDesktopSettings, desktopSettingsFor, type DesktopConfig } from '../desktop/desktop-settings.ts';
import { offeredDisplay } from '../desktop/desktop-setup.ts';
import { defaultSubagentSettings, type SubagentSettings } from '../agent/subagents/subagent-settings.ts';
import { keySegment } from '../gateway/dedupe.ts';
import { join, resolve } from 'node:path';
import type { ProfileResources } from './profile-resources.ts';
import type { ReloadReport } from './profile-resources.ts';
import { assertProfile } from './profile-check.ts';
import { envFilePaths, privatePaths } from '../core/private-paths.ts';
import { storeConversationMemory, type ConversationMemoryPlace } from '../memory/conversation-memory.ts';
import type { LanguageServers } from '../tools/code/language-servers.ts';
import { FileAccess } from '../tools/files/file-access.ts';
import { seatFilesFor } from '../tools/files/seat-files.ts';
import type { McpConfig } from '../tools/mcp/mcp-settings.ts';
import { RuntimeMcp } from './runtime-mcp.ts';
import type * as AgentModules from './agent-modules.ts';

/**
 * The agent's modules, imported on first use: `operator chat` and the other commands load them
 * when they make an agent, the gateway while its start waits for bubblewrap's check
 * ({@link preloadAgentModules}). The set is kept once loaded: each `import()` of a loaded module
 * still goes through the module loader, a cost every new conversation paid.
 */
function agentModules() {
  if (!loadingAgentModules) {
    loadingAgentModules = import('./agent-modules.ts');
    // A failed import is tried again by the next conversation.
    loadingAgentModules.catch(() => (loadingAgentModules = undefined));
  }
  return loadingAgentModules;
}

let loadingAgentModules: Promise<typeof AgentModules> | undefined;

/** Starts loading the agent's modules (see {@link Runtime.warm}); nothing waits for them. */
export function preloadAgentModules(): void {
  agentModules().catch(() => undefined);
}

/** Where the key of the opaque person ids is kept (a secret of this installation, like the rest of the store). */
const personIdKeyName = 'llm:person-id-key';

/** How the runtime is set up. */
export interface RuntimeOptions {
  env?: NodeJS.ProcessEnv;
  /** Working directory for tools and project rules (default: the process's). */
  cwd?: string;
  /** Built-in resources root (default: the repository). */
  builtin?: string;
  /** Person turns between background memory reviews; 0 turns them off. Default OPERATOR_REVIEW_EVERY or 10. */
  reviewEvery?: number;
  /** Told about each finished background review. */
  onReview?: (outcome: ReviewOutcome) => void;
  /**
   * When false, a missing model configuration does not throw: agents answer with a message naming
   * the variables to set (the gateway starts anyway). Default true.
   */
  requireModel?: boolean;
  /**
   * How commands are isolated (`sandbox` in operator.json). Default: bubblewrap when it works
   * here, network on.
   */
  sandbox?: SandboxSettings;
  /** The agent's browser per profile (`browser`, `allowPrivateNetwork`, `profileSettings` in operator.json). Default: the defaults. */
  browser?: BrowserConfig;
  /** The agent's desktop per profile (`desktop`, `profileSettings` in operator.json). Default: off. */
  desktop?: DesktopConfig;
  /** Limits of subagents (`subagents` in operator.json). Default: see `defaultSubagentSettings`. */
  subagents?: SubagentSettings;
  /** Each profile's default reasoning effort (`profileSettings.<profile>.reasoningEffort`); unset: none. */
  reasoningEfforts?: Readonly<Record<string, ReasoningEffort>>;
  /** Each profile's sampling, stop sequences, tags and provider options (`profileSettings.<profile>.modelRequest`); unset: none. */
  requestOptions?: Readonly<Record<string, RequestOptions>>;
  /** The profiles whose model calls name the turn's person as an opaque id (`modelRequest.sendPersonId`); unset: none. */
  personIdProfiles?: readonly string[];
  /** MCP servers per profile (`mcp`, `profileSettings.<profile>.mcp` in operator.json). Default: none. */
  mcp?: McpConfig;
}

/** The configured model client, or a stand-in whose answers say what to configure. */
function createModelClientOrStandIn(env: NodeJS.ProcessEnv): ModelClient {
  try {
    return createModelClient(env);
  } catch (error) {
    if (error instanceof ConfigurationError) return createUnconfiguredClient(error.message);
    throw error;
  }
}

/**
 * What the runtime's sandbox hides and passes on, for `env` and the working directory `cwd`: the
 * same arguments let `prepareSandbox` check bubblewrap before the runtime is made.
 */
export function runtimeSandboxOptions(env: NodeJS.ProcessEnv, cwd: string): CreateSandboxOptions {
  const home = operatorHome(env);
  return { hidden: [home, ...envFilePaths(cwd, home)], env };
}

/** Shared services of one operator process. */
export class Runtime {
  readonly env: NodeJS.ProcessEnv;
  readonly home: string;
  readonly cwd: string;
  readonly builtin: string;
  readonly store: Store;
  readonly sessions: SessionManager;
  readonly client: ModelClient;
  readonly bindings: ProfileBindingStore;
  readonly reviewEvery: number;
  /** Where `shell` runs commands: chosen once, at construction; OPERATOR_HOME is hidden from them. */
  readonly sandbox: Sandbox;
  /**
   * Where the file tools do their work: a worker per conversation in the sandbox, which never
   * shows OPERATOR_HOME's private entries or the `.env` files.
   */
  readonly files: FileAccess;
  #profiles = new Map<string, Promise<{ resources: ProfileResources; report: ReloadReport }>>();
  /**
   * The built-in tools, made once and shared by every agent: they keep no state between calls,
   * and their JSON Schemas are generated once per tool object (per agent that was most of the
   * cost of a new conversation). One list per set of what a profile may vary (the browser, the
   * desktop, the address rules of the browser and `web_fetch`).
   */
  #tools = new Map<string, readonly Tool[]>();
  #onReview: RuntimeOptions['onReview'];
  /** Each conversation's own memory and each person's notes, in the store: what seats other than the owner's keep. */
  readonly #conversationMemory: ConversationMemoryPlace;
  readonly #browserConfig: BrowserConfig;
  readonly #desktopConfig: DesktopConfig;
  readonly #subagentSettings: SubagentSettings;
  readonly #reasoningEfforts: Readonly<Record<string, ReasoningEffort>>;
  readonly #requestOptions: Readonly<Record<string, RequestOptions>>;
  readonly #personIdProfiles: ReadonlySet<string>;
  #personIdKey: Promise<string> | undefined;
  /** Every conversation's browser; made with the first agent (Playwright itself loads on first use). */
  #browsers: BrowserPool | undefined;
  /** The `code` tool's language servers, one per project folder; each starts on its first call. */
  #codeServers: LanguageServers | undefined;
  /** The MCP servers, loaded only when some are configured. */
  readonly mcp: RuntimeMcp;
  /** Where the runtime says what people should know (an MCP server's failures); the gateway points it at its log. */
  log: (line: string) => void = (line) => process.stderr.write(`operator: ${line}\n`);

  constructor(options: RuntimeOptions = {}) {
    this.env = options.env ?? process.env;
    this.home = operatorHome(this.env);
    this.cwd = options.cwd ?? process.cwd();
    // Before anything else starts: `required` without bubblewrap stops the start here.
    // Hidden: OPERATOR_HOME, and the `.env` files operator loads its keys from (the working
    // directory's lies inside every workspace that holds the working directory).
    this.sandbox = createSandbox(options.sandbox ?? defaultSandboxSettings, runtimeSandboxOptions(this.env, this.cwd));
    this.files = new FileAccess({
      sandbox: this.sandbox,
      hidden: privatePaths(this.home, this.cwd),
      timeoutMs: (options.sandbox?.fileTimeoutSeconds ?? 30) * 1000,
    });
    this.builtin = options.builtin ?? builtinRoot;
    this.client = options.requireModel === false ? createModelClientOrStandIn(this.env) : createModelClient(this.env);
    // Load the SDK in the background; a failure shows on the first call.
    void this.client.provider.warm().catch(() => undefined);
    this.store = createStoreFromEnv(this.env);
    this.sessions = new SessionManager(this.store);
    this.bindings = new ProfileBindingStore(this.store);
    this.#conversationMemory = storeConversationMemory(this.store, keySegment);
    this.reviewEvery = options.reviewEvery ?? parseReviewEvery(this.env.OPERATOR_REVIEW_EVERY);
    this.#onReview = options.onReview;
    this.#browserConfig = options.browser ?? { base: defaultBrowserSettings, profiles: {} };
    this.#desktopConfig = options.desktop ?? { base: defaultDesktopSettings, profiles: {} };
    this.#subagentSettings = options.subagents ?? defaultSubagentSettings;
    this.#reasoningEfforts = options.reasoningEfforts ?? {};
    this.#requestOptions = options.requestOptions ?? {};
    this.#personIdProfiles = new Set(options.personIdProfiles ?? []);
    this.mcp = new RuntimeMcp(options.mcp, { sandbox: this.sandbox, env: this.env, log: (line) => this.log(line) });
  }

  /** Where each conversation's own memory and each person's notes are kept (`/memory` reads them). */
  get conversationMemory(): ConversationMemoryPlace {
    return this.#conversationMemory;
  }

  /** The reasoning effort `profile`'s conversations start with (unset: none). */
  reasoningEffortOf(profile: string): ReasoningEffort | undefined {
    return Object.hasOwn(this.#reasoningEfforts, profile) ? this.#reasoningEfforts[profile] : undefined;
  }

  /** Throws a clear error unless `name` is a profile that exists (built in or in OPERATOR_HOME). */
  assertProfile(name: string): void {
    assertProfile(name, this.home, this.builtin);
  }

  /**
   * Loads in the background what the first conversation needs (the agent, its tools, the default
   * profile's resources, the model SDK), so it does not pay for it; resolves when all of it is
   * loaded, and never rejects (a failure shows on first use). The gateway calls it as soon as the
   * runtime is made, so it runs while the start waits on the platforms' first calls.
   */
  warm(): Promise<void> {
    return Promise.allSettled([agentModules(), this.resources('default'), this.client.provider.warm(), this.mcp.warm()]).then(() => undefined);
  }

  /** The resources of `profile`, loaded once and shared by its agents. */
  resources(profile: string): Promise<{ resources: ProfileResources; report: ReloadReport }> {
    this.assertProfile(profile);
    let loading = this.#profiles.get(profile);
    if (!loading) {
      loading = import('./profile-resources.ts').then(({ ProfileResources }) =>
        ProfileResources.load({ profile, home: this.home, builtin: this.builtin, cwd: this.cwd, env: this.env, conversationMemory: this.#conversationMemory }),
      );
      this.#profiles.set(profile, loading);
      loading.catch(() => this.#profiles.delete(profile));
    }
    return loading;
  }

  /** An agent for one conversation, with its profile's resources and the background reviewer. */
  async createAgent(options: {
    sessionKey: string;
    profile: string;
    requestApproval?: AgentOptions['requestApproval'];
    /** How long an approval question waits (`approvals.timeoutSeconds`); unset: the agent's default. */
    approvalTimeoutMs?: number;
    /** A model id or alias for this conversation instead of the configured one. */
    model?: string;
    /** Tools beyond the built-in ones (the gateway's `send_file`, say). */
    tools?: readonly Tool[];
    /** This conversation's reasoning effort (`/think`), `off` for none; unset: the profile's default. */
    reasoningEffort?: ReasoningEffort | 'off';
    /** Spending caps every model call of the agent is checked against (the gateway's); unset: none. */
    spend?: AgentOptions['spend'];
    /** The sampling temperature of its model calls (a pipeline node's); unset: the provider's default. */
    temperature?: number;
    /** The most output tokens of each model call (a pipeline node's); unset: the provider's default. */
    maxTokens?: number;
  }): Promise<{ agent: Agent; report: ReloadReport }> {
    const [{ resources, report }, modules, mcp] = await Promise.all([this.resources(options.profile), agentModules(), this.mcp.forAgent(options.profile)]);
    const { Agent, BackgroundReviewer, browser } = modules;
    const client = options.model ? this.clientFor(options.model) : this.client;
    const browserSettings = browser.browserSettingsFor(this.#browserConfig, options.profile);
    const desktopSettings = desktopSettingsFor(this.#desktopConfig, options.profile);
    const display = offeredDisplay(desktopSettings, this.env);
    // The desktop's tool and live state load only where a display is offered.
    const desktop = display ? await import('../desktop/index.ts') : undefined;
    // Chromium gets the allowlisted part of this environment, and never sees OPERATOR_HOME.
    this.#browsers ??= new browser.BrowserPool({ env: this.env, hidden: [this.home] });
    // Downloads land in the conversation's own folder, where its people's file tools can reach them.
    const files = join(resolve(resources.tempDirectory), keySegment(options.sessionKey), 'downloads');
    const surfaces: LiveSurface[] = [];
    if (browserSettings.enabled) surfaces.push(this.#browsers.session(options.sessionKey, browserSettings, files));
    if (display && desktop) surfaces.push(new desktop.DesktopSession({ settings: desktopSettings, display: { name: display, xauthority: this.env.XAUTHORITY }, files }));
    // Not made here: the browser and the desktop make it (private, like all under OPERATOR_HOME)
    // when they first save a file there, so a conversation that saves nothing leaves no folder.
    const settings = this.#subagentSettings;
    const subagents =
      settings.maxDepth > 0
        ? new modules.subagents.Subagents({
            store: this.store,
            parentKey: options.sessionKey,
            parentSegment: keySegment(options.sessionKey),
            settings,
            depth: 0,
            createChild: modules.subagents.childAgentFactory({ clientFor: (model) => this.clientFor(model), store: this.store, settings, segment: keySegment }),
          })
        : undefined;
    const agent = new Agent({
      provider: client.provider,
      model: client.model,
      modelInfo: client.info,
      reasoningEffort: options.reasoningEffort === 'off' ? undefined : (options.reasoningEffort ?? this.reasoningEffortOf(options.profile)),
      requestOptions: Object.hasOwn(this.#requestOptions, options.profile) ? this.#requestOptions[options.profile] : undefined,
      personIdKey: this.#personIdProfiles.has(options.profile) ? await this.#personKey() : undefined,
      sessions: this.sessions,
      sessionKey: options.sessionKey,
      tools: this.#withBuiltinTools(this.#builtinTools(modules, client.provider.name, browserSettings, desktop?.createDesktopTool), options.tools),
      liveTools: mcp.liveTools,
      guardrails: mcp.guardrails,
      resources,
      cwd: this.cwd,
      requestApproval: options.requestApproval,
      approvalTimeoutMs: options.approvalTimeoutMs,
      spend: options.spend,
      temperature: options.temperature,
      maxTokens: options.maxTokens,
      surfaces: surfaces.length > 0 ? surfaces : undefined,
      changes: new ChangeLog(this.store, keySegment(options.sessionKey)),
      files: (context, cwd, machine, name) => seatFilesFor(this.files, context, cwd, machine, name),
      subagents,
    });
    subagents?.attach(agent);
    agent.setReviewer(new BackgroundReviewer(agent, { everyTurns: this.reviewEvery }, this.#onReview));
    return { agent, report };
  }

  /**
   * The key of the opaque person ids sent to providers: made once and kept in the store, so an
   * id stays the same across restarts (and across gateways sharing a store).
   */
  #personKey(): Promise<string> {
    this.#personIdKey ??= (async () => {
      await this.store.setIfAbsent(personIdKeyName, randomBytes(32).toString('hex'));
      const key = await this.store.get<string>(personIdKeyName);
      if (typeof key !== 'string') throw new InternalError('The key of the person ids could not be read from the store');
      return key;
    })();
    return this.#personIdKey;
  }

  /**
   * The built-in tools fitted to the model's provider (see `tools/builtin/tool-profile.ts`),
   * `web_fetch` under the browser's address rules, with the browser and the
   * desktop tool (made by `desktopTool`, given where a display is offered) or without (see `#tools`).
   */
  /** The `code` tool's language servers, for `/lsp` (made here if no agent made them yet; none starts before a call). */
  async codeServers(): Promise<LanguageServers> {
    return this.#makeCodeServers(await agentModules());
  }

  #makeCodeServers(modules: Awaited<ReturnType<typeof agentModules>>): LanguageServers {
    return (this.#codeServers ??= new modules.code.LanguageServers({ env: this.env, sandbox: this.sandbox }));
  }

  #builtinTools(modules: Awaited<ReturnType<typeof agentModules>>, provider: string, browser: BrowserSettings, desktopTool: (() => Tool) | undefined): readonly Tool[] {
    const policy = { allowPrivateNetwork: browser.allowPrivateNetwork, allowUrls: browser.allowUrls, blockUrls: browser.blockUrls };
    const key = JSON.stringify([provider, browser.enabled, desktopTool !== undefined, policy]);
    let tools = this.#tools.get(key);
    if (!tools) {
      tools = [
        ...modules.createBuiltinTools({ cwd: this.cwd, sandbox: this.sandbox, files: this.files, profile: modules.toolProfileFor(provider) }),
        modules.createWebFetchTool(policy),
        ...(modules.code.codeToolAvailable()
          ? [modules.code.createCodeTool({ cwd: this.cwd, files: this.files, hidden: privatePaths(this.home, this.cwd), servers: this.#makeCodeServers(modules) })]
          : []),
        ...(browser.enabled ? [modules.browser.createBrowserTool()] : []),
        ...(desktopTool ? [desktopTool()] : []),
        ...(this.#subagentSettings.maxDepth > 0 ? modules.subagents.createSubagentTools() : []),
      ];
      this.#tools.set(key, tools);
    }
    return tools;
  }

  /**
   * `builtin` followed by `extra`. The list is cached per pair of arrays, so agents given the same
   * tools share one list (and one set of generated schemas, and one prompt cache entry).
   */
  #withBuiltinTools(builtin: readonly Tool[], extra: readonly Tool[] | undefined): readonly Tool[] {
    if (!extra || extra.length === 0) return builtin;
    let byExtra = this.#combined.get(builtin);
    if (!byExtra) this.#combined.set(builtin, (byExtra = new WeakMap()));
    let combined = byExtra.get(extra);
    if (!combined) {
      combined = [...builtin, ...extra];
      byExtra.set(extra, combined);
    }
    return combined;
  }

  #combined = new WeakMap<readonly Tool[], WeakMap<readonly Tool[], readonly Tool[]>>();

  /** A model client for `spec` (id, alias or `provider:name`); throws a clear error for unknown setups. */
  clientFor(spec: string): ModelClient {
    const resolved = resolveModel(spec, this.env);
    if (resolved.provider === this.client.provider.name && resolved.model === this.client.model) return this.client;
    const provider = providerRegistry[resolved.provider](this.env);
    return { provider, model: resolved.model, info: resolved.info };
  }

  /**
   * Closes every conversation's browser, stops the code tool's language servers, stores the file
   * changes still being recorded, then closes the store.
   */
  async close(): Promise<void> {
    this.files.closeAll();
    await this.#browsers?.closeAll();
    await this.#codeServers?.closeAll();
    await this.mcp.close();
    await flushChangeLogs();
    await this.store.close();
  }
}

function parseReviewEvery(text: string | undefined): number {
  if (text === undefined || text.trim() === '') return 10;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0) throw new ConfigurationError(`OPERATOR_REVIEW_EVERY must be a whole number >= 0, not "${text}"`);
  return value;
}
