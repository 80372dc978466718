/**
 * A skill as the model reads it: its instructions inside a `<skill>` element, its references, then
 * the absolute paths of its scripts and assets. The `skill` tool returns this text, and a person's
 * `/name` command puts it into the turn's input (see `skill-invocation.ts`).
 */
import { join } from 'node:path';
import type { SkillContent } from './skill-content.ts';
import type { Skill } from './types.ts';

/** The skill as the model reads it: instructions, references, then file lists with absolute paths. */
export function formatSkill(skill: Skill, content: SkillContent): string {
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
