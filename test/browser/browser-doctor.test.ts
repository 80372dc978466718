/**
 * `operator doctor`'s browser line with a real chromium: it starts one the way the gateway does
 * and says how it runs (in bubblewrap with chromium's own sandbox inside, in bubblewrap without
 * it where that is refused, or with no sandbox: a warning with what to do), and a chromium that
 * does not start fails the check with its reason.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultBrowserSettings } from '../../src/browser/browser-settings.ts';
import { checkBrowser } from '../../src/cli/doctor/browser.ts';
import { whenChromiumInstalled } from '../helpers/chromium.ts';
import { whenInstalled } from '../helpers/needs-program.ts';
import { runOperator } from '../helpers/operator-process.ts';
import { createTempHome, removeTempHome } from '../helpers/temp-home.ts';
import { makeTempDir } from '../tools/tool-harness.ts';

const bwrap = '/usr/bin/bwrap';
const config = (executablePath?: string) => ({ browser: { ...defaultBrowserSettings, ...(executablePath && { executablePath }) }, profileSettings: {} });

whenChromiumInstalled('operator doctor: the browser', 'the doctor browser tests', () => {
  whenInstalled(existsSync(bwrap) ? bwrap : undefined, { suite: 'operator doctor: the browser', program: bwrap, install: 'apt-get install -y bubblewrap', runs: 'the doctor browser tests' }, () => {
    describe('operator doctor: the browser', () => {
      let home: string;
      beforeAll(() => {
        home = createTempHome('operator-doctor-browser-');
      });
      afterAll(() => removeTempHome(home));

      it("says the browser runs in bubblewrap with chromium's own sandbox inside, from the command line", async () => {
        writeFileSync(join(home, 'operator.json'), JSON.stringify({ browser: { enabled: true } }));
        const run = await runOperator(['doctor', '--offline'], { HOME: home, OPERATOR_HOME: home });
        const line = run.stdout.split('\n').find((entry) => / Browser: /.test(entry));
        expect(line, run.stdout + run.stderr).toMatch(/^OK +Browser: enabled, chromium at \S+, runs in bubblewrap, with chromium's own sandbox inside where user namespaces allow; an allowlisted environment$/);
      }, 60_000);

      it("says so where chromium's own sandbox is refused inside bubblewrap", async () => {
        const refusing = join(await makeTempDir(), 'bwrap');
        writeFileSync(refusing, `#!/bin/sh\ncase " $* " in *" --unshare-user "*) exec ${bwrap} --disable-userns "$@" ;; esac\nexec ${bwrap} "$@"\n`, { mode: 0o755 });
        const result = await checkBrowser(config(), { PATH: process.env.PATH, OPERATOR_HOME: home }, { isolation: { kind: 'bubblewrap', bwrap: refusing } });
        expect(result).toMatchObject({ level: 'OK', detail: expect.stringContaining("runs in bubblewrap; chromium's own sandbox cannot start inside it here (user namespaces refused)") });
      }, 60_000);

      it('warns with what to do where no sandbox is possible', async () => {
        const result = await checkBrowser(config(), { PATH: process.env.PATH, OPERATOR_HOME: home }, { choose: { bwrap: '/nowhere/bwrap', uid: 0 } });
        expect(result).toMatchObject({
          level: 'WARN',
          detail: expect.stringMatching(/runs WITHOUT a sandbox \(operator runs as root.*bwrap was not found at \/nowhere\/bwrap \(apt-get install bubblewrap\)\).*the browser is offered in the owner's own conversations only$/),
          fix: expect.stringContaining('install bubblewrap'),
        });
      }, 60_000);

      it('fails with the reason when chromium does not start', async () => {
        const broken = join(await makeTempDir(), 'chromium');
        writeFileSync(broken, '#!/bin/sh\necho "this chromium is broken" >&2\nexit 3\n', { mode: 0o755 });
        const result = await checkBrowser(config(broken), { PATH: process.env.PATH, OPERATOR_HOME: home });
        expect(result).toMatchObject({ level: 'FAIL', detail: expect.stringContaining(`chromium at ${broken}, but it did not start`) });
      }, 60_000);
    });
  });
});
