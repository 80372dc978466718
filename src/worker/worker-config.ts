/**
 * The gateway's settings on Workers: the defaults of `operator.json`, with the same environment
 * variables applied as on Node (`OPERATOR_DM_POLICY`, `OPERATOR_ADMINS`, ...). There is no
 * `operator.json` on Workers: what it would hold comes from the Worker's variables, a few of them
 * the Worker's own (`worker-settings.ts`: edited messages, Slack threads, transcription limits). An invalid
 * value is reported and not applied (the default stands), as on Node. The web chat's people are
 * let in without pairing unless `OPERATOR_DM_POLICY` says otherwise: only holders of its login
 * token reach it. Shared secrets (`TELEGRAM_WEBHOOK_SECRET`, `OPERATOR_WEB_TOKEN`) are held to
 * Node's rules, at least 16 characters: a Worker has no start to refuse, so the door such a
 * secret guards stays shut, saying why (see {@link sharedSecretRefusal}).
 */
import { applyEnvironment } from '../gateway/config/environment.ts';
import type { GatewayConfig } from '../gateway/config/index.ts';
import type { ConfigProblem } from '../gateway/config/format-issues.ts';
import { operatorConfigSchema } from '../gateway/config/schema.ts';
import { sharedSecretProblems, sharedSecretVariables, type SharedSecretVariable } from '../gateway/config/shared-secrets.ts';
import type { WorkerEnv } from './worker-env.ts';
import { applyWorkerSettings } from './worker-settings.ts';

/** Worked out once per set of variables (an isolate keeps one). */
const made = new WeakMap<WorkerEnv, { config: GatewayConfig; problems: ConfigProblem[] }>();

/** The settings of the Worker whose variables are `env`, with the problems of invalid ones. */
export function workerConfig(env: WorkerEnv): { config: GatewayConfig; problems: ConfigProblem[] } {
  let result = made.get(env);
  if (!result) {
    const defaults = operatorConfigSchema.parse({}) as GatewayConfig;
    const variables = env as unknown as Record<string, string | undefined>;
    const environment = applyEnvironment(defaults, variables);
    // Then the settings a Worker reads from its variables, as it has no operator.json (`worker-settings.ts`).
    const applied = applyWorkerSettings(environment.config, variables);
    const settingProblems = [...environment.problems, ...applied.problems];
    // The secrets no setting holds are checked too; one the schema already refused is named once.
    const named = new Set(settingProblems.map((problem) => problem.path));
    const problems = [...settingProblems, ...sharedSecretProblems(variables).filter((problem) => !named.has(problem.path))];
    // The web chat reaches only those holding its login token (the owner's): on Workers, where
    // no command line approves pairing codes, they talk without one unless a policy is set.
    const config: GatewayConfig = { ...applied.config, dmPolicy: { ...applied.config.dmPolicy, web: applied.config.dmPolicy.web ?? 'open' } };
    const secrets = new Set<string>(sharedSecretVariables);
    for (const problem of problems) console.error(`operator: ${problem.path}: ${problem.reason} (${secrets.has(problem.path) ? 'what it guards stays shut' : 'not applied'})`);
    result = { config, problems };
    made.set(env, result);
  }
  return result;
}

/**
 * Why the shared secret `name` cannot be used, naming the variable and never its value; undefined
 * when it is valid or unset (an unset one leaves its door shut on its own).
 *
 * @example
 * const refusal = sharedSecretRefusal(env, 'TELEGRAM_WEBHOOK_SECRET');
 * if (refusal) return new Response(`the Telegram webhook is off: ${refusal}`, { status: 503 });
 */
export function sharedSecretRefusal(env: WorkerEnv, name: SharedSecretVariable): string | undefined {
  const problem = workerConfig(env).problems.find((candidate) => candidate.path === name);
  return problem && `${name} is not valid (${problem.reason})`;
}
