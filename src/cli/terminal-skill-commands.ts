/**
 * Skills as commands in the terminal chat: `/name args`, where `name` is a user-invocable skill of
 * the chat's profile, runs a turn whose input is the skill's instructions with the arguments (as
 * in the gateway's chats). The chat's own commands win over a skill of the same name.
 */
import { findUserSkill, skillCommands } from '../resources/skill-invocation.ts';
import { skillInvocationInput } from '../resources/skill-invocation-input.ts';
import type { Skill } from '../resources/types.ts';
import type { SlashCommand } from './slash-command.ts';

/** The terminal chat's own commands (with `/profile` and `/reload` from `operator chat`). */
export const terminalCommandNames: readonly string[] = ['help', 'new', 'compact', 'status', 'profile', 'think', 'reload', 'undo', 'diff', 'exit', 'quit'];

/** What a typed line `/name args` runs, when `name` is a skill command of `skills`. */
export interface TerminalSkillRun {
  skill: Skill;
  /** The turn's input. */
  input: string;
}

/** The skill run a typed `command` asks for, or undefined when it is not a skill command. */
export function terminalSkillRun(command: SlashCommand, skills: readonly Skill[]): TerminalSkillRun | undefined {
  if (terminalCommandNames.includes(command.name)) return undefined;
  const skill = findUserSkill(command.name, skills);
  return skill ? { skill, input: skillInvocationInput(skill, command.args) } : undefined;
}

/** The names of the skill commands of `skills` (as `/help` lists them). */
export function terminalSkillNames(skills: readonly Skill[]): string[] {
  return skillCommands(skills, terminalCommandNames).map((skill) => skill.name);
}

/** The `/help` lines for the skill commands of `skills` (none when there are none). */
export function terminalSkillHelp(skills: readonly Skill[]): string[] {
  const commands = skillCommands(skills, terminalCommandNames);
  if (commands.length === 0) return [];
  const width = Math.max(15, ...commands.map((skill) => skill.name.length + 2));
  return ['', 'skills (each runs a turn with the skill; add what it needs after the name):', ...commands.map((skill) => `/${skill.name.padEnd(width - 1)} ${oneLine(skill.description)}`)];
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 100 ? `${line.slice(0, 99).trimEnd()}…` : line;
}
