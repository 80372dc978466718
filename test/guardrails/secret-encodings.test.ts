/**
 * The secret redactor in every encoding a command prints: a secret of the environment, and every
 * value of the `.env` files operator loads whatever its name, are gone from tool results as
 * written, URL-encoded, in hex (either case, `xxd -p`'s wrapped lines) and in base64 (standard or
 * URL-safe, at any offset in a longer stream, wrapped as `base64` wraps it).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSecretRedactor } from '../../src/guardrails/index.ts';
import { encodedForms, redactEncodedForms } from '../../src/guardrails/secret-encodings.ts';
import type { ToolResultContent } from '../../src/llm/types.ts';
import { secretForms } from '../helpers/secret-forms.ts';
import { after, toolCall } from './helpers.ts';

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** An `.env` file with `text` in a temp folder. */
function envFile(text: string): string {
  const folder = mkdtempSync(join(tmpdir(), 'operator-env-redact-'));
  folders.push(folder);
  const file = join(folder, '.env');
  writeFileSync(file, text);
  return file;
}

const textOf = (content: ToolResultContent[] | undefined) => (content ?? []).map((part) => (part.type === 'text' ? part.text : '')).join('\n');

/** Every contiguous form of `secret` that a red-team test looks for, and its decoded runs. */
function expectGone(text: string, secret: string): void {
  for (const form of secretForms(secret)) expect(text, `a form of ${secret} survived`).not.toContain(form);
  // What any base64 run left in the text decodes to, at each of its four starting offsets.
  for (const run of text.replace(/\s+/g, '').match(/[A-Za-z0-9+/]{12,}/g) ?? []) {
    for (let shift = 0; shift < 4; shift++) expect(Buffer.from(run.slice(shift), 'base64').toString('latin1')).not.toContain(secret.slice(0, 12));
  }
}

describe('encoded forms of a secret', () => {
  it('finds base64 at every offset in a longer stream, wrapped at 76 columns as `base64` does', () => {
    const secret = 'sk-live-4f9Q2mZx8Rt7Lk3Vp6Nw1Yh5Jc0Bd';
    const forms = encodedForms(secret);
    for (const prefix of ['', 'A', 'AB', 'PREFIX_LINE=yes\n', 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcdefghijklmnopqrstuvwxyz=']) {
      const encoded = Buffer.from(`${prefix}${secret}\nMORE=after\n`).toString('base64');
      const wrapped = encoded.replace(/.{76}/g, '$&\n');
      const result = redactEncodedForms(wrapped, forms, '[REDACTED]');
      expect(result.count, `prefix ${JSON.stringify(prefix)}`).toBe(1);
      expectGone(result.text, secret);
    }
  });

  it('finds hex in either case, with the spaces and line breaks of hex dumps, and URL-safe base64', () => {
    const secret = 'hunter22hunter22-and-more';
    const forms = encodedForms(secret);
    const hex = Buffer.from(`X=${secret}`).toString('hex');
    const dumped = hex.replace(/.{60}/g, '$&\n').replace(/(\w{4})(?=\w)/g, '$1 ');
    expect(redactEncodedForms(`${hex}\n${hex.toUpperCase()}\n${dumped}`, forms, '[R]').count).toBe(3);
    const url = Buffer.from(`??${secret}`).toString('base64url');
    const result = redactEncodedForms(url, forms, '[R]');
    expect(result.count).toBe(1);
    expect(Buffer.from(result.text.replace('[R]', ''), 'base64url').toString('latin1')).not.toContain(secret.slice(0, 10));
  });

  it('leaves text without the secret as it was', () => {
    const forms = encodedForms('hunter22hunter22');
    const text = 'aGVsbG8gd29ybGQ=\n68656c6c6f\nplain words';
    expect(redactEncodedForms(text, forms, '[R]')).toEqual({ text, count: 0 });
  });
});

describe('the secret redactor and .env files', () => {
  const planted = 'dotenv-DEPLOY-note-9Xq4Lm2Rt7Wz';

  it('redacts every value of a .env file whatever its name (plain words under plain names aside), in plain, base64 and hex, as `base64` and `xxd -p` print the file', async () => {
    const file = envFile(
      `# deploy settings\nDEPLOY_NOTE=${planted}\nexport PAYMENTS_WEBHOOK="whsec-Qm3Xk9Tz2Lp8Rv5N"\nSHORT=abc\nBASE_URL=http://localhost:8080/v1\nNODE_ENV=production\nSESSION_SECRET=correcthorsebattery\n`,
    );
    const redactor = createSecretRedactor({ env: {}, envFiles: [file, join(tmpdir(), 'missing-dir-0', '.env')] });
    const base64 = execFileSync('base64', [file], { encoding: 'utf8' });
    // As `xxd -p` prints it: 30 bytes a line.
    const hex = readFileSync(file).toString('hex').replace(/.{60}/g, '$&\n');
    const plain = readFileSync(file, 'utf8');
    const result = await after(redactor, toolCall('shell', { command: 'cat .env; base64 .env; xxd -p .env' }), [{ type: 'text', text: `${plain}\n${base64}\n${hex}` }]);
    const text = textOf(result.content);
    for (const secret of [planted, 'whsec-Qm3Xk9Tz2Lp8Rv5N', 'correcthorsebattery']) expectGone(text, secret);
    // Short values and plain locators are ordinary text, as for the environment's secrets; so is
    // a plain word under a name that does not look secret (it is in every other file).
    expect(text).toContain('SHORT=abc');
    expect(text).toContain('BASE_URL=http://localhost:8080/v1');
    expect(text).toContain('NODE_ENV=production');
    expect(text).toMatch(/secrets were redacted from this result/);
  });

  it("redacts the environment's secrets in base64 at any offset and in URL encoding too", async () => {
    const secret = 'p@ss word/with+signs!';
    const redactor = createSecretRedactor({ env: { DB_PASSWORD: secret } });
    const text = `${encodeURIComponent(secret)}\n${Buffer.from(`PASS=${secret}`).toString('base64')}\n${Buffer.from(secret).toString('hex')}`;
    const result = await after(redactor, toolCall('shell'), [{ type: 'text', text }]);
    expect(textOf(result.content)).not.toContain(encodeURIComponent(secret));
    expectGone(textOf(result.content), secret);
  });

  it('reads nothing from a .env that is missing or a folder', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'operator-env-dir-'));
    folders.push(folder);
    const redactor = createSecretRedactor({ env: {}, envFiles: [folder, join(folder, 'nope', '.env')] });
    expect(await after(redactor, toolCall('shell'), [{ type: 'text', text: 'nothing secret here at all' }])).toEqual({ action: 'allow' });
  });
});
