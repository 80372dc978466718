/**
 * The real gateway (`node bin/operator.js start`) in a process of its own, for end-to-end tests
 * against local fakes: spawn it with an environment, wait for its start-up banner, read what it
 * printed, stop it (SIGTERM, then SIGKILL) and read its exit code.
 *
 * Readiness is the banner, not `/healthz`: the server answers `/healthz` as soon as it listens,
 * before the channels have started (Telegram's webhook set, commands registered), while the banner
 * is printed once everything is up; with port 0 the banner is also the only place that says the
 * port.
 *
 * @example
 * const model = await startFakeModelServer();
 * const home = createTempHome('operator-my-e2e-');
 * const gateway = await startGateway({ home, env: fakeAnthropicEnv(model) });
 * expect((await fetch(`${gateway.origin}/healthz`)).status).toBe(200);
 * expect(await gateway.stop()).toBe(0);
 * removeTempHome(home);
 */
import { spawnOperator } from './operator-process.ts';
import type { OperatorProcess, OperatorProcessOptions } from './operator-process.ts';

/** Options of {@link spawnGateway}. */
export interface GatewayProcessOptions extends OperatorProcessOptions {
  /**
   * PORT. Default 0: a free port, which the banner names. `null`: PORT is not set, so
   * operator.json (or the built-in default) decides.
   */
  port?: number | null;
}

/** A gateway process. */
export interface GatewayProcess extends OperatorProcess {
  /**
   * Resolves with the web chat's origin (`http://localhost:<port>`, no trailing slash) once the
   * gateway printed its start-up banner: it listens and every channel has started. Rejects, with
   * its output, if it exits first or does not get there within `timeoutMs` (default 45 s).
   */
  ready(timeoutMs?: number): Promise<string>;
}

/** A gateway that has printed its start-up banner. */
export interface StartedGateway extends GatewayProcess {
  /** The web chat's origin, as the banner gave it (`http://localhost:<port>`). */
  readonly origin: string;
}

/** The banner's first two lines; the second holds the port the server got. */
const banner = /^operator is running\b.*\n\s*web chat: (http:\/\/localhost:\d+)\//m;

/** Spawns the gateway and returns at once (for a test that waits for something else, or for it to fail). */
export function spawnGateway(options: GatewayProcessOptions): GatewayProcess {
  const port = options.port === undefined ? 0 : options.port;
  const env = port === null ? options.env : { PORT: String(port), ...options.env };
  const gateway = spawnOperator(['start'], { home: options.home, env, cwd: options.cwd });
  return {
    ...gateway,
    ready: async (timeoutMs) => (await gateway.output.waitFor(banner, { timeoutMs, label: 'the start-up banner' }))[1]!,
  };
}

/**
 * Spawns the gateway and resolves once its banner is out. If it never gets there, the process is
 * killed before the error is passed on, so a failed start leaves nothing running.
 */
export async function startGateway(options: GatewayProcessOptions, timeoutMs?: number): Promise<StartedGateway> {
  const gateway = spawnGateway(options);
  try {
    return { ...gateway, origin: await gateway.ready(timeoutMs) };
  } catch (error) {
    await gateway.kill();
    throw error;
  }
}
