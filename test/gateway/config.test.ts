import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../src/core/errors.ts';
import { desktopConfigOf, loadConfig, reasoningEffortsOf, renderConfigJsonSchema, type LoadConfigEnvironment } from '../../src/gateway/config/index.ts';

let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'operator-config-'));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

function withFile(content: unknown, env: LoadConfigEnvironment = {}) {
  writeFileSync(join(home, 'operator.json'), typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return loadConfig({ OPERATOR_HOME: home, ...env });
}

/** The ConfigurationError's message, or fails. */
function failure(load: () => unknown): string {
  try {
    load();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigurationError');
}

describe('loadConfig defaults', () => {
  it('uses the defaults when there is no file', () => {
    const loaded = loadConfig({ OPERATOR_HOME: home });
    expect(loaded.fileFound).toBe(false);
    expect(loaded.file).toBe(join(home, 'operator.json'));
    expect(loaded.environment).toEqual([]);
    expect(loaded.config).toEqual({
      port: 8787,
      host: '127.0.0.1',
      publicHosts: [],
      web: { login: 'auto' },
      tools: { grants: [] },
      sandbox: { mode: 'auto', network: true, readOnly: [], readWrite: [], env: [], fileTimeoutSeconds: 30 },
      dmPolicy: { telegram: 'pairing', discord: 'pairing', slack: 'open' },
      groupPolicy: { telegram: 'approval', discord: 'approval', slack: 'approval' },
      allowlists: {
        telegram: { chats: [], users: [] },
        discord: { chats: [], users: [] },
        slack: { chats: [], users: [] },
        web: { chats: [], users: [] },
      },
      admins: [],
      groups: {},
      busyMode: 'followUp',
      editedMessages: 'ignore',
      idleTtlSeconds: 1800,
      maxConcurrentTurns: 64,
      maxTurnsWaitingOnModel: 1000,
      turnTimeoutSeconds: 600,
      budgets: { gateway: {}, conversation: {}, person: {}, job: {}, pipelineRun: {}, botTurns: 5, warnAt: 0.8 },
      transcription: { maxSeconds: 600, maxBytes: 25 * 1024 * 1024 },
      approvals: { timeoutSeconds: 600 },
      taint: { mode: 'approve' },
      modelTimeouts: {},
      shutdownGraceSeconds: 25,
      profiles: { channels: {}, people: {} },
      profileSettings: {},
      allowPrivateNetwork: false,
      browser: {
        enabled: true,
        headless: true,
        useScreenshot: false,
        useAccessibility: true,
        viewport: { width: 1280, height: 800 },
        idleTimeoutSeconds: 600,
        maxContexts: 8,
        allowUrls: [],
        blockUrls: [],
      },
      desktop: { enabled: false, useScreenshot: true, idleTimeoutSeconds: 600 },
      telegram: { allowBots: false, drafts: 'auto' },
      discord: { catchUpMinutes: 60, allowBots: false },
      slack: { allowBots: false, replyInThread: 'always' },
      subagents: { maxDepth: 1, maxRunning: 4, maxOpen: 16, maxTokens: 300_000, maxTurns: 30 },
      mcp: { servers: {} },
      pipelines: { toolInGroups: false, keepRuns: 200 },
      schedule: { maxJobsPerPerson: 25, maxJobsPerConversation: 50, minIntervalMinutes: 5, missedGraceHours: 6, allowJobsFromJobs: false },
    });
  });

  it('takes editedMessages ignore or reanswer, and refuses anything else, naming the setting', () => {
    expect(withFile({ editedMessages: 'reanswer' }).config.editedMessages).toBe('reanswer');
    expect(failure(() => withFile({ editedMessages: 'always' }))).toMatch(/editedMessages: expected one of "ignore", "reanswer"/);
  });

  it('refuses a schedule time zone that is not an IANA zone, naming the setting', () => {
    expect(() => withFile({ schedule: { timezone: 'Mars/Olympus' } })).toThrow(/schedule\.timezone: expected an IANA time zone/);
    // An offset is no zone name on any Node (22 and newer take one in Intl, 20 did not).
    expect(() => withFile({ schedule: { timezone: '+01:00' } })).toThrow(/schedule\.timezone: expected an IANA time zone/);
    expect(withFile({ schedule: { timezone: 'Etc/GMT+1' } }).config.schedule.timezone).toBe('Etc/GMT+1');
    expect(withFile({ schedule: { timezone: 'Europe/Berlin' } }).config.schedule.timezone).toBe('Europe/Berlin');
  });

  it('takes a minimum interval in fractions of a minute down to one second, and refuses less', () => {
    expect(withFile({ schedule: { minIntervalMinutes: 0.05 } }).config.schedule.minIntervalMinutes).toBe(0.05);
    expect(() => withFile({ schedule: { minIntervalMinutes: 0.01 } })).toThrow(/schedule\.minIntervalMinutes/);
  });

  it("reads the desktop settings and a profile's overrides, and refuses a display that is not one", () => {
    const { config } = withFile({ desktop: { enabled: true, display: ':99' }, profileSettings: { ops: { desktop: { useScreenshot: false } } } });
    expect(config.desktop).toEqual({ enabled: true, display: ':99', useScreenshot: true, idleTimeoutSeconds: 600 });
    expect(desktopConfigOf(config)).toEqual({ base: config.desktop, profiles: { ops: { useScreenshot: false } } });
    expect(() => withFile({ desktop: { display: '99; xterm' } })).toThrow(/desktop\.display: expected an X display such as ":99"/);
    expect(() => withFile({ profileSettings: { ops: { desktop: { colour: 'blue' } } } })).toThrow(/profileSettings\.ops\.desktop/);
  });

  it("reads a profile's default reasoning effort, and refuses one that is not low, medium or high", () => {
    const { config } = withFile({ profileSettings: { deep: { reasoningEffort: 'high' }, ops: { desktop: { enabled: true } } } });
    expect(config.profileSettings.deep).toEqual({ reasoningEffort: 'high' });
    expect(reasoningEffortsOf(config)).toEqual({ deep: 'high' });
    expect(() => withFile({ profileSettings: { deep: { reasoningEffort: 'max' } } })).toThrow(/profileSettings\.deep\.reasoningEffort/);
  });

  it('fills defaults inside partly written settings', () => {
    const { config } = withFile({ dmPolicy: { slack: 'pairing' }, groups: { 'telegram:-100': {} }, allowlists: { telegram: { users: [42] } } });
    expect(config.dmPolicy).toEqual({ telegram: 'pairing', discord: 'pairing', slack: 'pairing' });
    expect(config.groups).toEqual({ 'telegram:-100': { requireMention: true } });
    expect(config.allowlists.telegram).toEqual({ chats: [], users: ['42'] });
  });
});

describe('loadConfig: the network edge, tool grants and the sandbox', () => {
  it('takes the listening address and public names from the file, and HOST and OPERATOR_PUBLIC_HOSTS over it', () => {
    const fromFile = withFile({ host: '0.0.0.0', publicHosts: ['bot.example.com'] });
    expect(fromFile.config).toMatchObject({ host: '0.0.0.0', publicHosts: ['bot.example.com'] });
    const fromEnv = withFile({ host: '0.0.0.0' }, { HOST: '::', OPERATOR_PUBLIC_HOSTS: 'a.example.com, b.example.com,' });
    expect(fromEnv.config).toMatchObject({ host: '::', publicHosts: ['a.example.com', 'b.example.com'] });
    expect(fromEnv.environment).toEqual(['HOST', 'OPERATOR_PUBLIC_HOSTS']);
  });

  it('refuses a public name with a scheme, port or path, and a bad listening address, naming the setting', () => {
    expect(() => withFile({ publicHosts: ['https://bot.example.com'] })).toThrow(/publicHosts\[0\]: expected a host name/);
    expect(() => withFile({ publicHosts: ['bot.example.com:443'] })).toThrow(/publicHosts\[0\]/);
    expect(() => withFile({}, { OPERATOR_PUBLIC_HOSTS: 'bot.example.com/path' })).toThrow(/OPERATOR_PUBLIC_HOSTS/);
    expect(() => withFile({}, { HOST: 'local host' })).toThrow(/HOST: expected an address to listen on/);
  });

  it('reads grants with their selectors, defaulting the scope to any', () => {
    const grants = [
      { tools: ['shell', 'read'], people: ['telegram:42'] },
      { tools: 'all', chats: ['slack:C1', 'telegram:-100:17'], scope: 'group' },
    ];
    expect(withFile({ tools: { grants } }).config.tools.grants).toEqual([
      { tools: ['shell', 'read'], people: ['telegram:42'], scope: 'any' },
      { tools: 'all', chats: ['slack:C1', 'telegram:-100:17'], scope: 'group' },
    ]);
  });

  it('refuses a grant that names no one, an unknown tool group, or a malformed person', () => {
    expect(() => withFile({ tools: { grants: [{ tools: ['shell'] }] } })).toThrow(/tools\.grants\[0\]: a grant names at least one of people, chats or platforms/);
    expect(() => withFile({ tools: { grants: [{ tools: ['root'], platforms: ['slack'] }] } })).toThrow(/tools\.grants\[0\]\.tools/);
    expect(() => withFile({ tools: { grants: [{ tools: ['read'], people: ['42'] }] } })).toThrow(/tools\.grants\[0\]\.people\[0\]: expected "platform:userId"/);
    expect(() => withFile({ tools: { grants: [{ tools: [], platforms: ['slack'] }] } })).toThrow(/tools\.grants\[0\]\.tools/);
  });

  it('reads the sandbox settings and refuses relative folders and bad variable names', () => {
    const { config } = withFile({ sandbox: { mode: 'required', network: false, readOnly: ['/opt/data'], env: ['GOPATH'], fileTimeoutSeconds: 5 } });
    expect(config.sandbox).toEqual({ mode: 'required', network: false, readOnly: ['/opt/data'], readWrite: [], env: ['GOPATH'], fileTimeoutSeconds: 5 });
    expect(() => withFile({ sandbox: { fileTimeoutSeconds: 0 } })).toThrow(/sandbox\.fileTimeoutSeconds/);
    expect(() => withFile({ sandbox: { readWrite: ['data'] } })).toThrow(/sandbox\.readWrite\[0\]: expected an absolute path/);
    expect(() => withFile({ sandbox: { env: ['A-B'] } })).toThrow(/sandbox\.env\[0\]/);
    expect(() => withFile({ sandbox: { mode: 'docker' } })).toThrow(/sandbox\.mode/);
  });
});

describe('loadConfig from the file and the environment', () => {
  const file = {
    $schema: './operator.schema.json',
    port: 9000,
    model: 'haiku',
    dmPolicy: { telegram: 'allowlist' },
    allowlists: { telegram: { chats: [-1001, '-1002'], users: ['7'] } },
    admins: ['telegram:1', 'slack:U9'],
    groups: { 'telegram:-1001': { requireMention: false } },
    busyMode: 'steer',
    idleTtlSeconds: 60,
    profiles: { channels: { 'telegram:-1001': 'support', 'telegram:-1001:17': 'dev' }, people: { 'telegram:1': 'me' } },
    reviewEvery: 0,
    telegram: { webhookUrl: 'https://bot.example.com/webhooks/telegram', webhookSecret: 'file-secret-0123456789', apiRoot: 'http://localhost:8081' },
  };

  it('reads every setting of the file', () => {
    const { config, fileFound } = withFile(file);
    expect(fileFound).toBe(true);
    expect(config).toMatchObject({
      port: 9000,
      model: 'haiku',
      dmPolicy: { telegram: 'allowlist', discord: 'pairing', slack: 'open' },
      admins: ['telegram:1', 'slack:U9'],
      groups: { 'telegram:-1001': { requireMention: false } },
      busyMode: 'steer',
      idleTtlSeconds: 60,
      profiles: file.profiles,
      reviewEvery: 0,
      telegram: file.telegram,
    });
    expect(config.allowlists.telegram).toEqual({ chats: ['-1001', '-1002'], users: ['7'] });
    expect(config).not.toHaveProperty('$schema');
  });

  it('lets the environment override the file', () => {
    const loaded = withFile(file, {
      PORT: '0',
      OPERATOR_MODEL: 'openai:llama3.1:8b',
      OPERATOR_DM_POLICY: 'open',
      OPERATOR_ADMINS: 'telegram:123, slack:U42,discord:777,',
      OPERATOR_REVIEW_EVERY: '5',
      TELEGRAM_API_ROOT: 'http://127.0.0.1:9999',
      TELEGRAM_WEBHOOK_URL: 'https://other.example.com/hook',
      TELEGRAM_WEBHOOK_SECRET: 'env_secret-0123456789',
      DISCORD_API_URL: 'http://127.0.0.1:9998/api',
      SLACK_API_URL: 'http://127.0.0.1:9997/api/',
    });
    expect(loaded.config).toMatchObject({
      port: 0,
      model: 'openai:llama3.1:8b',
      dmPolicy: { telegram: 'open', discord: 'open', slack: 'open', web: 'open' },
      admins: ['telegram:123', 'slack:U42', 'discord:777'],
      reviewEvery: 5,
      telegram: { apiRoot: 'http://127.0.0.1:9999', webhookUrl: 'https://other.example.com/hook', webhookSecret: 'env_secret-0123456789' },
      discord: { apiUrl: 'http://127.0.0.1:9998/api' },
      slack: { apiUrl: 'http://127.0.0.1:9997/api/' },
      busyMode: 'steer',
    });
    expect(loaded.environment).toEqual([
      'PORT',
      'OPERATOR_MODEL',
      'OPERATOR_DM_POLICY',
      'OPERATOR_ADMINS',
      'OPERATOR_REVIEW_EVERY',
      'TELEGRAM_API_ROOT',
      'TELEGRAM_WEBHOOK_URL',
      'TELEGRAM_WEBHOOK_SECRET',
      'DISCORD_API_URL',
      'SLACK_API_URL',
    ]);
  });

  it('treats empty environment variables as unset', () => {
    const { config, environment } = withFile({ port: 9000 }, { PORT: ' ', OPERATOR_ADMINS: '' });
    expect(config.port).toBe(9000);
    expect(environment).toEqual([]);
  });

  it('reads the file OPERATOR_CONFIG names, and refuses a missing one', () => {
    const path = join(home, 'elsewhere.json');
    writeFileSync(path, JSON.stringify({ port: 1234 }));
    expect(loadConfig({ OPERATOR_HOME: '/nonexistent', OPERATOR_CONFIG: path }).config.port).toBe(1234);
    expect(failure(() => loadConfig({ OPERATOR_CONFIG: join(home, 'missing.json') }))).toBe(
      `Configuration file ${join(home, 'missing.json')} (OPERATOR_CONFIG) does not exist`,
    );
  });

  it('accepts a byte order mark', () => {
    expect(withFile('\uFEFF{"port": 1}').config.port).toBe(1);
  });
});

describe('loadConfig problems', () => {
  const path = () => join(home, 'operator.json');

  it.each([
    ['{"port": 1,}', 1, 12, 'trailing comma before "}"'],
    ['{\n  "port": 80\n  "model": "x"\n}', 3, 3, 'unexpected "\\"", expected "," or "}" after a property value'],
    ['{\n  port: 80\n}', 2, 3, 'unexpected "p", expected a property name in double quotes'],
    ["{'port': 80}", 1, 2, 'single quotes are not allowed in JSON, use double quotes'],
    ['// settings\n{}', 1, 1, 'comments are not allowed in JSON'],
    ['{"admins": ["telegram:1"', 1, 25, 'unexpected end of file, expected "," or "]" after an array element'],
    ['{"model": "a\nb"}', 1, 13, 'line break or control character inside a string (write \\n or \\t)'],
    ['{"port": 80} {}', 1, 14, 'unexpected text after the end of the JSON value'],
    ['{"port": 080}', 1, 11, 'unexpected "8", expected "," or "}" after a property value'],
  ])('reports bad JSON %j with line and column', (text, line, column, reason) => {
    expect(failure(() => withFile(text))).toBe(`Invalid JSON in ${path()} at line ${line}, column ${column}: ${reason}`);
  });

  it('reports an empty file', () => {
    expect(failure(() => withFile('  \n'))).toBe(`Invalid JSON in ${path()}: the file is empty (write {} to use the defaults)`);
  });

  it('never quotes the file around a JSON error', () => {
    const message = failure(() => withFile('{"telegram": {"webhookSecret": "hunter2hunter2" oops}}'));
    expect(message).not.toContain('hunter2');
    expect(message).toContain('at line 1, column 49');
  });

  it.each([
    [{ port: '80' }, 'port: expected an integer, got a string'],
    [{ port: 80.5 }, 'port: expected an integer, got a fractional number'],
    [{ port: 70000 }, 'port: must be at most 65535'],
    [{ model: '' }, 'model: must not be empty'],
    [{ dmPolicy: { telegram: 'closed' } }, 'dmPolicy.telegram: expected one of "allowlist", "pairing", "open"'],
    [{ dmPolicy: { irc: 'open' } }, 'dmPolicy.irc: unknown setting (see operator.schema.json)'],
    [{ prot: 1 }, 'prot: unknown setting; did you mean port? (see operator.schema.json)'],
    [{ dmPolicies: { telegram: 'open' } }, 'dmPolicies: unknown setting; did you mean dmPolicy? (see operator.schema.json)'],
    [{ Admins: [] }, 'Admins: unknown setting; did you mean admins? (see operator.schema.json)'],
    [{ groups: { 'telegram:-1': { requireMentoin: false } } }, 'groups["telegram:-1"].requireMentoin: unknown setting; did you mean requireMention? (see operator.schema.json)'],
    [{ tools: { grants: [{ tools: 'all', platforms: ['telegram'], peple: ['telegram:1'] }] } }, 'tools.grants[0].peple: unknown setting; did you mean people? (see operator.schema.json)'],
    [{ modelTimeouts: { anthropic: { idle: 5 } } }, 'modelTimeouts.anthropic.idle: unknown setting; did you mean idleSeconds? (see operator.schema.json)'],
    [{ zzz: 1 }, 'zzz: unknown setting (see operator.schema.json)'],
    [{ allowlists: { telegram: { chats: [1.5] } } }, 'allowlists.telegram.chats[0]: expected an id (a string without spaces, or an integer)'],
    [{ allowlists: { telegram: { users: ['a b'] } } }, 'allowlists.telegram.users[0]: expected an id without spaces'],
    [{ admins: ['telegram:1', 'slack:U2', 'bob'] }, 'admins[2]: expected "platform:userId" with platform telegram, discord, slack, web, api (e.g. telegram:123)'],
    [{ admins: 'telegram:1' }, 'admins: expected an array, got a string'],
    [{ groups: { '-1001': {} } }, 'groups["-1001"]: invalid key: expected "platform:id" with platform telegram, discord, slack, web (e.g. telegram:-1001234)'],
    [{ groups: { 'telegram:-1': { requireMention: 'no' } } }, 'groups["telegram:-1"].requireMention: expected true or false, got a string'],
    [{ busyMode: 'queue' }, 'busyMode: expected one of "followUp", "steer", "interrupt"'],
    [{ idleTtlSeconds: 0 }, 'idleTtlSeconds: must be greater than 0'],
    [{ maxConcurrentTurns: 0 }, 'maxConcurrentTurns: must be at least 1'],
    [{ reviewEvery: -1 }, 'reviewEvery: must be at least 0'],
    [{ profiles: { people: { 'telegram:1': 'my profile' } } }, 'profiles.people["telegram:1"]: expected a profile name (letters, digits, - and _, at most 64)'],
    [{ telegram: { webhookUrl: 'not a url', webhookSecret: 'a-webhook-secret-0123' } }, 'telegram.webhookUrl: expected a URL such as https://example.com/path'],
    [{ telegram: { token: '123:ABC' } }, 'telegram.token: not a setting: tokens and signing secrets are read only from the environment (e.g. TELEGRAM_BOT_TOKEN, SLACK_SIGNING_SECRET)'],
    [{ slack: { signingSecret: 'abc' } }, 'slack.signingSecret: not a setting: tokens and signing secrets are read only from the environment (e.g. TELEGRAM_BOT_TOKEN, SLACK_SIGNING_SECRET)'],
    [{ discord: { apiUrl: 'discord' } }, 'discord.apiUrl: expected a URL such as https://example.com/path'],
    [{ telegram: { webhookUrl: 'https://example.com/hook' } }, 'telegram.webhookSecret: required when a Telegram webhook URL is set (set telegram.webhookSecret or TELEGRAM_WEBHOOK_SECRET)'],
    [[], '(top level): expected an object, got an array'],
  ])('reports %j with its path and reason', (content, line) => {
    const message = failure(() => withFile(content));
    expect(message).toBe(`Invalid configuration in ${path()}${message.includes('with the environment') ? ' with the environment' : ''}:\n  ${line}`);
  });

  it('lists every problem of the file at once', () => {
    expect(failure(() => withFile({ port: -1, admins: ['x'], busyMode: 'y' }))).toBe(
      [
        `Invalid configuration in ${path()}:`,
        '  port: must be at least 0',
        '  admins[0]: expected "platform:userId" with platform telegram, discord, slack, web, api (e.g. telegram:123)',
        '  busyMode: expected one of "followUp", "steer", "interrupt"',
      ].join('\n'),
    );
  });

  it('names the environment variable of a bad override, and never its value', () => {
    const message = failure(() =>
      loadConfig({
        OPERATOR_HOME: home,
        PORT: 'eighty',
        OPERATOR_DM_POLICY: 'closed',
        OPERATOR_ADMINS: 'telegram:1,bob',
        TELEGRAM_WEBHOOK_SECRET: 'not allowed!',
        TELEGRAM_API_ROOT: 'localhost',
      }),
    );
    expect(message).toBe(
      [
        'Invalid configuration in the environment:',
        '  PORT: expected an integer',
        '  OPERATOR_DM_POLICY: expected one of "allowlist", "pairing", "open"',
        '  OPERATOR_ADMINS[1]: expected "platform:userId" with platform telegram, discord, slack, web, api (e.g. telegram:123)',
        '  TELEGRAM_API_ROOT: expected a URL such as https://example.com/path',
        '  TELEGRAM_WEBHOOK_SECRET: expected 16-256 characters of A-Z, a-z, 0-9, _ and - (a shared secret must not be guessable)',
      ].join('\n'),
    );
    expect(message).not.toContain('not allowed!');
  });

  it('asks for the webhook secret when the webhook URL comes from the environment', () => {
    expect(failure(() => loadConfig({ OPERATOR_HOME: home, TELEGRAM_WEBHOOK_URL: 'https://example.com/hook' }))).toBe(
      `Invalid configuration in ${path()} with the environment:\n  TELEGRAM_WEBHOOK_SECRET: required when a Telegram webhook URL is set (set telegram.webhookSecret or TELEGRAM_WEBHOOK_SECRET)`,
    );
  });

  it('keeps the details machine-readable', () => {
    try {
      withFile({ admins: ['x'] });
    } catch (error) {
      expect((error as ConfigurationError).details).toEqual({
        file: path(),
        problems: [{ path: 'admins[0]', reason: expect.stringContaining('platform:userId') }],
      });
    }
  });
});

describe('operator.schema.json', () => {
  it('is the schema generated from the zod schema (regenerate: operator config schema > operator.schema.json)', () => {
    const committed = readFileSync(new URL('../../operator.schema.json', import.meta.url), 'utf8');
    expect(committed).toBe(renderConfigJsonSchema());
  });

  it('describes the settings with their defaults', () => {
    const schema = JSON.parse(renderConfigJsonSchema()) as { properties: Record<string, { default?: unknown }>; additionalProperties: boolean };
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.port?.default).toBe(8787);
    expect(schema.properties.busyMode?.default).toBe('followUp');
    expect(Object.keys(schema.properties)).toEqual(
      expect.arrayContaining(['port', 'model', 'dmPolicy', 'allowlists', 'admins', 'groups', 'busyMode', 'idleTtlSeconds', 'maxConcurrentTurns', 'profiles', 'reviewEvery', 'telegram']),
    );
  });
});
