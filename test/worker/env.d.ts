/** What `env` from `cloudflare:test` holds: the Worker's own bindings (see `wrangler.toml`). */
import type { WorkerEnv } from '../../src/worker/index.ts';

declare global {
  namespace Cloudflare {
    // Augmented, not declared: the interface takes the Worker's bindings as its members.
    // eslint-disable-next-line @typescript-eslint/no-empty-object-type
    interface Env extends WorkerEnv {}
  }
}
