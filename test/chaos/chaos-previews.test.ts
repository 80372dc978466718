import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createInbox } from '../../src/gateway/inbox.ts';
import { createStoreFromEnv } from '../../src/store/from-env.ts';
import { judgePreview, notedPreviews } from './chaos-previews.ts';
import { ProcessCpu, processCpuMs } from './process-cpu.ts';

const preview = { text: 'Answer to m1-c1: this …', edits: 0, createdAt: 10_000, answeredAt: 10_010, connectedAt: 9_500, noteKey: '42:7' };
/** Calls at `times` on a connection the process that sent the preview opened. */
const calls = (...times: number[]) => times.map((at) => ({ at, connectedAt: 9_500 }));
const none = new Set<string>();

describe('judging a preview a chaos run left unfinished', () => {
  it('is a fault when the gateway noted its id, however close to the kill', () => {
    expect(judgePreview(preview, { killTimes: [10_020], noted: new Set(['42:7']), callTimes: calls(), windowMs: 100 })).toMatchObject({ orphaned: false });
  });

  it('is orphaned when the process made no call after the answer went out', () => {
    expect(judgePreview(preview, { killTimes: [12_000], noted: none, callTimes: calls(9_000, 10_000), windowMs: 100 })).toMatchObject({ orphaned: true, gapMs: 2_000 });
  });

  it('is orphaned when the platform never answered before the kill', () => {
    expect(judgePreview({ ...preview, answeredAt: undefined }, { killTimes: [10_500], noted: none, callTimes: calls(10_100, 10_200, 10_300), windowMs: 100 })).toMatchObject({ orphaned: true });
  });

  it('is a fault when the process ran on after the answer and never noted it', () => {
    const verdict = judgePreview(preview, { killTimes: [10_500], noted: none, callTimes: calls(10_050, 10_120, 10_400), windowMs: 100 });
    expect(verdict).toMatchObject({ orphaned: false });
    expect(verdict.note).toContain('3 calls over 350 ms');
  });

  it('is orphaned when the process had too little CPU after the answer, however the calls were spread', () => {
    // A saturated machine: the fake, starved too, takes calls written before the answer one by one after it.
    const evidence = { killTimes: [10_500], noted: none, callTimes: calls(10_050, 10_120, 10_400), windowMs: 100 };
    const starved = judgePreview(preview, { ...evidence, cpuUsed: () => 40 });
    expect(starved).toMatchObject({ orphaned: true });
    expect(starved.note).toContain('3 calls over 350 ms and 40 ms of its CPU');
    expect(judgePreview(preview, { ...evidence, cpuUsed: () => 180 })).toMatchObject({ orphaned: false });
    // Where nothing was sampled, the calls decide alone.
    expect(judgePreview(preview, { ...evidence, cpuUsed: () => undefined })).toMatchObject({ orphaned: false });
  });

  it('asks for the CPU between the answer and the kill of the process that sent it', () => {
    const asked: [number, number][] = [];
    judgePreview(preview, { killTimes: [9_000, 10_500, 12_000], noted: none, callTimes: calls(10_050, 10_120, 10_400), windowMs: 100, cpuUsed: (from, to) => (asked.push([from, to]), 500) });
    expect(asked).toEqual([[10_010, 10_500]]);
  });

  it('is orphaned when the calls after the answer came in one burst', () => {
    expect(judgePreview(preview, { killTimes: [10_500], noted: none, callTimes: calls(10_050, 10_051, 10_052, 10_060), windowMs: 100 })).toMatchObject({ orphaned: true });
  });

  it('is orphaned when the platform took it after the kill of the process that sent it', () => {
    // The next kill is 3 s later, and the next process calls all the while: not the sender.
    const verdict = judgePreview(preview, { killTimes: [9_990, 13_000], noted: none, callTimes: [...calls(9_900), ...[10_100, 11_000, 12_000].map((at) => ({ at, connectedAt: 10_050 }))], windowMs: 100 });
    expect(verdict).toMatchObject({ orphaned: true, gapMs: -10 });
    expect(verdict.note).toBe('taken 10 ms after its process was killed');
  });

  it('counts only the calls of the process that sent it', () => {
    // Taken late by the platform, from the process killed before this one.
    const earlier = [10_050, 10_120, 10_300].map((at) => ({ at, connectedAt: 8_000 }));
    const evidence = { killTimes: [9_000, 11_000], noted: none, windowMs: 100 };
    expect(judgePreview(preview, { ...evidence, callTimes: earlier })).toMatchObject({ orphaned: true });
    expect(judgePreview(preview, { ...evidence, callTimes: [...earlier, ...calls(10_050, 10_120, 10_400)] })).toMatchObject({ orphaned: false });
  });

  it('is a fault when no kill came after it', () => {
    expect(judgePreview(preview, { killTimes: [9_000], noted: none, callTimes: calls(), windowMs: 100 })).toMatchObject({ orphaned: false, note: 'left after the last kill' });
  });

  it('falls back to the window where the platform tells no times', () => {
    const evidence = { killTimes: [10_080], noted: none, windowMs: 100 };
    expect(judgePreview(preview, evidence)).toMatchObject({ orphaned: true });
    expect(judgePreview(preview, { ...evidence, killTimes: [10_300] })).toMatchObject({ orphaned: false });
  });
});

describe("a process's CPU time, from /proc", () => {
  it('grows while the process works, and a window before any sample is unknown', async () => {
    const cpu = new ProcessCpu(1);
    expect(cpu.usedBetween(0, Date.now())).toBeUndefined();
    const from = Date.now();
    cpu.follow(process.pid);
    const before = processCpuMs(process.pid)!;
    while (processCpuMs(process.pid)! < before + 60) Math.sqrt(Math.random());
    cpu.sample();
    const to = Date.now();
    cpu.stop();
    expect(cpu.usedBetween(from, to)).toBeGreaterThanOrEqual(50);
    // Only the samples inside the window count: none there is none known used.
    expect(cpu.usedBetween(to + 1, to + 1_000)).toBe(0);
  });

  it('is unknown for a process that is gone', () => {
    expect(processCpuMs(2 ** 22 + 12_345)).toBeUndefined();
  });
});

describe('the preview ids a gateway noted', () => {
  const home = mkdtempSync(join(tmpdir(), 'operator-chaos-noted-'));
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  it('are read from its inbox, also for messages answered since', async () => {
    const store = createStoreFromEnv({ OPERATOR_HOME: home });
    const inbox = createInbox(store);
    const message = (id: string) => ({ id, dedupeKey: `telegram:update:${id}`, sessionKey: 'telegram:dm:42', address: { platform: 'telegram', conversationId: '42' }, scope: 'dm' as const, sender: { id: '42' }, text: 'hi', attachments: [], mentioned: true, receivedAt: 1, raw: undefined });
    await inbox.add(message('1'), 'hi');
    await inbox.add(message('2'), 'hi');
    await inbox.notePreview('telegram:update:1', '7');
    await inbox.done('telegram:update:1');
    await store.close();
    expect(await notedPreviews(home)).toEqual(new Set(['42:7']));
  });
});
