/** The `skill` tool: loads a skill's instructions, its reference files and the paths of its scripts and assets. */
import { join } from 'node:path';
import { z } from 'zod';
import { readSkillContent } from '../../resources/skill-content.ts';
import type { ReadSkillContentOptions, SkillContent } from '../../resources/skill-content.ts';
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

/** The skill as the model reads it: instructions, references, then file lists with absolute paths. */
function formatSkill(skill: Skill, content: SkillContent): string {
  const parts = [
    `<skill name="${skill.name}" directory="${skill.directory}">\n` +
      'Relative paths in these instructions are relative to the directory above.\n\n' +
      `${content.body}\n</skill>`,
  ];
  for (const reference of content.references) {
    parts.push(`<reference file="${reference.path}" path="${join(skill.directory, reference.path)}">\n${reference.text.trimEnd()}\n</reference>`);
  }
  if (content.omittedReferences.length > 0) {
    parts.push(
      'References not included (read them with read_file):\n' +
        content.omittedReferences.map((omitted) => `- ${join(skill.directory, omitted.path)} (${omitted.reason})`).join('\n'),
    );
  }
  const list = (title: string, files: string[], folder: string): void => {
    if (files.length === 0) return;
    const cut = content.cutListings.includes(`${folder}/`) ? `\n- ... more files in ${join(skill.directory, folder)}` : '';
    parts.push(`${title}\n${files.map((file) => `- ${join(skill.directory, file)}`).join('\n')}${cut}`);
  };
  list('Scripts (run them with the shell tool; do not read them unless you need to change one):', content.scripts, 'scripts');
  list('Assets (templates and files to use as the instructions say):', content.assets, 'assets');
  if (content.problems.length > 0) {
    parts.push(`Files that could not be read:\n${content.problems.map((problem) => `- ${problem.file}: ${problem.message}`).join('\n')}`);
  }
  return parts.join('\n\n');
}
