/** The text of a SKILL.md: frontmatter and body (written with `writeFileAtomic`). */
import { yamlLibrary } from './yaml-library.ts';

/**
 * The text of a SKILL.md: `data` as YAML frontmatter between `---` lines, then `body` as is.
 * Long strings are not folded, so a description stays on one line.
 *
 * @example
 * formatSkillFile({ name: 'deploy', description: 'Deploy a service' }, '\n# Deploy\n');
 * // '---\nname: deploy\ndescription: Deploy a service\n---\n\n# Deploy\n'
 */
export function formatSkillFile(data: Record<string, unknown>, body: string): string {
  return `---\n${yamlLibrary().stringify(data, { lineWidth: 0 })}---\n${body}`;
}
