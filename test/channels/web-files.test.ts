/**
 * Web chat files out, over real HTTP: text then `file` events as parts, the links serving the
 * exact bytes with safe headers, unguessable and bounded in memory (wrong or dropped links answer
 * 404), the size limit, unreadable files and retries with skipParts; and the page showing a file
 * in chromium (when installed).
 */
import { randomBytes } from 'node:crypto';
import { truncate, writeFile } from 'node:fs/promises';
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, whenChromiumInstalled } from '../helpers/chromium.ts';
import { deliveryFailure } from './delivery-failure.ts';
import { missingFile, textBytes, writeOutboundFiles } from './outbound-files.ts';
import { openSse, startWebHarness } from '../helpers/web-harness.ts';
import type { SseEvent, SseStream, WebHarness } from '../helpers/web-harness.ts';

const newClientId = () => randomBytes(16).toString('hex');
const address = (clientId: string) => ({ platform: 'web', conversationId: clientId });
/** A 1×1 PNG. */
const pixel = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

let harness: WebHarness | undefined;
const streams: SseStream[] = [];

afterEach(async () => {
  for (const stream of streams.splice(0)) stream.close();
  await harness?.close();
  harness = undefined;
});

async function start(options?: Parameters<typeof startWebHarness>[0]): Promise<WebHarness> {
  harness = await startWebHarness(options);
  return harness;
}

async function events(origin: string, clientId: string): Promise<SseStream> {
  const stream = await openSse(`${origin}/web/events?clientId=${clientId}`);
  streams.push(stream);
  await stream.next((event) => event.type === 'ready');
  return stream;
}

const fileOf = async (name: string, mediaType: string, bytes: Uint8Array) => (await writeOutboundFiles([{ name, bytes, mediaType }]))[0]!;

const fileEvents = (stream: SseStream) => stream.events.filter((event) => event.type === 'file');
const urlOf = (event: SseEvent) => String(event.data.url);

describe('web chat: files out', () => {
  it('sends the text, then each file as a file event whose link serves the exact bytes', async () => {
    const { origin, channel } = await start();
    const clientId = newClientId();
    const stream = await events(origin, clientId);
    const pdf = await fileOf('report.pdf', 'application/pdf', textBytes('%PDF-1.7 report'));
    const png = await fileOf('chart.png', 'image/png', pixel);
    const { ids } = await channel.send(address(clientId), { text: 'Two **files**:', files: [pdf, png] });
    await stream.next((event) => event.type === 'file' && event.data.name === 'chart.png');
    expect(stream.events.slice(1).map((event) => [event.type, event.data.id])).toEqual([['message', ids[0]], ['file', ids[1]], ['file', ids[2]]]);
    const [first, second] = fileEvents(stream);
    expect(first!.data).toEqual({ id: ids[1], name: 'report.pdf', size: 15, mediaType: 'application/pdf', url: expect.stringMatching(/^\/web\/files\/[0-9a-f]{32}\/report\.pdf$/) });

    const download = await fetch(`${origin}${urlOf(first!)}`);
    expect(download.status).toBe(200);
    expect(new Uint8Array(await download.arrayBuffer())).toEqual(textBytes('%PDF-1.7 report'));
    expect(download.headers.get('content-type')).toBe('application/pdf');
    expect(download.headers.get('content-disposition')).toBe(`attachment; filename="report.pdf"; filename*=UTF-8''report.pdf`);
    expect(download.headers.get('x-content-type-options')).toBe('nosniff');

    const image = await fetch(`${origin}${urlOf(second!)}`);
    expect(Buffer.from(await image.arrayBuffer())).toEqual(pixel);
    expect(image.headers.get('content-type')).toBe('image/png');
    expect(image.headers.get('content-disposition')).toMatch(/^inline; /);
  });

  it('sends files alone when the text is empty, and buffers them while no page is connected', async () => {
    const { origin, channel } = await start();
    const clientId = newClientId();
    const files = [await fileOf('a.txt', 'text/plain', textBytes('a')), await fileOf('b.txt', 'text/plain', textBytes('b'))];
    const { ids } = await channel.send(address(clientId), { text: '', files });
    expect(ids).toHaveLength(2);
    expect(channel.bufferedCount(clientId)).toBe(2);
    const stream = await events(origin, clientId);
    await stream.next((event) => event.data.name === 'b.txt');
    expect(stream.events.slice(1).map((event) => [event.type, event.data.name, event.data.buffered])).toEqual([
      ['file', 'a.txt', true],
      ['file', 'b.txt', true],
    ]);
    expect(await (await fetch(`${origin}${urlOf(stream.events[2]!)}`)).text()).toBe('b');
  });

  it('keeps odd names out of headers and URLs', async () => {
    const { origin, channel } = await start();
    const clientId = newClientId();
    const stream = await events(origin, clientId);
    const name = 'résumé "final" <b>1<b>.html';
    await channel.send(address(clientId), { text: '', files: [await fileOf(name, 'text/html', textBytes('<script>alert(1)</script>'))] });
    const event = await stream.next((item) => item.type === 'file');
    expect(event.data.name).toBe(name);
    expect(urlOf(event).split('/').at(-1)).toBe(encodeURIComponent(name));
    const response = await fetch(`${origin}${urlOf(event)}`);
    expect(response.headers.get('content-type')).toBe('text/html');
    expect(response.headers.get('content-disposition')).toBe(`attachment; filename="r_sum_ _final_ <b>1<b>.html"; filename*=UTF-8''r%C3%A9sum%C3%A9%20%22final%22%20%3Cb%3E1%3Cb%3E.html`);
    expect(response.headers.get('content-security-policy')).toContain('sandbox');
  });

  it('answers 404 to a link with a wrong id', async () => {
    const { origin, channel } = await start();
    const clientId = newClientId();
    const stream = await events(origin, clientId);
    await channel.send(address(clientId), { text: '', files: [await fileOf('kept.txt', 'text/plain', textBytes('kept'))] });
    const url = urlOf(await stream.next((event) => event.type === 'file'));
    const realId = url.split('/').at(-2)!;
    for (const wrong of [`/web/files/${randomBytes(16).toString('hex')}/kept.txt`, `/web/files/${realId.slice(1)}/kept.txt`, `/web/files/${realId.toUpperCase()}/kept.txt`]) {
      const response = await fetch(`${origin}${wrong}`);
      expect(response.status, wrong).toBe(404);
      expect(await response.text()).toMatch(/no longer available/);
    }
    expect((await fetch(`${origin}${url}`)).status).toBe(200);
  });

  it('drops the oldest files beyond its memory bound; their links answer 404 saying why', async () => {
    const { origin, channel } = await start({ channel: { fileMemoryBytes: 1_000 } });
    const clientId = newClientId();
    const stream = await events(origin, clientId);
    for (const name of ['one', 'two', 'three']) await channel.send(address(clientId), { text: '', files: [await fileOf(`${name}.bin`, 'application/octet-stream', new Uint8Array(400).fill(name.length))] });
    await stream.next((event) => event.data.name === 'three.bin');
    const [one, two, three] = await Promise.all(fileEvents(stream).map((event) => fetch(`${origin}${urlOf(event)}`)));
    expect([one!.status, two!.status, three!.status]).toEqual([404, 200, 200]);
    expect(await one!.text()).toMatch(/no longer available.*most recent files/);
    expect(new Uint8Array(await three!.arrayBuffer())).toEqual(new Uint8Array(400).fill(5));
  });

  it('refuses a file over the limit with a final error naming it, reporting the text already sent', async () => {
    const { origin, channel } = await start();
    const clientId = newClientId();
    const stream = await events(origin, clientId);
    const big = await fileOf('movie.mp4', 'video/mp4', new Uint8Array());
    await truncate(big.path, channel.capabilities.maxFileBytes + 1);
    const error = await deliveryFailure(channel.send(address(clientId), { text: 'The movie:', files: [await fileOf('poster.png', 'image/png', pixel), big] }));
    expect(error.retryable).toBe(false);
    expect(error.message).toContain('movie.mp4');
    expect(error.message).toContain('20,971,520');
    await stream.next((event) => event.type === 'file');
    expect(error.delivered).toEqual(stream.events.slice(1).map((event) => event.data.id));
    expect(stream.events.slice(1).map((event) => event.type)).toEqual(['message', 'file']);
  });

  it('refuses a file larger than its memory bound', async () => {
    const { channel } = await start({ channel: { fileMemoryBytes: 100 } });
    const error = await deliveryFailure(channel.send(address(newClientId()), { text: '', files: [await fileOf('big.txt', 'text/plain', new Uint8Array(101))] }));
    expect(error).toMatchObject({ retryable: false, delivered: [] });
    expect(error.message).toContain('over the limit of 100 bytes');
  });

  it('refuses a file that cannot be read; a retry with skipParts sends only what did not arrive', async () => {
    const { origin, channel } = await start();
    const clientId = newClientId();
    const stream = await events(origin, clientId);
    const first = await fileOf('first.txt', 'text/plain', textBytes('1'));
    const later = await missingFile('later.txt');
    const message = { text: 'Files:', files: [first, later] };
    const error = await deliveryFailure(channel.send(address(clientId), message));
    expect(error.retryable).toBe(false);
    expect(error.message).toMatch(/later\.txt could not be read/);
    expect(error.delivered).toHaveLength(2);

    await writeFile(later.path, 'later');
    const { ids } = await channel.send(address(clientId), { ...message, skipParts: error.delivered.length });
    await stream.next((event) => event.data.name === 'later.txt');
    expect(stream.events.slice(1).map((event) => event.data.name ?? event.data.text)).toEqual(['Files:', 'first.txt', 'later.txt']);
    expect(stream.events.slice(1).map((event) => event.data.id)).toEqual([...error.delivered, ...ids]);
  });
});

whenChromiumInstalled('web chat files in chromium', 'the browser test of files in the web chat', () => {
  describe('web chat files in chromium', () => {
    let browser: Browser;
    beforeAll(async () => {
      browser = await launchChromium();
    });
    afterAll(async () => {
      await browser?.close();
    });

    it('shows a file as a link with its name as text, and an image with a preview', async () => {
      const { origin, channel } = await start();
      const page = await browser.newPage();
      page.setDefaultTimeout(8_000);
      const problems: string[] = [];
      page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
      await page.goto(`${origin}/`);
      await page.locator('#status[data-state="connected"]').waitFor();
      const clientId = await page.evaluate<string | null>("localStorage.getItem('operator.web.clientId')");
      const odd = '<img src=x onerror=alert(1)>.txt';
      await channel.send(address(clientId ?? ''), { text: 'Here:', files: [await fileOf(odd, 'text/plain', textBytes('x')), await fileOf('pixel.png', 'image/png', pixel)] });
      const preview = page.locator('.message.file img.preview');
      await preview.waitFor();
      expect(await page.locator('.message.file a').allInnerTexts()).toEqual([odd, 'pixel.png']);
      expect(await page.locator('.message.file img').count()).toBe(1);
      // The preview loaded: the link serves the image to the page under its content security policy.
      await page.waitForFunction("document.querySelector('.message.file img.preview')?.naturalWidth === 1");
      const href = await page.locator('.message.file a').first().getAttribute('href');
      expect(href).toMatch(/^\/web\/files\/[0-9a-f]{32}\//);
      await page.close();
      expect(problems).toEqual([]);
    });
  });
});
