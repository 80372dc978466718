/**
 * Shared secrets: values a client proves it knows to get in (a bearer token, a webhook's secret
 * header, a login token). Each must be at least 16 characters, so that guessing it, even at the
 * login limiter's pace, is hopeless; a short one stops the start (on Node) or keeps its door shut
 * (on Workers), with a message that names the variable and never shows the value. The ones
 * operator makes itself (the control token, the admin and web tokens' files) are 43 characters.
 */
import type { ConfigProblem } from './format-issues.ts';

/** Shortest shared secret taken, in characters. */
export const minSharedSecretLength = 16;

/** The variables that hold shared secrets, checked when set. */
export const sharedSecretVariables = ['OPERATOR_METRICS_TOKEN', 'TELEGRAM_WEBHOOK_SECRET', 'OPERATOR_WEB_TOKEN'] as const;

/** One of {@link sharedSecretVariables}. */
export type SharedSecretVariable = (typeof sharedSecretVariables)[number];

/** Why `value` cannot be a shared secret, or undefined when it can (never the value itself). */
export function sharedSecretProblem(value: string): string | undefined {
  if (value.length < minSharedSecretLength) return `expected at least ${minSharedSecretLength} characters`;
  if (value.length > 512) return 'expected at most 512 characters';
  if (!/^[\x21-\x7e]+$/.test(value)) return 'expected printable ASCII without spaces';
  return undefined;
}

/**
 * A problem for each shared secret `env` sets that is not valid: the variable and why, never the
 * value. Unset and empty ones are not looked at (they leave their door shut). Values are taken
 * trimmed, as they are read.
 *
 * @example
 * for (const problem of sharedSecretProblems(process.env)) console.error(`${problem.path}: ${problem.reason}`);
 */
export function sharedSecretProblems(env: Partial<Record<SharedSecretVariable, string>>): ConfigProblem[] {
  return sharedSecretVariables.flatMap((name) => {
    const value = env[name]?.trim();
    const problem = value ? sharedSecretProblem(value) : undefined;
    return problem === undefined ? [] : [{ path: name, reason: `${problem}: a shared secret must not be guessable (make one with \`openssl rand -hex 32\`)` }];
  });
}
