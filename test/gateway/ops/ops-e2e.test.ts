/**
 * The log and the metrics of a real gateway process (against the fake Bot API and the fake
 * model): a message's turn gives JSON lines for the message taken, the turn's start and end
 * (tokens, cost, duration) and the reply delivered, with no secret in any of them; `/metrics`
 * counts the same turn for a holder of the metrics token and refuses everyone else.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findBotMessage, startTelegramGateway, startTelegramGatewayFakes, type TelegramGatewayFakes } from '../../helpers/telegram-gateway-fakes.ts';
import type { GatewayProcess } from '../../helpers/gateway-process.ts';
import { fakeAnthropicKey } from '../../helpers/fake-model-env.ts';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { adminTokenPath } from '../../../src/gateway/admin/admin-token.ts';

const admin = 7001;
const stranger = 7002;
const metricsToken = 'metrics-token-for-the-scraper';

/** The gateway's stderr as parsed log records (every line must be JSON: it is not a terminal). */
function records(gateway: GatewayProcess): Record<string, unknown>[] {
  return gateway.output
    .stderr()
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('operations: log lines and metrics of a turn', () => {
  let fakes: TelegramGatewayFakes;
  let gateway: GatewayProcess;
  let origin: string;

  beforeAll(async () => {
    fakes = await startTelegramGatewayFakes('operator-ops-e2e-');
    gateway = await startTelegramGateway(fakes, [admin], 15_000, { env: { OPERATOR_METRICS_TOKEN: metricsToken } });
    origin = await gateway.ready();
  }, 30_000);
  afterAll(async () => {
    await gateway?.stop();
    await fakes?.close();
  });

  it('logs the turn as JSON lines with its place, tokens, cost and duration, and no secret', async () => {
    fakes.model.enqueue({ text: 'Hello from the model.' });
    fakes.telegram.pushUpdate(fakes.telegram.textMessage({ chatId: admin, text: 'hi there, secret plans inside', from: { id: admin, first_name: 'Ada' } }));
    await findBotMessage(fakes.telegram, gateway, admin, 'Hello from the model.', 15_000);
    for (let tries = 0; !records(gateway).some((record) => record.event === 'reply.delivered'); tries++) {
      if (tries > 100) throw new Error(`no reply.delivered line:\n${gateway.output.stderr()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const lines = records(gateway);
    const conversation = `telegram:dm:${admin}`;
    const of = (event: string) => lines.filter((record) => record.event === event);
    expect(of('message.accepted')).toEqual([expect.objectContaining({ level: 'info', platform: 'telegram', scope: 'dm' })]);
    const accepted = of('message.accepted')[0]!;
    expect(typeof accepted.conversation).toBe('string');
    expect(of('turn.start')).toEqual([expect.objectContaining({ platform: 'telegram', conversation: accepted.conversation, profile: 'default', scheduled: false })]);
    const [end] = of('turn.end');
    expect(end).toMatchObject({ level: 'info', platform: 'telegram', conversation: accepted.conversation, status: 'ok', profile: 'default' });
    expect(end!.turn).toBe(of('turn.start')[0]!.turn);
    expect(end!.durationMs).toBeGreaterThanOrEqual(0);
    expect((end!.tokens as { input: number }).input).toBeGreaterThan(0);
    expect(typeof end!.costUsd).toBe('number');
    // The same turn id on every line of the turn, as written (not as a store key encodes it).
    expect(of('reply.delivered')).toEqual([expect.objectContaining({ platform: 'telegram', conversation: accepted.conversation, turn: end!.turn, attempts: 1 })]);
    for (const record of lines) expect(Number.isNaN(Date.parse(String(record.time)))).toBe(false);
    // Never what the person wrote, never a secret (as is, URL-encoded or base64).
    const text = gateway.output.all();
    expect(text).not.toContain('secret plans');
    for (const secret of [fakes.telegram.token, fakeAnthropicKey, metricsToken, readFileSync(adminTokenPath(fakes.home), 'utf8').trim()]) {
      for (const form of [secret, encodeURIComponent(secret), Buffer.from(secret).toString('base64')]) expect(text).not.toContain(form);
    }
    expect(conversation).toContain(String(admin));
  }, 30_000);

  it('counts the turn in /metrics for the metrics token, and refuses anyone else', async () => {
    expect((await fetch(`${origin}/metrics`)).status).toBe(401);
    expect((await fetch(`${origin}/metrics`, { headers: { authorization: 'Bearer wrong-token' } })).status).toBe(401);
    expect((await fetch(`${origin}/metrics`, { headers: { authorization: `Basic ${Buffer.from(`x:${metricsToken}`).toString('base64')}` } })).status).toBe(401);
    // The admin token reads them too; the web chat's token or the control token does not.
    const adminToken = readFileSync(adminTokenPath(fakes.home), 'utf8').trim();
    expect((await fetch(`${origin}/metrics`, { headers: { authorization: `Bearer ${adminToken}` } })).status).toBe(200);
    const control = JSON.parse(readFileSync(join(fakes.home, 'gateway.json'), 'utf8')) as { token: string };
    expect((await fetch(`${origin}/metrics`, { headers: { authorization: `Bearer ${control.token}` } })).status).toBe(401);
    const response = await fetch(`${origin}/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/plain');
    const body = await response.text();
    expect(body).toMatch(/^operator_turns_total\{platform="telegram",status="ok"\} 1$/m);
    expect(body).toMatch(/^operator_messages_accepted_total\{platform="telegram"\} 1$/m);
    expect(body).toMatch(/^operator_deliveries_total\{platform="telegram"\} 1$/m);
    expect(body).toMatch(/^operator_turn_duration_seconds_count\{platform="telegram"\} 1$/m);
    expect(body).toMatch(/^operator_model_tokens_total\{provider="anthropic",model="[^"]+",type="input",source="turn"\} [1-9]\d*$/m);
    expect(body).toMatch(/^operator_queue_depth 0$/m);
    expect(body).toMatch(/^operator_process_resident_memory_bytes \d+/m);
    // A stranger's message is refused by pairing: counted as taken, never as a turn.
    fakes.telegram.pushUpdate(fakes.telegram.textMessage({ chatId: stranger, text: 'let me in', from: { id: stranger, first_name: 'Eve' } }));
    await findBotMessage(fakes.telegram, gateway, stranger, 'code', 15_000);
    // The log says who asked and the code an admin approves.
    const code = fakes.telegram.messages(stranger).at(-1)!.text.match(/\b[A-Z0-9]{8}\b/)?.[0];
    for (let tries = 0; !records(gateway).some((record) => record.event === 'pairing.requested'); tries++) {
      if (tries > 100) throw new Error(`no pairing.requested line:\n${gateway.output.stderr()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(records(gateway).filter((record) => record.event === 'pairing.requested')).toEqual([expect.objectContaining({ level: 'info', platform: 'telegram', user: `telegram:${stranger}`, code })]);
    const after = await (await fetch(`${origin}/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } })).text();
    expect(after).toMatch(/^operator_turns_total\{platform="telegram",status="ok"\} 1$/m);
    // No person in any label (a sample's value, a byte count, may hold the same digits by chance).
    const labels = (after.match(/\{[^}\n]*\}/g) ?? []).join('\n');
    expect(labels).toContain('platform="telegram"');
    expect(labels).not.toContain(String(stranger));
    expect(labels).not.toContain(String(admin));
  }, 30_000);
});
