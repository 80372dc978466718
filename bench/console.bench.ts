/**
 * The admin console's first load: the conversations page as a browser opens it (`GET /admin`,
 * the page, then `GET /admin/api/conversations`, its data), with 1,000 conversations on record
 * (known conversations and a month of usage in the ledger for each), against the real gateway
 * process. The floor is the bare HTTP round trip to `/healthz` in the same run.
 *
 * Figures: the very first load after the start (it imports the console's modules and reads the
 * usage ledger from the store: what an admin opening the console meets), and the median of 30
 * loads after it; each as milliseconds and as a ratio to the floor. The target (<= 300 ms)
 * applies to both loads.
 */
import { rmSync } from 'node:fs';
import { KnownConversations } from '../src/gateway/known-conversations.ts';
import { UsageLedger } from '../src/gateway/admin/usage-ledger.ts';
import { createStoreFromEnv } from '../src/store/from-env.ts';
import { compiledIsFresh, freePort, spawnGateway } from './gateway-process.ts';
import { benchHome, elapsedMs, median, type BenchResult } from './lib.ts';

const conversations = 1_000;
const days = 30;
const loads = 30;
const adminToken = 'bench-admin-token-0123456789abcdef';

export default async function run(): Promise<BenchResult[]> {
  const home = benchHome('operator-bench-console-');
  const env = { HOME: home, OPERATOR_HOME: home, OPERATOR_ADMIN_TOKEN: adminToken };
  try {
    await seed(env);
    const gateway = spawnGateway({ port: await freePort(), env });
    try {
      await gateway.ready();
      const cookie = await logIn(gateway.url);
      const firstLoad = await timeFirstLoad(gateway.url, cookie);
      const floor: number[] = [];
      const warm: number[] = [];
      for (let index = 0; index < loads; index++) {
        floor.push(await timed(() => read(`${gateway.url}/healthz`)));
        warm.push(await timeFirstLoad(gateway.url, cookie).then((load) => load.ms));
      }
      const floorMs = median(floor);
      const warmMs = median(warm);
      const mode = compiledIsFresh() ? 'compiled dist/' : 'sources through tsx (run npm run build for the compiled path)';
      return [
        { name: 'bare round trip to /healthz (floor, median)', value: floorMs, unit: 'ms' },
        { name: `console first load after start, ${conversations} conversations (page + data)`, value: firstLoad.ms, unit: 'ms', target: '<= 300 ms', pass: firstLoad.ms <= 300, note: `${Math.round(firstLoad.bytes / 1024)} KiB; ${mode}` },
        { name: 'console first load after start / floor', value: firstLoad.ms / floorMs, unit: 'x' },
        { name: 'console load, warm (median of 30)', value: warmMs, unit: 'ms', target: '<= 300 ms', pass: warmMs <= 300 },
        { name: 'console load, warm / floor', value: warmMs / floorMs, unit: 'x' },
      ];
    } finally {
      await gateway.stop();
    }
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

/** 1,000 Telegram conversations on record, each with a turn a day for the last 30 days in the usage ledger. */
async function seed(env: Record<string, string>): Promise<void> {
  const store = createStoreFromEnv(env);
  try {
    const known = new KnownConversations(store);
    const ledger = new UsageLedger({ store });
    const now = Date.now();
    for (let index = 0; index < conversations; index++) {
      const id = String(100_000 + index);
      const sessionKey = `telegram:dm:${id}`;
      await known.remember(sessionKey, { platform: 'telegram', conversationId: id }, 'dm', now - index * 60_000);
      for (let day = 0; day < days; day++) {
        const at = now - day * 86_400_000;
        const place = { platform: 'telegram', conversation: sessionKey, profile: 'default', at };
        const tokens = { input: 1_200, output: 300, cacheRead: 8_000, cacheWrite: 0 };
        ledger.record({ type: 'model.usage', ...place, provider: 'anthropic', model: 'claude-sonnet-4-5', tokens, costUsd: 0.012, kind: 'turn' });
        ledger.record({ type: 'turn.end', ...place, status: 'ok', durationMs: 1_500, tokens, costUsd: 0.012 });
      }
    }
    await ledger.flush();
  } finally {
    await store.close();
  }
}

async function logIn(base: string): Promise<string> {
  const response = await fetch(`${base}/admin/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: adminToken }) });
  await response.arrayBuffer();
  const cookie = response.headers.get('set-cookie')?.split(';')[0];
  if (!response.ok || !cookie) throw new Error(`admin login failed: HTTP ${response.status}`);
  return cookie;
}

/** The page, then its data, as the page asks for it; their time and size. */
async function timeFirstLoad(base: string, cookie: string): Promise<{ ms: number; bytes: number }> {
  const start = process.hrtime.bigint();
  const page = await read(`${base}/admin`, cookie);
  const data = await read(`${base}/admin/api/conversations?q=&limit=200`, cookie);
  const ms = elapsedMs(start);
  if (!data.includes(`"total":${conversations}`)) throw new Error(`the console did not list ${conversations} conversations: ${data.slice(0, 200)}`);
  return { ms, bytes: page.length + data.length };
}

async function read(url: string, cookie?: string): Promise<string> {
  const response = await fetch(url, { headers: cookie ? { cookie } : {} });
  const text = await response.text();
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return text;
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await work();
  return elapsedMs(start);
}
