/** The fakes in Node are reachable from workerd, and the Worker is given their addresses. */
import { env } from 'cloudflare:test';
import { expect, it } from 'vitest';
import { callFake, readFake } from './support/fakes.ts';

it('reaches the fakes through the control server, with the Worker pointed at them', async () => {
  await callFake('model', 'reset');
  expect(await readFake('model', 'requests')).toEqual([]);
  expect(await callFake('telegram', 'callsOf', 'sendMessage')).toBeInstanceOf(Array);
  const root = (env as unknown as Record<string, string>).TELEGRAM_API_ROOT;
  const answer = await fetch(`${root}/bot${(env as unknown as Record<string, string>).TELEGRAM_BOT_TOKEN}/getMe`);
  expect(((await answer.json()) as { ok: boolean }).ok).toBe(true);
});
