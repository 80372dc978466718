import { describe, expect, it } from 'vitest';
import type { ChannelAdapter } from '../../src/channels/types.ts';
import { createGatewayApp, type GatewayState } from '../../src/gateway/server.ts';

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
    expect(await starting.json()).toEqual({ status: 'starting', channels: ['ping'], liveSessions: 2 });

    state = 'ready';
    const ready = await app.request('/healthz');
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ok', channels: ['ping'], liveSessions: 2 });

    state = 'stopping';
    const stopping = await app.request('/healthz');
    expect(stopping.status).toBe(503);
    expect(await stopping.json()).toMatchObject({ status: 'stopping' });
  });

  it('mounts the adapters\' routes and answers 404 elsewhere', async () => {
    const app = createGatewayApp([pingAdapter], () => ({ state: 'ready', channels: ['ping'], liveSessions: 0 }));
    expect(await (await app.request('/ping')).text()).toBe('pong');
    expect((await app.request('/nowhere')).status).toBe(404);
  });
});
