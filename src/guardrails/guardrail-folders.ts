/** Where guardrail files are looked for. */
import path from 'node:path';
import { folderLayers } from '../resources/layers.ts';
import type { LayerFolder, ResourceLayers } from '../resources/layers.ts';

/**
 * The guardrail folders of a profile, highest precedence first: the profile's, OPERATOR_HOME's,
 * the built-in profile's, the repository's `guardrails/`, and last the project's
 * `<cwd>/.operator/guardrails`. The project comes last on purpose: a checked-out repository may
 * add guardrails but never replace a person's (or a shipped) guardrail by reusing its name.
 */
export function guardrailFolders(layers: ResourceLayers, cwd: string): LayerFolder[] {
  return [...folderLayers(layers, 'guardrails'), { path: path.join(cwd, '.operator', 'guardrails'), source: 'project' }];
}
