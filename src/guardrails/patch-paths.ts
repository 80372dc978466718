/**
 * The file paths a unified diff touches, read from its headers without applying it. Errs on the
 * side of more paths: a confinement check must see every file `apply_patch` could write.
 */

/**
 * Paths named by `---`/`+++` header pairs, `diff --git` lines and git's `rename`/`copy` lines,
 * each both as written and without git's `a/` / `b/` prefix; `/dev/null` is left out.
 *
 * @example patchPaths('--- a/src/x.ts\n+++ b/src/x.ts\n@@ ...') // ['a/src/x.ts', 'src/x.ts', 'b/src/x.ts']
 */
export function patchPaths(patch: string): string[] {
  const paths = new Set<string>();
  const add = (raw: string) => {
    const name = unquote(raw.split('\t')[0]!.trim());
    if (name === '' || name === '/dev/null') return;
    paths.add(name);
    if (/^[ab]\//.test(name)) paths.add(name.slice(2));
  };
  const lines = patch.split(/\r?\n/);
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!;
    const next = lines[index + 1];
    if (line.startsWith('--- ') && next?.startsWith('+++ ')) {
      add(line.slice(4));
      add(next.slice(4));
      index++;
      continue;
    }
    const git = /^diff --git (.+)$/.exec(line);
    if (git) {
      for (const name of gitHeaderNames(git[1]!)) add(name);
      continue;
    }
    const moved = /^(?:rename|copy) (?:from|to) (.+)$/.exec(line);
    if (moved) add(moved[1]!);
  }
  return [...paths];
}

/** `a/x b/y` is ambiguous when names hold spaces: every split at ` b/` is a candidate. */
function gitHeaderNames(rest: string): string[] {
  const quoted = /^("(?:[^"\\]|\\.)*")\s+("(?:[^"\\]|\\.)*")$/.exec(rest);
  if (quoted) return [quoted[1]!, quoted[2]!];
  const names: string[] = [];
  for (let at = rest.indexOf(' b/'); at !== -1; at = rest.indexOf(' b/', at + 1)) {
    names.push(rest.slice(0, at), rest.slice(at + 1));
  }
  return names.length > 0 ? names : [rest];
}

/** Git quotes names with unusual characters: `"a/with \"quote\""`. */
function unquote(name: string): string {
  if (name.length < 2 || !name.startsWith('"') || !name.endsWith('"')) return name;
  return name.slice(1, -1).replace(/\\(.)/g, (_match, character: string) => ({ t: '\t', n: '\n' })[character] ?? character);
}
