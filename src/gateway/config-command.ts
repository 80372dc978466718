/**
 * `/config`: a conversation's settings from the chat, without editing operator.json: its profile,
 * model, reasoning effort, and the tool groups everyone in it is granted. `/config` shows them (with
 * buttons where the platform has them); `/config think high`, `/config model NAME`, `/config
 * profile NAME` (each `default` to go back), `/config tools shell on|off` and `/config tools none`
 * change them. Kept in the store; shown in `/status` too.
 *
 * Who: anyone may look. In a group, changes are an admin's; in direct messages the person may
 * choose their own profile, model and effort, as with `/profile`, `/model` and `/think`. Tool
 * grants are an admin's everywhere: they open the machine to everyone in the chat.
 */
import { toolGroups, type ToolGroup } from './config/schema.ts';
import type { CommandReply } from './commands.ts';

/** The efforts `/config think` offers. */
const efforts = ['off', 'low', 'medium', 'high'] as const;

/** A conversation's settings as `/config` shows them. */
export interface ConversationSettings {
  profile: string;
  model: string;
  thinking: string;
  /** What was chosen in this conversation (unset: the profile's or the configuration's). */
  chosen: { profile: boolean; model: boolean; thinking: boolean };
  /** The groups granted everyone here from the chat. */
  toolsHere: readonly ToolGroup[];
  /** The asker's own tools here, all grants counted. */
  yours: { owner: boolean; groups: readonly ToolGroup[] };
}

/** What `/config` reads and changes (the gateway's parts, narrowed). */
export interface ConfigParts {
  scope: 'dm' | 'group';
  admin: boolean;
  /** Whether the platform shows buttons. */
  buttons: boolean;
  current(): Promise<ConversationSettings>;
  /** The profiles there are. */
  profiles(): Promise<readonly string[]>;
  /** Each resolves to what the conversation now has, in words; throws a clear error for a bad name. */
  setProfile(name: string | undefined): Promise<string>;
  setModel(name: string | undefined): Promise<string>;
  setThinking(effort: (typeof efforts)[number] | undefined): Promise<string>;
  setTools(groups: readonly ToolGroup[]): Promise<void>;
}

/** Buttons of `/config` for at most this many profiles (the rest are typed). */
const profileButtons = 6;

/** Runs `/config ARGS`. */
export async function configCommand(args: string, parts: ConfigParts): Promise<CommandReply> {
  const [what = '', ...rest] = args.trim().split(/\s+/).filter((word) => word !== '');
  if (what === '') return show(parts);
  const usage = 'Usage: /config [think off|low|medium|high|default | model NAME|default | profile NAME|default | tools GROUP on|off | tools none]';
  const value = rest.join(' ');
  if (what === 'tools') {
    if (!parts.admin) return 'Only an admin can grant tools in a conversation.';
    const settings = await parts.current();
    if (value === 'none') {
      await parts.setTools([]);
      return 'No tools are granted here from the chat any more.';
    }
    const [group, state] = rest;
    if (!isToolGroup(group) || (state !== 'on' && state !== 'off') || rest.length !== 2) return `Usage: /config tools GROUP on|off (GROUP: ${toolGroups.join(', ')}), or /config tools none`;
    const next = state === 'on' ? [...new Set([...settings.toolsHere, group])] : settings.toolsHere.filter((granted) => granted !== group);
    await parts.setTools(next);
    return state === 'on' ? `Everyone here may now use ${group}${group === 'shell' ? ' (in the sandbox)' : ''}.` : `${group} is no longer granted here from the chat.`;
  }
  if (what !== 'think' && what !== 'model' && what !== 'profile') return usage;
  if (parts.scope === 'group' && !parts.admin) return `Only an admin can change this group's ${what === 'think' ? 'thinking' : what}.`;
  if (value === '' || value.includes(' ')) return usage;
  const wanted = value === 'default' ? undefined : value;
  if (what === 'think') {
    if (wanted !== undefined && !(efforts as readonly string[]).includes(wanted)) return usage;
    return parts.setThinking(wanted as (typeof efforts)[number] | undefined);
  }
  return what === 'model' ? parts.setModel(wanted) : parts.setProfile(wanted);
}

/** A press on one of `/config`'s buttons (`config:think:high`, `config:tools:shell:on`, `config:profile:team`). */
export async function configPress(data: string, parts: ConfigParts): Promise<string> {
  const [, what = '', ...rest] = data.split(':');
  const reply = await configCommand([what, ...rest].join(' '), parts);
  return typeof reply === 'string' ? reply : reply.text;
}

async function show(parts: ConfigParts): Promise<CommandReply> {
  const settings = await parts.current();
  const whose = (chosen: boolean) => (chosen ? 'chosen here' : "the profile's");
  const yours = settings.yours.owner ? 'every tool (an owner\'s seat)' : settings.yours.groups.length > 0 ? settings.yours.groups.join(', ') : 'this conversation\'s own tools only';
  const text = [
    `Profile: ${settings.profile} (${settings.chosen.profile ? 'chosen here' : 'the configured one'})`,
    `Model: ${settings.model} (${whose(settings.chosen.model)})`,
    `Thinking: ${settings.thinking} (${whose(settings.chosen.thinking)})`,
    `Tools granted everyone here from the chat: ${settings.toolsHere.length > 0 ? settings.toolsHere.join(', ') : 'none'}`,
    `Your tools here: ${yours}`,
    '',
    parts.buttons ? 'Change them with the buttons, or /config think|model|profile|tools ...' : 'Change them with /config think|model|profile|tools ... (see /config help)',
  ].join('\n');
  if (!parts.buttons) return text;
  const profiles = (await parts.profiles()).slice(0, profileButtons);
  const buttons = [
    efforts.map((effort) => ({ label: `${effort === settings.thinking ? '✓ ' : ''}think ${effort}`, data: `config:think:${effort}` })),
    ...rows(
      toolGroups.map((group) => {
        const on = settings.toolsHere.includes(group);
        return { label: `${on ? '✓ ' : ''}${group}`, data: `config:tools:${group}:${on ? 'off' : 'on'}` };
      }),
      3,
    ),
    ...rows(
      profiles.map((profile) => ({ label: `${profile === settings.profile ? '✓ ' : ''}${profile}`, data: `config:profile:${profile}` })),
      3,
    ),
  ];
  return { text, buttons };
}

function rows<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let index = 0; index < items.length; index += size) out.push(items.slice(index, index + size));
  return out;
}

function isToolGroup(value: string | undefined): value is ToolGroup {
  return value !== undefined && (toolGroups as readonly string[]).includes(value);
}
