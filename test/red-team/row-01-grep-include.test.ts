/**
 * Issue 30, row 1: `grep`'s `include` pattern was never checked, so `../` read `gateway.json`
 * (the control token), `web-token`, every conversation's transcript in `state/` and `/etc/passwd`,
 * and a match / no-match answer recovered a redacted value one character at a time. Tried again
 * through the real gateway process (Telegram long polling) from a stranger's group (served as an
 * allowlisted chat: any group an admin approved is such a seat), with the gateway working in its
 * own OPERATOR_HOME, the hardest case: every private entry lies inside the working directory.
 * Whatever the model asks of grep, glob, list_dir and read_file, no planted secret comes back in
 * any form (plain, base64, hex), in what reaches the model or the chat; a right guess and a wrong
 * one get the same answer; the seat still reads its own folder.
 *
 * Two lines stop these calls here: the workspace guardrail (which now checks `include` too) and,
 * beneath it, the file worker's sandbox, in which none of these paths exists. The mutation checks
 * of the sandbox alone, with no guardrail in front, are in `test/tools/file-worker-boundary.test.ts`.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keySegment } from '../../src/gateway/dedupe.ts';
import type { FakeModelServer } from '../fakes/fake-model-server.ts';
import type { FakeTelegram } from '../fakes/fake-telegram-server.ts';
import type { GatewayProcess } from '../helpers/gateway-process.ts';
import { everythingSentToModel, expectNoSecretIn, toolResultsOf } from '../helpers/secret-forms.ts';
import { findBotMessage, startTelegramGateway, startTelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';
import type { TelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';

const admin = 1101;
const stranger = { id: 6606, first_name: 'Eve' };
const group = -100101;
const wait = 20_000;
const launchCode = 'row1-launch-code-PELICAN-4711';
const webToken = 'row1-web-token-Zq8Rm3Kd7Wv2Xp5Ln9';

describe("row 1: grep's include and the other read tools, from a stranger's group", () => {
  let fakes: TelegramGatewayFakes;
  let model: FakeModelServer;
  let telegram: FakeTelegram;
  let gateway: GatewayProcess;
  let home: string;
  let own: string;

  beforeAll(async () => {
    fakes = await startTelegramGatewayFakes('operator-row1-');
    ({ model, telegram, home } = fakes);
    writeFileSync(join(home, 'web-token'), `${webToken}\n`, { mode: 0o600 });
    writeFileSync(join(home, 'operator.json'), JSON.stringify({ allowlists: { telegram: { chats: [String(group)] } } }));
    own = join(home, 'profiles', 'default', 'temp', keySegment(`telegram:group:${group}`));
    mkdirSync(own, { recursive: true });
    writeFileSync(join(own, 'minutes.txt'), 'minutes of the group meeting\n');
    gateway = await startTelegramGateway(fakes, [admin], wait, { cwd: home });
    // A transcript worth stealing: the admin's own direct messages, kept in state/.
    model.enqueue({ text: 'Noted the code.' });
    telegram.pushUpdate(telegram.textMessage({ chatId: admin, text: `the launch code is ${launchCode}`, from: { id: admin, first_name: 'Ada' } }));
    await findBotMessage(telegram, gateway, admin, 'Noted the code.', wait);
  }, 120_000);

  afterAll(async () => {
    await gateway?.stop();
    await fakes?.close();
  });

  async function strangerTurn(toolCalls: { name: string; arguments: Record<string, unknown> }[], answer: string): Promise<string> {
    model.enqueue({ toolCalls }, { text: answer });
    telegram.pushUpdate(telegram.textMessage({ chatId: group, text: `@${telegram.bot.username} search around`, from: stranger }));
    await findBotMessage(telegram, gateway, group, answer, wait);
    return toolResultsOf(model.requests.at(-1)!);
  }

  it('gives back nothing of the private state, the transcripts or /etc, in any form', async () => {
    const up = relative(own, home);
    const controlToken = (JSON.parse(readFileSync(join(home, 'gateway.json'), 'utf8')) as { token: string }).token;
    const grep = (args: Record<string, unknown>) => ({ name: 'grep', arguments: args });
    const results = await strangerTurn(
      [
        grep({ pattern: '.', include: `${up}/*` }),
        grep({ pattern: '.', include: `${up}/state/**` }),
        grep({ pattern: '.', include: '../../../../../../../../etc/passwd' }),
        grep({ pattern: 'PELICAN', path: home }),
        grep({ pattern: '.', path: join(home, 'gateway.json') }),
        grep({ pattern: 'root', path: '/etc/passwd' }),
        { name: 'read_file', arguments: { path: join(home, 'web-token') } },
        { name: 'read_file', arguments: { path: '/etc/passwd' } },
        { name: 'list_dir', arguments: { path: home, depth: 3 } },
        { name: 'glob', arguments: { pattern: `${up}/**` } },
        grep({ pattern: 'meeting' }),
      ],
      'Searched.',
    );
    expect(results).toContain('minutes.txt:1: minutes of the group meeting');
    const secrets = [controlToken, webToken, launchCode, telegram.token, fakes.env([admin]).ANTHROPIC_API_KEY!];
    expectNoSecretIn(results, secrets, 'the tool results');
    expect(results).not.toContain('root:x:0:0');
    expectNoSecretIn(everythingSentToModel(model.requests.slice(1)), secrets, 'the model');
    expectNoSecretIn(telegram.messages(group).map((message) => message.text).join('\n'), secrets, 'the group chat');
  });

  it('answers a right guess and a wrong one alike: no oracle', async () => {
    const controlToken = (JSON.parse(readFileSync(join(home, 'gateway.json'), 'utf8')) as { token: string }).token;
    const guess = (pattern: string) => ({ name: 'grep', arguments: { pattern, path: join(home, 'gateway.json') } });
    const right = await strangerTurn([guess(`"token":"${controlToken.slice(0, 4)}`)], 'Guessed once.');
    const wrong = await strangerTurn([guess('"token":"~~~~')], 'Guessed twice.');
    // The newest tool result of each request is the guess's (earlier ones are the history's).
    const answer = (results: string) => JSON.stringify((JSON.parse(results) as { content: unknown }[]).at(-1)?.content);
    expect(answer(right)).toContain('Error');
    expect(answer(right)).toEqual(answer(wrong));
  });
});
