/** The Worker in workerd: health, and a conversation's object keeping a message once. */
import { env, SELF } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';

describe('operator on Workers', () => {
  it('answers /healthz', async () => {
    const response = await SELF.fetch('http://example.com/healthz');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok', runtime: 'workers' });
  });

  it('keeps a message in its conversation object once, also when delivered twice', async () => {
    const stub = env.CONVERSATIONS.get(env.CONVERSATIONS.idFromName('telegram:dm:42'));
    const message = { key: 'telegram:42:7', text: 'hi', receivedAt: 1 };
    expect(await stub.accept(message)).toBe(true);
    expect(await stub.accept(message)).toBe(false);
    expect(await stub.waiting()).toEqual([message]);
  });
});
