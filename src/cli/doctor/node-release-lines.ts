/**
 * When Node.js release lines stop getting fixes, from Node.js's published release schedule as of
 * 2026-11-30. Only the lines operator may meet: older ones are below `engines` already. Odd lines
 * are never LTS and end about eight months after their release. Update the table when a new line
 * becomes LTS (and `newestLtsLine` with it).
 */

/** End of life (`YYYY-MM-DD`, the day support ends) by major version. */
const endOfLife: ReadonlyMap<number, string> = new Map([
  [20, '2026-04-30'],
  [21, '2024-06-01'],
  [22, '2027-04-30'],
  [23, '2025-06-01'],
  [24, '2028-04-30'],
  [25, '2026-06-01'],
]);

/** The LTS line doctor advises moving to: the newest one operator is tested on. */
export const newestLtsLine = { major: 24, endOfLife: endOfLife.get(24)! } as const;

/** The end of life of release line `major`, or undefined when the table does not know it. */
export function endOfLifeOf(major: number): string | undefined {
  return endOfLife.get(major);
}
