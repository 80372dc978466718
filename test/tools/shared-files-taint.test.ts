/**
 * Files other people sent in a group are untrusted content: once others talked in the session,
 * `read_file` and `grep` in the conversation's own folder (or over a folder that holds it) bring
 * "files people sent in this group" into the turn, which then asks before it acts and holds back
 * what it wants to save in memory. Elsewhere, and in a turn without others, they bring nothing.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createGrepTool } from '../../src/tools/builtin/grep.ts';
import { createReadFileTool } from '../../src/tools/builtin/read-file.ts';
import type { TurnContext } from '../../src/tools/tool.ts';
import { noteSource, otherPeopleSource, sharedFileSource, sharedFilesSource, TurnTaint, untrustedContent } from '../../src/tools/turn-taint.ts';

const folder = '/home/op/.operator/tmp/default/telegram%3Agroup%3A-100';

function turnOf(overrides: Partial<TurnContext> = {}): TurnContext {
  return { sessionKey: 'telegram:group:-100', platform: 'telegram', senderId: '7', admin: false, scheduled: false, workspace: { cwd: folder, roots: [folder] }, sharedFiles: { folder, source: sharedFilesSource }, ...overrides };
}

describe('files other people sent in a group', () => {
  it('are untrusted where the folder is read or searched, and nowhere else', () => {
    const turn = turnOf();
    expect(sharedFileSource(turn, 'report.pdf')).toBe(sharedFilesSource);
    expect(sharedFileSource(turn, join(folder, 'notes', 'a.txt'))).toBe(sharedFilesSource);
    expect(sharedFileSource(turn, undefined)).toBe(sharedFilesSource);
    // A search over a folder that holds the conversation's own reaches its files too.
    expect(sharedFileSource(turn, '/home/op')).toBe(sharedFilesSource);
    expect(sharedFileSource(turn, '/srv/project/README.md')).toBeUndefined();
    expect(sharedFileSource(turn, '../other-conversation/x.txt')).toBeUndefined();
    expect(sharedFileSource(turnOf({ sharedFiles: undefined }), 'report.pdf')).toBeUndefined();
    expect(sharedFileSource(undefined, 'report.pdf')).toBeUndefined();
    // A granted member works in the gateway's folder: relative paths start there.
    const granted = turnOf({ workspace: { cwd: '/srv/project', roots: ['/srv/project', folder] } });
    expect(sharedFileSource(granted, 'src/a.ts')).toBeUndefined();
    expect(sharedFileSource(granted, join(folder, 'report.pdf'))).toBe(sharedFilesSource);
  });

  it('taint the turn through read_file and grep, and count as content memory holds back', async () => {
    const taint = new TurnTaint('approve', [otherPeopleSource]);
    const turn = turnOf({ taint });
    expect(untrustedContent(taint)).toEqual([]);
    await noteSource(taint, createReadFileTool(), { type: 'tool-call', id: '1', name: 'read_file', arguments: { path: '/srv/project/README.md' } }, turn);
    expect(taint.sources).toEqual([otherPeopleSource]);
    await noteSource(taint, createReadFileTool(), { type: 'tool-call', id: '2', name: 'read_file', arguments: { path: 'report.pdf' } }, turn);
    expect(taint.sources).toEqual([otherPeopleSource, sharedFilesSource]);
    expect(untrustedContent(taint)).toEqual([sharedFilesSource]);
    const searched = new TurnTaint('approve', [otherPeopleSource]);
    await noteSource(searched, createGrepTool(), { type: 'tool-call', id: '3', name: 'grep', arguments: { pattern: 'x' } }, turnOf({ taint: searched }));
    expect(searched.sources).toContain(sharedFilesSource);
  });
});
