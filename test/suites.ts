/**
 * Which test files need a process of their own: the gateway or the `operator` command, chromium,
 * bubblewrap (the file tools' worker and the shell's sandbox), redis-server, a language server,
 * Xvfb, `git`. `npm test` runs every file; the others make the `unit` project
 * (`npm run test:quick`), where process starts are refused (`test/setup/no-child-processes.ts`): a
 * file that starts one and is not listed here fails there, naming this list.
 */

/** Files (or globs of them) whose tests start a process. */
export const processFiles: readonly string[] = [
  // The gateway as a process, end to end, through the fakes.
  'test/gateway/**/*-e2e*.test.ts',
  // Real payloads through the real process; the desktop on Xvfb; the red team's rows against the process.
  'test/corpus/**/*.test.ts',
  'test/desktop/**/*.test.ts',
  'test/red-team/**/*.test.ts',
  // The Worker run by `wrangler dev` as a process.
  'test/worker-dev/**/*.test.ts',
  'test/browser/browser-agent.test.ts',
  'test/browser/browser-doctor.test.ts',
  'test/browser/browser-isolation.test.ts',
  'test/browser/browser-tool.test.ts',
  'test/channels/web-files.test.ts',
  'test/channels/web-turn.test.ts',
  'test/channels/web.test.ts',
  'test/cli/admin-command.test.ts',
  'test/cli/cli-options.test.ts',
  'test/cli/compiled-check.test.ts',
  // esbuild's build runs its binary.
  'test/core/node-fetch-bundle.test.ts',
  'test/cli/deploy-resources.test.ts',
  'test/cli/doctor-permissions.test.ts',
  'test/cli/doctor-platforms.test.ts',
  'test/cli/doctor-mcp.test.ts',
  'test/cli/doctor-sandbox.test.ts',
  'test/cli/doctor.test.ts',
  'test/cli/env-files.test.ts',
  'test/cli/pipeline-command.test.ts',
  'test/cli/terminal-chat.test.ts',
  'test/cli/terminal-commands.test.ts',
  'test/cli/terminal-markdown.test.ts',
  'test/cli/terminal-redraw.test.ts',
  'test/cli/terminal-skill-commands.test.ts',
  'test/cli/terminal-tool-errors.test.ts',
  'test/gateway/config-cli.test.ts',
  'test/gateway/control-route.test.ts',
  'test/gateway/group-policy-config.test.ts',
  'test/gateway/health/store-health.test.ts',
  'test/gateway/ledger.test.ts',
  'test/gateway/pairing-cli-groups.test.ts',
  'test/gateway/pairing-cli.test.ts',
  'test/gateway/schedule-cli.test.ts',
  'test/gateway/send-file.test.ts',
  'test/gateway/start-readiness.test.ts',
  'test/gateway/start.test.ts',
  'test/gateway/think-command.test.ts',
  'test/guardrails/secret-encodings.test.ts',
  'test/pipelines/engine/engine.test.ts',
  'test/pipelines/shipped-pipelines.test.ts',
  'test/resources/read-text.test.ts',
  'test/runtime/runtime-browser.test.ts',
  'test/runtime/runtime-desktop.test.ts',
  'test/runtime/runtime-reasoning.test.ts',
  'test/store/fs-sync-driver.test.ts',
  'test/store/store-errors.test.ts',
  'test/store/store-redis.test.ts',
  'test/tools/apply-patch.test.ts',
  'test/tools/changes.test.ts',
  'test/tools/code-tool-runtime.test.ts',
  'test/tools/code-tool-sandbox.test.ts',
  'test/tools/code-tool.test.ts',
  'test/tools/edit-file.test.ts',
  'test/tools/file-worker-boundary.test.ts',
  'test/tools/glob.test.ts',
  'test/tools/grep.test.ts',
  'test/tools/list-dir.test.ts',
  'test/tools/mcp-hub.test.ts',
  'test/tools/mount-plan-files.test.ts',
  'test/tools/own-network.test.ts',
  'test/tools/read-file.test.ts',
  'test/tools/sandbox-secrets.test.ts',
  'test/tools/sandbox.test.ts',
  'test/tools/seat-files.test.ts',
  'test/tools/shell-changes.test.ts',
  'test/tools/shell-sandbox.test.ts',
  'test/tools/shell.test.ts',
  'test/tools/write-file.test.ts',
];

/** The crash tests, run last and alone (see vitest.config.ts). */
export const chaosFiles: readonly string[] = ['test/gateway/chaos-*.test.ts'];

/** The Worker's tests, inside workerd (see vitest.config.ts). */
export const workerFiles: readonly string[] = ['test/worker/**/*.test.ts'];
