/**
 * Node's Buffer where the runtime has one (Node, Bun, Deno), found when called, never imported: the
 * portable helpers use it there because it is the fastest path, and run without it everywhere else.
 */
export function nodeBuffer(): typeof Buffer | undefined {
  return (globalThis as { Buffer?: typeof Buffer }).Buffer;
}
