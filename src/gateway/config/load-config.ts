/**
 * Loads the gateway configuration: `OPERATOR_HOME/operator.json` (or the file `OPERATOR_CONFIG`
 * names), validated, with defaults and then environment overrides applied.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ConfigurationError } from '../../core/errors.ts';
import { operatorHome, type StoreEnvironment } from '../../store/from-env.ts';
import { applyEnvironment, type ConfigEnvironment } from './environment.ts';
import { formatIssues, type ConfigProblem } from './format-issues.ts';
import type { GatewayConfig } from './gateway-config.ts';
import { findJsonSyntaxError } from './json-syntax.ts';
import { operatorConfigSchema } from './schema.ts';
import { sharedSecretProblems, type SharedSecretVariable } from './shared-secrets.ts';

/** The variables {@link loadConfig} reads. */
export type LoadConfigEnvironment = ConfigEnvironment & StoreEnvironment & Partial<Record<'OPERATOR_CONFIG' | SharedSecretVariable, string>>;

/** A loaded configuration and where it came from. */
export interface LoadedConfig {
  config: GatewayConfig;
  /** The configuration file's absolute path (whether or not it exists). */
  file: string;
  /** False when there is no file and only defaults (and the environment) apply. */
  fileFound: boolean;
  /** Environment variables that overrode settings, e.g. `['PORT']`. */
  environment: string[];
}

/** The configuration file's path: `OPERATOR_CONFIG` (relative to the working folder) or `OPERATOR_HOME/operator.json`. */
export function configFilePath(env: LoadConfigEnvironment = process.env): string {
  const named = env.OPERATOR_CONFIG?.trim();
  return named ? resolve(named) : join(operatorHome(env), 'operator.json');
}

/**
 * Reads, validates and resolves the configuration. A missing `OPERATOR_HOME/operator.json` means
 * defaults; a missing file that `OPERATOR_CONFIG` names explicitly is an error.
 *
 * @throws ConfigurationError naming the file, each JSON path (or environment variable) and the
 * reason; bad JSON with its line and column. Values are never quoted, so secrets stay out.
 * @example
 * const { config } = loadConfig(process.env);
 * listen(app, config.port);
 */
export function loadConfig(env: LoadConfigEnvironment = process.env): LoadedConfig {
  const file = configFilePath(env);
  const text = readConfigText(file, Boolean(env.OPERATOR_CONFIG?.trim()));
  const input = text === undefined ? {} : parseJson(file, text);
  const parsed = operatorConfigSchema.safeParse(input);
  if (!parsed.success) throw invalid(`Invalid configuration in ${file}`, formatIssues(parsed.error.issues, input, '', operatorConfigSchema), file);
  const { $schema: _schema, ...fromFile } = parsed.data;
  const { config, applied, problems } = applyEnvironment(fromFile, env);
  // Shared secrets only the environment gives (OPERATOR_METRICS_TOKEN, OPERATOR_WEB_TOKEN) are checked here too.
  const named = new Set(problems.map((problem) => problem.path));
  problems.push(...sharedSecretProblems(env).filter((problem) => !named.has(problem.path)));
  if (problems.length > 0) throw invalid('Invalid configuration in the environment', problems, file);
  const combined = checkCombinations(config, applied);
  if (combined.length > 0) throw invalid(`Invalid configuration in ${file}${applied.length > 0 ? ' with the environment' : ''}`, combined, file);
  return { config, file, fileFound: text !== undefined, environment: applied };
}

function readConfigText(file: string, explicit: boolean): string | undefined {
  try {
    return readFileSync(file, 'utf8').replace(/^\uFEFF/, '');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && !explicit) return undefined;
    if (code === 'ENOENT') throw new ConfigurationError(`Configuration file ${file} (OPERATOR_CONFIG) does not exist`, { file });
    throw new ConfigurationError(`Cannot read configuration file ${file}: ${code ?? 'unknown error'}`, { file });
  }
}

function parseJson(file: string, text: string): unknown {
  if (text.trim() === '') throw new ConfigurationError(`Invalid JSON in ${file}: the file is empty (write {} to use the defaults)`, { file });
  try {
    return JSON.parse(text) as unknown;
  } catch {
    // JSON.parse's own message may quote the file's text; report only a position and a reason.
    const error = findJsonSyntaxError(text);
    const where = error ? ` at line ${error.line}, column ${error.column}: ${error.reason}` : '';
    throw new ConfigurationError(`Invalid JSON in ${file}${where}`, { file, line: error?.line, column: error?.column });
  }
}

/** Rules across settings, checked after the environment is applied. */
function checkCombinations(config: GatewayConfig, applied: string[]): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  if (config.telegram.webhookUrl !== undefined && config.telegram.webhookSecret === undefined) {
    problems.push({
      path: applied.includes('TELEGRAM_WEBHOOK_URL') ? 'TELEGRAM_WEBHOOK_SECRET' : 'telegram.webhookSecret',
      reason: 'required when a Telegram webhook URL is set (set telegram.webhookSecret or TELEGRAM_WEBHOOK_SECRET)',
    });
  }
  return problems;
}

function invalid(heading: string, problems: ConfigProblem[], file: string): ConfigurationError {
  const lines = problems.map((problem) => `  ${problem.path}: ${problem.reason}`);
  return new ConfigurationError(`${heading}:\n${lines.join('\n')}`, { file, problems });
}
