/** Writing a SKILL.md: frontmatter and body, replaced atomically so a reader never sees half a file. */
import { randomUUID } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { stringify } from 'yaml';

/**
 * The text of a SKILL.md: `data` as YAML frontmatter between `---` lines, then `body` as is.
 * Long strings are not folded, so a description stays on one line.
 *
 * @example
 * formatSkillFile({ name: 'deploy', description: 'Deploy a service' }, '\n# Deploy\n');
 * // '---\nname: deploy\ndescription: Deploy a service\n---\n\n# Deploy\n'
 */
export function formatSkillFile(data: Record<string, unknown>, body: string): string {
  return `---\n${stringify(data, { lineWidth: 0 })}---\n${body}`;
}

/**
 * Replaces `file` with `text`: written to a temporary file in the same folder, flushed, then
 * renamed over it (a rename within one folder is atomic).
 */
export async function writeFileAtomically(file: string, text: string): Promise<void> {
  const temporary = join(dirname(file), `.${basename(file)}.${randomUUID()}.tmp`);
  try {
    const handle = await open(temporary, 'wx');
    try {
      await handle.writeFile(text, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}
