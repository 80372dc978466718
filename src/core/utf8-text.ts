/**
 * `bytes` as UTF-8 text, or undefined when they are not: decoded strictly, as any other encoding
 * would come out garbled; and a NUL, which no text file holds, marks a binary file that happens
 * to be valid UTF-8. Shared by the gateway's documents and the Worker's files.
 */
export function utf8Text(bytes: Uint8Array): string | undefined {
  if (bytes.includes(0)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return undefined;
  }
}
