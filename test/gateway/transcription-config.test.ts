/** `transcription` in operator.json: its defaults, and the values it refuses. */
import { describe, expect, it } from 'vitest';
import { operatorConfigSchema } from '../../src/gateway/config/schema.ts';

describe('transcription settings', () => {
  it('defaults to 600 seconds and 25 MB, and takes its own limits', () => {
    expect(operatorConfigSchema.parse({}).transcription).toEqual({ maxSeconds: 600, maxBytes: 25 * 1024 * 1024 });
    expect(operatorConfigSchema.parse({ transcription: { maxSeconds: 60 } }).transcription).toEqual({ maxSeconds: 60, maxBytes: 25 * 1024 * 1024 });
  });

  it('refuses limits that are not whole positive numbers, and unknown keys', () => {
    for (const transcription of [{ maxSeconds: 0 }, { maxSeconds: 1.5 }, { maxBytes: -1 }, { maxBytes: '25MB' }, { model: 'whisper-1' }]) {
      const parsed = operatorConfigSchema.safeParse({ transcription });
      expect(parsed.success, JSON.stringify(transcription)).toBe(false);
      expect(parsed.error!.issues[0]!.path[0]).toBe('transcription');
    }
  });
});
