/**
 * `operator chat`: parses options, builds the agent from the environment and runs the terminal
 * chat on stdin/stdout.
 */
import { parseArgs } from 'node:util';
import { buildAgentFromEnv } from './build-agent.ts';
import { runTerminalChat } from './terminal-chat.ts';

/** Runs `operator chat [--profile NAME] [--session KEY]`; resolves to the exit code. */
export async function runChatCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { profile: { type: 'string' }, session: { type: 'string' } },
    strict: true,
  });
  const sessionKey = values.session ?? (values.profile ? `terminal:${values.profile}` : 'terminal:local');
  const { agent, store, failures } = await buildAgentFromEnv({ sessionKey, profile: values.profile });
  for (const failure of failures) process.stderr.write(`operator: extension ${failure.extension} not loaded: ${failure.message}\n`);
  try {
    return await runTerminalChat({ agent, input: process.stdin, output: process.stdout, signals: process });
  } finally {
    await store.close();
  }
}
