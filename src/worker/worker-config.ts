/**
 * The gateway's settings on Workers: the defaults of `operator.json`, with the same environment
 * variables applied as on Node (`OPERATOR_DM_POLICY`, `OPERATOR_ADMINS`, ...). There is no
 * `operator.json` on Workers: what it would hold comes from the Worker's variables. An invalid
 * value is reported and not applied (the default stands), as on Node. The web chat's people are
 * let in without pairing unless `OPERATOR_DM_POLICY` says otherwise: only holders of its login
 * token reach it.
 */
import { applyEnvironment } from '../gateway/config/environment.ts';
import type { GatewayConfig } from '../gateway/config/index.ts';
import type { ConfigProblem } from '../gateway/config/format-issues.ts';
import { operatorConfigSchema } from '../gateway/config/schema.ts';
import type { WorkerEnv } from './worker-env.ts';

/** Worked out once per set of variables (an isolate keeps one). */
const made = new WeakMap<WorkerEnv, { config: GatewayConfig; problems: ConfigProblem[] }>();

/** The settings of the Worker whose variables are `env`, with the problems of invalid ones. */
export function workerConfig(env: WorkerEnv): { config: GatewayConfig; problems: ConfigProblem[] } {
  let result = made.get(env);
  if (!result) {
    const defaults = operatorConfigSchema.parse({}) as GatewayConfig;
    const applied = applyEnvironment(defaults, env as unknown as Record<string, string | undefined>);
    const { problems } = applied;
    // The web chat reaches only those holding its login token (the owner's): on Workers, where
    // no command line approves pairing codes, they talk without one unless a policy is set.
    const config: GatewayConfig = { ...applied.config, dmPolicy: { ...applied.config.dmPolicy, web: applied.config.dmPolicy.web ?? 'open' } };
    for (const problem of problems) console.error(`operator: ${problem.path}: ${problem.reason} (not applied)`);
    result = { config, problems };
    made.set(env, result);
  }
  return result;
}
