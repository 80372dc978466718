/**
 * The `operator` command line: `operator <command> [options]`. Each command lives in its own file;
 * this one only dispatches and prints help.
 */
import '../core/zod-setup.ts';
import { AgentError, errorMessage } from '../core/errors.ts';
import { UsageError } from './cli-options.ts';
import { loadEnvFiles } from './env-files.ts';

/** A subcommand: a one-line summary, its usage text (or where to get it) and what it does. */
interface Command {
  summary: string;
  usage: string | (() => Promise<string>);
  run(args: string[]): Promise<number>;
}

const commands: Record<string, Command> = {
  start: {
    summary: 'Start the gateway: the web chat, and Telegram, Discord and Slack where their tokens are set',
    usage: [
      'operator start [--port N] [--host ADDRESS]',
      '',
      '  --port N          port to listen on, 1-65535 (default: PORT, else operator.json\'s port, else 8787)',
      '  --host ADDRESS    address to listen on, e.g. 127.0.0.1, 0.0.0.0 or :: (default: HOST, else operator.json\'s host, else 127.0.0.1)',
      '',
      'Reads OPERATOR_HOME/operator.json (or OPERATOR_CONFIG) and the environment; --port and --host win over both.',
    ].join('\n'),
    run: async (args) => (await import('./start-command.ts')).runStartCommand(args),
  },
  chat: {
    summary: 'Talk to the agent in this terminal',
    usage: [
      'operator chat [--profile NAME] [--session KEY]',
      '',
      '  --profile NAME   persona to use (OPERATOR_HOME/profiles/NAME or the built-in one)',
      '  --session KEY    conversation key (default terminal:local); the same key resumes the same session',
      '',
      'In the chat: /new starts a fresh session, /compact summarizes older messages, /status shows',
      'model, tokens, cost and context use, /help lists commands, /exit quits. Ctrl+C aborts the',
      'running turn; a second Ctrl+C exits.',
    ].join('\n'),
    run: async (args) => (await import('./chat-command.ts')).runChatCommand(args),
  },
  config: { summary: 'Check the configuration (operator.json and environment) or print its JSON Schema', usage: 'operator config check | schema\n\n  check    validate OPERATOR_HOME/operator.json (or OPERATOR_CONFIG) and the environment; exit 1 when invalid\n  schema   print the JSON Schema of operator.json', run: async (args) => (await import('./config-command.ts')).runConfigCommand(args) },
  schedule: {
    summary: 'List, add, remove, pause or resume scheduled jobs (through the running gateway, if any)',
    usage: async () => (await import('./schedule-command.ts')).scheduleUsage,
    run: async (args) => (await import('./schedule-command.ts')).runScheduleCommand(args),
  },
  budget: {
    summary: 'Pause or resume every model call, or show what the gateway spent and the spending caps (through the running gateway, if any)',
    usage: async () => (await import('./budget-command.ts')).budgetUsage,
    run: async (args) => (await import('./budget-command.ts')).runBudgetCommand(args),
  },
  pipeline: {
    summary: 'Run, validate, resume or list pipelines (multi-step work as DOT graphs)',
    usage: async () => (await import('./pipeline-command.ts')).pipelineUsage,
    run: async (args) => (await import('./pipeline-command.ts')).runPipelineCommand(args),
  },
  doctor: {
    summary: 'Check the setup: Node.js, configuration, OPERATOR_HOME, sandbox, store, browser, model and platforms',
    usage: async () => (await import('./doctor-command.ts')).doctorUsage,
    run: async (args) => (await import('./doctor-command.ts')).runDoctorCommand(args),
  },
  admin: {
    summary: 'Print a link that logs into the admin console (conversations, jobs, pairing, profiles, usage)',
    usage: async () => (await import('./admin-command.ts')).adminUsage,
    run: async (args) => (await import('./admin-command.ts')).runAdminCommand(args),
  },
  deploy: {
    summary: 'Upload the profiles\' resources (persona, rules, skills, knowledge) to the Cloudflare Worker\'s KV',
    usage: async () => (await import('./deploy-command.ts')).deployUsage,
    run: async (args) => (await import('./deploy-command.ts')).runDeployCommand(args),
  },
  pairing: { summary: 'Approve, decline, revoke or list the people asking to talk to the bot', usage: async () => (await import('./pairing-command.ts')).pairingUsage, run: async (args) => (await import('./pairing-command.ts')).runPairingCommand(args) },
};

const environment = [
  'Environment:',
  '  ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL   Anthropic models (claude-*, opus, sonnet, haiku)',
  '  OPENAI_API_KEY, OPENAI_BASE_URL         OpenAI or any OpenAI-compatible server (openai:<name>)',
  '  GEMINI_API_KEY (or GOOGLE_API_KEY),     Gemini models (gemini-*, gemini-pro, gemini-flash), through Google\'s',
  '    GEMINI_BASE_URL                       OpenAI-compatible endpoint',
  '  OPERATOR_MODEL                          model id or alias (default: sonnet with Anthropic, gpt-5.2 with OpenAI,',
  '                                          gemini-2.5-pro with Gemini)',
  '  OPERATOR_API_TOKEN                      turns on the OpenAI-compatible endpoint /v1 (16 characters or more)',
  '  OPERATOR_HOME                           where sessions and settings live (default ~/.operator)',
  '  TELEGRAM_BOT_TOKEN, DISCORD_BOT_TOKEN,  the platforms (`operator start` says what else each needs)',
  '    SLACK_BOT_TOKEN',
  '  OPERATOR_LOG_LEVEL, OPERATOR_LOG_FORMAT debug|info|warn|error|silent; json|pretty (default: pretty on a terminal)',
  '  OPERATOR_METRICS_TOKEN                  a bearer token for GET /metrics, 16 characters or more (the admin token works too)',
  '',
  'A .env file in the working directory, then one in OPERATOR_HOME, adds the variables the environment',
  'lacks (the environment wins over ./.env, which wins over OPERATOR_HOME/.env).',
].join('\n');

function help(): string {
  const width = Math.max(...Object.keys(commands).map((name) => name.length));
  const lines = Object.entries(commands).map(([name, command]) => `  ${name.padEnd(width)}  ${command.summary}`);
  return ['Usage: operator <command> [options]', '', 'Commands:', ...lines, '', 'Run `operator <command> --help` for a command\'s options.', '', environment].join('\n');
}

/** Runs the CLI with `argv` (without node and script); resolves to the exit code. */
export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(`${help()}\n`);
    return 0;
  }
  if (name === '--version' || name === '-v') {
    const [{ readFile }, { join }, { packageRoot }] = await Promise.all([import('node:fs/promises'), import('node:path'), import('../core/package-root.ts')]);
    const pkg = JSON.parse(await readFile(join(packageRoot, 'package.json'), 'utf8')) as { version: string };
    process.stdout.write(`${pkg.version}\n`);
    return 0;
  }
  const command = commands[name];
  if (!command) {
    process.stderr.write(`operator: unknown command "${name}"\n\n${help()}\n`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(`Usage: ${typeof command.usage === 'string' ? command.usage : await command.usage()}\n`);
    return 0;
  }
  try {
    // Every verb alike: the real environment > ./.env > OPERATOR_HOME/.env (see env-files.ts).
    loadEnvFiles();
    return await command.run(rest);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`operator ${name}: ${error.message}\n\nUsage: ${typeof command.usage === 'string' ? command.usage : await command.usage()}\n`);
      return 2;
    }
    const prefix = error instanceof AgentError ? `${error.category.toLowerCase()} error` : 'error';
    process.stderr.write(`operator: ${prefix}: ${errorMessage(error)}\n`);
    return 1;
  }
}
