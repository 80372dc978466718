/**
 * The `yaml` package, loaded the first time a file needs it. Most frontmatter is plain
 * `key: value` lines, which `frontmatter.ts` reads itself, and a default installation has no
 * guardrail files: the parser (about 170 KB of code, some 20 ms of a start) would otherwise load
 * with every gateway and never run. Loaded with `require` (the package ships CommonJS for Node),
 * so the callers stay synchronous; the build leaves it in node_modules for that reason.
 */
import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';

let library: typeof Yaml | undefined;

/** The `yaml` module, loaded once. */
export function yamlLibrary(): typeof Yaml {
  return (library ??= createRequire(import.meta.url)('yaml') as typeof Yaml);
}
