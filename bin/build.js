// Builds dist/: the TypeScript sources bundled by rolldown into a few ES modules. Everything a
// gateway start reaches through static imports, from the start command to the agent and the
// Telegram adapter, is one chunk (`chunks/start-*.js`); the rest is split at its dynamic imports
// (the browser, the desktop, another platform's adapter, a CLI command load only when used).
// Node's module loader charges every file it resolves, reads and links: a start read 123 files
// cut by esbuild at its 40 dynamic imports, and reads seven now, with about 55 ms less CPU before
// its first poll (bench/RESULTS.md, "2026-11-30, evening"); a command that reaches the gateway's
// code (`operator config`: 66 ms against 49) reads the start chunk too, and runs its modules. The
// chunk's modules run as it loads, in import order. Type-checking is `npm run typecheck`; this
// only translates. Writes the stamp dist/.built last, which bin/compiled.js compares with the
// sources. `--if-stale` builds only when that stamp is older than a source (`npm test` runs it
// first, so the processes its tests start run what is built).
import { rmSync, writeFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { fileURLToPath } from 'node:url';
import { rolldown } from 'rolldown';
import { compiledIsCurrent } from './compiled.js';
import { nodeFetchUrlPlugin } from './node-fetch-url-plugin.js';

const root = fileURLToPath(new URL('..', import.meta.url));
if (process.argv.includes('--if-stale') && compiledIsCurrent(root)) process.exit(0);
const sources = `${root}src/`;

/**
 * Packages bundled into dist/: pure JavaScript that every start or first turn loads, file by
 * file otherwise (the Anthropic SDK alone is 257 files). Every other dependency stays in
 * node_modules, imported as it is: native code (sharp), packages that start processes or threads
 * from their own files (playwright-core, pino, the language server, TypeScript, tsx), the Discord
 * and Slack SDKs (each keeps its own HTTP client, see src/channels/discord/own-agent.ts) and what
 * loads only on a rarer path (`yaml`, required when a file needs it: src/resources/yaml-library.ts).
 */
const bundled = new Set(['@anthropic-ai/sdk', 'openai', 'zod', 'hono', '@hono/node-server', 'croner', 'marked', 'mime-types', 'minisearch', 'picomatch', 'unstorage', 'grammy', 'diff', 'tinyglobby', 'mdream', '@ts-graphviz/ast', 'node-fetch']);

/** @param {string} path an import path @returns {boolean} whether it names a package not in {@link bundled} */
const leftInNodeModules = (path) => {
  const parts = path.split('/');
  return !bundled.has(path.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]);
};

/**
 * What a default gateway loads before its first answer, besides the command line's own entry:
 * the start command, the Telegram adapter, the agent's modules, a profile's resources, the
 * Anthropic provider and the HTTP transport (each an `import()` of the start's path). The start
 * chunk holds what these reach through static imports and the command line's entry does not.
 */
const startEntries = ['src/cli/start-command.ts', 'src/channels/telegram/telegram-channel.ts', 'src/runtime/agent-modules.ts', 'src/runtime/profile-resources.ts', 'src/llm/providers/anthropic.ts', 'src/llm/providers/idle-watch.ts', 'node_modules/node-fetch/lib/index.js'].map((path) => `${root}${path}`);

/** @type {Set<string>} */
const startModules = new Set();

/**
 * Fills {@link startModules} once the module graph is known: the static closure of
 * {@link startEntries} less that of the command line's entry (which `operator --help` loads).
 * @returns {import('rolldown').Plugin}
 */
function startChunk() {
  return {
    name: 'start-chunk',
    buildEnd() {
      /** @param {string[]} from @returns {Set<string>} */
      const closure = (from) => {
        const seen = new Set(from);
        const pending = [...from];
        for (let id = pending.pop(); id !== undefined; id = pending.pop()) {
          for (const next of this.getModuleInfo(id)?.importedIds ?? []) {
            if (!seen.has(next)) {
              seen.add(next);
              pending.push(next);
            }
          }
        }
        return seen;
      };
      const missing = startEntries.filter((entry) => !this.getModuleInfo(entry));
      if (missing.length > 0) this.error(`bin/build.js: start entries not in the bundle: ${missing.join(', ')}`);
      const command = closure([`${root}src/cli/main.ts`]);
      for (const id of closure(startEntries)) if (!command.has(id)) startModules.add(id);
    },
  };
}

rmSync(`${root}dist`, { recursive: true, force: true });
const bundle = await rolldown({
  cwd: root,
  // The command, the browser's modules as their own entries (a test loads them without the rest),
  // and the thread documents are read in (started by its path).
  input: {
    'cli/main': 'src/cli/main.ts',
    'browser/browser-pool': 'src/browser/browser-pool.ts',
    'browser/browser-settings': 'src/browser/browser-settings.ts',
    'browser/browser-tool': 'src/browser/browser-tool.ts',
    'gateway/files/document-thread': 'src/gateway/files/document-thread.ts',
  },
  platform: 'node',
  // An entry may export more than its module does (what its chunk shares with others).
  preserveEntrySignatures: 'allow-extension',
  transform: { target: 'node20.19' },
  // node-fetch imports whatwg-url and never uses it on Node, which has URL (src/core/whatwg-url-native.ts).
  resolve: { alias: { 'whatwg-url': `${root}src/core/whatwg-url-native.ts` } },
  // What operator's own code imports; a bundled package's own dependencies are bundled with it.
  external: (id, importer) => importer !== undefined && importer.startsWith(sources) && /^[^./]/.test(id) && !isBuiltin(id) && leftInNodeModules(id),
  // node-fetch's url.parse() calls, deprecated on Node 24, go to src/core/node-fetch-url.ts.
  plugins: [nodeFetchUrlPlugin(), startChunk()],
  logLevel: 'warn',
  onLog(level, log, handler) {
    // A module both imported and `import()`ed stays where the static import puts it, which is
    // what the start chunk wants; rolldown says so for each.
    if (log.code === 'INEFFECTIVE_DYNAMIC_IMPORT') return;
    handler(level, log);
  },
});
await bundle.write({
  dir: 'dist',
  format: 'es',
  // Non-ASCII escaped (\u2026 for …): one such character makes V8 keep the whole chunk's source,
  // held for as long as the process runs, as two bytes a character (1.6-3.4 MB more idle).
  charset: 'ascii',
  entryFileNames: '[name].js',
  chunkFileNames: 'chunks/[name]-[hash].js',
  sourcemap: true,
  minify: { compress: false, mangle: false, codegen: { removeWhitespace: true } },
  // The start chunk's modules all run as it loads, in import order (the agent's modules, the
  // model SDK and node-fetch too, which a start runs before its first poll anyway). Wrapping each
  // in a function run on first import (`strictExecutionOrder`) cost 30 ms of CPU more before the
  // first poll: V8 compiled each wrapper twice, pre-parsed with the chunk and again when called.
  // The set is closed under static imports but for the command line's own modules, which stay
  // out of it (and so out of what `operator --help` reads): their dependencies are not pulled in.
  codeSplitting: { groups: [{ name: 'start', test: (id) => startModules.has(id), includeDependenciesRecursively: false }] },
});
await bundle.close();
writeFileSync(`${root}dist/.built`, new Date().toISOString());
