/**
 * What the tests of the code tool on a machine's own language server (`code-python.test.ts`,
 * `code-go.test.ts`) share: a copy of the language's fixture served by the real tool in the real
 * bubblewrap sandbox, and the checks that the server runs confined there.
 */
import { existsSync } from 'node:fs';
import { cp, mkdtemp, readFile, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect } from 'vitest';
import { createCodeTool } from '../../src/tools/code/code-tool.ts';
import { LanguageServers } from '../../src/tools/code/language-servers.ts';
import type { ToolOutput } from '../../src/tools/tool.ts';
import { environOf, findInTree, networkOf, processTree } from './code-server-harness.ts';
import { sandboxFor } from './sandbox-harness.ts';
import { callTool } from './tool-harness.ts';

/** A suite's project, servers and tool, set before its first test. */
export interface FixtureSuite {
  /** The copy of the fixture (its real path). */
  project: string;
  servers: LanguageServers;
  /** The code tool called with `args` in `cwd` (default the project). */
  call(args: Record<string, unknown>, cwd?: string): Promise<ToolOutput>;
}

/**
 * For the suite it is called in: a copy of `test/fixtures/<fixture>` in a fresh folder, and the
 * code tool over servers in the sandbox of `env` with OPERATOR_HOME `home` hidden, made before
 * its tests and stopped and removed after them.
 */
export function fixtureSuite(fixture: string, home: string, env: NodeJS.ProcessEnv): FixtureSuite {
  const suite = {} as FixtureSuite;
  let tool: ReturnType<typeof createCodeTool>;
  beforeAll(async () => {
    suite.project = await realpath(await mkdtemp(path.join(tmpdir(), `operator-${fixture}-`)));
    await cp(fileURLToPath(new URL(`../fixtures/${fixture}`, import.meta.url)), suite.project, { recursive: true });
    suite.servers = new LanguageServers({ sandbox: sandboxFor(home, env), env });
    expect(suite.servers.isolation).toBe('bubblewrap');
    tool = createCodeTool({ servers: suite.servers });
    suite.call = (args, cwd = suite.project) => callTool(tool, args, { cwd });
  });
  afterAll(async () => {
    await suite.servers.closeAll();
    await rm(suite.project, { recursive: true, force: true });
  });
  return suite;
}

/**
 * Checks that the one server running in `suite` is `program`, run by bubblewrap for the project:
 * it sees the project read-only, not `home` nor `/etc/passwd`, has a network namespace of its
 * own, and no process of its tree has `secret` in its environment. Returns the server's process
 * id and whether it sees a path.
 */
export async function expectConfined(suite: FixtureSuite, language: string, program: string, home: string, secret: string): Promise<{ pid: number; seen: (file: string) => boolean }> {
  const { project, servers } = suite;
  const [running] = servers.list();
  expect(running).toMatchObject({ language, root: project, roots: [project] });
  expect(await readFile(`/proc/${running!.pid}/comm`, 'utf8')).toBe('bwrap\n');
  const pid = await findInTree(running!.pid!, program);
  expect(pid).toBeDefined();
  const seen = (file: string) => existsSync(`/proc/${pid}/root${file}`);
  expect(seen(home)).toBe(false);
  expect(seen('/etc/passwd')).toBe(false);
  expect(await readFile(`/proc/${pid}/mountinfo`, 'utf8')).toMatch(new RegExp(` ${project} [^\\n]*\\bro\\b`));
  expect(await networkOf(pid!)).not.toBe(await networkOf('self'));
  for (const member of await processTree(running!.pid!)) {
    expect([...(await environOf(member)).values()].join('\n')).not.toContain(secret);
  }
  return { pid: pid!, seen };
}
