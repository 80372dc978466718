/**
 * A person starting a skill: a SKILL.md with `user-invocable: true` is a command, `/name args`,
 * in every chat and in the terminal. Which skill a command name asks for and which skills a command
 * of the same name hides (the turn input that runs one is in `skill-invocation-input.ts`, which
 * reads the skill: this file stays light enough for the gateway to load at start).
 *
 * Skill names are `a-z`, `0-9` and `-`; platforms that forbid `-` in commands (Telegram) spell
 * it `_`, so a command name matches a skill with every `_` read as `-` (skill names never hold `_`).
 */
import type { Skill } from './types.ts';

/** `name` as a skill name: lowercase, without a leading `/`, `_` read as `-`. */
export function skillNameOfCommand(name: string): string {
  return name.replace(/^\//, '').toLowerCase().replace(/_/g, '-');
}

/**
 * The user-invocable skill the command `name` asks for (`deploy-app`, `deploy_app` and
 * `/Deploy_App` all ask for `deploy-app`), or undefined when there is none.
 */
export function findUserSkill(name: string, skills: readonly Skill[]): Skill | undefined {
  const wanted = skillNameOfCommand(name);
  return skills.find((skill) => skill.userInvocable && skill.name === wanted);
}

/**
 * Whether the command `reserved` (one of the chat's own, like `help`) hides `skill`: a chat's own
 * command of the same name wins over a skill.
 */
function hides(reserved: ReadonlySet<string>, skill: Skill): boolean {
  return reserved.has(skill.name) || reserved.has(skill.name.replace(/-/g, '_'));
}

/**
 * The skills that are commands: user-invocable ones whose name no command in `reserved` (the
 * chat's own commands, by name) takes; in the order of `skills` (by name, as loaded).
 */
export function skillCommands(skills: readonly Skill[], reserved: Iterable<string>): Skill[] {
  const taken = new Set([...reserved].map((name) => name.toLowerCase()));
  return skills.filter((skill) => skill.userInvocable && !hides(taken, skill));
}

/** The user-invocable skills that a command in `reserved` hides (they cannot be started by a person). */
export function shadowedSkills(skills: readonly Skill[], reserved: Iterable<string>): Skill[] {
  const taken = new Set([...reserved].map((name) => name.toLowerCase()));
  return skills.filter((skill) => skill.userInvocable && hides(taken, skill));
}

/** A line saying that `skill` of `profile` is hidden by the command of the same name. */
export function shadowedNote(skill: Skill, profile: string): string {
  return `skill "${skill.name}" of profile ${profile} is not a command: /${skill.name} is a built-in command, which wins (rename the skill to start it with a command)`;
}
