/**
 * The model stylesheet (spec section 4, `ModelStylesheet`): CSS-like rules in the
 * `model_stylesheet` graph attribute that give nodes default models, providers, efforts and
 * limits, so a pipeline says "every node uses X, the expensive ones Y" once.
 *
 * ```css
 * * { llm_model: claude-sonnet-4-5; reasoning_effort: medium }
 * box { timeout: 5m }
 * .expensive, #review { llm_model: claude-opus-4-6; max_tokens: 8192 }
 * ```
 *
 * Selectors: `*` (every node), a shape name (`box`, `Mdiamond`; any case), `.class` (a name in
 * the node's `class`), `#id` (the node's name; `#"a name"` for one with spaces). Precedence, low
 * to high: `*`, shape, class, id, and above every rule the node's own DOT attributes (including
 * the `node [..]` defaults of its graph, which are its DOT attributes too). Among rules of equal
 * specificity the later one wins, as in CSS. Comments are `/* ... *\/`.
 *
 * Unknown properties are errors, not ignored as CSS would: a misspelt `modle` silently doing
 * nothing is worse than a message.
 */
import type { PipelineNode, SourceLocation } from '../types.ts';
import { StylesheetSyntaxError } from './errors.ts';
import { parseDecimal, parseDuration, parseInteger, parseReasoningEffort, type Parsed } from './values.ts';

/** What a rule applies to. */
export type StyleSelector = { kind: 'universal' } | { kind: 'shape'; shape: string } | { kind: 'class'; className: string } | { kind: 'id'; id: string };

/** The node fields a stylesheet can set. */
export interface StyleDeclarations {
  model?: string;
  provider?: string;
  reasoningEffort?: PipelineNode['reasoningEffort'];
  temperature?: number;
  maxTokens?: number;
  /** Seconds. */
  timeout?: number;
  maxRetries?: number;
}

/** One selector with its declarations (a rule with `a, b` selectors becomes two). */
export interface StyleRule {
  selector: StyleSelector;
  /** 0 universal, 1 shape, 2 class, 3 id. */
  specificity: 0 | 1 | 2 | 3;
  declarations: Readonly<StyleDeclarations>;
  /** Where the selector is in the stylesheet text. */
  location: SourceLocation;
}

/** A parsed stylesheet: its rules in the order written. */
export interface Stylesheet {
  rules: readonly StyleRule[];
}

type Field = keyof StyleDeclarations;

interface PropertySpec {
  field: Field;
  parse: (text: string) => Parsed<StyleDeclarations[Field]>;
}

const text = (value: string): Parsed<string> => ({ value: value.trim() });

/** The properties (spec's table, plus `provider` and `max_retries`, the DOT attributes' own names). */
const properties: Readonly<Record<string, PropertySpec>> = {
  llm_model: { field: 'model', parse: text },
  model: { field: 'model', parse: text },
  llm_provider: { field: 'provider', parse: text },
  provider: { field: 'provider', parse: text },
  reasoning_effort: { field: 'reasoningEffort', parse: parseReasoningEffort },
  temperature: { field: 'temperature', parse: (value) => parseDecimal(value, 0) },
  max_tokens: { field: 'maxTokens', parse: (value) => parseInteger(value, 1) },
  timeout: { field: 'timeout', parse: parseDuration },
  retry_count: { field: 'maxRetries', parse: (value) => parseInteger(value, 0) },
  max_retries: { field: 'maxRetries', parse: (value) => parseInteger(value, 0) },
};

/** The property names a stylesheet may use. */
export const stylesheetProperties: readonly string[] = Object.keys(properties);

/** The DOT attributes that, written on a node, keep the stylesheet from setting each field. */
const ownAttributes: Readonly<Record<Field, readonly string[]>> = {
  model: ['model', 'llm_model'],
  provider: ['provider', 'llm_provider'],
  reasoningEffort: ['reasoning_effort'],
  temperature: ['temperature'],
  maxTokens: ['max_tokens'],
  timeout: ['timeout'],
  maxRetries: ['max_retries'],
};

const specificities = { universal: 0, shape: 1, class: 2, id: 3 } as const;

/**
 * Parses stylesheet text.
 *
 * @throws {StylesheetSyntaxError} on a syntax error, an unknown property, a value of the wrong
 *   type, or a stylesheet with no rules; with the line and column in the text.
 */
export function parseStylesheet(css: string): Stylesheet {
  const scanner = new Scanner(css);
  const rules: StyleRule[] = [];
  for (;;) {
    scanner.skipBlank();
    if (scanner.atEnd()) break;
    const selectors: Array<{ selector: StyleSelector; location: SourceLocation }> = [];
    for (;;) {
      scanner.skipBlank();
      selectors.push(readSelector(scanner));
      scanner.skipBlank();
      if (!scanner.take(',')) break;
    }
    scanner.expect('{', 'a "{" after the selector');
    const declarations = readDeclarations(scanner);
    for (const { selector, location } of selectors) rules.push({ selector, specificity: specificities[selector.kind], declarations, location });
  }
  if (rules.length === 0) throw new StylesheetSyntaxError('no rules: write rules like `* { llm_model: NAME }`', { line: 1, column: 1 });
  return { rules };
}

/**
 * `node` with the stylesheet's values for the fields its own DOT attributes leave unset, by
 * specificity (see the module comment). A new node; `node` is not changed, nor its `attributes`
 * (they stay the DOT attributes as written).
 */
export function applyStylesheet(stylesheet: Stylesheet, node: PipelineNode): PipelineNode {
  const matching = stylesheet.rules
    .map((rule, index) => ({ rule, index }))
    .filter(({ rule }) => matches(rule.selector, node))
    .sort((a, b) => a.rule.specificity - b.rule.specificity || a.index - b.index);
  if (matching.length === 0) return { ...node };
  const resolved: StyleDeclarations = {};
  for (const { rule } of matching) Object.assign(resolved, rule.declarations);
  const styled: PipelineNode = { ...node };
  for (const field of Object.keys(resolved) as Field[]) {
    if (ownAttributes[field].some((attribute) => (node.attributes[attribute] ?? '').trim() !== '')) continue;
    (styled as unknown as Record<Field, unknown>)[field] = resolved[field];
  }
  return styled;
}

/** Whether `selector` applies to `node`. */
export function matches(selector: StyleSelector, node: PipelineNode): boolean {
  switch (selector.kind) {
    case 'universal':
      return true;
    case 'shape':
      return node.shape.toLowerCase() === selector.shape.toLowerCase();
    case 'class':
      return node.classes.includes(selector.className);
    case 'id':
      return node.name === selector.id;
  }
}

function readSelector(scanner: Scanner): { selector: StyleSelector; location: SourceLocation } {
  const location = scanner.here();
  if (scanner.take('*')) return { selector: { kind: 'universal' }, location };
  if (scanner.take('.')) return { selector: { kind: 'class', className: scanner.name('a class name after "."') }, location };
  if (scanner.take('#')) {
    const id = scanner.peek() === '"' || scanner.peek() === "'" ? scanner.quoted() : scanner.name('a node name after "#"');
    return { selector: { kind: 'id', id }, location };
  }
  return { selector: { kind: 'shape', shape: scanner.name('a selector: *, a shape name, .class or #id') }, location };
}

function readDeclarations(scanner: Scanner): StyleDeclarations {
  const declarations: StyleDeclarations = {};
  for (;;) {
    scanner.skipBlank();
    if (scanner.take('}')) return declarations;
    if (scanner.take(';')) continue;
    if (scanner.atEnd()) scanner.fail('a "}" to close the rule');
    const propertyAt = scanner.here();
    const property = scanner.name('a property name or "}"');
    const spec = Object.hasOwn(properties, property) ? properties[property] : undefined;
    if (!spec) throw new StylesheetSyntaxError(`unknown property "${property}" (known: ${stylesheetProperties.join(', ')})`, propertyAt);
    scanner.skipBlank();
    scanner.expect(':', `a ":" after "${property}"`);
    scanner.skipBlank();
    const valueAt = scanner.here();
    const value = scanner.peek() === '"' || scanner.peek() === "'" ? scanner.quoted() : scanner.until(';}');
    if (value.trim() === '') throw new StylesheetSyntaxError(`"${property}" has no value`, valueAt);
    const parsed = spec.parse(value);
    if ('error' in parsed) throw new StylesheetSyntaxError(`${property}: ${parsed.error}`, valueAt);
    (declarations as Record<Field, unknown>)[spec.field] = parsed.value;
  }
}

/** Reads the stylesheet text one character at a time, knowing its line and column. */
class Scanner {
  private offset = 0;
  private line = 1;
  private column = 1;

  constructor(private readonly source: string) {}

  atEnd(): boolean {
    return this.offset >= this.source.length;
  }

  peek(): string {
    return this.source[this.offset] ?? '';
  }

  here(): SourceLocation {
    return { line: this.line, column: this.column };
  }

  /** Skips white space and comments. */
  skipBlank(): void {
    for (;;) {
      if (/\s/.test(this.peek())) this.advance();
      else if (this.source.startsWith('/*', this.offset)) {
        const at = this.here();
        const end = this.source.indexOf('*/', this.offset + 2);
        if (end < 0) throw new StylesheetSyntaxError('a comment is not closed with */', at);
        while (this.offset < end + 2) this.advance();
      } else return;
    }
  }

  take(char: string): boolean {
    if (this.peek() !== char) return false;
    this.advance();
    return true;
  }

  expect(char: string, what: string): void {
    if (!this.take(char)) this.fail(what);
  }

  /** A name: letters, digits, `_`, `-`. */
  name(what: string): string {
    const start = this.offset;
    while (/[A-Za-z0-9_-]/.test(this.peek())) this.advance();
    if (this.offset === start) this.fail(what);
    return this.source.slice(start, this.offset);
  }

  /** A '...' or "..." string (a backslash escapes the next character). */
  quoted(): string {
    const at = this.here();
    const quote = this.peek();
    this.advance();
    let value = '';
    for (;;) {
      if (this.atEnd()) throw new StylesheetSyntaxError('a quoted value is not closed', at);
      const char = this.peek();
      this.advance();
      if (char === quote) return value;
      if (char === '\\' && !this.atEnd()) {
        value += this.peek();
        this.advance();
      } else value += char;
    }
  }

  /** The text up to (not including) one of `stops`, or the end. */
  until(stops: string): string {
    const start = this.offset;
    while (!this.atEnd() && !stops.includes(this.peek())) this.advance();
    return this.source.slice(start, this.offset).trim();
  }

  fail(what: string): never {
    const found = this.atEnd() ? 'the end' : JSON.stringify(this.peek());
    throw new StylesheetSyntaxError(`expected ${what}, found ${found}`, this.here());
  }

  private advance(): void {
    if (this.source[this.offset] === '\n') {
      this.line++;
      this.column = 1;
    } else this.column++;
    this.offset++;
  }
}
