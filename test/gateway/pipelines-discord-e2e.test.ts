/**
 * A pipeline from Discord, through the real gateway process (discord.js over REST and the gateway
 * websocket) and the fake Discord: `/run` as a slash command starts it, its gate is a row of
 * components, a press goes on to the tool step, and the last answer is said.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeStoredMessage } from '../fakes/fake-discord-server.ts';
import { startDiscordGatewayFakes, type DiscordGatewayFakes } from '../helpers/discord-gateway-fakes.ts';
import type { StartedGateway } from '../helpers/gateway-process.ts';

/** A draft, a gate (Publish / Drop) and a tool step that writes published.txt. */
const release = readFileSync(join(import.meta.dirname, '../pipelines/fixtures/release-gate.dot'), 'utf8');

const buttonsOf = (stored: FakeStoredMessage): { custom_id?: string; label?: string }[] =>
  ((stored.message.components ?? []) as { components?: { type: number; custom_id?: string; label?: string }[] }[]).flatMap((row) => row.components ?? []).filter((component) => component.type === 2);

describe('pipelines from Discord', () => {
  let fakes: DiscordGatewayFakes;
  let gateway: StartedGateway;
  let workspace: string;

  beforeAll(async () => {
    fakes = await startDiscordGatewayFakes('operator-pipelines-discord-');
    mkdirSync(join(fakes.home, 'pipelines'), { recursive: true });
    writeFileSync(join(fakes.home, 'pipelines', 'release.dot'), release);
    fakes.model.setDefault({ text: 'Draft: the Discord notes' });
    workspace = mkdtempSync(join(tmpdir(), 'operator-pipelines-discord-ws-'));
    gateway = await fakes.startGateway([fakes.discord.world.person.id], {}, workspace);
  });
  afterAll(async () => {
    await gateway?.stop();
    await fakes?.close();
    rmSync(workspace, { recursive: true, force: true });
  });

  it('starts with the /run slash command, asks with components, and goes on when one is pressed', async () => {
    const { discord } = fakes;
    const dm = discord.world.dmChannelId;
    const found = (starting: string) =>
      discord.waitFor((fake) => fake.botMessages(dm).find((stored) => stored.message.content.startsWith(starting)), 15_000).catch((error: unknown) => {
        throw new Error(`${String(error)}\n${gateway.output.all()}`);
      });
    discord.slashCommand({ channelId: dm, name: 'run', args: 'release The Discord notes' });
    const started = await discord.waitFor((fake) => fake.callbacks.find((callback) => JSON.stringify(callback).includes('Started run')) ?? fake.botMessages(dm).find((stored) => stored.message.content.startsWith('Started run')), 15_000);
    const id = /Started run ([0-9a-f]{6})/.exec(JSON.stringify(started))![1]!;
    const question = await found(`[${id}] Publish this draft?`);
    const buttons = buttonsOf(question);
    expect(buttons.map((button) => button.label)).toEqual(['Publish', 'Drop']);
    discord.buttonPress({ channelId: dm, messageId: question.message.id, customId: buttons[0]!.custom_id! });
    await found('Draft: the Discord notes');
    expect(readFileSync(join(workspace, 'published.txt'), 'utf8')).toBe('The Discord notes\n');
  });
});
