/**
 * The options of every `operator` verb, read one way: `node:util`'s `parseArgs`, strict, with
 * messages that name what is wrong (`unknown option --bogus`, `--profile needs a value`). A
 * mistake throws a {@link UsageError}; `main` prints it with the verb's usage and exits 2.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

/** Arguments that make no command: the exit code is 2 and the usage is shown. */
export class UsageError extends Error {
  override name = 'UsageError';
}

type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * `args` read against `options` (flags before, between or after the positionals; `--` ends the
 * options). Throws a {@link UsageError} naming the first unknown option, an option missing its
 * value, a value given to a flag, or (with `positionals: false`) an argument that is not an option.
 */
export function parseCommandArgs<const O extends Options>(args: readonly string[], options: O, settings: { positionals?: boolean } = {}) {
  const { tokens } = parseArgs({ args, options, strict: false, allowPositionals: true, tokens: true });
  for (const token of tokens) {
    if (token.kind === 'positional' && settings.positionals === false) throw new UsageError(`unexpected argument "${token.value}": this command takes only options`);
    if (token.kind !== 'option') continue;
    const option = Object.hasOwn(options, token.name) ? options[token.name] : undefined;
    if (!option) throw new UsageError(`unknown option ${token.rawName}`);
    if (option.type === 'boolean') {
      if (token.value !== undefined) throw new UsageError(`${token.rawName} takes no value`);
    } else if (token.value === undefined) {
      throw new UsageError(`${token.rawName} needs a value`);
    } else if (!token.inlineValue && token.value.startsWith('-')) {
      // What strict parsing calls ambiguous: `--port -1` may be a forgotten value.
      throw new UsageError(`${token.rawName} needs a value; for one that starts with a dash, write ${token.rawName}=${token.value}`);
    }
  }
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: true });
  } catch (error) {
    // Whatever the checks above let through: Node's own message, its first sentence.
    throw new UsageError((error instanceof Error ? error.message : String(error)).split(/\.\s/)[0]!, { cause: error });
  }
}
