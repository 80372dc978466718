/**
 * A person starting a skill: a SKILL.md with `user-invocable: true` is a command, `/name args`,
 * in every chat and in the terminal. Which skill a command name asks for, which skills a command
 * of the same name hides, and the turn input that runs one: a short header with the arguments,
 * then the skill as the `skill` tool would return it (so the model needs no extra call to load it).
 *
 * Skill names are `a-z`, `0-9` and `-`; platforms that forbid `-` in commands (Telegram) spell
 * it `_`, so a command name matches a skill with every `_` read as `-` (skill names never hold `_`).
 */
import { readSkillContent, type ReadSkillContentOptions } from './skill-content.ts';
import { formatSkill } from './skill-text.ts';
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

/**
 * The input of the turn that runs `skill` with `args`: `Run the skill "deploy" with: ARGS` (or
 * `Run the skill "deploy".` without arguments), a blank line, then the skill's instructions,
 * references and file lists as the `skill` tool gives them. When SKILL.md can no longer be read,
 * the header is followed by the reason, so the model can tell the person.
 *
 * @example
 * skillInvocationInput(deploy, 'staging');
 * // 'Run the skill "deploy" with: staging\n\n<skill name="deploy" directory="/home/.../skills/deploy">\n...'
 */
export function skillInvocationInput(skill: Skill, args: string, options?: ReadSkillContentOptions): string {
  const given = args.trim();
  const header = given === '' ? `Run the skill "${skill.name}".` : `Run the skill "${skill.name}" with: ${given}`;
  const content = readSkillContent(skill, options);
  if ('problem' in content) {
    const { file, line, message } = content.problem;
    return `${header}\n\n(The skill's instructions could not be loaded: ${file}${line === undefined ? '' : `:${line}`}: ${message}. Tell the person so.)`;
  }
  return `${header}\n\n${formatSkill(skill, content)}`;
}
