/** A new job's own arguments: the prompt, name, missed policy and, for a pipeline job, the pipeline's name. */
import { describe, expect, it } from 'vitest';
import { checkNewJob, type NewJob } from '../../../src/gateway/scheduler/new-job.ts';
import { leastSeat } from '../../../src/tools/turn-seat.ts';

const base: NewJob = { prompt: ' Publish the notes ', target: { sessionKey: 'telegram:dm:1', address: { platform: 'telegram', conversationId: '1' }, scope: 'dm' }, profile: 'default', seat: leastSeat, delay_seconds: 60 };

describe('a new job', () => {
  it('keeps a pipeline name, trimmed, and refuses one that is not a name', () => {
    expect(checkNewJob({ ...base, pipeline: ' task ' })).toEqual({ prompt: 'Publish the notes', name: undefined, missed: 'run_once', pipeline: 'task' });
    expect(checkNewJob(base).pipeline).toBeUndefined();
    expect(() => checkNewJob({ ...base, pipeline: '../task' })).toThrow(`pipeline must be a pipeline's name (letters, digits, - and _), got "../task"`);
  });
});
