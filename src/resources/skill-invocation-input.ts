/**
 * The turn input that runs a skill a person started with `/name args`: a short header with the
 * arguments, then the skill as the `skill` tool would return it (so the model needs no extra call
 * to load it). Apart from `skill-invocation.ts` because it reads and parses SKILL.md (the YAML
 * parser among it), which the gateway loads only when a skill is started.
 */
import { readSkillContent, type ReadSkillContentOptions } from './skill-content.ts';
import { formatSkill } from './skill-text.ts';
import type { Skill } from './types.ts';

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
