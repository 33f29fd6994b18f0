// What the hand-written readers beside the schemas (the fast paths of the handlers and the policy
// writer) may read as the schema would: a plain object, whose members are its own data. Anything
// else (a class instance, an object with a prototype of its own) goes to the schema, which words
// the error or reads it the slow way.

/** An object literal, JSON.parse's object or `Object.create(null)`; no array, no class instance. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * Whether the object's enumerable members (own and inherited, as `for in` sees them) are `count`
 * members all named in `known`: with the shape's members read and counted, nothing else is there.
 */
export function onlyKnown(
  value: Record<string, unknown>,
  count: number,
  known: ReadonlySet<string>,
): boolean {
  let seen = 0;
  for (const key in value) {
    if (!known.has(key)) return false;
    seen++;
  }
  return seen === count;
}
