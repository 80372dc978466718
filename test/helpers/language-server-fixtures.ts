/**
 * A machine's language servers as files on disk, for the tests of how they are found: a home with
 * `~/.cargo/bin` (rustup's proxy `rust-analyzer` linked to `rustup`, whose component is missing,
 * as on this machine) and a `PATH` folder. The programs are shell scripts answering `--version`;
 * what they answer is what the probe reports, so each shows it ran, and ran in the sandbox.
 */
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Writes an executable shell script. */
export function writeProgram(file: string, body: string, mode = 0o755): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `#!/bin/sh\n${body}\n`);
  chmodSync(file, mode);
}

/**
 * In `home`: `.cargo/bin/rust-analyzer` -> `rustup`, which fails as rustup does without the
 * component once it read its settings (so it saw RUSTUP_HOME); `bin/gopls`, which answers with its
 * version, but with no `go` on `PATH` to run; `bin/pylsp`, not executable; and
 * `bin/pyright-langserver` (not driven), which answers with its version and whether it can read
 * `secret` (it must not). Returns the `PATH` folder.
 */
export function writeServerFixtures(home: string, secret: string): string {
  const cargoBin = path.join(home, '.cargo', 'bin');
  writeProgram(
    path.join(cargoBin, 'rustup'),
    [
      // Shell builtins alone: the sandbox's PATH is the gateway's, here the fixture's folder.
      'read -r toolchain < "$RUSTUP_HOME/settings.toml" || { echo "rustup home not readable" >&2; exit 2; }',
      `echo "error: Unknown binary 'rust-analyzer' in official toolchain '$toolchain'." >&2`,
      'exit 1',
    ].join('\n'),
  );
  symlinkSync('rustup', path.join(cargoBin, 'rust-analyzer'));
  mkdirSync(path.join(home, '.rustup'), { recursive: true });
  writeFileSync(path.join(home, '.rustup', 'settings.toml'), 'stable-x86_64-unknown-linux-gnu\n');
  const bin = path.join(home, 'bin');
  writeProgram(path.join(bin, 'gopls'), 'echo "golang.org/x/tools/gopls v0.16.2"');
  writeProgram(path.join(bin, 'pylsp'), 'echo "pylsp v1.12.0"', 0o644);
  writeProgram(path.join(bin, 'pyright-langserver'), `if [ -r ${JSON.stringify(secret)} ]; then echo "pyright 1.1.408 (saw the secret)"; else echo "pyright 1.1.408"; fi`);
  return bin;
}
