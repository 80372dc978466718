/**
 * Finds where and why a text is not valid JSON. `JSON.parse` errors are not enough: their wording
 * differs between Node versions, some carry no position, and some quote the text around the
 * error, which could put a secret from the file into a log. This scanner reports an offset and a
 * reason only.
 */

/** A JSON syntax error: where (0-based offset, 1-based line and column) and why. */
export interface JsonSyntaxError {
  offset: number;
  line: number;
  column: number;
  reason: string;
}

/** The first syntax error in `text`, or `undefined` when it is valid JSON. */
export function findJsonSyntaxError(text: string): JsonSyntaxError | undefined {
  const scanner = new Scanner(text);
  try {
    scanner.document();
    return undefined;
  } catch (error) {
    if (!(error instanceof SyntaxFailure)) throw error;
    return { offset: error.offset, ...lineAndColumn(text, error.offset), reason: error.reason };
  }
}

/** The 1-based line and column of `offset` in `text`. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let index = 0; index < offset && index < text.length; index++) {
    if (text[index] === '\n') {
      line++;
      lineStart = index + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

class SyntaxFailure extends Error {
  constructor(
    readonly offset: number,
    readonly reason: string,
  ) {
    super(reason);
  }
}

class Scanner {
  private position = 0;

  constructor(private readonly text: string) {}

  document(): void {
    this.value();
    this.whitespace();
    if (this.position < this.text.length) this.fail('unexpected text after the end of the JSON value');
  }

  private value(): void {
    this.whitespace();
    const char = this.text[this.position];
    if (char === '{') return this.object();
    if (char === '[') return this.array();
    if (char === '"') return this.string();
    if (char === '-' || (char !== undefined && char >= '0' && char <= '9')) return this.number();
    for (const literal of ['true', 'false', 'null']) {
      if (this.text.startsWith(literal, this.position)) {
        this.position += literal.length;
        return;
      }
    }
    this.fail(this.unexpected('a value'));
  }

  private object(): void {
    this.position++;
    this.whitespace();
    if (this.peek() === '}') {
      this.position++;
      return;
    }
    for (;;) {
      this.whitespace();
      if (this.peek() === '}') this.fail('trailing comma before "}"');
      if (this.peek() !== '"') this.fail(this.unexpected('a property name in double quotes'));
      this.string();
      this.whitespace();
      if (this.peek() !== ':') this.fail(this.unexpected('":" after the property name'));
      this.position++;
      this.value();
      this.whitespace();
      const next = this.peek();
      this.position++;
      if (next === '}') return;
      if (next !== ',') {
        this.position--;
        this.fail(this.unexpected('"," or "}" after a property value'));
      }
    }
  }

  private array(): void {
    this.position++;
    this.whitespace();
    if (this.peek() === ']') {
      this.position++;
      return;
    }
    for (;;) {
      this.whitespace();
      if (this.peek() === ']') this.fail('trailing comma before "]"');
      this.value();
      this.whitespace();
      const next = this.peek();
      this.position++;
      if (next === ']') return;
      if (next !== ',') {
        this.position--;
        this.fail(this.unexpected('"," or "]" after an array element'));
      }
    }
  }

  private string(): void {
    const start = this.position;
    this.position++;
    for (;;) {
      const char = this.text[this.position];
      if (char === undefined) this.fail('unterminated string', start);
      if (char === '"') {
        this.position++;
        return;
      }
      if (char < ' ') this.fail('line break or control character inside a string (write \\n or \\t)');
      if (char === '\\') {
        const escape = this.text[this.position + 1];
        if (escape === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(this.text.slice(this.position + 2, this.position + 6))) this.fail('invalid \\u escape: expected 4 hex digits');
          this.position += 6;
          continue;
        }
        if (escape === undefined || !'"\\/bfnrt'.includes(escape)) this.fail('invalid escape sequence in a string');
        this.position += 2;
        continue;
      }
      this.position++;
    }
  }

  private number(): void {
    const match = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/.exec(this.text.slice(this.position));
    if (!match) this.fail('invalid number');
    this.position += match[0].length;
  }

  private whitespace(): void {
    while (this.position < this.text.length && ' \t\n\r'.includes(this.text[this.position]!)) this.position++;
  }

  private peek(): string | undefined {
    return this.text[this.position];
  }

  /** Why the current character is wrong, quoting at most that one character. */
  private unexpected(expected: string): string {
    const char = this.text[this.position];
    if (char === undefined) return `unexpected end of file, expected ${expected}`;
    const next = this.text[this.position + 1];
    if (char === '/' && (next === '/' || next === '*')) return 'comments are not allowed in JSON';
    if (char === "'") return 'single quotes are not allowed in JSON, use double quotes';
    if (char < ' ' || char > '~') return `unexpected character U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}, expected ${expected}`;
    return `unexpected ${JSON.stringify(char)}, expected ${expected}`;
  }

  private fail(reason: string, offset = this.position): never {
    throw new SyntaxFailure(offset, reason);
  }
}
