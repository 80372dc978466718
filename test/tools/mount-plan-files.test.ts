/**
 * A hidden *file* (the `.env` operator loads its keys from) in the sandbox's mount plan: covered
 * by an unreadable /dev/null wherever a bound folder shows it, and through real bubblewrap a
 * command can neither read it in any encoding nor change, remove or rename it.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { planMounts, type Mount } from '../../src/tools/sandbox/mount-plan.ts';
import { createSandbox } from '../../src/tools/sandbox/create-sandbox.ts';
import { defaultSandboxSettings } from '../../src/tools/sandbox/sandbox.ts';
import { secretForms } from '../helpers/secret-forms.ts';
import { runIn } from './sandbox-harness.ts';
import { makeTempDir } from './tool-harness.ts';

const cover = (file: string): Mount => ({ kind: 'ro-bind', source: '/dev/null', path: file });

describe('planMounts with hidden files', () => {
  const system: Mount[] = [{ kind: 'ro-bind', source: '/usr', path: '/usr' }];

  it('covers a hidden file inside a writable or read-only folder, after the folder is bound', () => {
    const mounts = planMounts({ system, readOnly: ['/srv/shared'], writable: ['/work/project'], hidden: [], hiddenFiles: ['/work/project/.env', '/srv/shared/deep/.env'], cwd: '/work/project' });
    const bound = mounts.findIndex((mount) => mount.path === '/work/project');
    const covered = mounts.findIndex((mount) => mount.path === '/work/project/.env');
    expect(mounts[covered]).toEqual(cover('/work/project/.env'));
    expect(covered).toBeGreaterThan(bound);
    expect(mounts).toContainEqual(cover('/srv/shared/deep/.env'));
  });

  it('covers nothing where no bound folder shows the file, nor inside a hidden folder already covered', () => {
    const mounts = planMounts({
      system,
      readOnly: [],
      writable: ['/work/project'],
      hidden: ['/work/project/.operator'],
      hiddenFiles: ['/elsewhere/.env', '/work/project/.operator/.env', '/tmp/.env'],
      cwd: '/work/project',
    });
    expect(mounts.filter((mount) => mount.kind === 'ro-bind' && mount.source === '/dev/null')).toEqual([]);
    expect(mounts).toContainEqual({ kind: 'tmpfs', path: '/work/project/.operator' });
  });

  it('covers a file inside a hidden folder again where a root inside that folder shows it', () => {
    const conversation = '/work/project/.operator/profiles/default/temp/chat-1';
    const mounts = planMounts({ system, readOnly: [], writable: ['/work/project', conversation], hidden: ['/work/project/.operator'], hiddenFiles: [`${conversation}/.env`], cwd: conversation });
    const order = (target: string) => mounts.findIndex((mount) => mount.path === target);
    expect(order(`${conversation}/.env`)).toBeGreaterThan(order(conversation));
    expect(order(conversation)).toBeGreaterThan(order('/work/project/.operator'));
  });
});

describe('a hidden file in real bubblewrap', () => {
  it("gives a command nothing of it in any form, and lets it neither change, remove nor rename it", async () => {
    const base = await makeTempDir('operator-hidden-file-');
    const workspace = path.join(base, 'project');
    mkdirSync(workspace);
    const secret = 'dotenv-secret-7Hq2xW9pLm4Zr8Kt';
    const envFile = path.join(workspace, '.env');
    writeFileSync(envFile, `# planted-marker-comment\nDEPLOY_NOTE=${secret}\n`);
    writeFileSync(path.join(workspace, 'notes.txt'), 'workspace notes\n');
    const sandbox = createSandbox(defaultSandboxSettings, { hidden: [path.join(base, 'home'), envFile], env: { PATH: process.env.PATH } });
    expect(sandbox.kind, sandbox.describe()).toBe('bubblewrap');
    const result = await runIn(
      sandbox,
      'cat .env; base64 .env; xxd .env; od -c .env; cp .env copy; echo changed > .env; rm -f .env; mv .env moved; cat notes.txt; echo probes-ran',
      [workspace],
    );
    expect(result.text).toContain('probes-ran');
    expect(result.text).toContain('workspace notes');
    expect(result.text).toContain('cat: .env: Permission denied');
    expect(result.text).not.toContain('planted-marker-comment');
    for (const form of secretForms(secret)) expect(result.text).not.toContain(form);
    expect(readFileSync(envFile, 'utf8')).toBe(`# planted-marker-comment\nDEPLOY_NOTE=${secret}\n`);
  });
});
