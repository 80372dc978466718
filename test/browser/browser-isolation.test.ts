/**
 * The agent's chromium kept apart from the gateway, on Debian's chromium through playwright-core,
 * read from outside through /proc: which isolation is chosen where; in bubblewrap (the way as
 * root) every chromium process runs inside it, in a PID namespace of its own, with chromium's
 * own sandbox on inside, no planted secret in any encoding in any environment, and no
 * OPERATOR_HOME in its view; where chromium's sandbox is refused inside bubblewrap, it runs
 * there without it; as another user without bubblewrap, chromium's own sandbox; and with no
 * sandbox at all, the allowlisted environment still, and the browser for the owner's seats only.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { compiledIsCurrent } from '../../bin/compiled.js';
import { chooseBrowserIsolation, describeBrowserIsolation } from '../../src/browser/browser-isolation.ts';
import { BrowserPool, type BrowserPoolOptions } from '../../src/browser/browser-pool.ts';
import type { BrowserSession } from '../../src/browser/browser-session.ts';
import { whenChromiumInstalled } from '../helpers/chromium.ts';
import { whenInstalled } from '../helpers/needs-program.ts';
import { expectNoSecretIn } from '../helpers/secret-forms.ts';
import { makeTempDir } from '../tools/tool-harness.ts';
import { browse, testSettings, textOf } from './browser-harness.ts';
import { chromiumBelow, descendantsOf, ownPidNamespace, type ProcessView } from './chromium-processes.ts';
import { startPageServer, type PageServer } from './page-server.ts';

/** This checkout's folder (the child runs its dist/ when it is current). */
const repositoryRoot = fileURLToPath(new URL('../..', import.meta.url));

const bwrap = '/usr/bin/bwrap';

/** Secrets the gateway's environment holds; none may reach chromium, in any encoding. */
const planted = {
  GITHUB_TOKEN: 'ghp_browserIsolationPlanted0123456789',
  ANTHROPIC_API_KEY: 'sk-ant-browser-isolation-planted-4242',
  TELEGRAM_BOT_TOKEN: '777000:browser-isolation-planted-telegram',
  // Neither secret-looking nor on the allowlist: withheld all the same.
  OPERATOR_PLANTED_NOTE: 'plain-but-not-allowlisted-0xBEEF',
};
const secrets = Object.values(planted);
const env = { ...process.env, ...planted };

/** Opens `url` in a fresh pool's session; resolves to the pool, the session and what the tool said. */
async function openIn(options: BrowserPoolOptions, url: string): Promise<{ pool: BrowserPool; session: BrowserSession; said: string }> {
  const pool = new BrowserPool(options);
  const session = pool.session('test:isolation', testSettings(), join(await makeTempDir(), 'downloads'));
  const said = textOf(await browse(session, { action: 'navigate', url }));
  return { pool, session, said };
}

function renderers(views: readonly ProcessView[]): ProcessView[] {
  return views.filter((view) => view.argv.includes('--type=renderer'));
}

describe('choosing how the browser is isolated', () => {
  it("chooses chromium's own sandbox for a user other than root without bubblewrap", () => {
    expect(chooseBrowserIsolation({ env, hidden: [], bwrap: '/nowhere/bwrap', uid: 1000, userNamespaces: () => true })).toEqual({ kind: 'chromium-sandbox' });
  });

  it('chooses none as root without bubblewrap, and where user namespaces are off, saying why', () => {
    const root = chooseBrowserIsolation({ env, hidden: [], bwrap: '/nowhere/bwrap', uid: 0, userNamespaces: () => true });
    expect(root).toEqual({ kind: 'none', reason: expect.stringMatching(/root.*bwrap was not found at \/nowhere\/bwrap/) });
    const off = chooseBrowserIsolation({ env, hidden: [], bwrap: '/nowhere/bwrap', uid: 1000, userNamespaces: () => false });
    expect(off).toEqual({ kind: 'none', reason: expect.stringContaining('user namespaces are off') });
    expect(describeBrowserIsolation(root)).toContain("the browser is offered in the owner's own conversations only");
  });

  whenInstalled(existsSync(bwrap) ? bwrap : undefined, { suite: 'bubblewrap chosen', program: bwrap, install: 'apt-get install -y bubblewrap', runs: 'the browser isolation tests' }, () => {
    it('chooses bubblewrap where one real sandbox starts, as root or not', () => {
      expect(chooseBrowserIsolation({ env, hidden: [] })).toEqual({ kind: 'bubblewrap', bwrap });
      expect(chooseBrowserIsolation({ env, hidden: [], uid: 1000 })).toEqual({ kind: 'bubblewrap', bwrap });
    });
  });
});

whenChromiumInstalled('browser isolation', 'the browser isolation tests', () => {
  whenInstalled(existsSync(bwrap) ? bwrap : undefined, { suite: 'browser isolation', program: bwrap, install: 'apt-get install -y bubblewrap', runs: 'the browser isolation tests' }, () => {
    describe('browser isolation', () => {
      let pages: PageServer;
      let home: string;
      const pools: BrowserPool[] = [];

      beforeAll(async () => {
        pages = await startPageServer();
        // OPERATOR_HOME, with something worth reading in it.
        home = await makeTempDir('operator-browser-home-');
        mkdirSync(join(home, 'state'));
        writeFileSync(join(home, 'state', 'transcript.json'), 'the launch code is HERON-12');
      });
      afterAll(async () => {
        await Promise.all(pools.map((pool) => pool.closeAll()));
        await pages?.close();
      });

      const open = async (options: BrowserPoolOptions) => {
        const opened = await openIn({ env, hidden: [home], ...options }, `${pages.url}/`);
        pools.push(opened.pool);
        expect(opened.said).toContain('Now: "Home"');
        return opened;
      };

      describe('in bubblewrap', () => {
        let chromium: (ProcessView & { inBubblewrap: boolean })[];
        let pool: BrowserPool;

        beforeAll(async () => {
          ({ pool } = await open({}));
          chromium = chromiumBelow(process.pid);
        });

        it("runs every chromium process inside bubblewrap, in a PID namespace of its own, with chromium's own sandbox on", () => {
          expect(pool.isolation).toEqual({ kind: 'bubblewrap', bwrap });
          expect(chromium.length).toBeGreaterThan(2);
          for (const view of chromium) {
            expect(view.inBubblewrap, `${view.pid} ${view.argv[0]}`).toBe(true);
            expect(view.argv).not.toContain('--no-sandbox');
            expect(view.pidNamespace).not.toBe(ownPidNamespace());
          }
          // Each renderer (where a page's code runs) is under chromium's seccomp filter.
          expect(renderers(chromium).length).toBeGreaterThan(0);
          for (const renderer of renderers(chromium)) expect(renderer.seccomp, `renderer ${renderer.pid}`).toBe(2);
        });

        it('gives chromium and bubblewrap no planted secret in any encoding, and no variable off the allowlist', () => {
          // Every process this test started: bubblewrap, chromium and its helpers.
          const views = descendantsOf(process.pid);
          expect(views.filter((view) => view.comm === 'bwrap').length).toBeGreaterThan(0);
          for (const view of views) expectNoSecretIn(view.environ, secrets, `the environment of ${view.argv[0]} (${view.pid})`);
          const browser = chromium.find((view) => !view.argv.some((arg) => arg.startsWith('--type=')))!;
          const names = browser.environ.split('\0').map((entry) => entry.split('=')[0]);
          expect(names).toEqual(expect.arrayContaining(['PATH', 'HOME']));
          expect(names).not.toContain('OPERATOR_PLANTED_NOTE');
          expect(browser.environ).toContain('HOME=/tmp\0');
        });

        it('shows chromium neither OPERATOR_HOME nor the home folders, but the system it runs on', () => {
          const browser = chromium.find((view) => !view.argv.some((arg) => arg.startsWith('--type=')))!;
          const root = `/proc/${browser.pid}/root`;
          expect(existsSync(`${root}/usr/lib`)).toBe(true);
          expect(existsSync(`${root}${home}`)).toBe(false);
          expect(existsSync(`${root}${join(home, 'state', 'transcript.json')}`)).toBe(false);
          expect(existsSync(`${root}/root`)).toBe(false);
          expect(existsSync(`${root}/home`)).toBe(false);
        });
      });

      it("runs chromium in bubblewrap without its own sandbox where that is refused inside, and says so once", async () => {
        // A bubblewrap that refuses user namespaces inside the sandbox, as some kernels do.
        const folder = await makeTempDir();
        const refusing = join(folder, 'bwrap');
        writeFileSync(refusing, `#!/bin/sh\ncase " $* " in *" --unshare-user "*) exec ${bwrap} --disable-userns "$@" ;; esac\nexec ${bwrap} "$@"\n`, { mode: 0o755 });
        const lines: string[] = [];
        const { pool } = await open({ isolation: { kind: 'bubblewrap', bwrap: refusing }, log: (line) => lines.push(line) });
        const views = chromiumBelow(process.pid).filter((view) => view.argv.includes('--no-sandbox'));
        expect(views.length).toBeGreaterThan(0);
        for (const view of views) expect(view.inBubblewrap, `${view.pid} ${view.argv[0]}`).toBe(true);
        expect(lines).toEqual(["browser: chromium's own sandbox cannot start inside bubblewrap here (user namespaces refused); chromium runs in bubblewrap without it"]);
        await pool.closeAll();
      });

      describe('with no sandbox possible (root without bubblewrap)', () => {
        const isolation = { kind: 'none', reason: 'operator runs as root, where chromium refuses its own sandbox, and bwrap was not found' } as const;
        // One pool (one chromium) for both tests; each closes the conversations it opened.
        let pool: BrowserPool;
        const opened: BrowserSession[] = [];

        beforeAll(() => {
          pool = new BrowserPool({ env, hidden: [home], isolation });
          pools.push(pool);
        });
        afterEach(async () => {
          await Promise.all(opened.splice(0).map((session) => session.close()));
        });

        it('still gives chromium the allowlisted environment alone, in the owner\'s conversation', async () => {
          const session = pool.session('telegram:dm:1', testSettings(), join(await makeTempDir(), 'downloads'));
          opened.push(session);
          expect(textOf(await browse(session, { action: 'navigate', url: `${pages.url}/` }))).toContain('Now: "Home"');
          const views = chromiumBelow(process.pid).filter((view) => !view.inBubblewrap);
          expect(views.length).toBeGreaterThan(0);
          expect(views.some((view) => view.argv.includes('--no-sandbox'))).toBe(true);
          for (const view of views) expectNoSecretIn(view.environ, secrets, `the environment of ${view.argv[0]} (${view.pid})`);
        });

        it("refuses the browser to every seat but the owner's, before starting chromium", async () => {
          const session = pool.session('telegram:group:-100', testSettings(), join(await makeTempDir(), 'downloads'));
          opened.push(session);
          const granted = { sessionKey: 'telegram:group:-100', platform: 'telegram', senderId: '7', admin: false, scheduled: false, tools: new Set(['browser']) };
          const refused = await browse(session, { action: 'navigate', url: `${pages.url}/` }, granted);
          expect(refused.isError).toBe(true);
          expect(textOf(refused)).toContain('chromium cannot be sandboxed on this machine');
          expect(pool.openContexts).toBe(0);
          // The owner's seat (the gateway says so) still has it.
          const owner = { ...granted, sessionKey: 'telegram:dm:1', senderId: '1', admin: true, owner: true };
          expect(textOf(await browse(session, { action: 'navigate', url: `${pages.url}/` }, owner))).toContain('Now: "Home"');
        });
      });

      it("runs chromium with its own sandbox for a user other than root, without bubblewrap", async () => {
        // The same pool in a process of its own, run as nobody (chromium's sandbox refuses root).
        // The compiled modules when dist/ is current (no compiler to load as that user), else the sources.
        const run = compiledIsCurrent(repositoryRoot) ? ['test/browser/browser-pool-child.mjs', `${pages.url}/`, 'dist'] : ['--import', 'tsx', 'test/browser/browser-pool-child.mjs', `${pages.url}/`, 'src'];
        const child = spawn('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, ...run], {
          cwd: process.cwd(),
          env: { ...env, HOME: '/nonexistent' },
          stdio: ['pipe', 'pipe', 'pipe'],
        });
        let output = '';
        let errors = '';
        child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
        const opened = new Promise<string>((resolve, reject) => {
          child.stdout.on('data', (chunk: Buffer) => {
            output += chunk.toString();
            if (output.includes('\n')) resolve(output.split('\n')[0]!);
          });
          child.on('exit', (code) => reject(new Error(`the child ended (${code}) before the page opened: ${errors.slice(-2000)}`)));
        });
        try {
          const line = JSON.parse(await opened) as { result: { content: string } };
          expect(line.result.content).toContain('Now: "Home"');
          const views = chromiumBelow(child.pid!);
          expect(views.length).toBeGreaterThan(2);
          for (const view of views) {
            expect(view.argv).not.toContain('--no-sandbox');
            expect(view.inBubblewrap).toBe(false);
            expectNoSecretIn(view.environ, secrets, `the environment of ${view.argv[0]} (${view.pid})`);
          }
          expect(renderers(views).length).toBeGreaterThan(0);
          for (const renderer of renderers(views)) expect(renderer.seccomp, `renderer ${renderer.pid}`).toBe(2);
        } finally {
          const closed = new Promise<void>((resolve) => child.on('exit', () => resolve()));
          child.stdin.end();
          await closed;
        }
        // A process of its own that loads the modules (compiling them without dist/) and starts chromium: more than the default time.
      }, 90_000);
    });
  });
});
