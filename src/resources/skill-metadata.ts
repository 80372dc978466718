/**
 * What a SKILL.md must say about itself, checked the same way by the loader and by `skill_manage`
 * so a skill the agent writes is always one the loader accepts.
 */
import { hasFrontmatter, parseFrontmatter } from './frontmatter.ts';

/** Longest skill name, in characters. */
export const maxSkillNameLength = 64;
/** Longest skill description, in characters. */
export const maxSkillDescriptionLength = 1024;

/** The frontmatter fields operator reads from a SKILL.md. */
export interface SkillMetadata {
  name: string;
  description: string;
  userInvocable: boolean;
  disableModelInvocation: boolean;
}

/** Why a SKILL.md is invalid. */
export interface SkillInvalid {
  reason: string;
  /** 1-based line in SKILL.md, when known. */
  line?: number;
}

const namePattern = /^[a-z0-9-]+$/;

/** Why `name` is not a valid skill name, or `undefined` when it is. */
export function checkSkillName(name: string): string | undefined {
  if (name.length === 0) return '`name` is empty';
  if (!namePattern.test(name)) {
    return `\`name\` ${JSON.stringify(name)} may contain only lowercase letters, digits and hyphens (a-z, 0-9, -)`;
  }
  if (name.length > maxSkillNameLength) {
    return `\`name\` is ${name.length} characters long, more than the ${maxSkillNameLength} allowed`;
  }
  return undefined;
}

/** Why `description` is not a valid skill description, or `undefined` when it is. */
export function checkSkillDescription(description: string): string | undefined {
  if (description.trim().length === 0) return '`description` is empty';
  const length = [...description].length;
  if (length > maxSkillDescriptionLength) {
    return `\`description\` is ${length} characters long, more than the ${maxSkillDescriptionLength} allowed`;
  }
  return undefined;
}

/**
 * Parses and checks the text of `<folderName>/SKILL.md`: the frontmatter must have a valid `name`
 * equal to `folderName` and a valid `description`; `user-invocable` and
 * `disable-model-invocation` are optional booleans. Other keys are allowed and ignored.
 */
export function parseSkillFile(
  text: string,
  folderName: string,
): { metadata: SkillMetadata; body: string } | SkillInvalid {
  if (!hasFrontmatter(text)) {
    return { reason: 'no YAML frontmatter: SKILL.md must start with a `---` line, then `name:` and `description:`', line: 1 };
  }
  const parsed = parseFrontmatter(text);
  if ('error' in parsed) return { reason: `invalid YAML frontmatter: ${parsed.error}`, line: parsed.line };
  const { data, keyLines } = parsed;
  const at = (key: string): { line?: number } => (keyLines[key] === undefined ? {} : { line: keyLines[key] });

  const name = data.name;
  if (name === undefined || name === null) return { reason: '`name` is missing from the frontmatter' };
  if (typeof name !== 'string') return { reason: `\`name\` must be a string, not ${describe(name)}`, ...at('name') };
  const nameProblem = checkSkillName(name);
  if (nameProblem) return { reason: nameProblem, ...at('name') };
  if (name !== folderName) {
    return {
      reason: `\`name\` ${JSON.stringify(name)} does not match the folder name ${JSON.stringify(folderName)}`,
      ...at('name'),
    };
  }

  const description = data.description;
  if (description === undefined || description === null) {
    return { reason: '`description` is missing from the frontmatter' };
  }
  if (typeof description !== 'string') {
    return { reason: `\`description\` must be a string, not ${describe(description)}`, ...at('description') };
  }
  const descriptionProblem = checkSkillDescription(description);
  if (descriptionProblem) return { reason: descriptionProblem, ...at('description') };

  const flags: Record<string, boolean> = {};
  for (const key of ['user-invocable', 'disable-model-invocation']) {
    const value = data[key];
    if (value === undefined || value === null) flags[key] = false;
    else if (typeof value === 'boolean') flags[key] = value;
    else return { reason: `\`${key}\` must be true or false, not ${describe(value)}`, ...at(key) };
  }

  return {
    metadata: {
      name,
      description,
      userInvocable: flags['user-invocable'] ?? false,
      disableModelInvocation: flags['disable-model-invocation'] ?? false,
    },
    body: parsed.body,
  };
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') return `the text ${JSON.stringify(value)}`;
  return `${typeof value === 'number' ? 'the number' : typeof value} ${String(value)}`;
}
