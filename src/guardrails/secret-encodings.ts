/**
 * A secret in the encodings a command or a tool prints it in: hex (either case, `xxd -p`'s line
 * breaks and spaces between bytes allowed) and base64 (standard or URL-safe, line-wrapped as
 * `base64` and PEM wrap it, at whatever offset the secret sits in the encoded stream, as in
 * `base64 .env`). The plain form and its URL encoding are the redactor's own simple case.
 *
 * Encoded forms are looked for in the text with its whitespace removed, and the span they cover
 * in the text as it is gets replaced: a form broken over lines is caught whole. Only encoded
 * forms are matched that way; a plain value split by a space is ordinary text.
 */

/**
 * The encoded forms of `value` (hex, and the base64 characters that depend on `value` alone at
 * each of the three offsets it may have in a longer encoded stream), each at least 8 characters.
 */
export function encodedForms(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8');
  const hex = bytes.toString('hex');
  const forms = new Set([hex, hex.toUpperCase()]);
  for (let offset = 0; offset < 3; offset++) {
    const stream = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
    // Character i holds bits [6i, 6i + 6) of the stream; keep those that lie within the value.
    const first = Math.ceil((8 * offset) / 6);
    const end = Math.floor((8 * (offset + bytes.length)) / 6);
    const core = stream.slice(first, end);
    if (core.length < 8) continue;
    forms.add(core);
    forms.add(core.replaceAll('+', '-').replaceAll('/', '_'));
  }
  return [...forms];
}

/**
 * Replaces every occurrence of any of `forms` (from {@link encodedForms}) in `text`, whitespace
 * inside it allowed, by `replacement`; `count` says how many spans were replaced.
 */
export function redactEncodedForms(text: string, forms: readonly string[], replacement: string): { text: string; count: number } {
  if (forms.length === 0) return { text, count: 0 };
  const compact = text.replace(/[ \t\r\n]+/g, '');
  const found: [number, number][] = [];
  for (const form of forms) {
    for (let at = compact.indexOf(form); at !== -1; at = compact.indexOf(form, at + form.length)) found.push([at, at + form.length]);
  }
  if (found.length === 0) return { text, count: 0 };
  // Where each character of the compact text came from; worked out only when a form was found.
  const origin = new Int32Array(compact.length);
  for (let index = 0, kept = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code !== 0x20 && code !== 0x09 && code !== 0x0d && code !== 0x0a) origin[kept++] = index;
  }
  const spans = found.map(([start, end]): [number, number] => [origin[start]!, origin[end - 1]! + 1]);
  spans.sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const span of spans) {
    const last = merged.at(-1);
    if (last && span[0] <= last[1]) last[1] = Math.max(last[1], span[1]);
    else merged.push([...span]);
  }
  let result = '';
  let from = 0;
  for (const [start, end] of merged) {
    result += text.slice(from, start) + replacement;
    from = end;
  }
  return { text: result + text.slice(from), count: merged.length };
}
