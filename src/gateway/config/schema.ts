/**
 * The shape of `operator.json`, as a zod schema. It is the single source of truth: the loader
 * validates with it, and `operator.schema.json` (for editors) is generated from it.
 *
 * Defaults live here too, so the parsed value is complete. Tokens are deliberately not settable
 * in the file: they come only from the environment.
 */
import { budgetsSchema, profileBudgetsSchema } from './budget-schema.ts';
import { transcriptionSchema } from './transcription-schema.ts';
import * as z from 'zod';
import { absolutePath, browserSchema, desktopSchema, overridesOf, subagentsSchema } from './agent-feature-schemas.ts';
import { mcpSchema } from './mcp-schema.ts';
import { modelRequestSchema } from './model-request-schema.ts';
import { modelTimeoutsSchema } from './model-timeouts-schema.ts';
import { reasoningEfforts } from '../../llm/types.ts';
export { modelProviders, type ModelProvider } from './model-timeouts-schema.ts';
import { taintModes } from '../../tools/turn-taint.ts';
import { isValidTimezone } from '../scheduler/zoned-time.ts';

/** The chat platforms the gateway serves. */
export const platforms = ['telegram', 'discord', 'slack', 'web'] as const;

/** One of {@link platforms}. */
export type Platform = (typeof platforms)[number];

/** Who may talk to the bot in direct messages. */
export const dmPolicies = ['allowlist', 'pairing', 'open'] as const;

/** One of {@link dmPolicies}. */
export type DmPolicy = (typeof dmPolicies)[number];

/**
 * Which groups the bot serves: `approval` (groups an admin added it to or approved; a stranger's
 * group gets a pairing code once, then silence), `allowlist` (the same, without codes), `open`
 * (every group, as before; `allowlists.<platform>.chats`, when set, restricts it).
 */
export const groupPolicies = ['approval', 'allowlist', 'open'] as const;

/** One of {@link groupPolicies}. */
export type GroupPolicy = (typeof groupPolicies)[number];

/** What a message arriving during a turn does. */
export const busyModes = ['followUp', 'steer', 'interrupt'] as const;

/** One of {@link busyModes}. */
export type BusyMode = (typeof busyModes)[number];

/** What a message its sender edits does: nothing, or its new wording is answered if its turn has not begun. */
export const editedMessageModes = ['ignore', 'reanswer'] as const;

/** One of {@link editedMessageModes}. */
export type EditedMessageMode = (typeof editedMessageModes)[number];

/**
 * The direct-message policy of each platform when nothing is configured. The web chat's is `open`
 * only while the gateway is reachable from this machine alone; exposed, it is `pairing` (see
 * `resolveExposure`), which is why the file leaves it unset unless the owner names one.
 */
export const defaultDmPolicy: Readonly<Record<Platform, DmPolicy>> = {
  telegram: 'pairing',
  discord: 'pairing',
  slack: 'open',
  web: 'open',
};

/**
 * What a tool does to the machine, as grants name it: `read` (read files: read_file, grep, glob,
 * list_dir, send_file), `write` (change files: write_file, edit_file, apply_patch), `shell` (run
 * commands), `browser` (drive the conversation's browser), `desktop` (drive this machine's
 * display), `agents` (start subagents, which get at most the turn's own tools), `mcp` (the tools of
 * the configured MCP servers). Tools outside these groups (memory, skills, knowledge search,
 * schedule) are the conversation's own and always offered.
 */
export const toolGroups = ['read', 'write', 'shell', 'browser', 'desktop', 'agents', 'mcp'] as const;

/** One of {@link toolGroups}. */
export type ToolGroup = (typeof toolGroups)[number];

/** How commands are sandboxed: `auto` uses bubblewrap when it is there, `required` refuses to start without it, `off` never sandboxes. */
export const sandboxModes = ['auto', 'required', 'off'] as const;

/** One of {@link sandboxModes}. */
export type SandboxMode = (typeof sandboxModes)[number];

/** Whether the web chat asks for a login: `auto` when the gateway is reachable beyond this machine, `always` everywhere. */
export const webLoginModes = ['auto', 'always'] as const;

const platformPattern = platforms.join('|');

/** Where a person may be named (`admins`, a grant's `people`): the chat platforms and `api` (the OpenAI-compatible API's `api:<user>`). */
export const personPlatforms = [...platforms, 'api'] as const;

/** `platform:userId`, e.g. `telegram:123`, `api:alice`. */
export const adminPattern = new RegExp(`^(${personPlatforms.join('|')}):[^\\s:][^\\s]*$`);
const adminMessage = `expected "platform:userId" with platform ${personPlatforms.join(', ')} (e.g. telegram:123)`;

/** `platform:id` or `platform:id:thread`, as used by groups and profile bindings. */
const scopedKeyPattern = new RegExp(`^(${platformPattern}):[^\\s:][^\\s]*$`);
const scopedKeyMessage = `expected "platform:id" with platform ${platforms.join(', ')} (e.g. telegram:-1001234)`;

/** A host name or IP address, as in a `Host` header without the port. */
const hostNamePattern = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?|[0-9A-Fa-f:]+)$/;
const hostName = z.string().regex(hostNamePattern, 'expected a host name or IP address without scheme, port or path (e.g. bot.example.com)');


/** Who and where a grant applies; every selector given must match, and at least one is given. */
const toolGrant = z
  .strictObject({
    tools: z
      .union([z.literal('all'), z.array(z.enum(toolGroups)).min(1)])
      .describe(
        'What is granted: "all" (every group but desktop), or some of "read" (read files), "write" (change files), "shell" (run commands), "browser" (the conversation\'s browser), "desktop" (this machine\'s display, never part of "all"), "agents" (start subagents that work with the same tools), "mcp" (the tools of the MCP servers in mcp.servers).',
      ),
    people: z.array(z.string().regex(adminPattern, adminMessage)).min(1).optional().describe('People it applies to, "platform:userId".'),
    chats: z
      .array(z.string().regex(scopedKeyPattern, scopedKeyMessage))
      .min(1)
      .optional()
      .describe('Conversations it applies to, "platform:conversationId" (a thread or topic follows its chat) or "platform:conversationId:thread".'),
    platforms: z.array(z.enum(platforms)).min(1).optional().describe('Platforms it applies to.'),
    scope: z.enum(['dm', 'group', 'any']).default('any').describe('Direct messages, groups, or both (default).'),
  })
  .refine((grant) => grant.people !== undefined || grant.chats !== undefined || grant.platforms !== undefined, {
    message: 'a grant names at least one of people, chats or platforms',
  });

const profileNamePattern = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** A platform id; Telegram's are numbers, so integers are accepted and turned into strings. */
const platformId = z
  .union([z.string().regex(/^\S+$/, 'expected an id without spaces'), z.int()], { error: 'expected an id (a string without spaces, or an integer)' })
  .transform(String);

const allowlist = z
  .strictObject({
    chats: z.array(platformId).default([]).describe('Group chats / channels the bot answers in without an approval (with groupPolicy "open": the only ones, when any are listed).'),
    users: z.array(platformId).default([]).describe('People allowed: in groups (empty: anyone) and, with dmPolicy "allowlist", in direct messages.'),
  })
  .prefault({});

const dmPolicy = z.enum(dmPolicies);

const groupPolicy = z.enum(groupPolicies);

/** A platform's `allowBots` (what counts as a bot there, in `kinds`) and `botTurns`. */
function botSettings(kinds: string) {
  return {
    allowBots: z
      .boolean()
      .default(false)
      .describe(`Whether messages of other bots (${kinds}) reach the agent, under the same access rules as a person's. Off (default): they are never answered and never get a pairing code.`),
    botTurns: z
      .int()
      .min(1)
      .max(100)
      .optional()
      .describe("With allowBots: how many bots' messages in a row one conversation takes before a person writes again; later ones are not answered, so two bots cannot talk without end. Default: budgets.botTurns (5)."),
  };
}

const profileName = z.string().regex(profileNamePattern, 'expected a profile name (letters, digits, - and _, at most 64)');

/**
 * The settings the environment can override, each with its own schema, so a bad environment
 * value is reported with the same reasons as a bad file value.
 */
export const settingSchemas = {
  port: z.int().min(0).max(65535),
  model: z.string().min(1),
  dmPolicy,
  groupPolicy,
  admins: z.array(z.string().regex(adminPattern, adminMessage)),
  reviewEvery: z.int().min(0),
  host: z.string().regex(/^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.:-]+)$/, 'expected an address to listen on, e.g. 127.0.0.1, 0.0.0.0 or ::'),
  publicHosts: z.array(hostName),
  webhookUrl: z.url(),
  // A shared secret: at least 16 characters, as `shared-secrets.ts` asks of every one.
  webhookSecret: z.string().regex(/^[A-Za-z0-9_-]{16,256}$/, 'expected 16-256 characters of A-Z, a-z, 0-9, _ and - (a shared secret must not be guessable)'),
  apiRoot: z.url(),
  catchUpMinutes: z.int().min(0).max(1_440),
};

/** The `operator.json` schema. */
export const operatorConfigSchema = z
  .strictObject({
    $schema: z.string().optional().describe('Path or URL of this JSON Schema (for editors).'),
    port: settingSchemas.port.default(8787).describe('HTTP port of the gateway (webhooks, web chat). Env: PORT.'),
    host: settingSchemas.host
      .default('127.0.0.1')
      .describe('Address the gateway listens on: 127.0.0.1 (this machine only, the default), 0.0.0.0 or :: (every interface), or one address. Env: HOST.'),
    publicHosts: settingSchemas.publicHosts
      .default([])
      .describe(
        'Host names the gateway is reached by from elsewhere (through a reverse proxy or tunnel), e.g. "bot.example.com"; requests naming another host are refused. Env: OPERATOR_PUBLIC_HOSTS (comma-separated).',
      ),
    web: z
      .strictObject({
        login: z
          .enum(webLoginModes)
          .default('auto')
          .describe('"auto": a login is required when the gateway is reachable beyond this machine; "always": also on 127.0.0.1. The token is OPERATOR_WEB_TOKEN or OPERATOR_HOME/web-token.'),
      })
      .prefault({})
      .describe('The web chat.'),
    tools: z
      .strictObject({
        grants: z
          .array(toolGrant)
          .default([])
          .describe(
            "Tools that act on the machine, granted beyond their defaults (admins' own direct messages, the terminal and a local web chat get every tool; everyone else gets none of them).",
          ),
      })
      .prefault({})
      .describe('Who may use the tools that read files, change files and run commands.'),
    sandbox: z
      .strictObject({
        mode: z
          .enum(sandboxModes)
          .default('auto')
          .describe('"auto": commands run in bubblewrap when it is installed; "required": the gateway does not start without it; "off": no sandbox (shell is then offered only in the owner\'s own conversations).'),
        network: z.boolean().default(true).describe("Whether commands may use the network: a network namespace of their own through slirp4netns where it is installed (this machine's loopback services out of reach), else this machine's network, loopback services included."),
        readOnly: z.array(absolutePath).default([]).describe('More folders commands may read (beyond the system folders).'),
        readWrite: z.array(absolutePath).default([]).describe('More folders commands may change (beyond the workspace).'),
        env: z
          .array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'expected an environment variable name'))
          .default([])
          .describe('More environment variables passed to commands (beyond PATH, LANG, TERM, TZ and the like); secret-looking names are still withheld.'),
        fileTimeoutSeconds: z
          .number()
          .positive()
          .max(3_600)
          .default(30)
          .describe("Longest a file tool's work (a search, a listing, a read) may take in the conversation's file worker before the worker is stopped and the call told so."),
      })
      .prefault({})
      .describe('How commands and file tools the agent runs are isolated.'),
    model: settingSchemas.model.optional().describe('Model id or alias, e.g. "sonnet" or "openai:llama3.1:8b". Env: OPERATOR_MODEL.'),
    dmPolicy: z
      .strictObject({
        telegram: dmPolicy.default(defaultDmPolicy.telegram),
        discord: dmPolicy.default(defaultDmPolicy.discord),
        slack: dmPolicy.default(defaultDmPolicy.slack),
        web: dmPolicy.optional().describe('Default: open while the gateway is reachable from this machine alone, pairing when exposed.'),
      })
      .prefault({})
      .describe('Who may talk to the bot in direct messages, per platform. Env: OPERATOR_DM_POLICY (all platforms).'),
    groupPolicy: z
      .strictObject({
        telegram: groupPolicy.default('approval'),
        discord: groupPolicy.default('approval'),
        slack: groupPolicy.default('approval'),
      })
      .prefault({})
      .describe(
        'Which groups, channels and servers the bot answers in, per platform: "approval" (default: those an admin added it to or approved; elsewhere the first mention gets a pairing code), "allowlist" (the same without codes), "open" (every one). Env: OPERATOR_GROUP_POLICY (all platforms).',
      ),
    allowlists: z
      .strictObject({ telegram: allowlist, discord: allowlist, slack: allowlist, web: allowlist })
      .prefault({})
      .describe('Optional restrictions of chats and people, per platform.'),
    admins: settingSchemas.admins
      .default([])
      .describe('People always allowed, who may use admin commands: "platform:userId". Env: OPERATOR_ADMINS (comma-separated).'),
    groups: z
      .record(
        z.string().regex(scopedKeyPattern, scopedKeyMessage),
        z.strictObject({
          requireMention: z.boolean().default(true).describe('Answer only when mentioned or replied to.'),
        }),
      )
      .default({})
      .describe('Per group chat settings, keyed "platform:chatId".'),
    busyMode: z
      .enum(busyModes)
      .default('followUp')
      .describe('A message arriving during a turn: answered after it (followUp), injected between tool rounds (steer), or interrupting it.'),
    editedMessages: z
      .enum(editedMessageModes)
      .default('ignore')
      .describe('A message its sender edits (Telegram, Slack, Discord): nothing happens (ignore), or the new wording is answered instead when the message still waits for its turn (reanswer); a turn already begun is not answered again.'),
    idleTtlSeconds: z.int().positive().default(1800).describe('Seconds after which an idle conversation leaves memory (it comes back from storage).'),
    maxConcurrentTurns: z
      .int()
      .min(1)
      .max(10_000)
      .default(64)
      .describe('Turns running at once across all conversations; further messages wait their turn in arrival order.'),
    maxConcurrentTurnsPerProvider: z
      .int()
      .min(1)
      .max(10_000)
      .optional()
      .describe(
        'Turns of one model provider running at once (default: maxConcurrentTurns less an eighth, at least one kept back: 56 of 64), so turns hanging on one provider leave slots to conversations on another. With one provider for everything, set it to maxConcurrentTurns.',
      ),
    maxTurnsWaitingOnModel: z
      .int()
      .min(1)
      .max(100_000)
      .default(1000)
      .describe(
        'Turns waiting on a model call at once, which hold no running slot meanwhile (a provider that hangs keeps no one else waiting); past this a call fails at once and the person is told the provider is overloaded. Bounds their memory.',
      ),
    turnTimeoutSeconds: z
      .number()
      .min(1)
      .max(86_400)
      .default(600)
      .describe('Longest a turn may take, tools and retries included; then it stops and the person is told it took too long.'),
    budgets: budgetsSchema,
    transcription: transcriptionSchema,
    approvals: z
      .strictObject({
        timeoutSeconds: z
          .number()
          .int()
          .min(10)
          .max(86_400)
          .default(600)
          .describe('How long an approval question (a guardrail\'s, a tainted turn\'s) waits for an answer; then the call is not run and the chat is told.'),
        escalateAfterSeconds: z
          .number()
          .int()
          .min(1)
          .max(86_400)
          .optional()
          .describe("After how long a question still unanswered in its conversation also goes to the admins' direct messages, once (default: half of timeoutSeconds; at or past it, never). A scheduled job's question goes to them at once."),
      })
      .prefault({})
      .describe('Questions that ask a person before a tool call runs.'),
    taint: z
      .strictObject({
        mode: z
          .enum(taintModes)
          .default('approve')
          .describe(
            'What a turn whose context holds untrusted content (a web page, the browser, other people\'s messages in a group) does with a tool call that acts (files changed, commands, a click or typing in a page, schedule, send_file): "approve" (default: a person answers first, told what tainted the turn), "block" (refused), "off" (not checked).',
          ),
      })
      .prefault({})
      .describe('Untrusted content cannot pull the trigger: see docs/security.md, "Untrusted content".'),
    modelTimeouts: modelTimeoutsSchema,
    shutdownGraceSeconds: z
      .number()
      .min(0)
      .max(3_600)
      .default(25)
      .describe('On SIGTERM or Ctrl+C, how long turns in flight may finish; then they stop and their messages are answered after the next start.'),
    profiles: z
      .strictObject({
        channels: z
          .record(z.string().regex(scopedKeyPattern, scopedKeyMessage), profileName)
          .default({})
          .describe('"platform:conversation" or "platform:conversation:thread" -> profile.'),
        people: z
          .record(z.string().regex(adminPattern, adminMessage), profileName)
          .default({})
          .describe('"platform:userId" -> the profile of that person\'s direct messages.'),
      })
      .prefault({})
      .describe('Which profile (persona) a conversation gets.'),
    profileSettings: z
      .record(
        profileName,
        z.strictObject({
          browser: overridesOf(browserSchema).optional().describe("Overrides of the top-level browser settings for this profile's conversations."),
          desktop: overridesOf(desktopSchema).optional().describe("Overrides of the top-level desktop settings for this profile's conversations."),
          mcp: mcpSchema.optional().describe("This profile's own MCP servers, beside the top-level ones (the same name: this profile's entry)."),
          budgets: profileBudgetsSchema.optional().describe("This profile's conversation and person caps per day, in place of the top-level budgets' (docs/budgets.md)."),
          modelRequest: modelRequestSchema.optional(),
          reasoningEffort: z
            .enum(reasoningEfforts)
            .optional()
            .describe(
              "How hard the model thinks in this profile's conversations unless /think says otherwise: extended thinking on Claude, reasoning_effort on OpenAI. Unset: no thinking asked for. Models the catalog says cannot reason ignore it.",
            ),
        }),
      )
      .default({})
      .describe('Settings of one profile over the top-level ones, keyed by profile name.'),
    allowPrivateNetwork: z
      .boolean()
      .default(false)
      .describe('Whether the browser (and web fetching) may reach this machine, its private networks and link-local addresses. Off: only public addresses.'),
    browser: browserSchema.prefault({}).describe("The agent's web browser (a real chromium, one context per conversation)."),
    desktop: desktopSchema.prefault({}).describe("The agent's desktop: this machine's X display (off unless turned on)."),
    subagents: subagentsSchema.prefault({}).describe('Subagents the agent starts with spawn_agent (who may: the "agents" tool group).'),
    mcp: mcpSchema.prefault({}),
    pipelines: z
      .strictObject({
        toolInGroups: z.boolean().default(false).describe('Whether the model may start pipelines with run_pipeline in groups (people there start them with /run either way).'),
        keepRuns: z
          .int()
          .min(0)
          .max(100_000)
          .default(200)
          .describe('Run folders kept under OPERATOR_HOME/runs/ (manifest, and per step its prompt, response and status); the oldest past it are removed as a run starts. 0: none is written.'),
      })
      .prefault({})
      .describe('Pipelines, from the chats and the command line.'),
    reviewEvery: settingSchemas.reviewEvery.optional().describe('Person turns between background memory reviews (0: off). Env: OPERATOR_REVIEW_EVERY.'),
    telegram: z
      .strictObject({
        webhookUrl: settingSchemas.webhookUrl.optional().describe('Public URL of POST /webhooks/telegram; without it the bot long-polls. Env: TELEGRAM_WEBHOOK_URL.'),
        webhookSecret: settingSchemas.webhookSecret
          .optional()
          .describe('Secret token Telegram sends with each webhook call: 16-256 characters of A-Z, a-z, 0-9, _ and -. Env: TELEGRAM_WEBHOOK_SECRET.'),
        apiRoot: settingSchemas.apiRoot.optional().describe('Bot API server, for a self-hosted one. Env: TELEGRAM_API_ROOT.'),
        drafts: z
          .enum(['auto', 'off'])
          .default('auto')
          .describe('Replies in private chats stream by drafts (sendMessageDraft) where the server takes them, else by an edited preview (auto); off: always the edited preview.'),
        ...botSettings("senders with is_bot, messages sent via an inline bot"),
      })
      .prefault({})
      .describe('Telegram settings. The bot token is read only from TELEGRAM_BOT_TOKEN.'),
    discord: z
      .strictObject({
        apiUrl: settingSchemas.apiRoot.optional().describe('Discord REST base (the gateway websocket URL is discovered from it). Env: DISCORD_API_URL.'),
        catchUpMinutes: settingSchemas.catchUpMinutes
          .default(60)
          .describe(
            'After a restart, messages sent this many minutes back or less while the gateway was down are read from the history of conversations it talked in lately and answered (Discord never delivers them again); 0 turns it off. Env: DISCORD_CATCH_UP_MINUTES.',
          ),
        ...botSettings("bot accounts and webhooks"),
      })
      .prefault({})
      .describe('Discord settings. The bot token is read only from DISCORD_BOT_TOKEN.'),
    schedule: z
      .strictObject({
        timezone: z
          .string()
          .refine(isValidTimezone, 'expected an IANA time zone such as "Europe/Berlin" or "UTC"')
          .optional()
          .describe("Time zone of jobs that name none (default: this machine's, TZ)."),
        maxJobsPerPerson: z.int().min(1).max(100_000).default(25).describe('Active or paused jobs one person may have.'),
        maxJobsPerConversation: z.int().min(1).max(100_000).default(50).describe('Active or paused jobs one conversation may have.'),
        minIntervalMinutes: z
          .number()
          .min(1 / 60)
          .max(1_440)
          .default(5)
          .describe('Shortest interval of a recurring job, in minutes; fractions count (0.5 is 30 seconds, the least is one second).'),
        missedGraceHours: z.number().min(0).max(720).default(6).describe('A run missed while the gateway was down runs once at start-up if it is at most this old (policy run_once).'),
        allowJobsFromJobs: z.boolean().default(false).describe("Whether a job's own turn may create further jobs."),
      })
      .prefault({})
      .describe('Scheduled follow-ups (the schedule tool, /schedule, operator schedule).'),
    slack: z
      .strictObject({
        apiUrl: settingSchemas.apiRoot.optional().describe('Slack Web API base, e.g. "https://slack.com/api/". Env: SLACK_API_URL.'),
        ...botSettings("other apps' messages: bot_id, bot_message; Slackbot never"),
        replyInThread: z
          .enum(['always', 'mentions', 'never'])
          .default('always')
          .describe("Where a channel's top-level messages are answered: always in a thread under the message (its thread is then the conversation), mentions only when the message mentions the bot, never top-level. Direct messages are answered where they were written."),
      })
      .prefault({})
      .describe('Slack settings. SLACK_BOT_TOKEN, SLACK_SIGNING_SECRET and SLACK_APP_TOKEN are read only from the environment.'),
  })
  .meta({ title: 'operator.json', description: 'Configuration of the operator gateway (OPERATOR_HOME/operator.json).' });

/** What `operator.json` may contain (every setting optional). */
export type OperatorConfigFile = z.input<typeof operatorConfigSchema>;
