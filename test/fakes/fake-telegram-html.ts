/**
 * The fake Bot API's reading of `parse_mode: 'HTML'`: what Telegram accepts (b/strong, i/em, u/ins,
 * s/strike/del, tg-spoiler / span.tg-spoiler, a href, code, pre with an inner
 * `code class="language-x"`, blockquote [expandable], tg-emoji; the entities &lt; &gt; &amp; &quot;
 * and numeric ones) turned into the message's plain `text` and its `entities`, as the real API
 * returns them. Anything else is refused with a "can't parse entities" description.
 */
import type { MessageEntity } from 'grammy/types';

/** The parsed message, or why Telegram would refuse it. */
export type ParsedHtml = { ok: true; text: string; entities: MessageEntity[] } | { ok: false; description: string };

interface OpenTag {
  name: string;
  offset: number;
  entity: Record<string, unknown> | undefined;
}

const entityTypes: Record<string, string> = {
  b: 'bold',
  strong: 'bold',
  i: 'italic',
  em: 'italic',
  u: 'underline',
  ins: 'underline',
  s: 'strikethrough',
  strike: 'strikethrough',
  del: 'strikethrough',
  'tg-spoiler': 'spoiler',
  code: 'code',
  pre: 'pre',
  a: 'text_link',
  blockquote: 'blockquote',
  'tg-emoji': 'custom_emoji',
  span: 'spoiler',
};

const namedEntities: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"' };

function refuse(reason: string): ParsedHtml {
  return { ok: false, description: `Bad Request: can't parse entities: ${reason}` };
}

function attributesOf(source: string): Map<string, string> {
  const attributes = new Map<string, string>();
  for (const match of source.matchAll(/([a-zA-Z-]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?/g)) {
    attributes.set(match[1]!.toLowerCase(), decodeEntities(match[2] ?? match[3] ?? match[4] ?? ''));
  }
  return attributes;
}

function decodeEntities(value: string): string {
  return value.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-zA-Z]+);/g, (whole, name: string) => {
    if (name.startsWith('#x')) return String.fromCodePoint(Number.parseInt(name.slice(2), 16));
    if (name.startsWith('#')) return String.fromCodePoint(Number.parseInt(name.slice(1), 10));
    return namedEntities[name] ?? whole;
  });
}

function openEntity(name: string, attributes: Map<string, string>, parent: OpenTag | undefined): Record<string, unknown> | undefined | string {
  if (name === 'span' && attributes.get('class') !== 'tg-spoiler') return 'Tag "span" must have class "tg-spoiler"';
  if (name === 'code' && parent?.name === 'pre') {
    const language = /^language-(.+)$/.exec(attributes.get('class') ?? '')?.[1];
    if (language && parent.entity) parent.entity.language = language;
    return undefined;
  }
  if (parent && (parent.name === 'code' || parent.name === 'pre')) return `Can't use tag "${name}" inside "${parent.name}"`;
  const entity: Record<string, unknown> = { type: entityTypes[name] };
  if (name === 'a') {
    const href = attributes.get('href');
    if (!href) return 'Tag "a" must have attribute "href"';
    entity.url = href;
  }
  if (name === 'blockquote' && attributes.has('expandable')) entity.type = 'expandable_blockquote';
  if (name === 'tg-emoji') entity.custom_emoji_id = attributes.get('emoji-id') ?? '';
  return entity;
}

/** Parses `html` as Telegram does for `parse_mode: 'HTML'`. */
export function parseTelegramHtml(html: string): ParsedHtml {
  let text = '';
  const entities: MessageEntity[] = [];
  const stack: OpenTag[] = [];
  let index = 0;
  const byteOffset = (at: number) => Buffer.byteLength(html.slice(0, at));
  while (index < html.length) {
    const character = html[index]!;
    if (character === '<') {
      const tag = /^<(\/?)([a-zA-Z][a-zA-Z0-9-]*)([^<>]*)>/.exec(html.slice(index));
      if (!tag) return refuse(`Unsupported start tag at byte offset ${byteOffset(index)}`);
      const [whole, closing, rawName, rawAttributes] = tag;
      const name = rawName!.toLowerCase();
      if (closing) {
        const open = stack.pop();
        if (!open) return refuse(`Unexpected end tag at byte offset ${byteOffset(index)}`);
        if (open.name !== name) return refuse(`Unmatched end tag at byte offset ${byteOffset(index)}, expected "</${open.name}>", found "</${name}>"`);
        if (open.entity && text.length > open.offset) entities.push({ ...open.entity, offset: open.offset, length: text.length - open.offset } as MessageEntity);
      } else {
        if (!(name in entityTypes)) return refuse(`Unsupported start tag "${name}" at byte offset ${byteOffset(index)}`);
        const entity = openEntity(name, attributesOf(rawAttributes!), stack.at(-1));
        if (typeof entity === 'string') return refuse(`${entity} at byte offset ${byteOffset(index)}`);
        stack.push({ name, offset: text.length, entity });
      }
      index += whole!.length;
    } else if (character === '&') {
      const entity = /^&(#x[0-9a-fA-F]+|#[0-9]+|[a-zA-Z]+);/.exec(html.slice(index));
      if (entity && !entity[1]!.startsWith('#') && !(entity[1]! in namedEntities)) {
        return refuse(`Unsupported HTML entity "&${entity[1]};" at byte offset ${byteOffset(index)}`);
      }
      text += entity ? decodeEntities(entity[0]) : '&';
      index += entity ? entity[0].length : 1;
    } else if (character === '>') {
      return refuse(`Unexpected ">" at byte offset ${byteOffset(index)}`);
    } else {
      text += character;
      index += 1;
    }
  }
  const unclosed = stack.pop();
  if (unclosed) return refuse(`Can't find end tag corresponding to start tag "${unclosed.name}"`);
  entities.sort((a, b) => a.offset - b.offset || b.length - a.length);
  return { ok: true, text, entities };
}
