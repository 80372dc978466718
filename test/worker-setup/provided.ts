/** What the Worker tests' global set-up provides (read with vitest's `inject`, in Node and in workerd). */
declare module 'vitest' {
  export interface ProvidedContext {
    /** The control server's origin (see `fake-control.ts`). */
    fakeControl: string;
    /** The Worker's variables pointing at the fakes. */
    fakeBindings: Record<string, string>;
  }
}
export {};
