/**
 * Skills as chat commands on Discord and Slack, through the real gateway process, the platforms'
 * SDKs (discord.js, @slack/bolt) and their fakes: Discord's slash command menu lists the
 * user-invocable skills by their own names (`-` allowed there) and a slash command runs the
 * skill; on Slack, `/operator deploy x` runs it, by HTTP events (signed) and by Socket Mode.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeModelServer } from '../fakes/fake-model-server.ts';
import { startDiscordGatewayFakes, type DiscordGatewayFakes } from '../helpers/discord-gateway-fakes.ts';
import type { StartedGateway } from '../helpers/gateway-process.ts';
import { startSlackGatewayFakes, type SlackGatewayFakes } from '../helpers/slack-gateway-fakes.ts';

const wait = 15_000;

/** Writes the test skills into `OPERATOR_HOME/skills`. */
function writeSkills(home: string): void {
  const skills: Record<string, string> = {
    deploy: 'description: Deploy the service to a target\nuser-invocable: true\n---\nDEPLOY-STEPS: check the branch, then ship.',
    'deploy-app': 'description: Deploy the web app\nuser-invocable: true\n---\nAPP-STEPS: build, then upload.',
    notes: 'description: Only the model starts this one\n---\nNOTES-STEPS',
  };
  for (const [name, rest] of Object.entries(skills)) {
    mkdirSync(join(home, 'skills', name), { recursive: true });
    writeFileSync(join(home, 'skills', name, 'SKILL.md'), `---\nname: ${name}\n${rest}\n`);
  }
}

/** The last text of the person's side of the latest model request. */
function lastInput(model: FakeModelServer): string {
  const messages = model.requests.at(-1)!.body.messages as { role: string; content: string | { type: string; text?: string }[] }[];
  const last = messages.filter((message) => message.role === 'user').at(-1)!;
  return typeof last.content === 'string' ? last.content : last.content.map((part) => part.text ?? '').join('');
}

let gateway: StartedGateway | undefined;
let discordFakes: DiscordGatewayFakes | undefined;
let slackFakes: SlackGatewayFakes | undefined;

afterEach(async () => {
  await gateway?.stop();
  gateway = undefined;
  await discordFakes?.close();
  await slackFakes?.close();
  discordFakes = slackFakes = undefined;
});

describe('skills as commands on Discord', () => {
  it('lists the skills as slash commands and runs one', async () => {
    discordFakes = await startDiscordGatewayFakes('operator-skill-commands-discord-');
    const { model, discord } = discordFakes;
    writeSkills(discordFakes.home);
    gateway = await discordFakes.startGateway([discord.world.person.id]);
    const registered = await discord.waitFor((fake) => (fake.commands.some((command) => command.name === 'deploy-app') ? fake.commands : undefined), wait);
    const names = registered.map((command) => command.name as string);
    expect(names.slice(0, 2)).toEqual(['help', 'new']);
    expect(names).toEqual(expect.arrayContaining(['status', 'deploy', 'deploy-app']));
    expect(names).not.toContain('notes');
    expect(registered.find((command) => command.name === 'deploy-app')).toMatchObject({ description: 'Deploy the web app', options: [{ name: 'args', type: 3 }] });

    model.enqueue({ text: 'Deployed from Discord.' });
    const dm = discord.world.dmChannelId;
    discord.slashCommand({ channelId: dm, name: 'deploy-app', args: 'canary' });
    const reply = await discord.waitFor((fake) => fake.botMessages(dm).find((stored) => stored.message.content.includes('Deployed from Discord.')), wait);
    // The slash command's deferred answer ("thinking…") is what the answer completes.
    expect(reply.interactionToken).toBeDefined();
    const input = lastInput(model);
    expect(input).toMatch(/^Run the skill "deploy-app" with: canary\n\n<skill name="deploy-app" /);
    expect(input).toContain('APP-STEPS: build, then upload.');
  });
});

describe('skills as commands on Slack', () => {
  const admin = { id: 'U0ADMIN01', name: 'Ada' };
  const adminDm = 'D0ADMIN01';

  it('runs /operator deploy x sent by HTTP events', async () => {
    slackFakes = await startSlackGatewayFakes('operator-skill-commands-slack-');
    const { model, slack } = slackFakes;
    writeSkills(slackFakes.home);
    gateway = await slackFakes.startGateway([admin.id]);
    model.enqueue({ text: 'Deployed from Slack.' });
    const answer = await slackFakes.post(slack.slashCommand({ channel: adminDm, from: admin, text: 'deploy staging please' }));
    expect(answer.status).toBe(200);
    await slack.waitFor((fake) => fake.botMessages(adminDm).find((message) => message.text.includes('Deployed from Slack.')), wait);
    const input = lastInput(model);
    expect(input).toMatch(/^Run the skill "deploy" with: staging please\n\n<skill name="deploy" /);
    expect(input).toContain('DEPLOY-STEPS');
    // A forged one does nothing.
    const requests = model.requests.length;
    expect((await slackFakes.post(slack.slashCommand({ channel: adminDm, from: admin, text: 'deploy prod' }), { signWith: 'not-the-secret' })).status).toBe(401);
    expect(model.requests).toHaveLength(requests);
  });

  it('runs /operator deploy-app x sent over Socket Mode', async () => {
    slackFakes = await startSlackGatewayFakes('operator-skill-commands-slack-socket-');
    const { model, slack } = slackFakes;
    writeSkills(slackFakes.home);
    gateway = await slackFakes.startGateway([admin.id], { socketMode: true });
    model.enqueue({ text: 'Deployed over the socket.' });
    const envelope = slack.socket.deliver(slack.slashCommand({ channel: adminDm, from: admin, text: 'deploy-app canary' }));
    await slack.waitFor((fake) => fake.botMessages(adminDm).find((message) => message.text.includes('Deployed over the socket.')), wait);
    expect(slack.socket.acked(envelope.envelope_id)).toBeDefined();
    const input = lastInput(model);
    expect(input).toMatch(/^Run the skill "deploy-app" with: canary\n\n<skill name="deploy-app" /);
    expect(input).toContain('APP-STEPS');
  });
});
