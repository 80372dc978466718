/** `operator admin url`: the login link, at the running or configured address; bad arguments exit 2 with the usage. */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { adminTokenPath } from '../../src/gateway/admin/admin-token.ts';
import { runOperator } from '../helpers/operator-process.ts';
import { createTempHome, removeTempHome } from '../helpers/temp-home.ts';

let home: string | undefined;
afterEach(() => {
  removeTempHome(home);
  home = undefined;
});

describe('operator admin url', () => {
  it('prints a login link with the token in its fragment, at the configured address when no gateway runs', async () => {
    home = createTempHome('operator-admin-url-');
    const run = await runOperator(['admin', 'url'], { HOME: home, OPERATOR_HOME: home, PORT: '8899' });
    expect(run.code).toBe(0);
    const token = readFileSync(adminTokenPath(home), 'utf8').trim();
    expect(run.stdout).toBe(`http://localhost:8899/admin/login#token=${encodeURIComponent(token)}\n`);
    expect(run.stderr).toContain('No gateway is running now');
    const based = await runOperator(['admin', 'url', '--base', 'https://bot.example.com/'], { HOME: home, OPERATOR_HOME: home });
    expect(based.stdout).toBe(`https://bot.example.com/admin/login#token=${encodeURIComponent(token)}\n`);
  });

  it('rejects unknown options and subcommands with exit 2 and the usage', async () => {
    home = createTempHome('operator-admin-url-');
    for (const args of [['admin', 'url', '--bogus'], ['admin', 'open'], ['admin'], ['admin', 'url', 'extra'], ['admin', 'url', '--base', 'ftp://x']]) {
      const run = await runOperator(args, { HOME: home, OPERATOR_HOME: home });
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr).toContain('Usage: operator admin url [--base URL]');
      expect(run.stdout).toBe('');
    }
    expect((await runOperator(['admin', 'url', '--bogus'], { HOME: home, OPERATOR_HOME: home })).stderr).toContain('unknown option --bogus');
  });
});
