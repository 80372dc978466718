/**
 * `operator doctor`'s Node.js line: the running version against package.json's `engines` (the
 * versions the suite runs on) and against its release line's end of life, on given days.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkNodeVersion, judgeNodeVersion, parseEnginesRange } from '../../src/cli/doctor/node-version.ts';

const tested = '^20.19.0 || ^24.11.0';

describe("doctor's Node.js check", () => {
  it('passes a tested version whose line is supported, saying until when', () => {
    expect(judgeNodeVersion('v24.21.0', tested, '2026-11-30')).toEqual({ level: 'OK', name: 'Node.js', detail: `v24.21.0 (tested: ${tested}, supported until 2028-04-30)` });
    expect(judgeNodeVersion('v20.19.0', tested, '2026-04-29')).toEqual({ level: 'OK', name: 'Node.js', detail: `v20.19.0 (tested: ${tested}, supported until 2026-04-30)` });
  });

  it('warns from the day a line reaches its end of life, tested or not, and names the line to move to', () => {
    const warning = { level: 'WARN', name: 'Node.js', fix: 'install Node.js 24 (supported until 2028-04-30)' };
    expect(judgeNodeVersion('v20.20.2', tested, '2026-04-30')).toEqual({ ...warning, detail: 'v20.20.2 is past its end of life (2026-04-30): Node.js 20 gets no more security fixes' });
    expect(judgeNodeVersion('v20.20.2', tested, '2026-11-30').level).toBe('WARN');
    expect(judgeNodeVersion('v22.12.0', tested, '2027-05-01')).toEqual({ ...warning, detail: 'v22.12.0 is past its end of life (2027-04-30): Node.js 22 gets no more security fixes' });
    expect(judgeNodeVersion('v24.21.0', tested, '2028-04-30').detail).toBe('v24.21.0 is past its end of life (2028-04-30): Node.js 24 gets no more security fixes');
    // Odd lines are never LTS and end early.
    expect(judgeNodeVersion('v25.2.0', tested, '2026-11-30').detail).toBe('v25.2.0 is past its end of life (2026-06-01): Node.js 25 gets no more security fixes');
  });

  it('warns of a supported version the suite does not run on', () => {
    expect(judgeNodeVersion('v22.12.0', tested, '2026-11-30')).toEqual({ level: 'WARN', name: 'Node.js', detail: `v22.12.0 is not a version operator is tested on (${tested})`, fix: 'install Node.js 24 (supported until 2028-04-30)' });
    // A line newer than the table: not known to be past its end, and not tested.
    expect(judgeNodeVersion('v26.1.0', tested, '2026-11-30').detail).toBe(`v26.1.0 is not a version operator is tested on (${tested})`);
    expect(judgeNodeVersion('v24.10.0', tested, '2026-11-30')).toEqual({ level: 'WARN', name: 'Node.js', detail: `v24.10.0 is not a version operator is tested on (${tested})`, fix: 'update Node.js 24 to 24.11.0 or newer' });
  });

  it('fails a version below every tested one', () => {
    expect(judgeNodeVersion('v20.18.3', tested, '2026-01-10')).toEqual({ level: 'FAIL', name: 'Node.js', detail: `v20.18.3 is too old (tested: ${tested})`, fix: 'install Node.js 24 (supported until 2028-04-30)' });
    expect(judgeNodeVersion('v18.20.0', '>=20.19', '2026-11-30').level).toBe('FAIL');
  });

  it('reads >= and ^ ranges joined by ||, and says so when it cannot read one', () => {
    expect(parseEnginesRange('>=20.19')).toEqual([{ lowest: [20, 19, 0] }]);
    expect(parseEnginesRange(tested)).toEqual([{ lowest: [20, 19, 0], below: [21, 0, 0] }, { lowest: [24, 11, 0], below: [25, 0, 0] }]);
    expect(parseEnginesRange('20.x')).toBeUndefined();
    expect(judgeNodeVersion('v24.21.0', '~24.21', '2026-11-30')).toEqual({ level: 'WARN', name: 'Node.js', detail: 'v24.21.0; cannot compare with the tested "~24.21"', fix: 'make sure it satisfies "~24.21"' });
    expect(judgeNodeVersion('v24.21.0', undefined, '2026-11-30').detail).toBe('v24.21.0 (package.json names no tested version, supported until 2028-04-30)');
  });

  it("judges with package.json's own engines, which name the tested lines 20 and 24", async () => {
    const engines = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { engines: { node: string } }).engines.node;
    expect(engines).toBe(tested);
    expect(await checkNodeVersion('v24.21.0', new Date('2026-11-30T12:00:00Z'))).toEqual(judgeNodeVersion('v24.21.0', tested, '2026-11-30'));
    expect((await checkNodeVersion('v23.0.0', new Date('2024-12-01T00:00:00Z'))).level).toBe('WARN');
  });
});
