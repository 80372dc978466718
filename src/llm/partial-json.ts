/**
 * Reads the beginning of a JSON text as far as it goes: what a streamed structured answer holds
 * so far. Open objects and arrays are closed; a string cut off is kept as far as it came (a long
 * text field grows as it streams); a number, `true`, `false` or `null` cut off is left out, as is
 * a key without its value, since either could still become something else.
 */

/** Thrown inside the parser for text that is not the start of any JSON value. */
class NotJson extends Error {}

/** Marks the end of the text reached inside a value: nothing more can be read. */
const cut = Symbol('cut');

/**
 * The value the JSON text `text` begins, or `undefined` when there is none yet (empty text, a
 * lone number still being written) or the text is not JSON.
 *
 * @example
 * parsePartialJson('{"name": "Ad') // { name: 'Ad' }
 * parsePartialJson('{"items": [1, 2, 3') // { items: [1, 2] }
 */
export function parsePartialJson(text: string): unknown {
  const reader = new Reader(text);
  try {
    const value = reader.value();
    if (value === cut) return undefined;
    reader.space();
    // Trailing text after a whole value: not one JSON document.
    if (!reader.atEnd()) return undefined;
    return value;
  } catch (error) {
    if (error instanceof NotJson) return undefined;
    throw error;
  }
}

class Reader {
  #at = 0;
  /** Set once the text ran out: everything being read is partial from there on. */
  ended = false;
  readonly #text: string;

  constructor(text: string) {
    this.#text = text;
  }

  atEnd(): boolean {
    return this.#at >= this.#text.length;
  }

  space(): void {
    while (!this.atEnd() && /\s/.test(this.#text[this.#at]!)) this.#at++;
  }

  /** One value; `cut` when the text ends before any of it can be kept. */
  value(): unknown {
    this.space();
    if (this.atEnd()) return this.#end();
    const char = this.#text[this.#at]!;
    if (char === '{') return this.#object();
    if (char === '[') return this.#array();
    if (char === '"') return this.#string();
    return this.#scalar();
  }

  #end(): typeof cut {
    this.ended = true;
    return cut;
  }

  #object(): Record<string, unknown> {
    this.#at++;
    const object: Record<string, unknown> = {};
    for (;;) {
      this.space();
      if (this.atEnd()) return (this.#end(), object);
      if (this.#text[this.#at] === '}') return (this.#at++, object);
      if (this.#text[this.#at] !== '"') throw new NotJson();
      const key = this.#string();
      if (this.ended) return object;
      this.space();
      if (this.atEnd()) return (this.#end(), object);
      if (this.#text[this.#at] !== ':') throw new NotJson();
      this.#at++;
      const value = this.value();
      if (value !== cut) object[key] = value;
      if (this.ended) return object;
      this.space();
      if (this.atEnd()) return (this.#end(), object);
      const next = this.#text[this.#at];
      if (next === ',') this.#at++;
      else if (next !== '}') throw new NotJson();
    }
  }

  #array(): unknown[] {
    this.#at++;
    const array: unknown[] = [];
    for (;;) {
      this.space();
      if (this.atEnd()) return (this.#end(), array);
      if (this.#text[this.#at] === ']') return (this.#at++, array);
      const value = this.value();
      if (value !== cut) array.push(value);
      if (this.ended) return array;
      this.space();
      if (this.atEnd()) return (this.#end(), array);
      const next = this.#text[this.#at];
      if (next === ',') this.#at++;
      else if (next !== ']') throw new NotJson();
    }
  }

  /** A string; cut off, what came of it (an escape cut in half left out). */
  #string(): string {
    const start = this.#at;
    this.#at++;
    while (!this.atEnd()) {
      const char = this.#text[this.#at]!;
      if (char === '\\') this.#at += 2;
      else if (char === '"') {
        this.#at++;
        return this.#parse(this.#text.slice(start, this.#at)) as string;
      } else this.#at++;
    }
    this.ended = true;
    return this.#parse(`"${withoutCutEscape(this.#text.slice(start + 1))}"`) as string;
  }

  /** A number or a literal; cut off, nothing (`12` may be the start of `120`). */
  #scalar(): unknown {
    const match = /^[^\s,\]}]+/.exec(this.#text.slice(this.#at));
    if (!match) throw new NotJson();
    this.#at += match[0].length;
    if (this.atEnd()) return this.#end();
    return this.#parse(match[0]);
  }

  #parse(json: string): unknown {
    try {
      return JSON.parse(json);
    } catch {
      throw new NotJson();
    }
  }
}

/** `body` without an escape the text ends inside (`\`, `\u00`), which JSON cannot read yet. */
function withoutCutEscape(body: string): string {
  const unicode = /(\\+)u[0-9a-fA-F]{0,3}$/.exec(body);
  // An odd run of backslashes before the `u`: the last one starts the escape.
  if (unicode && unicode[1]!.length % 2 === 1) return body.slice(0, unicode.index + unicode[1]!.length - 1);
  const slashes = /\\+$/.exec(body);
  if (slashes && slashes[0].length % 2 === 1) return body.slice(0, -1);
  return body;
}
