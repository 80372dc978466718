/**
 * What operator loads from resource folders (built-in, OPERATOR_HOME, profile) and how it reports
 * what it could not load. Loading never throws for a bad file: the file is skipped and a
 * {@link ResourceProblem} says which file, where and why.
 */

/** Where a resource came from, highest precedence first. */
export type ResourceSource = 'profile' | 'home' | 'builtin-profile' | 'builtin' | 'project';

/** A file that could not be (fully) loaded. */
export interface ResourceProblem {
  /** Absolute path of the file (or folder). */
  file: string;
  /** 1-based line, when the problem has one (e.g. a YAML error). */
  line?: number;
  message: string;
}

/** A skill: a folder with a SKILL.md. */
export interface Skill {
  /** Equals the folder name: `[a-z0-9-]`, at most 64 characters. */
  name: string;
  /** At most 1,024 characters. */
  description: string;
  /** Absolute path of SKILL.md. */
  location: string;
  /** Absolute path of the skill's folder. */
  directory: string;
  /** Exposes `/name` in chat. */
  userInvocable: boolean;
  /** Hidden from the model's skill list (still loadable by a person's `/name`). */
  disableModelInvocation: boolean;
  source: ResourceSource;
}

/** A knowledge document (Markdown). */
export interface KnowledgeDocument {
  /** Path relative to its knowledge folder, e.g. `deploy/runbook.md`; the override key. */
  name: string;
  /** Absolute path. */
  path: string;
  /** First heading, or the file name. */
  title: string;
  text: string;
  source: ResourceSource;
}
