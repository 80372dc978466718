/**
 * What a load or reload of a profile's resources found, on Workers: the shape of Node's
 * `ReloadReport` (`src/runtime/profile-resources.ts`), so the gateway's `describeReload` words
 * both alike. Declared here rather than imported: that module pulls in the Node loaders, which
 * the Worker neither needs nor type-checks against.
 */
import type { ResourceProblem } from '../../resources/types.ts';
import type { ReadBundle } from './bundle-source.ts';

/** What was loaded, what changed since the last load, and what failed. */
export interface WorkerReloadReport {
  profile: string;
  /** `extensions` is always 0 on Workers; `rulesFiles` counts the files the uploaded rules came from. */
  loaded: { skills: number; knowledge: number; guardrails: number; extensions: number; rulesFiles: number };
  /** E.g. `skills: +deploy, -old, ~review`, one line per kind; empty on a first load. */
  changed: string[];
  /** Problems reading the bundle, then those the deploy reported (files left out, by label). */
  problems: ResourceProblem[];
}

/** The report of a read (nothing changed yet). */
export function reportOf(profile: string, read: ReadBundle, guardrails: number): WorkerReloadReport {
  const { bundle } = read;
  return {
    profile,
    loaded: { skills: bundle.skills.length, knowledge: bundle.knowledge.length, guardrails, extensions: 0, rulesFiles: bundle.rules.files.length },
    changed: [],
    problems: [...read.problems, ...bundle.problems],
  };
}
