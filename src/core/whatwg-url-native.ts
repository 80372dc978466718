/**
 * What the bundle gives node-fetch for `whatwg-url` (see bin/build.js): Node's own WHATWG `URL`.
 * node-fetch 2 takes `url.URL` whenever Node has it, and imports `whatwg-url` only for runtimes
 * without it, which made every gateway parse and run that package and its Unicode tables (about 50
 * ms of CPU) for nothing.
 */
export default { URL: globalThis.URL };
