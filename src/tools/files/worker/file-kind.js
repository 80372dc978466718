// @ts-check
/**
 * Telling file kinds apart by their first bytes rather than their names. Plain JavaScript so the
 * file worker runs it on bare node in the sandbox; the gateway's own code imports the same module
 * (through `builtin/file-type.ts`).
 */

/** How many leading bytes {@link imageMediaType} and {@link looksBinary} want to see. */
export const sniffLength = 8192;

/**
 * The media type of a PNG, JPEG, GIF or WebP image, judged from its first bytes.
 * @param {Uint8Array} head
 * @returns {string | undefined}
 */
export function imageMediaType(head) {
  /** @param {number[]} bytes @param {number} [at] */
  const startsWith = (bytes, at = 0) => bytes.every((byte, index) => head[at + index] === byte);
  if (startsWith([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (startsWith([0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (startsWith([0x47, 0x49, 0x46, 0x38]) && (head[4] === 0x37 || head[4] === 0x39) && head[5] === 0x61) return 'image/gif';
  if (startsWith([0x52, 0x49, 0x46, 0x46]) && startsWith([0x57, 0x45, 0x42, 0x50], 8)) return 'image/webp';
  return undefined;
}

/**
 * Whether bytes look like a binary file: text files have no NUL bytes (the heuristic git uses too).
 * @param {Uint8Array} head
 */
export function looksBinary(head) {
  return head.includes(0);
}
