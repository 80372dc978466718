/**
 * Skills as chat commands in the gateway. A message `/name args` whose name is a user-invocable
 * skill of the conversation's profile runs a turn like any message from its sender (same queue,
 * dedupe, access rules, grants, guardrails and delivery); only the turn's input differs: it is the
 * skill's instructions with the arguments (see `skill-invocation-input.ts`). The gateway's own commands
 * win over a skill of the same name. The inbox keeps the message's command, so a skill command
 * accepted before a restart is answered after it the same way. The same skills are the prompts a
 * chat offers when a person opens a conversation (Slack's assistant threads): each as its
 * description (the button) and `/<name>` (the message it sends, which runs the skill like a typed
 * command); a profile without such skills offers none, and the platform shows its own.
 */
import type { CommandInfo, ConversationRef, InboundMessage, SuggestedPrompt } from '../channels/types.ts';
import { findUserSkill, shadowedNote, shadowedSkills, skillCommands } from '../resources/skill-invocation.ts';
import type { Skill } from '../resources/types.ts';
import type { Gateway } from './gateway.ts';

/** The longest prompt title, in characters: a button's worth. */
const maxPromptTitleLength = 75;

/** The skills of the profile of `message`'s conversation in `gateway` (its live one's, else the one its bindings choose). */
export async function skillsFor(gateway: Pick<Gateway, 'conversations' | 'runtime'>, message: InboundMessage): Promise<readonly Skill[]> {
  const profile = await gateway.conversations.profileFor(message, message.sender.id);
  return (await gateway.runtime.resources(profile)).resources.skills;
}

/** The user-invocable skill `message` asks for with its `/name args`, if any (of `skills`, its profile's). */
export function skillCommandOf(message: InboundMessage, skills: readonly Skill[]): Skill | undefined {
  return message.command ? findUserSkill(message.command.name, skills) : undefined;
}

/**
 * `message` as its turn takes it: the text is the input that runs `skill` with the command's
 * arguments. The skill reader loads here, on the first skill command, not at the gateway's start.
 */
export async function asSkillTurn(message: InboundMessage, skill: Skill): Promise<InboundMessage> {
  const { skillInvocationInput } = await import('../resources/skill-invocation-input.ts');
  return { ...message, text: skillInvocationInput(skill, message.command?.args ?? '') };
}

/**
 * How the command `name` is typed on `platform`: Telegram allows only `a-z`, `0-9` and `_` in
 * commands, so there `_` stands for `-` (`/deploy_app` starts the skill `deploy-app`).
 */
export function commandSpelling(name: string, platform: string): string {
  return platform === 'telegram' ? name.replace(/-/g, '_') : name;
}

/** `text` on one line, cut to `max` characters with an ellipsis. */
function oneLine(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1).trimEnd()}…` : line;
}

/**
 * The lines `/help` adds for the skills that are commands on `platform` (none when there are
 * none): a heading, then `/name — description` each. `reserved` are the gateway's own commands.
 */
export function skillHelpLines(skills: readonly Skill[], reserved: Iterable<string>, platform: string): string[] {
  const commands = skillCommands(skills, reserved);
  if (commands.length === 0) return [];
  return ['', 'Skills (each runs as a turn, like a message; add what it needs after the name):', ...commands.map((skill) => `/${commandSpelling(skill.name, platform)} — ${oneLine(skill.description, 160)}`)];
}

/** The `/reload` answer's lines about skills of `profile` that a command of the same name (in `reserved`) hides. */
export function shadowedLines(skills: readonly Skill[], reserved: Iterable<string>, profile: string): string[] {
  return shadowedSkills(skills, reserved).map((skill) => `Note: ${shadowedNote(skill, profile)}.`);
}

function promptTitle(skill: Skill): string {
  const text = (skill.description.split('\n')[0] ?? '').trim() || skill.name;
  const chars = Array.from(text);
  return chars.length <= maxPromptTitleLength ? text : `${chars.slice(0, maxPromptTitleLength - 1).join('')}…`;
}

/**
 * The prompts for a conversation just opened: the user-invocable skills of its profile, those one
 * of the gateway's `commands` of the same name hides left out (as in the command menus).
 */
export async function suggestedPrompts(gateway: Pick<Gateway, 'conversations' | 'runtime'>, commands: readonly CommandInfo[], conversation: ConversationRef, senderId: string): Promise<SuggestedPrompt[]> {
  const profile = await gateway.conversations.profileFor(conversation, senderId);
  const { skills } = (await gateway.runtime.resources(profile)).resources;
  return skillCommands(skills, commands.map((command) => command.name)).map((skill) => ({ title: promptTitle(skill), message: `/${skill.name}` }));
}
