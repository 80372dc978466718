/**
 * The resolved gateway configuration: every setting present, defaults applied, environment
 * overrides applied. Built once at start by `loadConfig`; the rest of the gateway reads it as a
 * plain value.
 */
import type { BudgetsConfig, ProfileBudgets } from './budget-schema.ts';
import type { ProfileBindings } from '../../resources/profile-binding.ts';
import type { BrowserConfig, BrowserSettings } from '../../browser/browser-settings.ts';
import type { DesktopConfig, DesktopSettings } from '../../desktop/desktop-settings.ts';
import type { SubagentSettings } from '../../agent/subagents/subagent-settings.ts';
import type { SandboxSettings } from '../../tools/sandbox/sandbox.ts';
import type { McpConfig, McpServers } from '../../tools/mcp/mcp-settings.ts';
import type { TaintMode } from '../../tools/turn-taint.ts';
import type { TranscriptionLimits } from '../../media/transcription.ts';
import type { ReasoningEffort, RequestOptions } from '../../llm/types.ts';
import { requestOptionsOf, type ModelRequestSection } from './model-request-schema.ts';
import type { BusyMode, DmPolicy, EditedMessageMode, GroupPolicy, ModelProvider, Platform, ToolGroup } from './schema.ts';

export type { SandboxSettings };

/** Chats and people a platform is restricted to. An empty list restricts nothing in groups. */
export interface Allowlist {
  /** Conversation ids of groups / channels. */
  chats: readonly string[];
  /** Platform user ids. */
  users: readonly string[];
}

/** Telegram settings (the token is read only from `TELEGRAM_BOT_TOKEN`). */
export interface TelegramSettings {
  /** Public URL Telegram posts updates to; without it the adapter long-polls. */
  webhookUrl?: string;
  /** The `secret_token` every webhook call must carry (always set when `webhookUrl` is). */
  webhookSecret?: string;
  /** A self-hosted Bot API server. */
  apiRoot?: string;
  /** Private chats stream replies by drafts where the server takes them (`auto`, when unset), or by an edited preview (`off`). */
  drafts?: 'auto' | 'off';
  /** Hand over other bots' messages too, under the same access rules as a person's (false when unset). */
  allowBots?: boolean;
  /** With `allowBots`: bots' messages in a row one conversation takes before a person writes again (5 when unset). */
  botTurns?: number;
}

/** Discord settings (the token is read only from `DISCORD_BOT_TOKEN`). */
export interface DiscordSettings {
  /** REST base of a non-default Discord API (the websocket URL is discovered from it). */
  apiUrl?: string;
  /** How far back (minutes) messages sent while the gateway was down are caught up (60; 0: off). */
  catchUpMinutes: number;
  /** Hand over other bots' messages too, under the same access rules as a person's (false when unset). */
  allowBots?: boolean;
  /** With `allowBots`: bots' messages in a row one conversation takes before a person writes again (5 when unset). */
  botTurns?: number;
}

/** Slack settings (tokens and the signing secret are read only from the environment). */
export interface SlackSettings {
  /** A non-default Web API base. */
  apiUrl?: string;
  /** Hand over other bots' messages too, under the same access rules as a person's (false when unset; Slackbot never). */
  allowBots?: boolean;
  /** With `allowBots`: bots' messages in a row one conversation takes before a person writes again (5 when unset). */
  botTurns?: number;
  /** Where a channel's top-level messages are answered (`always` when unset: in a thread under the message). */
  replyInThread?: 'always' | 'mentions' | 'never';
}

/** Settings of one group chat. */
export interface GroupSettings {
  /** Answer only when mentioned or replied to (default true). */
  requireMention: boolean;
}

/** One grant of machine tools (see `tools.grants` in the schema). */
export interface ToolGrant {
  tools: 'all' | readonly ToolGroup[];
  /** `platform:userId` entries; unset means anyone. */
  people?: readonly string[];
  /** `platform:conversationId[:thread]` entries; unset means any conversation. */
  chats?: readonly string[];
  platforms?: readonly Platform[];
  scope: 'dm' | 'group' | 'any';
}

/** The gateway's configuration, complete. */
export interface GatewayConfig {
  /** HTTP port (8787). */
  port: number;
  /** Listening address (127.0.0.1). */
  host: string;
  /** Host names the gateway is reached by from elsewhere (reverse proxy, tunnel). */
  publicHosts: readonly string[];
  /** The web chat's login. */
  web: { login: 'auto' | 'always' };
  /** Grants of the tools that act on the machine. */
  tools: { grants: readonly ToolGrant[] };
  sandbox: SandboxSettings;
  /** Model id or alias; unset means the runtime chooses from the credentials. */
  model?: string;
  /**
   * Direct-message policy per platform. The web chat's is unset unless configured: it depends on
   * whether the gateway is exposed (open when local, pairing when exposed). `api`, the callers of
   * the OpenAI-compatible endpoint, is `open` while the endpoint is on: its bearer token is the door.
   */
  dmPolicy: Readonly<Record<Exclude<Platform, 'web'>, DmPolicy>> & { readonly web?: DmPolicy; readonly api?: DmPolicy };
  /** Which groups each platform's bot answers in (see `groupPolicies`). */
  groupPolicy: Readonly<Record<Exclude<Platform, 'web'>, GroupPolicy>>;
  /** Per platform allowlists. */
  allowlists: Readonly<Record<Platform, Allowlist>>;
  /** `platform:userId` of the admins. */
  admins: readonly string[];
  /** Per group settings keyed `platform:chatId`; missing groups use the defaults. */
  groups: Readonly<Record<string, GroupSettings>>;
  /** What a message arriving during a turn does. */
  busyMode: BusyMode;
  /** What a message its sender edits does (`editedMessages`). */
  editedMessages: EditedMessageMode;
  /** Seconds an idle conversation stays in memory. */
  idleTtlSeconds: number;
  /** Turns running at once across all conversations (64). */
  maxConcurrentTurns: number;
  /** Turns of one model provider running at once; unset: the session queue's default (56 of 64). */
  maxConcurrentTurnsPerProvider?: number;
  /** Turns waiting on a model call at once, holding no running slot (1000). */
  maxTurnsWaitingOnModel: number;
  /** Longest a turn may take, in seconds (600). */
  turnTimeoutSeconds: number;
  /** Spending caps in US dollars (see `budget-schema.ts`). */
  budgets: BudgetsConfig;
  /** Approval questions: how long one waits for an answer, in seconds (600). */
  approvals: { timeoutSeconds: number; escalateAfterSeconds?: number };
  /** What a tainted turn does with a call that acts (`approve`; see `tools/turn-taint.ts`). */
  taint: { mode: TaintMode };
  /** The largest recording transcribed (unset: `defaultTranscriptionLimits`, 600 s and 25 MB). */
  transcription?: TranscriptionLimits;
  /** Model calls that send nothing fail after these many seconds (unset: the provider's default). */
  modelTimeouts: ModelTimeouts;
  /** Seconds turns in flight may finish after SIGTERM or Ctrl+C (25). */
  shutdownGraceSeconds: number;
  /** Configured profile bindings. */
  profiles: Required<ProfileBindings>;
  /** Person turns between memory reviews; unset means the runtime's default. */
  reviewEvery?: number;
  /** Whether the browser may reach this machine and private networks (false). */
  allowPrivateNetwork: boolean;
  /** The agent's browser (see `src/browser/browser-settings.ts`). */
  browser: BrowserSection;
  /** The agent's desktop (see `src/desktop/desktop-settings.ts`). */
  desktop: DesktopSettings;
  /** Limits of subagents (see `src/agent/subagents/subagent-settings.ts`). */
  subagents: SubagentSettings;
  /** MCP servers whose tools the agent may use (see `src/tools/mcp/`). */
  mcp: { servers: McpServers };
  /** Pipelines: whether the model's `run_pipeline` works in groups (false); run folders kept (200; 0: none). */
  pipelines: { toolInGroups: boolean; keepRuns: number };
  /** Per profile overrides, keyed by profile name. */
  profileSettings: Readonly<
    Record<string, { browser?: Partial<BrowserSection>; desktop?: Partial<DesktopSettings>; mcp?: { servers: McpServers }; reasoningEffort?: ReasoningEffort; budgets?: ProfileBudgets; modelRequest?: ModelRequestSection }>
  >;
  telegram: TelegramSettings;
  discord: DiscordSettings;
  slack: SlackSettings;
  schedule: ScheduleSettings;
}

/** `browser` in operator.json: the browser's settings but the network one, which is top-level. */
export type BrowserSection = Omit<BrowserSettings, 'allowPrivateNetwork' | 'executablePath'> & { executablePath?: string };

/** Scheduled follow-ups. */
export interface ScheduleSettings {
  /** IANA zone of jobs that name none; unset means this machine's. */
  timezone?: string;
  maxJobsPerPerson: number;
  maxJobsPerConversation: number;
  /** Shortest interval of a recurring job (5). */
  minIntervalMinutes: number;
  /** How old a missed run may be and still run once at start-up (6). */
  missedGraceHours: number;
  /** Whether a job's turn may create jobs (false). */
  allowJobsFromJobs: boolean;
}

/** The limits of a model call that sends nothing, in seconds (unset: the provider's default). */
export interface ModelTimeoutLimits {
  /** Until the first byte of the response body. */
  firstByteSeconds?: number;
  /** Between two pieces of the body. */
  idleSeconds?: number;
  /** Silence after which the person is told the provider is slow (15). */
  notifyAfterSeconds?: number;
}

/** `modelTimeouts`: limits for every provider, and a provider's own over them. */
export interface ModelTimeouts extends ModelTimeoutLimits, Partial<Record<ModelProvider, ModelTimeoutLimits>> {}

/** The browser settings of every profile, from the configuration (for the runtime). */
export function browserConfigOf(config: Pick<GatewayConfig, 'browser' | 'allowPrivateNetwork' | 'profileSettings'>): BrowserConfig {
  return { base: { ...config.browser, allowPrivateNetwork: config.allowPrivateNetwork }, profiles: overridesOf(config, 'browser') };
}

/** The desktop settings of every profile, from the configuration (for the runtime). */
export function desktopConfigOf(config: Pick<GatewayConfig, 'desktop' | 'profileSettings'>): DesktopConfig {
  return { base: config.desktop, profiles: overridesOf(config, 'desktop') };
}

/** The MCP servers of every profile, from the configuration (for the runtime). */
export function mcpConfigOf(config: Pick<GatewayConfig, 'mcp' | 'profileSettings'>): McpConfig {
  const profiles: Record<string, McpServers> = {};
  for (const [profile, settings] of Object.entries(config.profileSettings)) if (settings.mcp) profiles[profile] = settings.mcp.servers;
  return { base: config.mcp.servers, profiles };
}

/** Each profile's default reasoning effort, for the profiles that set one (for the runtime). */
export function reasoningEffortsOf(config: Pick<GatewayConfig, 'profileSettings'>): Record<string, ReasoningEffort> {
  const efforts: Record<string, ReasoningEffort> = {};
  for (const [profile, settings] of Object.entries(config.profileSettings)) if (settings.reasoningEffort) efforts[profile] = settings.reasoningEffort;
  return efforts;
}

/** Each profile's request options (`profileSettings.<profile>.modelRequest`), for the profiles that set some (for the runtime). */
export function requestOptionsByProfile(config: Pick<GatewayConfig, 'profileSettings'>): Record<string, RequestOptions> {
  const options: Record<string, RequestOptions> = {};
  for (const [profile, settings] of Object.entries(config.profileSettings)) if (settings.modelRequest) options[profile] = requestOptionsOf(settings.modelRequest);
  return options;
}

/** The profiles whose calls name the turn's person (`profileSettings.<profile>.modelRequest.sendPersonId`). */
export function personIdProfilesOf(config: Pick<GatewayConfig, 'profileSettings'>): string[] {
  return Object.keys(config.profileSettings).filter((profile) => config.profileSettings[profile]?.modelRequest?.sendPersonId === true);
}

/** Each profile's overrides of one section, for the profiles that have some. */
function overridesOf<Section extends 'browser' | 'desktop'>(
  config: Pick<GatewayConfig, 'profileSettings'>,
  section: Section,
): Record<string, NonNullable<GatewayConfig['profileSettings'][string][Section]>> {
  const profiles: Record<string, NonNullable<GatewayConfig['profileSettings'][string][Section]>> = {};
  for (const [profile, settings] of Object.entries(config.profileSettings)) {
    const own = settings[section];
    if (own) profiles[profile] = own;
  }
  return profiles;
}
