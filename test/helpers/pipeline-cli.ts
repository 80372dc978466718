/**
 * `operator pipeline` tests' common ground: the fake model server for the file, and per test a
 * throwaway OPERATOR_HOME and workspace holding the test's files, the processes started in them
 * stopped and both removed after each test.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FakeModelServer } from '../fakes/fake-model-server.ts';
import { useFakeModelSuite } from './fake-model-suite.ts';
import { fakeAnthropicEnv } from './fake-model-env.ts';
import { spawnOperator, type OperatorProcess } from './operator-process.ts';
import { createTempHome, removeTempHome } from './temp-home.ts';

/** What a test file gets from {@link usePipelineCli}. */
export interface PipelineCli {
  /** The fake model server (the file's). */
  readonly server: FakeModelServer;
  /** This test's OPERATOR_HOME (and HOME). */
  readonly home: string;
  /** This test's working directory, holding its files. */
  readonly workspace: string;
  /** A fresh home and workspace with `files` in the workspace, and `config` as operator.json when given. */
  setUp(files: Record<string, string>, config?: unknown): void;
  /** `operator pipeline ...args` in the workspace, its model the fake Anthropic (with `env` besides). */
  operator(args: readonly string[], env?: Record<string, string>): OperatorProcess;
}

/** Registers the file's hooks; call at the top of a test file. */
export function usePipelineCli(prefix: string): PipelineCli {
  let home: string | undefined;
  let workspace: string | undefined;
  const suite = useFakeModelSuite(async () => {
    removeTempHome(home);
    if (workspace) await rm(workspace, { recursive: true, force: true });
    home = workspace = undefined;
  });
  return {
    get server() {
      return suite.server();
    },
    get home() {
      return home!;
    },
    get workspace() {
      return workspace!;
    },
    setUp(files, config) {
      home = createTempHome(`${prefix}home-`);
      workspace = mkdtempSync(join(tmpdir(), `${prefix}ws-`));
      for (const [name, text] of Object.entries(files)) writeFileSync(join(workspace, name), text);
      if (config !== undefined) writeFileSync(join(home, 'operator.json'), JSON.stringify(config));
    },
    operator(args, env = {}) {
      return suite.track(spawnOperator(['pipeline', ...args], { home: home!, cwd: workspace!, env: { ...fakeAnthropicEnv(suite.server()), ...env } }));
    },
  };
}
