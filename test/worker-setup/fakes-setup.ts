/**
 * The Worker tests' fakes, started in Node before workerd (vitest's global set-up): the model
 * server and the Telegram, Slack and Discord APIs, the same fakes the Node tests use. workerd
 * reaches them over local HTTP: the Worker through the variables `workersBindings` gives it (the
 * same names the Node gateway reads), the tests through a small control server that calls the
 * fakes' own methods (`fake-control.ts`).
 */
import type { TestProject } from 'vitest/node';
import { startFakeDiscordServer } from '../fakes/fake-discord-server.ts';
import { startFakeModelServer } from '../fakes/fake-model-server.ts';
import { startFakeSlackServer } from '../fakes/fake-slack-server.ts';
import { startFakeTelegramServer } from '../fakes/fake-telegram-server.ts';
import { startFakeControl } from './fake-control.ts';
import './provided.ts';


export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const [model, telegram, slack, discord] = await Promise.all([startFakeModelServer(), startFakeTelegramServer(), startFakeSlackServer(), startFakeDiscordServer()]);
  const control = await startFakeControl({ model, telegram, slack, discord });
  project.provide('fakeControl', control.origin);
  project.provide('resourceEntries', await (await import('./resource-bundles.ts')).buildTestResourceEntries());
  project.provide('fakeBindings', {
    ANTHROPIC_API_KEY: 'sk-ant-test',
    ANTHROPIC_BASE_URL: model.anthropicBaseURL,
    // Recordings are transcribed by the same fake (OpenAI's /audio/transcriptions), with a key of their own.
    OPERATOR_TRANSCRIBE_BASE_URL: model.openaiBaseURL,
    OPERATOR_TRANSCRIBE_API_KEY: 'sk-transcribe-worker-test-0123456789',
    TELEGRAM_BOT_TOKEN: telegram.token,
    TELEGRAM_API_ROOT: telegram.apiRoot,
    SLACK_API_URL: slack.apiUrl,
    SLACK_SIGNING_SECRET: slack.signingSecret,
    SLACK_BOT_TOKEN: slack.bot.token,
    DISCORD_API_URL: discord.apiUrl,
    DISCORD_BOT_TOKEN: discord.token,
    DISCORD_APPLICATION_ID: discord.applicationId,
    // The fake application's public key: the fake signs interactions with its private half.
    DISCORD_PUBLIC_KEY: discord.publicKey,
  });
  return async () => {
    await control.close();
    await Promise.all([model.close(), telegram.close(), slack.close(), discord.close()]);
  };
}
