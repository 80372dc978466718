export { loadConfig, configFilePath, type LoadedConfig, type LoadConfigEnvironment } from './load-config.ts';
export type { GatewayConfig, ToolGrant, SandboxSettings, Allowlist, GroupSettings, TelegramSettings, DiscordSettings, SlackSettings, ScheduleSettings, ModelTimeouts, ModelTimeoutLimits } from './gateway-config.ts';
export { modelTimeoutEnv } from './model-timeout-env.ts';
export { browserConfigOf, desktopConfigOf, mcpConfigOf, personIdProfilesOf, reasoningEffortsOf, requestOptionsByProfile } from './gateway-config.ts';
export { operatorConfigSchema, platforms, dmPolicies, groupPolicies, busyModes, defaultDmPolicy, toolGroups, sandboxModes, modelProviders, type ToolGroup, type SandboxMode, type Platform, type DmPolicy, type GroupPolicy, type BusyMode, type ModelProvider, type OperatorConfigFile } from './schema.ts';
export { configEnvironmentVariables, type ConfigEnvironment } from './environment.ts';
export { configJsonSchema, renderConfigJsonSchema } from './json-schema.ts';
export { findJsonSyntaxError, type JsonSyntaxError } from './json-syntax.ts';
export type { ConfigProblem } from './format-issues.ts';
