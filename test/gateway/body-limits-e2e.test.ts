/**
 * Request bodies are limited while they are read, before any parsing or signature work, on every
 * route that takes one: a huge body (50 MB, streamed without a Content-Length) to the Telegram
 * webhook with the right secret, to the Slack route unsigned and signed, to the control route with
 * its token is answered 413 (the web chat's own limit is tested with the web channel), and the
 * real gateway process neither holds it (two such bodies grow its resident memory by less than
 * half of one; holding one would take all of it) nor stops answering.
 */
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/free-port.ts';
import { startGateway, type StartedGateway } from '../helpers/gateway-process.ts';
import { startTelegramGatewayFakes, type TelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';
import { startSlackGatewayFakes, type SlackGatewayFakes } from '../helpers/slack-gateway-fakes.ts';

const bodyBytes = 50 * 1024 * 1024;

/** Resident memory of a process, in bytes (from /proc). */
function rss(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((entry) => entry.startsWith('VmRSS:'))!;
  return Number(line.replace(/\D+/g, '')) * 1024;
}

/** POSTs `bytes` of zeros in 64 KiB writes, chunked (no Content-Length); resolves to the status (0 when the server closed first). */
function postHuge(url: string, headers: Record<string, string>, bytes = bodyBytes): Promise<number> {
  return new Promise((resolve) => {
    const request = httpRequest(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers } }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.on('error', () => resolve(0));
    const piece = Buffer.alloc(64 * 1024, 0x20);
    let sent = 0;
    const write = () => {
      while (sent < bytes) {
        sent += piece.length;
        if (!request.write(piece)) return void request.once('drain', write);
      }
      request.end();
    };
    write();
  });
}

describe('request body limits', () => {
  let telegramFakes: TelegramGatewayFakes;
  let slackFakes: SlackGatewayFakes;
  let telegramGateway: StartedGateway;
  let slackGateway: StartedGateway;
  const secret = 'limits-secret-7';

  beforeAll(async () => {
    telegramFakes = await startTelegramGatewayFakes('operator-body-limits-');
    const port = await freePort();
    telegramGateway = await startGateway({
      home: telegramFakes.home,
      port,
      env: { ...telegramFakes.env([]), TELEGRAM_WEBHOOK_URL: `http://127.0.0.1:${port}/webhooks/telegram`, TELEGRAM_WEBHOOK_SECRET: secret },
    });
    slackFakes = await startSlackGatewayFakes('operator-body-limits-slack-');
    slackGateway = await slackFakes.startGateway([]);
    // What loads in the background after start-up (the model SDK, the renderers) settles first,
    // so it does not count as growth below.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
  });

  afterAll(async () => {
    await telegramGateway?.stop();
    await slackGateway?.stop();
    await telegramFakes?.close();
    await slackFakes?.close();
  });

  it('answers 413 to a huge Telegram update with the right secret, without holding it, and keeps answering', async () => {
    const before = rss(telegramGateway.child.pid!);
    expect(await postHuge(`${telegramGateway.origin}/webhooks/telegram`, { 'x-telegram-bot-api-secret-token': secret })).toBe(413);
    // A wrong secret is refused before a byte is read.
    expect(await postHuge(`${telegramGateway.origin}/webhooks/telegram`, { 'x-telegram-bot-api-secret-token': 'wrong' })).toBe(401);
    expect(rss(telegramGateway.child.pid!) - before).toBeLessThan(bodyBytes / 2);
    expect((await fetch(`${telegramGateway.origin}/healthz`)).status).toBe(200);
    expect(telegramGateway.output.all()).toContain('its body is too large');
  });

  it('answers 413 to a huge control request with the right token', async () => {
    const { token } = JSON.parse(readFileSync(join(telegramFakes.home, 'gateway.json'), 'utf8')) as { token: string };
    expect(await postHuge(`${telegramGateway.origin}/control/schedule`, { authorization: `Bearer ${token}` }, 2 * 1024 * 1024)).toBe(413);
  });

  it('answers 413 to a huge Slack request, unsigned or signed, before checking its signature, without holding it', async () => {
    const before = rss(slackGateway.child.pid!);
    const timestamp = String(Math.floor(Date.now() / 1000));
    expect(await postHuge(`${slackGateway.origin}/webhooks/slack`, {})).toBe(413);
    expect(await postHuge(`${slackGateway.origin}/webhooks/slack`, { 'x-slack-request-timestamp': timestamp, 'x-slack-signature': 'v0=00' })).toBe(413);
    expect(rss(slackGateway.child.pid!) - before).toBeLessThan(bodyBytes / 2);
    expect((await fetch(`${slackGateway.origin}/healthz`)).status).toBe(200);
  });
});
