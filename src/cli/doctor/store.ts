/**
 * Doctor check: the store `OPERATOR_STORE` picks. Redis gets a PING with a short timeout (not
 * with `--offline`); its URL is shown without the password.
 */
import { join } from 'node:path';
import { operatorHome } from '../../store/from-env.ts';
import { messageOf, networkTimeoutMs, type CheckResult } from './check.ts';

const name = 'Store';

/** Checks the store backend, pinging Redis unless `offline`. */
export async function checkStore(env: NodeJS.ProcessEnv, offline: boolean, timeoutMs = 3_000): Promise<CheckResult> {
  const kind = env.OPERATOR_STORE?.trim() || 'fs';
  if (kind === 'fs') return { level: 'OK', name, detail: `files under ${join(operatorHome(env), 'state')}` };
  if (kind === 'memory') return { level: 'WARN', name, detail: 'in memory (OPERATOR_STORE=memory): nothing survives a restart', fix: 'unset OPERATOR_STORE to keep sessions in files' };
  if (kind !== 'redis') return { level: 'FAIL', name, detail: `unknown OPERATOR_STORE "${kind}"`, fix: 'use fs, memory or redis' };
  const url = env.OPERATOR_REDIS_URL?.trim();
  if (!url) return { level: 'FAIL', name, detail: 'OPERATOR_STORE=redis, but OPERATOR_REDIS_URL is not set', fix: 'set OPERATOR_REDIS_URL (e.g. redis://localhost:6379)' };
  const shown = withoutPassword(url);
  if (offline) return { level: 'OK', name, detail: `Redis at ${shown}; not contacted (--offline)` };
  return pingRedis(url, shown, Math.min(timeoutMs, networkTimeoutMs));
}

async function pingRedis(url: string, shown: string, timeoutMs: number): Promise<CheckResult> {
  const { Redis } = await import('ioredis');
  const client = new Redis(url, { lazyConnect: true, connectTimeout: timeoutMs, maxRetriesPerRequest: 0, retryStrategy: () => null, enableOfflineQueue: false });
  // The connection's own error (ECONNREFUSED, ...) says more than the rejection ("Connection is closed.").
  let lastError: string | undefined;
  client.on('error', (error: Error) => void (lastError = messageOf(error)));
  let timer: NodeJS.Timeout | undefined;
  try {
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs / 1000} s`)), timeoutMs);
    });
    await Promise.race([client.connect().then(() => client.ping()), deadline]);
    return { level: 'OK', name, detail: `Redis at ${shown} answers PING` };
  } catch (error) {
    const said = (lastError ?? messageOf(error)).split(url).join(shown);
    return { level: 'FAIL', name, detail: `Redis at ${shown} does not answer (${said})`, fix: 'start Redis, or fix OPERATOR_REDIS_URL' };
  } finally {
    clearTimeout(timer);
    client.disconnect();
  }
}

/** `url` with any password replaced by `***`. */
function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'the URL in OPERATOR_REDIS_URL (not a valid URL)';
  }
}
