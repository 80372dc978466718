/**
 * Skills as chat commands through the real gateway process, the fake Bot API and the fake model
 * server: the menu registered with Telegram lists the user-invocable skills (`-` written `_`, a
 * skill a gateway command hides left out and logged); `/deploy x` runs a turn whose input holds
 * the skill's instructions and `x`, and its answer is delivered; the owner, a group member who is
 * not an admin (without mentioning the bot) and the web chat may; a stranger gets the pairing
 * answer like for any message; `/help` lists the skills; `/reload` registers the menu again when
 * the skills changed; a skill command accepted before a crash is answered as one after it.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { FakeModelServer } from '../fakes/fake-model-server.ts';
import type { FakeTelegram } from '../fakes/fake-telegram-server.ts';
import { startGateway, type StartedGateway } from '../helpers/gateway-process.ts';
import { telegramChat } from '../helpers/telegram-chat.ts';
import { startTelegramGatewayFakes, type TelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';
import { approveGroups, telegramGroup } from '../helpers/approved-groups.ts';

const admin = 1001;
const member = { id: 2002, first_name: 'Bea' };
const group = -100777;
const wait = 20_000;

/** Writes `OPERATOR_HOME/skills/<name>/SKILL.md`. */
function writeSkill(home: string, name: string, frontmatter: string, body: string): void {
  mkdirSync(join(home, 'skills', name), { recursive: true });
  writeFileSync(join(home, 'skills', name, 'SKILL.md'), `---\nname: ${name}\n${frontmatter}\n---\n${body}\n`);
}

/** The texts of the person's side of a model request, in order. */
function userTexts(request: FakeModelServer['requests'][number]): string[] {
  return (request.body.messages as { role: string; content: string | { type: string; text?: string }[] }[])
    .filter((message) => message.role === 'user')
    .flatMap((message) => (typeof message.content === 'string' ? [message.content] : message.content.flatMap((part) => (part.text ? [part.text] : []))));
}

describe('skills as commands through the gateway (Telegram, web)', () => {
  let fakes: TelegramGatewayFakes;
  let model: FakeModelServer;
  let telegram: FakeTelegram;
  let gateway: StartedGateway;
  let chat: ReturnType<typeof telegramChat>;

  const start = async () => {
    // The group(s) an admin approved (groupPolicy approval is the default; this test is about something else).
    await approveGroups(fakes.home, [telegramGroup(group)]);
    gateway = await startGateway({ home: fakes.home, env: fakes.env([admin]) }, wait);
    chat = telegramChat({ fakes, gateway, admin, group, waitMs: wait });
  };

  beforeAll(async () => {
    fakes = await startTelegramGatewayFakes('operator-skill-commands-e2e-');
    ({ model, telegram } = fakes);
    writeSkill(fakes.home, 'deploy', 'description: Deploy the service to a target\nuser-invocable: true', 'DEPLOY-STEPS: check the branch, then ship to the target given.');
    writeSkill(fakes.home, 'deploy-app', 'description: Deploy the web app\nuser-invocable: true\ndisable-model-invocation: true', 'APP-STEPS: build, then upload.');
    writeSkill(fakes.home, 'help', 'description: A skill the gateway command hides\nuser-invocable: true', 'HIDDEN-STEPS');
    writeSkill(fakes.home, 'notes', 'description: Only the model starts this one', 'NOTES-STEPS');
    await start();
  });
  afterAll(async () => {
    await gateway?.stop();
    await fakes?.close();
  });

  const lastText = async (chatId: number, before: number) => (await chat.messagesAfter(chatId, before, 1))[0]!.text;
  const menu = () => telegram.commands.map((command) => command.command);

  it('registers the skills in the command menu, after the gateway commands, and logs a hidden one', async () => {
    await telegram.waitFor((fake) => (fake.commands.some((command) => command.command === 'deploy') ? true : undefined), wait);
    expect(menu().slice(0, 3)).toEqual(['help', 'new', 'reset']);
    // The skills (these and any built-in ones) follow the gateway commands, by name.
    const skills = menu().slice(menu().indexOf('reload') + 1);
    expect(skills).toEqual(expect.arrayContaining(['deploy', 'deploy_app']));
    expect(skills).toEqual([...skills].sort());
    expect(menu()).not.toContain('notes');
    expect(menu().filter((name) => name === 'help')).toHaveLength(1);
    expect(telegram.commands.find((command) => command.command === 'deploy_app')!.description).toBe('Deploy the web app');
    // A JSON log line (stderr is no terminal here): the quotes come escaped.
    await gateway.output.waitFor(/skill \\?"help\\?" of profile default is not a command/, { stream: 'all', timeoutMs: 5_000, label: 'the shadowed skill' });
  });

  it('runs /deploy x for the owner: the model gets the instructions and x, and the answer is delivered', async () => {
    model.enqueue({ text: 'Deployed to staging.' });
    const requests = model.requests.length;
    const before = telegram.messages(admin).length;
    chat.dm('/deploy staging');
    expect(await lastText(admin, before)).toBe('Deployed to staging.');
    expect(model.requests).toHaveLength(requests + 1);
    const input = userTexts(model.requests.at(-1)!).at(-1)!;
    expect(input).toMatch(/^Run the skill "deploy" with: staging\n\n<skill name="deploy" /);
    expect(input).toContain('DEPLOY-STEPS: check the branch, then ship to the target given.');
  });

  it('maps /deploy_app to the skill deploy-app, one hidden from the model', async () => {
    model.enqueue({ text: 'App deployed.' });
    const before = telegram.messages(admin).length;
    chat.dm('/deploy_app');
    expect(await lastText(admin, before)).toBe('App deployed.');
    const input = userTexts(model.requests.at(-1)!).at(-1)!;
    expect(input).toMatch(/^Run the skill "deploy-app"\.\n\n<skill name="deploy-app" /);
    expect(input).toContain('APP-STEPS: build, then upload.');
  });

  it('lets a group member who is not an admin run it without mentioning the bot, with a member\'s tools', async () => {
    model.enqueue({ text: 'Done for the group.' });
    const before = telegram.messages(group).length;
    chat.inGroup('/deploy production', member);
    expect(await lastText(group, before)).toBe('Done for the group.');
    const input = userTexts(model.requests.at(-1)!).at(-1)!;
    expect(input).toMatch(/^\[Bea · telegram:2002\] \(speaker\): Run the skill "deploy" with: production\n\n<skill name="deploy" /);
    expect(input).toContain('DEPLOY-STEPS');
    // The same turn a member's plain message gets: none of the owner's tools that act on the machine.
    for (const tool of ['shell', 'write_file', 'edit_file']) expect(chat.lastToolNames()).not.toContain(tool);
  });

  it('refuses a stranger like any message from a stranger: the pairing answer, no turn', async () => {
    const stranger = 4004;
    const requests = model.requests.length;
    const before = telegram.messages(stranger).length;
    telegram.pushUpdate(telegram.textMessage({ chatId: stranger, text: '/deploy everything', from: { id: stranger, first_name: 'Eve' } }));
    expect(await lastText(stranger, before)).toMatch(/pair|code/i);
    expect(model.requests).toHaveLength(requests);
  });

  it('lists the skills in /help, spelled the Telegram way, and leaves the gateway command its name', async () => {
    const requests = model.requests.length;
    const before = telegram.messages(admin).length;
    chat.dm('/help');
    const help = await lastText(admin, before);
    expect(help).toContain('/deploy — Deploy the service to a target');
    expect(help).toContain('/deploy_app — Deploy the web app');
    expect(help).not.toContain('notes');
    expect(help).not.toContain('A skill the gateway command hides');
    expect(model.requests).toHaveLength(requests);
  });

  it('runs the skill from the web chat too', async () => {
    model.enqueue({ text: 'Deployed from the web.' });
    const clientId = 'skill-commands-web-client-1';
    const response = await fetch(`${gateway.origin}/web/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: gateway.origin },
      body: JSON.stringify({ clientId, id: 'm1', text: '/deploy-app from-the-web' }),
    });
    expect(response.status).toBe(202);
    await vi.waitFor(
      async () => {
        const history = (await (await fetch(`${gateway.origin}/web/history?clientId=${clientId}`)).json()) as { messages: { role: string; text: string }[] };
        expect(history.messages.some((message) => message.role === 'assistant' && message.text === 'Deployed from the web.')).toBe(true);
      },
      { timeout: wait, interval: 100 },
    );
    const input = userTexts(model.requests.at(-1)!).at(-1)!;
    expect(input).toMatch(/^Run the skill "deploy-app" with: from-the-web\n\n/);
    expect(input).toContain('APP-STEPS');
  });

  it('registers the menu again after /reload when the skills changed, and says which skill a command hides', async () => {
    writeSkill(fakes.home, 'roll-back', 'description: Roll the last deploy back\nuser-invocable: true', 'ROLLBACK-STEPS');
    const menus = telegram.callsOf('setMyCommands').length;
    const before = telegram.messages(admin).length;
    chat.dm('/reload');
    const report = await lastText(admin, before);
    expect(report).toMatch(/Changed skills: .*\+roll-back/);
    expect(report).toContain('Note: skill "help" of profile default is not a command');
    expect(report).toContain('Command menus updated (telegram).');
    expect(telegram.callsOf('setMyCommands')).toHaveLength(menus + 1);
    expect(menu()).toContain('roll_back');

    // Nothing changed: the menu is left as it is.
    const again = telegram.messages(admin).length;
    chat.dm('/reload');
    expect(await lastText(admin, again)).not.toContain('Command menus updated');
    expect(telegram.callsOf('setMyCommands')).toHaveLength(menus + 1);
  });

  it('answers a skill command accepted before a crash as a skill command after the restart', async () => {
    // The model never answers the first call: the gateway dies while waiting for it.
    model.enqueue({ text: 'never sent', hangMs: 60_000 });
    const requests = model.requests.length;
    chat.dm('what is the plan?');
    await vi.waitFor(() => expect(model.requests.length).toBeGreaterThan(requests), { timeout: wait });
    const update = telegram.textMessage({ chatId: admin, text: '/deploy after-the-restart', from: { id: admin, first_name: 'Ada' } });
    telegram.pushUpdate(update);
    // Taken (its update confirmed) before the crash, its turn not begun.
    await telegram.waitFor((fake) => fake.callsOf('getUpdates').some((call) => Number(call.params.offset) > update.update_id), wait);
    await gateway.kill();

    model.enqueue({ text: 'The plan is ready.' }, { text: 'Deployed after the restart.' });
    const before = telegram.messages(admin).length;
    await start();
    const [first, second] = await chat.messagesAfter(admin, before, 2);
    expect([first!.text, second!.text]).toEqual(['The plan is ready.', 'Deployed after the restart.']);
    const input = userTexts(model.requests.at(-1)!).at(-1)!;
    expect(input).toMatch(/^Run the skill "deploy" with: after-the-restart\n\n<skill name="deploy" /);
    expect(input).toContain('DEPLOY-STEPS');
  });
});
