import { appendFileSync, existsSync, readFileSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readRecords } from '../../src/store/file-log.ts';
import { OpenLogs, type WriteFunction } from '../../src/store/open-logs.ts';
import { canCountOpenFiles, openFilesUnder } from './open-files.ts';

const folders: string[] = [];
afterAll(async () => {
  await Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true })));
});

describe('OpenLogs', () => {
  let base: string;
  let logs: OpenLogs;
  beforeEach(async () => {
    base = await mkdtemp(join(tmpdir(), 'operator-open-logs-'));
    folders.push(base);
    logs = new OpenLogs();
  });
  afterEach(() => {
    logs.close();
  });

  it('appends many records to one log, read back in order, through one open file', async () => {
    const path = join(base, 'sessions', 'many');
    const records = Array.from({ length: 1_000 }, (_, index) => JSON.stringify({ index }));
    for (const record of records) logs.append(path, record);
    expect(await readRecords(path)).toEqual(records);
    expect(logs.size).toBe(1);
  });

  it('lets a read right after an append see the record', async () => {
    const path = join(base, 'sessions', 'read-after');
    for (let index = 0; index < 20; index++) {
      logs.append(path, `record ${index}`);
      expect((await readRecords(path)).at(-1)).toBe(`record ${index}`);
      expect(readFileSync(path, 'utf8').endsWith(`record ${index}\n`)).toBe(true);
    }
  });

  it('lands every append to more logs than it keeps open, closing the least recently used', async () => {
    logs = new OpenLogs({ capacity: 4 });
    const paths = Array.from({ length: 10 }, (_, index) => join(base, 'logs', `log-${index}`));
    for (let round = 0; round < 5; round++) {
      for (const [index, path] of paths.entries()) logs.append(path, `log ${index} round ${round}`);
    }
    expect(logs.size).toBe(4);
    if (canCountOpenFiles) expect(openFilesUnder(base)).toBe(4);
    for (const [index, path] of paths.entries()) {
      expect(await readRecords(path)).toEqual([0, 1, 2, 3, 4].map((round) => `log ${index} round ${round}`));
    }
  });

  it('starts the first record on a fresh line when the file ends in a torn line', async () => {
    const path = join(base, 'torn-before-open');
    writeFileSync(path, '{"n":1}\n{"n":2,"te');
    logs.append(path, '{"n":3}');
    logs.append(path, '{"n":4}');
    expect(readFileSync(path, 'utf8')).toBe('{"n":1}\n{"n":2,"te\n{"n":3}\n{"n":4}\n');
    expect(await readRecords(path)).toEqual(['{"n":1}', '{"n":2,"te', '{"n":3}', '{"n":4}']);
  });

  it('repairs a torn line left while the log was closed to make room for another', async () => {
    logs = new OpenLogs({ capacity: 1 });
    const path = join(base, 'torn-after-eviction');
    logs.append(path, '{"n":1}');
    logs.append(join(base, 'other'), 'evicts the first');
    appendFileSync(path, '{"n":2,"te');
    logs.append(path, '{"n":3}');
    expect(await readRecords(path)).toEqual(['{"n":1}', '{"n":2,"te', '{"n":3}']);
  });

  it('repairs a torn line written by someone else while the log is open', async () => {
    const path = join(base, 'torn-while-open');
    logs.append(path, '{"n":1}');
    appendFileSync(path, '{"n":2,"te');
    logs.append(path, '{"n":3}');
    expect(await readRecords(path)).toEqual(['{"n":1}', '{"n":2,"te', '{"n":3}']);
  });

  it('does not start a fresh line when someone else appended whole lines', async () => {
    const path = join(base, 'shared');
    logs.append(path, 'ours 1');
    appendFileSync(path, 'theirs\n');
    logs.append(path, 'ours 2');
    expect(readFileSync(path, 'utf8')).toBe('ours 1\ntheirs\nours 2\n');
  });

  it('recreates a log file removed from outside while it is open', async () => {
    const path = join(base, 'sessions', 'removed');
    logs.append(path, 'before');
    rmSync(join(base, 'sessions'), { recursive: true });
    logs.append(path, 'after');
    expect(await readRecords(path)).toEqual(['after']);
    expect(logs.size).toBe(1);
    // The descriptor of the deleted file was closed, not leaked.
    if (canCountOpenFiles) expect(openFilesUnder(base)).toBe(1);
  });

  it('appends to the new file when the log was replaced by a rename', async () => {
    const path = join(base, 'replaced');
    logs.append(path, 'old');
    writeFileSync(`${path}.new`, 'new\n');
    renameSync(`${path}.new`, path);
    logs.append(path, 'appended');
    expect(await readRecords(path)).toEqual(['new', 'appended']);
  });

  it('closes and removes a log, which then starts afresh', async () => {
    const path = join(base, 'removed-log');
    logs.append(path, 'old');
    await logs.remove(path);
    expect(logs.size).toBe(0);
    expect(existsSync(path)).toBe(false);
    if (canCountOpenFiles) expect(openFilesUnder(base)).toBe(0);
    logs.append(path, 'new');
    expect(await readRecords(path)).toEqual(['new']);
    await expect(logs.remove(join(base, 'never'))).resolves.toBeUndefined();
  });

  it('closes every open log on close, and opens them again on the next append', async () => {
    for (let index = 0; index < 5; index++) logs.append(join(base, `log-${index}`), 'x');
    expect(logs.size).toBe(5);
    if (canCountOpenFiles) expect(openFilesUnder(base)).toBe(5);
    logs.close();
    expect(logs.size).toBe(0);
    if (canCountOpenFiles) expect(openFilesUnder(base)).toBe(0);
    logs.append(join(base, 'log-0'), 'y');
    expect(await readRecords(join(base, 'log-0'))).toEqual(['x', 'y']);
  });

  it('cuts off the part of a record a failing write left, closes the log, and appends again', async () => {
    let failNext = false;
    const write: WriteFunction = (fd, buffer, offset, length) => {
      if (!failNext) return writeSync(fd, buffer, offset, length);
      failNext = false;
      // Half the record reaches the disk, then the disk is full.
      writeSync(fd, buffer, offset, Math.floor(length / 2));
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    };
    logs = new OpenLogs({ write });
    const path = join(base, 'failing');
    logs.append(path, '{"n":1}');
    failNext = true;
    expect(() => logs.append(path, '{"n":2,"long":true}')).toThrow(/ENOSPC/);
    expect(logs.size).toBe(0);
    if (canCountOpenFiles) expect(openFilesUnder(base)).toBe(0);
    expect(readFileSync(path, 'utf8')).toBe('{"n":1}\n');
    logs.append(path, '{"n":3}');
    logs.append(path, '{"n":4}');
    expect(await readRecords(path)).toEqual(['{"n":1}', '{"n":3}', '{"n":4}']);
  });

  it('leaves what another process appended after a write that failed midway', async () => {
    let failNext = false;
    const write: WriteFunction = (fd, buffer, offset, length) => {
      if (!failNext) return writeSync(fd, buffer, offset, length);
      failNext = false;
      // Another process's record lands first; then the disk is full.
      appendFileSync(path, 'theirs\n');
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    };
    logs = new OpenLogs({ write });
    const path = join(base, 'shared-failing');
    logs.append(path, 'ours 1');
    failNext = true;
    expect(() => logs.append(path, 'ours 2')).toThrow(/ENOSPC/);
    expect(readFileSync(path, 'utf8')).toBe('ours 1\ntheirs\n');
  });

  it('keeps working after an append whose open failed', async () => {
    const path = join(base, 'folder', 'log');
    logs.append(path, 'first');
    rmSync(join(base, 'folder'), { recursive: true });
    writeFileSync(join(base, 'folder'), 'a file where the folder was');
    expect(() => logs.append(path, 'lost')).toThrow(/ENOTDIR/);
    expect(logs.size).toBe(0);
    rmSync(join(base, 'folder'));
    logs.append(path, 'second');
    expect(await readRecords(path)).toEqual(['second']);
  });

  it('refuses a capacity that is not a positive integer', () => {
    for (const capacity of [0, -1, 1.5, Number.NaN]) expect(() => new OpenLogs({ capacity })).toThrow(RangeError);
  });
});
