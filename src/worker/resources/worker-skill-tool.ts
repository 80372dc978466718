/**
 * The `skill` tool on Workers: the same name, parameters and answers as the Node tool
 * (`src/tools/resources/skill.ts`), the skill's text taken from the bundle, where the deploy put
 * it formatted by the Node code. The Node tool itself cannot be reused here: it reads the skill's
 * folder, and its file reader (`read-text.ts`) does not type-check against the Workers types.
 */
import * as z from 'zod';
import type { Skill } from '../../resources/types.ts';
import { errorResult } from '../../tools/builtin/results.ts';
import { defineTool, type ToolOutput } from '../../tools/tool.ts';

const parameters = z.object({
  name: z.string().min(1).describe('The skill name exactly as listed in <available_skills>, e.g. "deploy-service".'),
});

/** Creates the tool over the skills (and their texts) loaded now; both are asked on every call, so a reload is seen at once. */
export function createWorkerSkillTool(current: () => { skills: readonly Skill[]; skillTexts: ReadonlyMap<string, string> }) {
  return defineTool({
    name: 'skill',
    machine: 'none',
    description:
      'Load a skill: its full instructions and its reference documents. Call it before doing a task that one of ' +
      'the <available_skills> describes, then follow the instructions.',
    parameters,
    async execute(args, context): Promise<ToolOutput> {
      context.signal.throwIfAborted();
      const { skills, skillTexts } = current();
      const skill = skills.find((candidate) => candidate.name === args.name);
      const text = skill ? skillTexts.get(skill.name) : undefined;
      if (!skill || skill.disableModelInvocation || text === undefined) {
        if (skill?.disableModelInvocation) return errorResult(`skill "${args.name}" can only be started by a person (with /${args.name})`);
        const available = skills.filter((candidate) => !candidate.disableModelInvocation).map((candidate) => candidate.name);
        return errorResult(`unknown skill "${args.name}". ` + (available.length > 0 ? `Available skills: ${available.join(', ')}` : 'No skills are available.'));
      }
      return { content: text };
    },
  });
}
