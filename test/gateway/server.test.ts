import { describe, expect, it } from 'vitest';
import type { ChannelAdapter } from '../../src/channels/types.ts';
import { StoreHealth } from '../../src/gateway/health/store-health.ts';
import { createJournal } from '../../src/gateway/journal.ts';
import { createGatewayApp, type GatewayState } from '../../src/gateway/server.ts';
import { createStore } from '../../src/store/index.ts';
import { FaultyStore } from '../helpers/faulty-store.ts';

/** An adapter with one route, for mounting only. */
const pingAdapter = {
  platform: 'ping',
  routes: () => [{ method: 'GET', path: '/ping', handler: async () => new Response('pong') }],
} as unknown as ChannelAdapter;

describe('gateway server', () => {
  it('answers /healthz with 200 only while ready: 503 with the state while starting or stopping', async () => {
    let state: GatewayState = 'starting';
    const app = createGatewayApp([pingAdapter], () => ({ state, channels: ['ping'], liveSessions: 2 }));

    const starting = await app.request('/healthz');
    expect(starting.status).toBe(503);
    expect(await starting.json()).toEqual({ status: 'starting', channels: ['ping'], liveSessions: 2, store: { state: 'ok' }, journals: [] });

    state = 'ready';
    const ready = await app.request('/healthz');
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ok', channels: ['ping'], liveSessions: 2, store: { state: 'ok' }, journals: [] });

    state = 'stopping';
    const stopping = await app.request('/healthz');
    expect(stopping.status).toBe(503);
    expect(await stopping.json()).toMatchObject({ status: 'stopping' });
  });

  it('answers /healthz and /readyz with 503 store-failing while the store fails, and 200 again once it works', async () => {
    const store = new FaultyStore(createStore({ driver: 'memory' }), { base: '/home/someone/.operator/state' });
    const health = new StoreHealth({ store, log: () => undefined });
    let state: GatewayState = 'ready';
    const app = createGatewayApp([pingAdapter], () => ({ state, channels: ['ping'], liveSessions: 0, ...health.summary() }));
    expect((await app.request('/readyz')).status).toBe(200);

    store.fail('EROFS');
    health.reportFailure(await store.append('sessions:telegram:dm:42', 'x').catch((error: unknown) => error), 'telegram:dm:42: message not taken');
    for (const path of ['/healthz', '/readyz']) {
      const failing = await app.request(path);
      expect(failing.status, path).toBe(503);
      const body = (await failing.json()) as Record<string, unknown>;
      expect(body, path).toMatchObject({ status: 'store-failing', store: { state: 'failing', error: { code: 'EROFS', operation: 'append' }, since: expect.any(String) } });
      // No file name, key or conversation in an answer anyone may ask for.
      expect(JSON.stringify(body), path).not.toMatch(/someone|telegram:dm|sessions/);
    }
    // Starting or stopping says so first.
    state = 'stopping';
    expect(await (await app.request('/healthz')).json()).toMatchObject({ status: 'stopping', store: { state: 'failing' } });
    state = 'ready';

    store.heal();
    expect(await health.probe()).toBe(true);
    expect((await app.request('/healthz')).status).toBe(200);
    expect(await (await app.request('/readyz')).json()).toMatchObject({ status: 'ready', store: { state: 'ok' } });
    health.stop();
  });

  it('answers /readyz 200 degraded, and /healthz 200 ok, listing journal damage without content', async () => {
    const store = createStore({ driver: 'memory', now: () => 1_700_000_000_000 });
    await store.append('journal:inbox:472222', 'garbage from a broken disk');
    await store.append('journal:inbox:472222', JSON.stringify({ k: 'telegram:update:1', t: 1_700_000_000_000, v: { text: 'private words' } }));
    await store.append('journal:inbox:472222', '{"k":"telegram:update:2","t":1700000000000,"v":{"text":"more private');
    const health = new StoreHealth({ store, log: () => undefined });
    const inbox = createJournal(store, { name: 'inbox', ttlSeconds: 86_400, now: () => 1_700_000_000_000, onDamage: (report) => health.reportDamage(report) });
    expect(await inbox.entries()).toHaveLength(1);
    const app = createGatewayApp([pingAdapter], () => ({ state: 'ready', channels: ['ping'], liveSessions: 0, ...health.summary() }));

    const ready = await app.request('/readyz');
    expect(ready.status).toBe(200);
    const body = (await ready.json()) as Record<string, unknown>;
    expect(body).toEqual({
      status: 'degraded',
      channels: ['ping'],
      liveSessions: 0,
      store: { state: 'ok' },
      journals: [
        {
          journal: 'inbox',
          segment: 'journal:inbox:472222',
          kind: 'damaged-records',
          damagedRecords: 2,
          keptRecords: 1,
          recordsLost: true,
          foundAt: '2023-11-14T22:13:20.000Z',
          movedTo: 'journal-damaged:inbox:472222:1700000000000',
          repairFailed: false,
        },
      ],
    });
    expect(JSON.stringify(body)).not.toMatch(/private|telegram:update/);
    const healthz = await app.request('/healthz');
    expect(healthz.status).toBe(200);
    expect(await healthz.json()).toMatchObject({ status: 'ok', journals: [{ journal: 'inbox' }] });
  });

  it('answers /readyz 503 with the state while starting', async () => {
    const app = createGatewayApp([pingAdapter], () => ({ state: 'starting', channels: [], liveSessions: 0 }));
    const starting = await app.request('/readyz');
    expect(starting.status).toBe(503);
    expect(await starting.json()).toEqual({ status: 'starting', channels: [], liveSessions: 0, store: { state: 'ok' }, journals: [] });
  });

  it('mounts the adapters\' routes and answers 404 elsewhere', async () => {
    const app = createGatewayApp([pingAdapter], () => ({ state: 'ready', channels: ['ping'], liveSessions: 0 }));
    expect(await (await app.request('/ping')).text()).toBe('pong');
    expect((await app.request('/nowhere')).status).toBe(404);
  });
});
