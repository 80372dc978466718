/**
 * A one-line plain reply skips the Markdown formatter: it must come out exactly as the formatter
 * renders it, and anything that could be Markdown goes to the formatter.
 */
import { describe, expect, it } from 'vitest';
import { formatTelegramMessage } from '../../src/channels/telegram/format/format-message.ts';
import { plainReply } from '../../src/channels/telegram/format/plain-reply.ts';

describe('a plain one-line reply', () => {
  const plain = [
    'Sure, done.',
    '  Fine: it runs at 9 (UTC), not 10.  ',
    'Ça marche, 100% — wait: "quoted" and it’s fine?',
    "It's well-known; yes!",
    'Zürich, 東京 and Москва',
    '42',
  ];

  it.each(plain.filter((text) => plainReply(text) !== undefined))('is what the formatter makes of it: %s', (text) => {
    expect([plainReply(text)]).toEqual(formatTelegramMessage(text));
  });

  it('covers the common plain answers', () => {
    expect(plainReply('Sure, done.')).toEqual({ html: 'Sure, done.', plain: 'Sure, done.' });
    expect(plain.filter((text) => plainReply(text) === undefined)).toEqual(['Ça marche, 100% — wait: "quoted" and it’s fine?']);
  });

  it.each([
    '**bold**',
    'a *b* c',
    'snake_case',
    '`code`',
    '~~struck~~',
    '[a link](https://example.com)',
    'https://example.com',
    'mail me@example.com',
    '# heading',
    '> quote',
    '- item',
    '1. item',
    '2) item',
    '---',
    'a | b',
    'two\nlines',
    'a < b & c > d',
    '',
    '   ',
    'x'.repeat(5_000),
  ])('goes to the formatter: %j', (text) => {
    expect(plainReply(text)).toBeUndefined();
  });
});
