/**
 * Telling file kinds apart by their first bytes rather than their names: the file worker's own
 * module (`files/worker/file-kind.js`), so the worker and the gateway judge files alike.
 */
export { imageMediaType, looksBinary, sniffLength } from '../files/worker/file-kind.js';
