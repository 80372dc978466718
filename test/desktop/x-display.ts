/**
 * A throwaway X display for the desktop tests and benchmark: Xvfb on a free display number, with
 * windows to drive (a chromium app window on a local page, an xmessage box). No vitest here, so
 * the benchmark can use it too.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { runX, type XDisplay } from '../../src/desktop/x-programs.ts';
import { listWindows } from '../../src/desktop/desktop-capture.ts';
import { stopProcess } from '../helpers/stop-process.ts';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A running Xvfb and what was opened on it. */
export interface TestDisplay {
  display: XDisplay;
  /** Opens the test page in a chromium app window at the top left, 800x600; resolves when it shows. */
  openPage(): Promise<void>;
  /** Opens an xmessage box named `name`; resolves when it shows. */
  openMessage(name: string): Promise<void>;
  /** The name of the window whose name starts with `prefix`, waiting for it up to 10 s. */
  waitForWindow(prefix: string): Promise<string>;
  close(): Promise<void>;
}

/**
 * The page the tests click and type into: a button filling the top left (300x200 CSS px), a text
 * field below it, and key handling; each changes the title, which is the window's name.
 */
const page = `<!doctype html><title>Desk ready</title>
<style>body{margin:0} #go{position:absolute;left:0;top:0;width:300px;height:200px} #field{position:absolute;left:0;top:300px;width:400px;height:40px}</style>
<button id="go">Go</button><input id="field">
<script>
let clicks = 0;
document.getElementById('go').addEventListener('click', () => { document.title = 'Clicked ' + (++clicks); });
document.getElementById('field').addEventListener('input', (event) => { document.title = 'Typed ' + event.target.value; });
document.addEventListener('keydown', (event) => { if (event.ctrlKey && event.key === 'b') document.title = 'Pressed ctrl+b'; });
</script>`;

/**
 * Starts Xvfb with a `width`x`height` screen on a random display number (another is tried when
 * that one is taken). Not the first free number, which Xvfb would pick itself: test files run side
 * by side, and an Xvfb just stopped on that number removes its socket file while a new one on the
 * same number may already have made its own, leaving a display no client can open.
 */
export async function startDisplay(width = 2000, height = 1250): Promise<TestDisplay> {
  let started: { xvfb: ChildProcess; number: string } | undefined;
  for (let attempt = 0; !started; attempt++) {
    try {
      started = await startXvfb(String(100 + Math.floor(Math.random() * 9_000)), width, height);
    } catch (error) {
      if (attempt >= 9) throw error;
    }
  }
  const { xvfb, number } = started;
  const display: XDisplay = { name: `:${number}` };
  // Xvfb says its number once it listens, yet a client's first connection was refused twice in CI
  // (a busy machine): the display is handed over only once a client could open it.
  for (let tries = 0; ; tries++) {
    try {
      await runX('xwininfo', ['-root'], display);
      break;
    } catch (error) {
      if (tries >= 50) {
        await stopProcess(xvfb, 3_000);
        throw error;
      }
      await sleep(100);
    }
  }
  const children: ChildProcess[] = [xvfb];
  const server: Server = createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end(page));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const scratch = await mkdtemp(join(tmpdir(), 'operator-x-'));
  const env = { PATH: process.env.PATH, DISPLAY: display.name, HOME: scratch };

  const waitForWindow = async (prefix: string): Promise<string> => {
    for (let tries = 0; tries < 100; tries++) {
      const found = (await listWindows(display)).find((window) => window.name.startsWith(prefix));
      if (found) return found.name;
      await sleep(100);
    }
    throw new Error(`no window named ${prefix}… on ${display.name}: ${(await listWindows(display)).map((window) => window.name).join(', ')}`);
  };

  return {
    display,
    waitForWindow,
    async openPage() {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
      const profile = await mkdtemp(join(scratch, 'chromium-'));
      const args = ['--no-sandbox', '--test-type', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
      children.push(
        spawn('chromium', [...args, `--user-data-dir=${profile}`, '--window-position=0,0', '--window-size=800,600', `--app=${url}`], { env, stdio: 'ignore' }),
      );
      await waitForWindow('Desk ready');
    },
    async openMessage(name: string) {
      children.push(spawn('xmessage', ['-name', name, '-geometry', '+1200+700', `This is ${name}`], { env, stdio: 'ignore' }));
      await waitForWindow(name);
    },
    async close() {
      server.close();
      for (const child of children.reverse()) await stopProcess(child, 3_000);
      // chromium's helpers may still be writing their profile for a moment after it exits.
      await rm(scratch, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
    },
  };
}

/**
 * Xvfb on display `number`, once it accepts clients; rejects when it exits first (the number is
 * taken). `-noreset`: an X server resets when its last client leaves and refuses connections
 * while it does, so the probe's `xwininfo` leaving just as chromium arrived left a display no
 * client could open for a moment (reproduced under CPU load).
 */
async function startXvfb(number: string, width: number, height: number): Promise<{ xvfb: ChildProcess; number: string }> {
  const xvfb = spawn('Xvfb', [`:${number}`, '-displayfd', '1', '-screen', '0', `${width}x${height}x24`, '-noreset', '-nolisten', 'tcp', '-nolisten', 'unix', '-listen', 'unix'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const ready = await new Promise<string>((resolve, reject) => {
    let out = '';
    xvfb.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('\n')) resolve(out.trim());
    });
    xvfb.once('exit', (code) => reject(new Error(`Xvfb on :${number} exited with ${code}`)));
  });
  return { xvfb, number: ready };
}

/** The name of the window with the keyboard focus. */
export async function focusedName(display: XDisplay): Promise<string> {
  return (await runX('xdotool', ['getwindowfocus', 'getwindowname'], display)).stdout.toString().trim();
}
