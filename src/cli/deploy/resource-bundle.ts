/**
 * Builds one profile's {@link ResourceBundle} with the loaders the Node gateway uses
 * (`ProfileResources`): the same layers, the same precedence, the same caps. A file that cannot be
 * loaded is skipped and reported, as on a reload; a file that carries a secret is refused, skipped
 * and reported too. What the bundle holds is exactly what may be uploaded.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileMemoryStorage } from '../../memory/index.ts';
import { loadKnowledge, selectKnowledgeForInjection } from '../../resources/knowledge.ts';
import { builtinRoot, fileLayers, profileHome } from '../../resources/layers.ts';
import type { ResourceLayers } from '../../resources/layers.ts';
import type { NamedText } from '../../resources/prompt-assembly.ts';
import { readErrorMessage, readTextFile } from '../../resources/read-text.ts';
import { createRulesLoader, maxRulesFileBytes } from '../../resources/rules.ts';
import { readSkillContent } from '../../resources/skill-content.ts';
import { formatSkill } from '../../resources/skill-text.ts';
import { loadSkills } from '../../resources/skills.ts';
import type { ResourceProblem, Skill } from '../../resources/types.ts';
import { labelPath, type LabelRoots } from './path-labels.ts';
import { bundleFormat, type BundledKnowledge, type BundledSkill, type ResourceBundle } from './resource-bundle-format.ts';
import { findSecret, secretValuesOf, type SecretValues } from './secret-check.ts';

/** What to build a bundle from. */
export interface BuildBundleOptions {
  profile: string;
  /** OPERATOR_HOME. */
  home: string;
  /** Where the built-in resources ship (default: this checkout). */
  builtin?: string;
  /** The working directory: its `.operator/rules.md` counts, as for a gateway started there. */
  cwd: string;
  /** The environment whose secret values must not be uploaded (after `.env` files are read). */
  env: NodeJS.ProcessEnv;
  /** The secret values of `env`, when the caller already has them (one deploy, many profiles). */
  secrets?: SecretValues;
}

/** A bundle and what was left out of it. */
export interface BuiltBundle {
  bundle: ResourceBundle;
  /** Files not uploaded, with this machine's paths (for the person deploying; the bundle has labels). */
  problems: ResourceProblem[];
}

/** The identity files' size cap: the one `ProfileResources` reads them with. */
const identityCap = 256 * 1024;

/** Builds `options.profile`'s bundle; never throws for a bad file (it is reported instead). */
export async function buildResourceBundle(options: BuildBundleOptions): Promise<BuiltBundle> {
  const layers: ResourceLayers = { profile: options.profile, home: options.home, builtin: options.builtin ?? builtinRoot };
  const roots: LabelRoots = { home: layers.home, builtin: layers.builtin, cwd: options.cwd };
  const secrets = options.secrets ?? secretValuesOf(options.env);
  const problems: ResourceProblem[] = [];
  /** Whether `text` (of `file`) may be uploaded; a refusal is reported. */
  const clean = (file: string, text: string): boolean => {
    const found = findSecret(text, secrets);
    if (!found) return true;
    problems.push({
      file,
      line: found.line,
      message: `not uploaded: it looks like it carries a secret (${found.what}). Take the secret out of the file; the Worker gets its secrets from \`wrangler secret put\`, never from its resources`,
    });
    return false;
  };

  const identity = {
    system: readIdentity(layers, 'SYSTEM.md', problems, clean),
    soul: readIdentity(layers, 'SOUL.md', problems, clean),
    agent: readIdentity(layers, 'AGENT.md', problems, clean),
  };
  const rules = await readRules(options, problems, clean);
  const skills = bundleSkills(layers, problems, clean);
  const knowledge = bundleKnowledge(layers, problems, clean);
  const memorySeed = {
    memory: await readMemorySeed(join(profileHome(layers), 'MEMORY.md'), problems, clean),
    user: await readMemorySeed(join(profileHome(layers), 'USER.md'), problems, clean),
  };

  const content = {
    identity: withoutUndefined(identity),
    rules: { text: rules.text, files: rules.files.map((file) => labelPath(file, roots)) },
    skills,
    knowledge,
    knowledgeInjection: selectKnowledgeForInjection(knowledge.map((document) => ({ ...document, path: document.name }))).text,
    memorySeed: withoutUndefined(memorySeed),
    problems: problems.map((problem) => ({ ...problem, file: labelPath(problem.file, roots) })),
  };
  const hash = createHash('sha256').update(JSON.stringify(content)).digest('hex');
  return { bundle: { format: bundleFormat, profile: options.profile, hash, ...content }, problems };
}

type Clean = (file: string, text: string) => boolean;

/** SYSTEM.md, SOUL.md or AGENT.md from the highest layer that has a readable, clean one. */
function readIdentity(layers: ResourceLayers, name: string, problems: ResourceProblem[], clean: Clean): NamedText | undefined {
  for (const folder of fileLayers(layers)) {
    const path = join(folder.path, name);
    if (!existsSync(path)) continue;
    const read = readTextFile(path, { maxBytes: identityCap });
    if ('problem' in read) {
      problems.push(read.problem);
      continue;
    }
    if (!clean(path, read.text)) continue;
    return { label: name, text: read.text };
  }
  return undefined;
}

/** The rules as the prompt appends them; all are left out when one of their files carries a secret. */
async function readRules(options: BuildBundleOptions, problems: ResourceProblem[], clean: Clean): Promise<{ text: string; files: string[] }> {
  const rules = await createRulesLoader({ cwd: options.cwd, home: options.home }).get();
  problems.push(...rules.problems);
  for (const file of rules.files) {
    const read = readTextFile(file, { maxBytes: maxRulesFileBytes });
    // The joined text cannot be split back into its files safely: one bad file keeps all of them out.
    if (!('problem' in read) && !clean(file, read.text)) return { text: '', files: [] };
  }
  return { text: rules.text, files: rules.files };
}

/** Every loadable, clean skill with what the `skill` tool shows of it. */
function bundleSkills(layers: ResourceLayers, problems: ResourceProblem[], clean: Clean): BundledSkill[] {
  const loaded = loadSkills(layers);
  problems.push(...loaded.problems);
  const bundled: BundledSkill[] = [];
  for (const skill of loaded.skills) {
    const content = readSkillContent(skill);
    if ('problem' in content) {
      problems.push(content.problem);
      continue;
    }
    problems.push(...content.problems);
    if (!skillIsClean(skill, content.references, clean)) continue;
    const location = `skills/${skill.name}/SKILL.md`;
    // Labels for paths, and no scripts or assets: the Worker has neither the folder nor a shell.
    const labelled: Skill = { ...skill, location, directory: `skills/${skill.name}` };
    const text = formatSkill(labelled, { ...content, scripts: [], assets: [], cutListings: [], problems: [] });
    bundled.push({
      name: skill.name,
      description: skill.description,
      userInvocable: skill.userInvocable,
      disableModelInvocation: skill.disableModelInvocation,
      source: skill.source,
      location,
      text,
    });
  }
  return bundled;
}

/** Whether SKILL.md (the whole file, so lines match) and every included reference are clean. */
function skillIsClean(skill: Skill, references: readonly { path: string; text: string }[], clean: Clean): boolean {
  const read = readTextFile(skill.location, { maxBytes: identityCap });
  if (!('problem' in read) && !clean(skill.location, read.text)) return false;
  return references.every((reference) => clean(join(skill.directory, reference.path), reference.text));
}

/** Every loadable, clean knowledge document. */
function bundleKnowledge(layers: ResourceLayers, problems: ResourceProblem[], clean: Clean): BundledKnowledge[] {
  const loaded = loadKnowledge(layers);
  problems.push(...loaded.problems);
  return loaded.documents
    .filter((document) => clean(document.path, document.text))
    .map((document) => ({ name: document.name, title: document.title, text: document.text, source: document.source }));
}

/** A memory file's text (read as the memory tool reads it), when it has any and is clean. */
async function readMemorySeed(path: string, problems: ResourceProblem[], clean: Clean): Promise<string | undefined> {
  let text: string;
  try {
    text = await fileMemoryStorage.read(path);
  } catch (error) {
    problems.push({ file: path, message: readErrorMessage(error) });
    return undefined;
  }
  return text.trim() !== '' && clean(path, text) ? text : undefined;
}

/** `value` without its undefined members, so the JSON (and with it the hash) does not depend on them. */
function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, member]) => member !== undefined)) as T;
}
