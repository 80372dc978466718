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
    for (const variable of ['TELEGRAM_BOT_TOKEN', 'DISCORD_BOT_TOKEN', 'SLACK_BOT_TOKEN', 'SLACK_SIGNING_SECRET', 'SLACK_APP_TOKEN']) expect(started.output.stdout()).toContain(variable);
    expect(started.output.stdout()).toContain('ANTHROPIC_API_KEY');
    const health = await fetch(`${url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok', channels: ['web'] });
    const page = await fetch(`${url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(await started.stop()).toBe(0);
  });

  it('refuses a Slack bot token without a signing secret or app token, naming both, never the token', async () => {
    home = createTempHome('operator-gateway-');
    gateway = spawnGateway({ home, env: { SLACK_BOT_TOKEN: 'xoxb-never-shown' } });
    expect(await gateway.exited).toBe(1);
    expect(gateway.output.stderr()).toContain('SLACK_SIGNING_SECRET');
    expect(gateway.output.stderr()).toContain('SLACK_APP_TOKEN');
    expect(gateway.output.stderr() + gateway.output.stdout()).not.toContain('xoxb-never-shown');
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
