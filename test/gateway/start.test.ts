import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnGateway, startGateway } from '../helpers/gateway-process.ts';
import type { GatewayProcess } from '../helpers/gateway-process.ts';
import { createTempHome, removeTempHome } from '../helpers/temp-home.ts';

let gateway: GatewayProcess | undefined;
let home: string | undefined;
afterEach(async () => {
  await gateway?.kill();
  gateway = undefined;
  removeTempHome(home);
  home = undefined;
});

describe('operator start', () => {
  it('serves the web chat without any credentials, says what enables what, answers /healthz, stops on SIGTERM', async () => {
    home = createTempHome('operator-gateway-');
    const started = await startGateway({ home });
    gateway = started;
    const url = started.origin;
    expect(started.output.stdout()).toContain('TELEGRAM_BOT_TOKEN');
    expect(started.output.stdout()).toContain('ANTHROPIC_API_KEY');
    const health = await fetch(`${url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok', channels: ['web'] });
    const page = await fetch(`${url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(await started.stop()).toBe(0);
  });

  it('refuses an invalid configuration file with its path and reason', async () => {
    home = createTempHome('operator-gateway-');
    writeFileSync(join(home, 'operator.json'), JSON.stringify({ port: 'eighty' }));
    // No PORT, so nothing but the file speaks of the port.
    gateway = spawnGateway({ home, port: null });
    expect(await gateway.exited).toBe(1);
    expect(gateway.output.stderr()).toContain('operator.json');
    expect(gateway.output.stderr()).toContain('port');
  });
});
