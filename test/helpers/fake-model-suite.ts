/**
 * The hooks a test file of `operator` processes against the fake model server needs: the server
 * started once for the file, and after each test the processes it started killed, the server's
 * queue and records cleared, and the test's own leftovers removed (`cleanUp`).
 */
import { afterAll, afterEach, beforeAll } from 'vitest';
import { startFakeModelServer, type FakeModelServer } from '../fakes/fake-model-server.ts';
import type { OperatorProcess } from './operator-process.ts';

/** What {@link useFakeModelSuite} gives. */
export interface FakeModelSuite {
  /** The file's server (started before the first test). */
  server(): FakeModelServer;
  /** Kills `started` after the test; returns it. */
  track(started: OperatorProcess): OperatorProcess;
}

/** Registers the hooks; `cleanUp` runs after each test, once its processes are gone. */
export function useFakeModelSuite(cleanUp: () => Promise<void> | void): FakeModelSuite {
  let server: FakeModelServer | undefined;
  let processes: OperatorProcess[] = [];
  beforeAll(async () => {
    server = await startFakeModelServer();
  });
  afterAll(async () => {
    await server?.close();
  });
  afterEach(async () => {
    await Promise.all(processes.map((running) => running.kill()));
    processes = [];
    server?.reset();
    await cleanUp();
  });
  return {
    server: () => server!,
    track(started) {
      processes.push(started);
      return started;
    },
  };
}
