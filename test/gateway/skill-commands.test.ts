/**
 * Skills as chat commands, the gateway's side without a process: which message asks for which
 * skill, the turn it becomes, `/help`'s lines, the menus (built, capped, registered again only
 * when they change, hidden skills logged), the platforms' spelling of them, and the inbox keeping
 * a command so a skill command accepted before a restart is answered as one after it.
 */
import { describe, expect, it } from 'vitest';
import type { ChannelAdapter, CommandInfo, InboundMessage } from '../../src/channels/types.ts';
import { commandMenuBody } from '../../src/channels/discord/command-menu.ts';
import { telegramCommandMenu, telegramCommandName } from '../../src/channels/telegram/command-menu.ts';
import { parseCommand } from '../../src/channels/web/web-inbound.ts';
import { buildCommandMenu, CommandMenus, menuLimit } from '../../src/gateway/command-menus.ts';
import { commandList } from '../../src/gateway/commands.ts';
import { createInbox } from '../../src/gateway/inbox.ts';
import { replayedMessage } from '../../src/gateway/restart-replay.ts';
import { asSkillTurn, commandSpelling, shadowedLines, skillCommandOf, skillHelpLines } from '../../src/gateway/skill-commands.ts';
import type { Skill } from '../../src/resources/types.ts';
import { createStore } from '../../src/store/index.ts';
import { layersIn, makeTempDir, skillFile, writeTree } from '../resources/temp-tree.ts';
import { loadSkills } from '../../src/resources/skills.ts';

const skill = (name: string, options: Partial<Skill> = {}): Skill => ({
  name,
  description: `The ${name} skill`,
  location: `/skills/${name}/SKILL.md`,
  directory: `/skills/${name}`,
  userInvocable: true,
  disableModelInvocation: false,
  source: 'home',
  ...options,
});

const message = (text: string, command?: { name: string; args: string }): InboundMessage => ({
  id: '7',
  dedupeKey: 'telegram:update:7',
  sessionKey: 'telegram:dm:42',
  address: { platform: 'telegram', conversationId: '42' },
  scope: 'dm',
  sender: { id: '42', name: 'Ada' },
  text,
  attachments: [],
  mentioned: true,
  ...(command ? { command } : {}),
  receivedAt: 1_700_000_000_000,
  raw: undefined,
});

const gatewayNames = commandList.map((command) => command.name);

describe('skill commands in the gateway', () => {
  it('finds the skill a command message asks for; other messages ask for none', () => {
    const skills = [skill('deploy-app'), skill('notes', { userInvocable: false })];
    expect(skillCommandOf(message('/deploy_app staging', { name: 'deploy_app', args: 'staging' }), skills)?.name).toBe('deploy-app');
    expect(skillCommandOf(message('/deploy-app staging', { name: 'deploy-app', args: 'staging' }), skills)?.name).toBe('deploy-app');
    expect(skillCommandOf(message('/notes', { name: 'notes', args: '' }), skills)).toBeUndefined();
    expect(skillCommandOf(message('deploy-app staging'), skills)).toBeUndefined();
  });

  it('turns the message into the skill run, keeping everything else', async () => {
    const root = await makeTempDir();
    await writeTree(root, { 'home/skills/deploy/SKILL.md': skillFile('name: deploy\ndescription: Deploy\nuser-invocable: true', '\nDeploy to the target.\n') });
    const [deploy] = loadSkills(layersIn(root)).skills;
    const original = message('/deploy staging', { name: 'deploy', args: 'staging' });
    const turn = await asSkillTurn(original, deploy!);
    expect(turn.text).toMatch(/^Run the skill "deploy" with: staging\n\n<skill name="deploy"/);
    expect(turn.text).toContain('Deploy to the target.');
    expect({ ...turn, text: original.text }).toEqual(original);
  });

  it('spells skill commands the platform way in /help, and leaves out hidden and shadowed skills', () => {
    const skills = [skill('deploy-app', { description: 'Deploy\nthe app' }), skill('help'), skill('notes', { userInvocable: false })];
    expect(skillHelpLines(skills, gatewayNames, 'telegram')).toEqual(['', expect.stringContaining('Skills'), '/deploy_app — Deploy the app']);
    expect(skillHelpLines(skills, gatewayNames, 'discord').at(-1)).toBe('/deploy-app — Deploy the app');
    expect(skillHelpLines([skill('help')], gatewayNames, 'web')).toEqual([]);
    expect(commandSpelling('a-b-c', 'telegram')).toBe('a_b_c');
    expect(commandSpelling('a-b-c', 'slack')).toBe('a-b-c');
    expect(shadowedLines(skills, gatewayNames, 'work')).toEqual(['Note: skill "help" of profile work is not a command: /help is a built-in command, which wins (rename the skill to start it with a command).']);
  });

  it('builds the menu: the gateway commands first, then the skill commands, at most 100', () => {
    const menu = buildCommandMenu(commandList, [skill('deploy-app'), skill('status'), skill('notes', { userInvocable: false })]);
    expect(menu.map((entry) => entry.name)).toEqual([...gatewayNames, 'deploy-app']);
    const many = Array.from({ length: 150 }, (_, index) => skill(`skill-${String(index).padStart(3, '0')}`));
    const capped = buildCommandMenu(commandList, many);
    expect(capped).toHaveLength(menuLimit);
    expect(capped.slice(0, gatewayNames.length).map((entry) => entry.name)).toEqual(gatewayNames);
  });

  it('fits the menu to Telegram: - as _, 256-character descriptions on one line, 100 commands', () => {
    expect(telegramCommandName('deploy-app')).toBe('deploy_app');
    expect(telegramCommandName('/Status')).toBe('status');
    expect(telegramCommandName('a'.repeat(33))).toBeUndefined();
    const skipped: string[] = [];
    const long = { name: 'deploy-app', description: `Deploys\n${'x'.repeat(400)}` };
    const commands: CommandInfo[] = [long, { name: 'deploy_app', description: 'twice' }, { name: 'x'.repeat(40), description: 'too long a name' }, ...Array.from({ length: 120 }, (_, index) => ({ name: `c${index}`, description: '' }))];
    const menu = telegramCommandMenu(commands, (command, why) => skipped.push(`${command.name}: ${why}`));
    expect(menu).toHaveLength(100);
    expect(menu[0]!.command).toBe('deploy_app');
    expect(menu[0]!.description).toHaveLength(256);
    expect(menu[0]!.description).toMatch(/^Deploys x+…$/);
    expect(menu[1]).toEqual({ command: 'c0', description: 'c0' });
    expect(skipped[0]).toBe('deploy_app: /deploy_app is in the menu already');
    expect(skipped[1]).toMatch(/^x+: Telegram allows/);
    expect(skipped.slice(2)).toHaveLength(21);
    expect(skipped.at(-1)).toBe('c119: Telegram takes at most 100 commands');
  });

  it('fits the menu to Discord: names as they are, 100-character descriptions, 100 commands', () => {
    const skipped: string[] = [];
    const commands: CommandInfo[] = [{ name: 'deploy-app', description: 'd'.repeat(150) }, ...Array.from({ length: 120 }, (_, index) => ({ name: `c${index}`, description: 'C' }))];
    const body = commandMenuBody(commands, (command) => skipped.push(command.name)) as { name: string; description: string }[];
    expect(body).toHaveLength(100);
    expect(body[0]).toMatchObject({ name: 'deploy-app', description: `${'d'.repeat(99)}…` });
    expect(skipped).toHaveLength(21);
  });

  it('parses skill commands with - in the web chat', () => {
    expect(parseCommand('/deploy-app staging now')).toEqual({ name: 'deploy-app', args: 'staging now' });
    expect(parseCommand('/status')).toEqual({ name: 'status', args: '' });
  });

  it('registers the menus, again only when they change, and logs shadowed skills once', async () => {
    let skills: Skill[] = [skill('deploy'), skill('help')];
    const registered: { platform: string; names: string[] }[] = [];
    const adapter = (platform: string, commandMenu: boolean): ChannelAdapter =>
      ({ platform, capabilities: { commandMenu }, setCommands: async (commands: CommandInfo[]) => void registered.push({ platform, names: commands.map((command) => command.name) }) }) as unknown as ChannelAdapter;
    const adapters = [adapter('telegram', true), adapter('discord', true), adapter('web', false)];
    const log: string[] = [];
    const menus = new CommandMenus({ commands: commandList, skills: async () => skills, log: (line) => log.push(line) });
    expect(await menus.update(adapters)).toEqual(['discord', 'telegram']);
    expect(registered.map((entry) => entry.names.at(-1))).toEqual(['deploy', 'deploy']);
    expect(log).toEqual(['operator: skill "help" of profile default is not a command: /help is a built-in command, which wins (rename the skill to start it with a command)']);
    expect(await menus.update(adapters)).toEqual([]);
    expect(registered).toHaveLength(2);
    skills = [skill('deploy'), skill('help'), skill('review')];
    expect(await menus.update(adapters)).toEqual(['discord', 'telegram']);
    expect(registered.at(-1)!.names.slice(-2)).toEqual(['deploy', 'review']);
    expect(log).toHaveLength(1);
  });

  it('keeps registering the gateway commands when the default profile cannot load', async () => {
    const registered: string[][] = [];
    const telegram = { platform: 'telegram', capabilities: { commandMenu: true }, setCommands: async (commands: CommandInfo[]) => void registered.push(commands.map((command) => command.name)) } as unknown as ChannelAdapter;
    const log: string[] = [];
    const menus = new CommandMenus({ commands: commandList, skills: () => Promise.reject(new Error('broken profile')), log: (line) => log.push(line) });
    await menus.update([telegram]);
    expect(registered).toEqual([gatewayNames]);
    expect(log[0]).toContain('broken profile');
  });

  it('keeps the command in the inbox, so a skill command is one again after a restart', async () => {
    const store = createStore({ driver: 'memory' });
    const inbox = createInbox(store);
    await inbox.add(message('/deploy staging', { name: 'deploy', args: 'staging' }), '/deploy staging');
    await inbox.add({ ...message('hello'), dedupeKey: 'telegram:update:8' }, 'hello');
    const [command, plain] = await inbox.pending();
    expect(replayedMessage(command!).command).toEqual({ name: 'deploy', args: 'staging' });
    expect(replayedMessage(command!).text).toBe('/deploy staging');
    expect('command' in replayedMessage(plain!)).toBe(false);
    await store.close();
  });
});
