/**
 * Pairing codes: 8 characters from an alphabet without look-alikes (no 0/O, no 1/I), so a code
 * read aloud or copied by hand arrives intact. 32 symbols: 40 bits per code.
 */
import { randomBytes } from 'node:crypto';

/** The symbols of a pairing code. */
export const pairingAlphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

/** Characters in a pairing code. */
export const pairingCodeLength = 8;

const codePattern = new RegExp(`^[${pairingAlphabet}]{${pairingCodeLength}}$`);

/** A new random pairing code, e.g. `K7QM2XPA`. */
export function generatePairingCode(): string {
  // 256 is a multiple of 32, so `byte % 32` is uniform.
  return [...randomBytes(pairingCodeLength)].map((byte) => pairingAlphabet[byte % pairingAlphabet.length]).join('');
}

/**
 * The code a person typed, normalised (upper case, spaces and dashes removed), or `undefined`
 * when it cannot be a pairing code.
 */
export function normalizePairingCode(text: string): string | undefined {
  const code = text.toUpperCase().replace(/[\s-]/g, '');
  return codePattern.test(code) ? code : undefined;
}
