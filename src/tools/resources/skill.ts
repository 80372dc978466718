/** The `skill` tool: loads a skill's instructions, its reference files and the paths of its scripts and assets. */
import * as z from 'zod';
import { readSkillContent } from '../../resources/skill-content.ts';
import type { ReadSkillContentOptions } from '../../resources/skill-content.ts';
import { formatSkill } from '../../resources/skill-text.ts';
import type { Skill } from '../../resources/types.ts';
import { errorResult } from '../builtin/results.ts';
import { defineTool } from '../tool.ts';
import type { ToolOutput } from '../tool.ts';

/** Options of {@link createSkillTool}. */
export interface SkillToolOptions extends ReadSkillContentOptions {
  /** The skills loaded now; called on every use, so a reload is seen at once. */
  getSkills: () => readonly Skill[];
}

const parameters = z.object({
  name: z.string().min(1).describe('The skill name exactly as listed in <available_skills>, e.g. "deploy-service".'),
});

/** Creates the `skill` tool. */
export function createSkillTool(options: SkillToolOptions) {
  return defineTool({
    name: 'skill',
    machine: 'none',
    description:
      'Load a skill: its full instructions, its reference documents, and the absolute paths of its scripts and ' +
      'assets. Call it before doing a task that one of the <available_skills> describes, then follow the ' +
      'instructions. Run scripts with the shell tool and read assets with read_file, using the paths given.',
    parameters,
    async execute(args, context): Promise<ToolOutput> {
      context.signal.throwIfAborted();
      const skills = options.getSkills();
      const skill = skills.find((candidate) => candidate.name === args.name);
      if (!skill || skill.disableModelInvocation) {
        const available = skills.filter((candidate) => !candidate.disableModelInvocation).map((candidate) => candidate.name);
        if (skill) return errorResult(`skill "${args.name}" can only be started by a person (with /${args.name})`);
        return errorResult(
          `unknown skill "${args.name}". ` +
            (available.length > 0 ? `Available skills: ${available.join(', ')}` : 'No skills are available.'),
        );
      }
      const content = readSkillContent(skill, options);
      if ('problem' in content) {
        const where = content.problem.line === undefined ? '' : ` (line ${content.problem.line})`;
        return errorResult(`skill "${skill.name}" cannot be loaded: ${content.problem.file}${where}: ${content.problem.message}`);
      }
      return { content: formatSkill(skill, content) };
    },
  });
}
