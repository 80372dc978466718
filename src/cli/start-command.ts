/**
 * `operator start` (and `npm start`): the gateway. Starts the HTTP server and every channel whose
 * credentials are present; the local web chat always. `/healthz` answers 200 once every channel
 * is up. SIGTERM or Ctrl+C lets turns in flight finish and deliver (up to `shutdownGraceSeconds`),
 * then exits 0; a second signal exits at once. An exception nothing caught stops it the same way
 * and exits 1, for the supervisor to start it again.
 *
 * It listens on `config.host` (127.0.0.1 unless configured) behind the network edge: the host and
 * origin checks, and the web chat's login when the gateway is exposed (see `resolveExposure`).
 *
 * Start-up is kept short: what only some set-ups need is imported when they need it; what every
 * first answer needs (the agent, its tools, the default profile, Node's fetch) loads while the
 * start waits on other things (bubblewrap's check, the platforms' first calls), and long polling
 * asks for messages once it has; the formatters load a second after ready.
 */
import type { ChannelAdapter } from '../channels/types.ts';
import { errorMessage } from '../core/errors.ts';
import { createWebChannel } from '../channels/web/index.ts';
import { describeBrowserSetup } from '../browser/find-chromium.ts';
import { describeDesktopSetup } from '../desktop/desktop-setup.ts';
import { browserConfigOf, desktopConfigOf, loadConfig, mcpConfigOf, modelTimeoutEnv, personIdProfilesOf, reasoningEffortsOf, requestOptionsByProfile, type GatewayConfig } from '../gateway/config/index.ts';
import { describeMcpSetup } from '../tools/mcp/mcp-settings.ts';
import { createControlRoutes } from '../gateway/control/control-route.ts';
import { newControlToken, removeControlFile, writeControlFile } from '../gateway/control/control-file.ts';
import { Gateway } from '../gateway/gateway.ts';
import { gatewayScheduleControl } from '../gateway/schedule-control.ts';
import { gatewayBudgetControl } from '../gateway/budget/budget-control.ts';
import { warmGate } from '../gateway/warm-gate.ts';
import { edgeBanner, loadWebToken, localGatewayUrl, networkEdge, resolveExposure, webChatUrl, webhookSources } from '../gateway/http/index.ts';
import { createGatewayApp, listen, type GatewayState } from '../gateway/server.ts';
import { loadFetchClasses } from '../llm/lazy-provider.ts';
import { preloadAgentModules, Runtime, runtimeSandboxOptions } from '../runtime/runtime.ts';
import { prepareSandbox } from '../tools/sandbox/create-sandbox.ts';
import { operatorHome } from '../store/from-env.ts';
import { describeHomePrivacy, makeHomePrivate } from '../core/make-home-private.ts';
import { settingSchemas } from '../gateway/config/schema.ts';
import { parseCommandArgs, UsageError } from './cli-options.ts';
import { OpsEvents } from '../gateway/ops/ops-events.ts';
import { LineBatch } from '../gateway/ops/line-batch.ts';
import { createOpsLog } from '../gateway/ops/ops-log.ts';
import { OpsMetrics } from '../gateway/ops/ops-metrics.ts';
import { createMetricsRoute } from '../gateway/ops/metrics-route.ts';
import { adminRoutes } from '../gateway/admin/admin-routes.ts';
import { loadAdminToken } from '../gateway/admin/admin-token.ts';
import { createScrubber } from '../gateway/ops/secret-scrubber.ts';
import { apiEndpoint, apiTokenOf } from '../gateway/api-endpoint.ts';
import { platformChannels } from './platform-channels.ts';
import { channelMemory } from '../gateway/channel-memory.ts';
import type { Store } from '../store/store.ts';
import { detectSlirp4netns } from '../tools/sandbox/detect-slirp4netns.ts';
import { surviveLostOutput } from './lost-output.ts';
import { listenForStop } from './stop-signals.ts';

/** `--port` and `--host` of `operator start`, checked; each undefined when not given. */
export function parseStartArgs(args: readonly string[]): { port?: number; host?: string } {
  const { values } = parseCommandArgs(args, { port: { type: 'string' }, host: { type: 'string' } }, { positionals: false });
  const result: { port?: number; host?: string } = {};
  if (values.port !== undefined) {
    const port = /^\d{1,5}$/.test(values.port.trim()) ? Number(values.port.trim()) : Number.NaN;
    if (!(port >= 1 && port <= 65535)) throw new UsageError(`--port takes a port number from 1 to 65535, not "${values.port}"`);
    result.port = port;
  }
  if (values.host !== undefined) {
    const host = settingSchemas.host.safeParse(values.host.trim());
    if (!host.success) throw new UsageError(`--host takes an address to listen on, e.g. 127.0.0.1, 0.0.0.0 or ::, not "${values.host}"`);
    result.host = host.data;
  }
  return result;
}

/**
 * Runs the gateway until a signal stops it; resolves to the exit code. `--port` and `--host` win
 * over operator.json and the environment (PORT, HOST).
 */
export async function runStartCommand(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const started = performance.now();
  // Bad arguments stop the command before anything starts.
  const listenOn = parseStartArgs(args);
  // Listened for from the first moment: a signal during start-up (or right after the banner)
  // must stop the gateway cleanly, not end the process with the default action. So must an
  // exception nothing caught: it stops the gateway the same way, then exits 1 (see `stop-signals.ts`).
  let graceSeconds = 30;
  surviveLostOutput();
  const signals = listenForStop({ graceMs: () => graceSeconds * 1000 });
  const { config: configured } = loadConfig(env);
  graceSeconds = configured.shutdownGraceSeconds;
  const loaded: GatewayConfig = { ...configured, ...listenOn };
  // The model named in operator.json counts like OPERATOR_MODEL (which, when set, it already holds).
  const runtimeEnv = { ...env, ...(loaded.model && { OPERATOR_MODEL: loaded.model }), ...modelTimeoutEnv(loaded.modelTimeouts, env) };
  // bubblewrap's check (a sandbox that runs `exit 0`) runs while the platforms' code loads; the
  // runtime below reads its answer.
  const sandboxChecked = prepareSandbox(loaded.sandbox, runtimeSandboxOptions(runtimeEnv, process.cwd()));
  // Incomplete credentials stop the start here, before anything is running. The adapters' memory
  // across restarts is the runtime's store, open from their start on (made below).
  const opened: { store?: Store } = {};
  const platforms = await platformChannels(env, loaded, (platform) => channelMemory(() => opened.store, platform));
  const exposure = resolveExposure(loaded, { webhooks: webhookSources(env, loaded), ownCommandNetwork: detectSlirp4netns({ searchPath: env.PATH }).found });
  // The web chat's policy is settled here, so the access policy reads it like any platform's; the
  // API's callers hold its token, which is their door (their seats are not the owner's unless named in admins).
  const apiToken = apiTokenOf(env);
  const apiOn = apiToken !== undefined && 'token' in apiToken;
  const config: GatewayConfig = { ...loaded, dmPolicy: { ...loaded.dmPolicy, web: exposure.webDmPolicy, ...(apiOn && { api: 'open' as const }) } };
  // Before anything reads or writes there: a home an earlier version left open to other users
  // (folders 0755, files 0644) is made the owner's alone, and the banner says so once.
  const homePrivacy = describeHomePrivacy(makeHomePrivate(operatorHome(env), { userHome: env.HOME }));
  // Made (or read) before anything runs: a token that cannot be had stops the start.
  const webToken = exposure.loginRequired ? await loadWebToken(env, operatorHome(env)) : undefined;
  // What every first answer needs loads in what would otherwise be the wait for bubblewrap's
  // check (a few milliseconds of a sandbox starting): the agent's modules, and Node's fetch,
  // which the SDKs' first request would load.
  preloadAgentModules();
  loadFetchClasses();
  await sandboxChecked;
  const runtime = new Runtime({
    env: runtimeEnv,
    reviewEvery: config.reviewEvery,
    requireModel: false,
    sandbox: config.sandbox,
    browser: browserConfigOf(config),
    desktop: desktopConfigOf(config),
    subagents: config.subagents,
    reasoningEfforts: reasoningEffortsOf(config),
    requestOptions: requestOptionsByProfile(config),
    personIdProfiles: personIdProfilesOf(config),
    mcp: mcpConfigOf(config),
  });
  opened.store = runtime.store;
  // The rest of the warm-up (the default profile's resources, the model's provider, MCP servers)
  // runs alongside the start from here; a failure shows on first use.
  const warming = runtime.warm();
  // One stream of events: the log, the metrics and the API's channel (its turns' ends) read it.
  const ops = new OpsEvents();
  const api = await apiEndpoint({ env, ops, turnTimeoutMs: config.turnTimeoutSeconds * 1000, log: (line) => gateway.log(line), models: async () => (await import('../gateway/admin/profile-actions.ts')).profileNames(runtime.home, runtime.builtin) });
  const adapters: ChannelAdapter[] = [createWebChannel({ login: exposure.loginRequired }), ...(api.channel ? [api.channel] : []), ...platforms.adapters];
  // `operator schedule` and `operator budget` reach this gateway with the token they find in OPERATOR_HOME/gateway.json.
  const token = newControlToken();
  // The admin console (src/gateway/admin): its token is read or made now; the console loads on the first /admin request.
  const adminToken = await loadAdminToken(env, operatorHome(env));
  // The log is scrubbed of every secret the process knows.
  // Its lines go out a stretch of work at a time (line-batch.ts), the rest at the exit.
  const logOutput = new LineBatch(process.stderr);
  process.on('exit', () => logOutput.flush());
  const opsLog = createOpsLog({ env, scrub: createScrubber(env, [token, webToken?.token ?? '', adminToken.token]), output: logOutput });
  ops.subscribe(opsLog.listener);
  // A turn waiting on its model call holds no slot (queue.away) but is running all the same.
  const gauges = { running: () => gateway.queue.running + gateway.queue.away, queued: () => gateway.queue.pending - gateway.queue.running - gateway.queue.away, conversations: () => gateway.conversations.size };
  const metrics = new OpsMetrics(gauges);
  ops.subscribe(metrics.listener);
  // Without a login the web chat is reachable from this machine alone: the owner's seat.
  const gateway = new Gateway({ runtime, config, adapters, ops, localWeb: !exposure.loginRequired, sandboxed: runtime.sandbox.kind === 'bubblewrap' });
  // What the runtime reports (an MCP server that fails or stops) goes to the gateway's log.
  runtime.log = gateway.log;
  let state: GatewayState = 'starting';
  const control = createControlRoutes({ token, ready: () => state === 'ready', control: () => gatewayScheduleControl(gateway), budget: () => gatewayBudgetControl(gateway), log: gateway.log });
  const edge = networkEdge({ config, webToken: webToken?.token, log: gateway.log });
  const metricsRoute = createMetricsRoute({ metrics, tokens: () => [env.OPERATOR_METRICS_TOKEN?.trim(), adminToken.token], log: gateway.log });
  const admin = adminRoutes({ gateway, token: adminToken.token, ready: () => state === 'ready', secrets: [token, webToken?.token ?? ''] });
  const app = createGatewayApp(adapters, () => ({ state, channels: [...gateway.adapters.keys()], liveSessions: gateway.conversations.size, ...gateway.health.summary() }), [...control, metricsRoute, ...admin], edge);
  const host = config.host.replace(/^\[(.*)\]$/, '$1');
  const server = await listen(app, config.port, host).catch(async (error: unknown) => {
    await runtime.close();
    throw error;
  });
  // Long polling asks Telegram for messages once what the first answers need has loaded.
  const warm = warmGate();
  try {
    await gateway.start({ warmed: warm.warmed });
  } catch (error) {
    // A channel that cannot start ends the command; the listening server would keep the process
    // alive, so what did start is stopped first.
    await gateway.stop();
    await server.close();
    await runtime.close();
    throw error;
  }
  state = 'ready';
  // Long polling asks for messages once the warm-up is done, not after the control file below.
  warm.open([warming]);
  await writeControlFile(runtime.home, { pid: process.pid, url: localGatewayUrl(host, server.port), token, startedAt: Date.now() }).catch((error: unknown) =>
    process.stderr.write(`operator: could not write ${runtime.home}/gateway.json, so \`operator schedule\` and \`operator budget\` cannot reach this gateway: ${errorMessage(error)}\n`),
  );
  // The adapters' renderers warm a second later, while nothing waits: a plain first reply needs
  // none, and one that does pays their first use once.
  setTimeout(() => adapters.forEach((adapter) => void adapter.warm?.().catch(() => undefined)), 1_000).unref();
  gateway.registerMenus();
  // pino (about 30 ms of the main thread) loads a moment after the first answers can flow, not
  // with the warm-ups above: until then the log writes its lines without it. prom-client loads on
  // first use (a scrape, or a thousand events waiting; see ops-metrics.ts).
  setTimeout(() => void opsLog.load().catch((error: unknown) => gateway.log(`the log goes on without pino: ${errorMessage(error)}`)), 3_000).unref();
  ops.emit({ type: 'gateway.started', durationMs: Math.round(performance.now() - started), channels: [...gateway.adapters.keys()] });

  const log = (line: string) => process.stdout.write(`${line}\n`);
  // One write, so whoever reads the output sees the whole banner at once.
  const banner = [`operator is running (ready in ${Math.round(performance.now() - started)} ms)`, `  web chat: ${webChatUrl(host, server.port)}`];
  banner.push(...edgeBanner({ host, port: server.port, exposure, token: webToken?.source, webPolicyConfigured: loaded.dmPolicy.web !== undefined }));
  banner.push(`  admin console: ${webChatUrl(host, server.port)}admin (\`operator admin url\` prints a login link)`);
  banner.push(`  ${api.banner(webChatUrl(host, server.port))}`);
  banner.push(`  channels: ${[...gateway.adapters.keys()].join(', ')}`);
  banner.push(...homePrivacy.map((line) => `  ${line}`));
  banner.push(`  commands: ${runtime.sandbox.describe()}`);
  banner.push(`  browser: ${describeBrowserSetup(config.browser, { env, hidden: [runtime.home] })}`);
  banner.push(`  desktop: ${describeDesktopSetup(config.desktop, env)}`);
  const mcp = describeMcpSetup(mcpConfigOf(config), runtime.sandbox.kind);
  if (mcp) banner.push(`  MCP: ${mcp}`);
  if (gateway.grants.withheldShellGrants > 0) banner.push(`  tools.grants: shell is withheld from ${gateway.grants.withheldShellGrants} grant(s) because commands cannot be sandboxed; it stays the owner's`);
  banner.push(
    runtime.client.model === 'none'
      ? '  model: none configured; set ANTHROPIC_API_KEY, OPENAI_API_KEY or GEMINI_API_KEY (or OPENAI_BASE_URL with OPERATOR_MODEL=openai:<model>)'
      : `  model: ${runtime.client.model}`,
  );
  if (platforms.help.length > 0) banner.push(`  to add a platform:\n    ${platforms.help.join('\n    ')}`);
  log(banner.join('\n'));

  return new Promise<number>((resolve) => {
    signals.onStop(async (code) => {
      state = 'stopping';
      ops.emit({ type: 'gateway.stopping' });
      log(`operator: finishing the answers in progress (up to ${config.shutdownGraceSeconds} s), then stopping; a second signal stops at once`);
      await removeControlFile(runtime.home, token).catch(() => undefined);
      await gateway.stop({ graceMs: config.shutdownGraceSeconds * 1000 });
      await server.close();
      await runtime.close();
      // A platform that is gone may leave its client retrying (timers, sockets): it must not hold
      // the exit. Unreferenced, so a process with nothing left exits as usual, sooner.
      setTimeout(() => process.exit(code), 1_000).unref();
      resolve(code);
    });
  });
}
