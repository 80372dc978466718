import { describe, expect, it } from 'vitest';
import { memoryHeader } from '../../src/memory/index.ts';

describe('memoryHeader', () => {
  it('shows percent, used and limit with thousands separators', () => {
    expect(memoryHeader('MEMORY', 1474, 2200)).toBe('MEMORY [67% - 1,474/2,200 chars]');
    expect(memoryHeader('USER', 0, 1375)).toBe('USER [0% - 0/1,375 chars]');
    expect(memoryHeader('USER', 1375, 1375)).toBe('USER [100% - 1,375/1,375 chars]');
    expect(memoryHeader('MEMORY', 1234567, 2000000)).toBe('MEMORY [62% - 1,234,567/2,000,000 chars]');
  });

  it('rounds the percentage half up', () => {
    expect(memoryHeader('MEMORY', 1, 200)).toBe('MEMORY [1% - 1/200 chars]');
    expect(memoryHeader('MEMORY', 1, 300)).toBe('MEMORY [0% - 1/300 chars]');
  });
});
