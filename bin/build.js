// Builds dist/: the TypeScript sources bundled by esbuild into a few ES modules, the code a
// command loads split at its dynamic imports (the browser, the desktop, a platform's adapter load
// only when used). About 120 files to read and compile at a start instead of 1,000 is what makes the
// gateway start with half the CPU (bench/RESULTS.md, "The test suite's time"). Type-checking is
// `npm run typecheck`; this only translates. Writes the stamp dist/.built last, which
// bin/compiled.js compares with the sources. `--if-stale` builds only when that stamp is older
// than a source (`npm test` runs it first, so the processes its tests start run what is built).
import { rmSync, writeFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
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

rmSync(`${root}dist`, { recursive: true, force: true });
await build({
  absWorkingDir: root,
  // The command, the browser's modules as their own entries (a test loads them without the rest),
  // and the thread documents are read in (started by its path).
  entryPoints: ['src/cli/main.ts', 'src/browser/browser-pool.ts', 'src/browser/browser-settings.ts', 'src/browser/browser-tool.ts', 'src/gateway/files/document-thread.ts'],
  outbase: 'src',
  outdir: 'dist',
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  sourcemap: true,
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
  // node-fetch imports whatwg-url and never uses it on Node, which has URL (src/core/whatwg-url-native.ts).
  alias: { 'whatwg-url': './src/core/whatwg-url-native.ts' },
  plugins: [
    // node-fetch's url.parse() calls, deprecated on Node 24, go to src/core/node-fetch-url.ts.
    nodeFetchUrlPlugin(),
    {
      name: 'node-modules',
      setup(context) {
        // What operator's own code imports; a bundled package's own dependencies are bundled with it.
        context.onResolve({ filter: /^[^./]/ }, (args) => (args.importer.startsWith(sources) && !isBuiltin(args.path) && leftInNodeModules(args.path) ? { path: args.path, external: true } : undefined));
      },
    },
  ],
  // CommonJS code bundled into an ES module still calls require() (for Node's own modules).
  banner: { js: "import { createRequire as __operatorRequire } from 'node:module'; const require = __operatorRequire(import.meta.url);" },
});
writeFileSync(`${root}dist/.built`, new Date().toISOString());

