/** What the Worker tests' global set-up provides (read with vitest's `inject`, in Node and in workerd). */
declare module 'vitest' {
  export interface ProvidedContext {
    /** The control server's origin (see `fake-control.ts`). */
    fakeControl: string;
    /** The Worker's variables pointing at the fakes. */
    fakeBindings: Record<string, string>;
    /** Resource bundles as `wrangler kv bulk put` pairs, built by `operator deploy resources`'s code (see `resource-bundles.ts`). */
    resourceEntries: { first: { key: string; value: string }[]; changed: { key: string; value: string }[] };
  }
}
export {};
