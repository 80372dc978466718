/**
 * The `skill_manage` tool: creates, patches and deletes skills in one folder (the active
 * profile's skills folder in OPERATOR_HOME). Every file it writes passes the loader's checks, and
 * names are validated first, so it cannot reach outside that folder. Skills are listed in, and
 * followed by, every conversation of the profile, so the tool is the owner's: the gateway offers
 * it in the owner's seats only (`ownerOnlyTools`), and a call from any other seat is refused here
 * as well, as a second line.
 */
import { mkdir, rm, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import * as z from 'zod';
import { errorMessage } from '../../core/errors.ts';
import { hasFrontmatter, parseFrontmatter } from '../../resources/frontmatter.ts';
import { readTextFile } from '../../resources/read-text.ts';
import { writeFileAtomic } from '../../core/atomic-write.ts';
import { formatSkillFile } from '../../resources/skill-file.ts';
import { checkSkillDescription, checkSkillName, parseSkillFile } from '../../resources/skill-metadata.ts';
import { maxSkillFileBytes } from '../../resources/skills.ts';
import { errorResult } from '../builtin/results.ts';
import { defineTool } from '../tool.ts';
import type { ToolOutput } from '../tool.ts';
import { isOwnerTurn } from './owner-turn.ts';
import { privateFolderMode } from '../../core/private-modes.ts';

/** Options of {@link createSkillManageTool}. */
export interface SkillManageToolOptions {
  /** The folder whose `<name>/SKILL.md` files this tool manages. */
  skillsDirectory: string;
  /** Called after every successful change (the caller reloads skills and clears the prompt cache). */
  onChange?: () => void;
}

const parameters = z.object({
  action: z.enum(['create', 'patch', 'delete']).describe('create a new skill, patch an existing one, or delete one.'),
  name: z
    .string()
    .describe('Skill name: lowercase letters, digits and hyphens, at most 64 characters, e.g. "release-checklist".'),
  description: z
    .string()
    .optional()
    .describe(
      'create (required) or patch: one or two sentences saying what the skill does and when to use it ' +
        '(at most 1,024 characters). It is all you will see of the skill before loading it.',
    ),
  body: z
    .string()
    .optional()
    .describe('create (required): the instructions in Markdown, without frontmatter.'),
  old_string: z
    .string()
    .optional()
    .describe('patch: exact text of the current instructions to replace; must occur exactly once.'),
  new_string: z.string().optional().describe('patch: the replacement for old_string.'),
});

type Arguments = z.infer<typeof parameters>;

/** Creates the `skill_manage` tool. */
export function createSkillManageTool(options: SkillManageToolOptions) {
  const root = resolve(options.skillsDirectory);
  return defineTool({
    name: 'skill_manage',
    machine: 'none',
    description:
      'Save a reusable procedure as a skill, or change or delete one you saved. Use it when you worked out ' +
      'steps worth repeating (a deployment, a report format, a fix that took several tries). ' +
      'create needs name, description and body; patch needs name and description and/or old_string + ' +
      'new_string (an exact, unique piece of the current instructions); delete needs only name. ' +
      'Only skills saved by this tool can be patched or deleted.',
    parameters,
    async execute(args, context): Promise<ToolOutput> {
      context.signal.throwIfAborted();
      if (!isOwnerTurn(context.turn)) {
        return errorResult(
          "skill_manage is not available in this conversation: skills are shared by every conversation of this profile, so they are written from the owner's own conversations only",
        );
      }
      const nameProblem = checkSkillName(args.name);
      if (nameProblem) return errorResult(`invalid skill name: ${nameProblem}`);
      const directory = join(root, args.name);
      // The name check already rules out `..` and `/`; this keeps it true if that check changes.
      if (dirname(directory) !== root) return errorResult(`invalid skill name "${args.name}"`);
      const file = join(directory, 'SKILL.md');
      let result: ToolOutput;
      try {
        if (args.action === 'create') result = await create(args, directory, file);
        else if (args.action === 'patch') result = await patch(args, file, root);
        else result = await remove(args.name, directory, file, root);
      } catch (error) {
        return errorResult(`${args.action} of skill "${args.name}" failed: ${errorMessage(error)}`);
      }
      if (result.isError || !options.onChange) return result;
      try {
        options.onChange();
      } catch (error) {
        return { content: `${String(result.content)} (but reloading the skills failed: ${errorMessage(error)})` };
      }
      return result;
    },
  });
}

async function create(args: Arguments, directory: string, file: string): Promise<ToolOutput> {
  if (args.description === undefined) return errorResult('create needs a description');
  if (args.body === undefined || args.body.trim() === '') return errorResult('create needs a body (the instructions)');
  if (args.old_string !== undefined || args.new_string !== undefined) {
    return errorResult('old_string and new_string are for patch, not create');
  }
  const descriptionProblem = checkSkillDescription(args.description);
  if (descriptionProblem) return errorResult(descriptionProblem);
  if (hasFrontmatter(args.body)) return errorResult('body must not start with frontmatter (`---`); give only the instructions');
  if (await exists(file)) {
    return errorResult(`skill "${args.name}" already exists; use action "patch" to change it, or "delete" it first`);
  }
  const text = formatSkillFile({ name: args.name, description: args.description }, `\n${args.body.trim()}\n`);
  await mkdir(directory, { recursive: true, mode: privateFolderMode });
  await writeFileAtomic(file, text);
  return { content: `Created skill "${args.name}" (${file})` };
}

async function patch(args: Arguments, file: string, root: string): Promise<ToolOutput> {
  const editsBody = args.old_string !== undefined || args.new_string !== undefined;
  if (args.body !== undefined) return errorResult('patch does not take body; use old_string and new_string');
  if (args.description === undefined && !editsBody) {
    return errorResult('patch needs a description and/or old_string and new_string');
  }
  if (editsBody && (args.old_string === undefined || args.new_string === undefined)) {
    return errorResult('old_string and new_string go together');
  }
  if (args.old_string === '') return errorResult('old_string is empty');
  const read = readTextFile(file, { maxBytes: maxSkillFileBytes });
  if ('problem' in read) {
    if (read.missing) return errorResult(notHere(args.name, root));
    return errorResult(`${file}: ${read.problem.message}`);
  }
  const parsed = parseFrontmatter(read.text);
  if ('error' in parsed) {
    const line = parsed.line === undefined ? '' : ` (line ${parsed.line})`;
    return errorResult(`the current ${file} is invalid${line}: ${parsed.error}; delete the skill and create it again`);
  }
  const data = { ...parsed.data };
  if (args.description !== undefined) {
    const descriptionProblem = checkSkillDescription(args.description);
    if (descriptionProblem) return errorResult(descriptionProblem);
    data.description = args.description;
  }
  let body = parsed.body;
  if (args.old_string !== undefined && args.new_string !== undefined) {
    const count = countOccurrences(body, args.old_string);
    if (count === 0) return errorResult(`old_string not found in skill "${args.name}"`);
    if (count > 1) {
      return errorResult(`old_string found ${count} times in skill "${args.name}". Provide more context to make it unique.`);
    }
    const index = body.indexOf(args.old_string);
    body = body.slice(0, index) + args.new_string + body.slice(index + args.old_string.length);
  }
  const text = formatSkillFile(data, body);
  const check = parseSkillFile(text, args.name);
  if ('reason' in check) return errorResult(`the patched skill would be invalid: ${check.reason}`);
  await writeFileAtomic(file, text);
  const changed = [args.description !== undefined ? 'description' : '', editsBody ? 'instructions' : ''].filter(Boolean);
  return { content: `Patched skill "${args.name}" (${changed.join(' and ')})` };
}

async function remove(name: string, directory: string, file: string, root: string): Promise<ToolOutput> {
  if (!(await exists(file))) return errorResult(notHere(name, root));
  await rm(directory, { recursive: true, force: true });
  return { content: `Deleted skill "${name}" (${directory})` };
}

function notHere(name: string, root: string): string {
  return (
    `no skill "${name}" in ${root}. Only skills saved there can be changed; to change a built-in or shared ` +
    'skill, create one with the same name (it takes precedence).'
  );
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ENOENT') return false;
    throw error;
  }
}

/** Non-overlapping occurrences. */
function countOccurrences(text: string, search: string): number {
  let count = 0;
  for (let index = text.indexOf(search); index !== -1; index = text.indexOf(search, index + search.length)) count++;
  return count;
}
