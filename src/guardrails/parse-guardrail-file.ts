/**
 * Reads the text of one guardrail file (YAML or JSON) into a validated {@link GuardrailFile}, or
 * the problems that stop it from loading, each with the 1-based line where it can tell.
 */
import type { Document, LineCounter } from 'yaml';
import { yamlLibrary } from '../resources/yaml-library.ts';
import type { ResourceProblem } from '../resources/types.ts';
import { guardrailFileSchema } from './rule-schema.ts';
import type { GuardrailFile } from './rule-schema.ts';

/** A file's rules, or why it cannot be used. */
export type ParsedGuardrailFile = { ok: true; file: GuardrailFile } | { ok: false; problems: ResourceProblem[] };

/** Parses `text`, the content of `file`; `.json` files are JSON, anything else YAML. */
export function parseGuardrailFile(file: string, text: string): ParsedGuardrailFile {
  const { LineCounter, parseDocument } = yamlLibrary();
  const lineCounter = new LineCounter();
  // Valid JSON is valid YAML, so the YAML parser also locates schema problems in JSON files.
  const document = parseDocument(text, { lineCounter, prettyErrors: true });
  const lineOf = (path: readonly PropertyKey[]) => locate(document, lineCounter, path);

  let value: unknown;
  if (file.toLowerCase().endsWith('.json')) {
    try {
      value = JSON.parse(text);
    } catch (error) {
      const message = (error as Error).message;
      const position = /at position (\d+)/.exec(message);
      const line = position ? lineCounter.linePos(Number(position[1])).line : undefined;
      return failed({ file, line, message: `invalid JSON: ${message}` });
    }
  } else {
    if (document.errors.length > 0) {
      return { ok: false, problems: document.errors.map((error) => ({ file, line: error.linePos?.[0].line, message: `invalid YAML: ${firstLine(error.message)}` })) };
    }
    const alias = unresolvedAlias(document, lineCounter);
    if (alias) {
      return failed({
        file,
        line: alias.line,
        message: `invalid YAML: "*${alias.name}" is read as an alias; quote globs that start with *, e.g. tool: "*_file"`,
      });
    }
    try {
      value = document.toJS();
    } catch (error) {
      return failed({ file, message: `invalid YAML: ${(error as Error).message}` });
    }
  }

  if (value === null || value === undefined) return failed({ file, line: 1, message: 'the file is empty; it needs a `rules:` list' });
  const result = guardrailFileSchema.safeParse(value);
  if (result.success) return { ok: true, file: result.data };
  return {
    ok: false,
    problems: result.error.issues.map((issue) => {
      // An unknown key is best shown on its own line, not on the object holding it.
      const keyPath = issue.code === 'unrecognized_keys' && issue.keys[0] !== undefined ? [...issue.path, issue.keys[0]] : issue.path;
      const where = formatPath(issue.path);
      return { file, line: lineOf(keyPath), message: where === '' ? issue.message : `${where}: ${issue.message}` };
    }),
  };
}

function failed(problem: ResourceProblem): ParsedGuardrailFile {
  return { ok: false, problems: [problem] };
}

/** `rules[2].arguments.command` */
export function formatPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((text, key) => (typeof key === 'number' ? `${text}[${key}]` : text === '' ? String(key) : `${text}.${String(key)}`), '');
}

/** The line of the deepest node on `path` that exists in the document. */
function locate(document: Document, lineCounter: LineCounter, path: readonly PropertyKey[]): number | undefined {
  const { isNode } = yamlLibrary();
  for (let length = path.length; length >= 0; length--) {
    const node = length === 0 ? document.contents : document.getIn(path.slice(0, length) as (string | number)[], true);
    if (isNode(node) && node.range) return lineCounter.linePos(node.range[0]).line;
  }
  return undefined;
}

/** An alias without its anchor: in guardrail files always an unquoted glob like `*_file`. */
function unresolvedAlias(document: Document, lineCounter: LineCounter): { name: string; line: number | undefined } | undefined {
  const { isAlias, visit } = yamlLibrary();
  let found: { name: string; line: number | undefined } | undefined;
  visit(document, {
    Alias(_key, node) {
      if (isAlias(node) && node.resolve(document) === undefined) {
        found = { name: node.source, line: node.range ? lineCounter.linePos(node.range[0]).line : undefined };
        return visit.BREAK;
      }
    },
  });
  return found;
}

function firstLine(message: string): string {
  return message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
}
