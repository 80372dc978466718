// A rolldown plugin for bin/build.js: node-fetch's `url` module is src/core/node-fetch-url.ts in
// the bundle. node-fetch 2 reads every request's address with url.parse(), which Node 24
// deprecates with a DeprecationWarning when code outside node_modules calls it, as the bundle does.
import { fileURLToPath } from 'node:url';

const replacement = fileURLToPath(new URL('../src/core/node-fetch-url.ts', import.meta.url));

/** @returns {import('rolldown').Plugin} */
export function nodeFetchUrlPlugin() {
  return {
    name: 'node-fetch-url',
    resolveId(source, importer) {
      return /^(node:)?url$/.test(source) && importer !== undefined && /[/\\]node_modules[/\\]node-fetch[/\\]/.test(importer) ? replacement : null;
    },
  };
}
