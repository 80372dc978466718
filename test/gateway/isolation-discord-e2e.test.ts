/**
 * A Discord dispatch that makes discord.js throw does not take the gateway down (issue 31). A
 * slash command without `entitlements` (the shape of Discord's own docs example) makes discord.js
 * throw in `BaseInteraction`'s constructor, inside its dispatch handling; before the boundary of
 * `src/channels/discord/packet-guard.ts` the process exited with code 1, and Telegram with it.
 * Anyone who can send the bot a slash command could do it: the throw comes before any access
 * check, so the test sends it from a stranger's seat first, then from the owner's.
 * Through the real process and the real discord.js and grammy against the fakes: the process
 * stays up, says in its log which platform and event threw (not the payload's text), counts it in
 * `operator_outside_errors_total`, and both Discord and Telegram go on answering.
 *
 * Mutation check: with `guardPackets(current, outside)` removed from `discord-channel.ts`, the
 * process exits (code 1) after the interaction and every expectation below it fails.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeDiscordServer, type FakeDiscord } from '../fakes/fake-discord-server.ts';
import { startFakeModelServer, type FakeModelServer } from '../fakes/fake-model-server.ts';
import { startFakeTelegramServer, type FakeTelegram } from '../fakes/fake-telegram-server.ts';
import { fakeAnthropicEnv } from '../helpers/fake-model-env.ts';
import { startGateway, type StartedGateway } from '../helpers/gateway-process.ts';
import { expectNoSecretIn } from '../helpers/secret-forms.ts';
import { createTempHome, removeTempHome } from '../helpers/temp-home.ts';

const wait = 30_000;
const telegramPerson = { id: 31_001, first_name: 'Tess' };
const metricsToken = 'isolation-discord-metrics-token-0123456789';
/** Text carried by the dispatch that throws: it must not reach the log. */
const payloadText = 'quartz-heron-payload-words';

describe('a Discord dispatch that discord.js cannot handle', () => {
  let model: FakeModelServer;
  let discord: FakeDiscord;
  let telegram: FakeTelegram;
  let home: string;
  let gateway: StartedGateway | undefined;

  beforeAll(async () => {
    [model, discord, telegram] = await Promise.all([startFakeModelServer(), startFakeDiscordServer(), startFakeTelegramServer()]);
    home = createTempHome('operator-isolation-discord-');
    gateway = await startGateway(
      {
        home,
        env: {
          ...fakeAnthropicEnv(model),
          DISCORD_BOT_TOKEN: discord.token,
          DISCORD_API_URL: discord.apiUrl,
          TELEGRAM_BOT_TOKEN: telegram.token,
          TELEGRAM_API_ROOT: telegram.apiRoot,
          OPERATOR_ADMINS: [`discord:${discord.world.person.id}`, `telegram:${telegramPerson.id}`].join(','),
          OPERATOR_REVIEW_EVERY: '0',
          OPERATOR_METRICS_TOKEN: metricsToken,
        },
      },
      60_000,
    );
  }, 90_000);

  afterAll(async () => {
    await gateway?.stop();
    await Promise.all([discord?.close(), telegram?.close(), model?.close()]);
    if (home) removeTempHome(home);
  });

  it('is dropped and reported; the process, Discord and Telegram go on', async () => {
    const exits: (number | null)[] = [];
    void gateway!.exited.then((code) => exits.push(code));

    // First from a stranger's seat: the throw comes before any access check, so anyone who can
    // reach the bot with a slash command could end the process.
    const stranger = discord.addDmChannel('Stranger');
    discord.slashCommand({ channelId: stranger.channelId, name: 'status', user: stranger.user, args: payloadText, without: ['entitlements'] });
    await gateway!.output.waitFor(/"event":"outside\.error","platform":"discord","source":"discord","handling":"INTERACTION_CREATE","error":"TypeError/, { stream: 'stderr', timeoutMs: wait, label: "the report of the stranger's dispatch" });

    // Then from the owner: the report again, and the command still answered.
    const { payload } = discord.slashCommand({ channelId: discord.world.dmChannelId, name: 'status', args: payloadText, without: ['entitlements'] });
    await gateway!.output.waitFor(/(?:"event":"outside\.error","platform":"discord","source":"discord","handling":"INTERACTION_CREATE","error":"TypeError[^\n]*\n[\s\S]*){2}/, { stream: 'stderr', timeoutMs: wait, label: "the report of the owner's dispatch" });
    // The adapter reads the raw dispatch before discord.js builds its objects: the command is still answered.
    await discord.waitFor((fake) => fake.botMessages(discord.world.dmChannelId).find((stored) => stored.interactionToken === payload.token), wait);

    // Discord goes on: a message after it is answered.
    model.enqueue({ text: 'Discord still answers.' });
    discord.messageCreate({ channelId: discord.world.dmChannelId, content: 'are you there?' });
    await discord.waitFor((fake) => fake.botMessages(discord.world.dmChannelId).find((stored) => stored.message.content.includes('Discord still answers.')), wait);

    // And so does Telegram.
    model.enqueue({ text: 'Telegram still answers.' });
    telegram.pushUpdate(telegram.textMessage({ chatId: telegramPerson.id, from: telegramPerson, text: 'and here?' }));
    await telegram.waitFor((fake) => fake.messages(telegramPerson.id).find((message) => message.text.includes('Telegram still answers.')), wait);

    expect(exits).toEqual([]);
    const metrics = await (await fetch(`${gateway!.origin}/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } })).text();
    expect(metrics).toMatch(/operator_outside_errors_total\{source="discord",event="INTERACTION_CREATE"\} 2\b/);
    // The log names the platform and the event, never what the payload said.
    expect(gateway!.output.all()).not.toContain(payloadText);
    expectNoSecretIn(gateway!.output.all(), [discord.token, telegram.token, metricsToken], 'the log');
  });
});
