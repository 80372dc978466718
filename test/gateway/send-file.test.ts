/**
 * The `send_file` tool and the outbox it fills, on the real filesystem: what the tool refuses
 * (and says why), what it queues, and how the outbox keeps, hands over and removes its copies.
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Outbox } from '../../src/gateway/files/outbox.ts';
import { createSendFileTool } from '../../src/gateway/files/send-file-tool.ts';
import type { ToolContext, ToolOutput, TurnContext } from '../../src/tools/tool.ts';
import { makeTempDir } from '../helpers/temp-dir.ts';
import { defaultFileAccess } from '../../src/tools/files/turn-files.ts';

const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
const turn: TurnContext = { sessionKey: 'telegram:dm:42', platform: 'telegram', senderId: '42', admin: false, scheduled: false };

async function setUp(options: { limit?: number; env?: NodeJS.ProcessEnv } = {}) {
  const root = await makeTempDir('operator-send-file-');
  const workspace = join(root, 'workspace');
  await mkdir(workspace);
  const outbox = new Outbox(join(root, 'outbox'));
  const tool = createSendFileTool({ outbox, maxFileBytes: (platform) => (platform === 'telegram' ? (options.limit ?? 1_000) : 0), env: options.env ?? {}, files: defaultFileAccess() });
  const run = async (args: { path: string; name?: string }, context: Partial<ToolContext> = {}): Promise<ToolOutput> => {
    const output = await tool.execute(args, { signal: new AbortController().signal, cwd: workspace, toolCallId: 't1', turn, ...context });
    return typeof output === 'string' ? { content: output } : output;
  };
  return { root, workspace, outbox, run };
}

describe('send_file', () => {
  it('copies the file into the outbox and queues it for the conversation\'s next reply', async () => {
    const { workspace, outbox, run } = await setUp();
    await writeFile(join(workspace, 'chart.bin'), png);
    await writeFile(join(workspace, 'notes.csv'), 'a,b\n1,2\n');
    expect((await run({ path: 'chart.bin', name: 'chart.png' })).content).toBe('chart.png (12 bytes, image/png) will be sent after your reply.');
    expect((await run({ path: join(workspace, 'notes.csv') })).content).toBe('notes.csv (8 bytes, text/csv) will be sent after your reply.');
    // The copy is what goes out, whatever happens to the workspace file meanwhile.
    await writeFile(join(workspace, 'notes.csv'), 'changed');
    const queued = outbox.take('telegram:dm:42');
    expect(queued.map((file) => [file.name, file.mediaType, file.size])).toEqual([
      ['chart.png', 'image/png', 12],
      ['notes.csv', 'text/csv', 8],
    ]);
    expect(await readFile(queued[1]!.path, 'utf8')).toBe('a,b\n1,2\n');
    expect(outbox.take('telegram:dm:42')).toEqual([]);
  });

  it('refuses, saying why: no chat, missing, a folder, empty, too large, a platform without files', async () => {
    const { workspace, outbox, run } = await setUp({ limit: 10 });
    await writeFile(join(workspace, 'big.txt'), 'x'.repeat(11));
    await writeFile(join(workspace, 'empty.txt'), '');
    const error = async (args: { path: string }, context: Partial<ToolContext> = {}) => {
      const output = await run(args, context);
      expect(output.isError).toBe(true);
      return output.content;
    };
    expect(await error({ path: 'big.txt' }, { turn: undefined })).toMatch(/works only in a chat conversation/);
    expect(await error({ path: 'nope.txt' })).toBe('Error: file not found: nope.txt');
    expect(await error({ path: '.' })).toMatch(/^Error: \. is a folder/);
    expect(await error({ path: 'empty.txt' })).toMatch(/is empty/);
    expect(await error({ path: 'big.txt' })).toBe('Error: big.txt is 11 bytes; telegram takes files up to 10 bytes');
    expect(await error({ path: 'big.txt' }, { turn: { ...turn, platform: 'web' } })).toMatch(/this chat \(web\) cannot receive files/);
    expect(outbox.take('telegram:dm:42')).toEqual([]);
  });

  it('refuses a file holding the value of a secret setting, even across read chunks', async () => {
    const token = '123456:AAF-secret-token-value';
    const { workspace, outbox, run } = await setUp({ limit: 10_000_000, env: { TELEGRAM_BOT_TOKEN: token } });
    // The token straddles the first 1 MiB chunk boundary.
    const bytes = Buffer.concat([Buffer.alloc(1024 * 1024 - 5, 'a'), Buffer.from(token), Buffer.from('tail')]);
    await writeFile(join(workspace, 'dump.txt'), bytes);
    const output = await run({ path: 'dump.txt' });
    expect(output).toMatchObject({ isError: true });
    expect(output.content).toMatch(/holds the value of one of this gateway's secret settings/);
    expect(JSON.stringify(output)).not.toContain(token);
    expect(outbox.take('telegram:dm:42')).toEqual([]);
  });

  it('takes at most ten files for one reply', async () => {
    const { workspace, run } = await setUp();
    await writeFile(join(workspace, 'a.txt'), 'a');
    for (let index = 0; index < 10; index++) expect((await run({ path: 'a.txt' })).isError).not.toBe(true);
    expect((await run({ path: 'a.txt' })).content).toMatch(/at most 10 files go with one reply/);
  });
});

describe('outbox', () => {
  it('removes the copies of sent files, and at start-up every copy no pending reply carries', async () => {
    const { root, workspace, outbox } = await setUp();
    await writeFile(join(workspace, 'a.txt'), 'a');
    const sent = await outbox.add('s1', join(workspace, 'a.txt'), { size: 1 });
    const pending = await outbox.add('s2', join(workspace, 'a.txt'), { size: 1 });
    const leftover = await outbox.add('s3', join(workspace, 'a.txt'), { size: 1 });
    await outbox.discard([sent]);
    expect(await readdir(join(root, 'outbox'))).toHaveLength(2);
    // A path outside the outbox is never removed, whatever an entry says.
    await outbox.discard([{ ...sent, path: join(workspace, 'a.txt') }]);
    expect(await readFile(join(workspace, 'a.txt'), 'utf8')).toBe('a');
    const restarted = new Outbox(join(root, 'outbox'));
    expect(await restarted.sweep([pending])).toBe(1);
    expect(await readFile(pending.path, 'utf8')).toBe('a');
    await expect(readFile(leftover.path)).rejects.toThrow(/ENOENT/);
    expect(await new Outbox(join(root, 'never-made')).sweep([])).toBe(0);
  });
});
