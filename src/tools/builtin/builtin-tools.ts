/** The whole set of built-in tools. */
import type { Tool } from '../tool.ts';
import { createApplyPatchTool } from './apply-patch.ts';
import { createEditFileTool } from './edit-file.ts';
import { createGlobTool } from './glob.ts';
import { createGrepTool } from './grep.ts';
import { createListDirTool } from './list-dir.ts';
import type { BuiltinToolOptions } from './paths.ts';
import { createReadFileTool } from './read-file.ts';
import { createShellTool } from './shell.ts';
import { defaultToolProfile, type ToolProfile } from './tool-profile.ts';
import { createWriteFileTool } from './write-file.ts';

/**
 * Creates every built-in tool: read_file, write_file, edit_file, apply_patch, shell, grep, glob
 * and list_dir. Each resolves relative paths against the call's `context.cwd`; `shell` runs
 * commands through `options.sandbox`. `options.profile` (see `tool-profile.ts`) fits them to the
 * model's provider: the shell's default time limit and hints in the descriptions.
 *
 * @example
 * const tools = createBuiltinTools({ cwd: profileTempDirectory, sandbox: createSandbox(settings, { hidden: [home], env }) });
 */
export function createBuiltinTools(options: BuiltinToolOptions & { profile?: ToolProfile } = {}): Tool[] {
  const profile = options.profile ?? defaultToolProfile;
  const tools: Tool[] = [
    createReadFileTool(options),
    createWriteFileTool(options),
    createEditFileTool(options),
    createApplyPatchTool(options),
    createShellTool({ ...options, defaultTimeoutMs: profile.shellTimeoutMs }),
    createGrepTool(options),
    createGlobTool(options),
    createListDirTool(options),
  ];
  return tools.map((tool) => {
    const hint = Object.hasOwn(profile.hints, tool.name) ? profile.hints[tool.name] : undefined;
    return hint === undefined ? tool : { ...tool, description: `${tool.description} ${hint}` };
  });
}
