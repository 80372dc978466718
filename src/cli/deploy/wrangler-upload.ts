/**
 * Uploading a bulk file with wrangler: `npx wrangler kv bulk put FILE --binding RESOURCES`, run in
 * the checkout whose `wrangler.toml` binds the namespace. Wrangler 4 writes to its local store
 * unless told `--remote`, so the remote upload says so explicitly; `--local` writes where
 * `wrangler dev` reads (the checkout's `.wrangler/state`).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';

/** The binding name in `wrangler.toml` (and `WorkerEnv`). */
export const resourcesBinding = 'RESOURCES';

/** Where and how to upload. */
export interface WranglerUploadOptions {
  /** The bulk file (a JSON array of `{ key, value }`). */
  file: string;
  /** Write to `wrangler dev`'s local store instead of Cloudflare. */
  local: boolean;
  /** A namespace by id instead of by the binding in `wrangler.toml`. */
  namespaceId?: string;
  /** The checkout with `wrangler.toml` (and wrangler in its node_modules). */
  root: string;
}

/** The arguments of `npx` for the upload. */
export function wranglerArguments(options: WranglerUploadOptions): string[] {
  const target = options.namespaceId ? ['--namespace-id', options.namespaceId] : ['--binding', resourcesBinding];
  return ['wrangler', 'kv', 'bulk', 'put', options.file, ...target, options.local ? '--local' : '--remote', '--config', join(options.root, 'wrangler.toml')];
}

/** Runs the upload with wrangler's output shown as it comes; resolves to wrangler's exit code. */
export function runWranglerUpload(options: WranglerUploadOptions, env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.platform === 'win32' ? 'npx.cmd' : 'npx', wranglerArguments(options), { cwd: options.root, env, stdio: 'inherit' });
    child.once('error', reject);
    child.once('close', (code) => resolve(code ?? 1));
  });
}
