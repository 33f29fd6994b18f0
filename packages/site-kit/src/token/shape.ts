import { isPlainObject } from '../schemas/plain-object.ts';
// A structural snapshot of plain JSON-like data, compiled once into a tree that a value is checked
// against member by member. It lets an issuer reuse the work done for a policy object without
// trusting the object's identity: what it holds is compared each time, at a fraction of a parse.

/**
 * A compiled shape: a primitive, an object with its own keys in order, or an array. `members` holds
 * one entry per key (or item): the primitive itself, or the nested shape for an object or array, so
 * that the common case, a primitive member, is compared without a call.
 */
export interface Shape {
  /** The keys of an object; undefined for an array. */
  keys: string[] | undefined;
  members: unknown[];
  /** Which members are nested shapes. */
  nested: boolean[];
}

/** Compiles data the caller owns and never changes (a parsed policy, a copy); an object or array. */
export function compileShape(data: object): Shape {
  const array = Array.isArray(data);
  const keys = array ? undefined : Object.keys(data);
  const values = array
    ? (data as unknown[])
    : keys!.map((k) => (data as Record<string, unknown>)[k]);
  const nested = values.map((v) => typeof v === 'object' && v !== null);
  const members = values.map((v, i) => (nested[i] ? compileShape(v as object) : v));
  return { keys, members, nested };
}

/**
 * Whether `value` holds what `shape` does: the same primitives (NaN never matches), plain objects
 * with the same enumerable members and arrays of the same length. A member is read as a schema would
 * read it (`value[key]`), so what matched is what the work was done for.
 */
export function matchesShape(value: unknown, shape: Shape): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const { keys, members, nested } = shape;
  if (keys === undefined) {
    if (!Array.isArray(value) || value.length !== members.length) return false;
    for (let i = 0; i < members.length; i++) {
      const member = members[i];
      if (nested[i] ? !matchesShape(value[i], member as Shape) : value[i] !== member) return false;
    }
    return true;
  }
  if (!isPlainObject(value)) return false;
  let count = 0;
  // Inherited enumerable members count too, so a polluted prototype never matches.
  for (const _key in value) count++;
  if (count !== keys.length) return false;
  const record = value as Record<string, unknown>;
  for (let i = 0; i < keys.length; i++) {
    const member = members[i];
    const key = keys[i] as string;
    const read = record[key];
    if (nested[i] ? !matchesShape(read, member as Shape) : read !== member) return false;
    // An absent member reads as undefined too: it must be there, or another one is counted instead.
    if (member === undefined && !Object.hasOwn(record, key)) return false;
  }
  return true;
}

/**
 * `matchesShape` against data not compiled yet: the same answer, for a comparison that will likely
 * fail early (a new policy object against the last one), where compiling would cost more.
 */
export function matchesData(value: unknown, data: object): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(data)) {
    if (!Array.isArray(value) || value.length !== data.length) return false;
    for (let i = 0; i < data.length; i++) if (!matchesMember(value[i], data[i])) return false;
    return true;
  }
  if (!isPlainObject(value)) return false;
  const record = value as Record<string, unknown>;
  const own = data as Record<string, unknown>;
  let count = 0;
  for (const key in own) {
    const member = own[key];
    if (!matchesMember(record[key], member)) return false;
    if (member === undefined && !Object.hasOwn(record, key)) return false;
    count++;
  }
  for (const _key in value) count--;
  return count === 0;
}

function matchesMember(value: unknown, data: unknown): boolean {
  return typeof data === 'object' && data !== null ? matchesData(value, data) : value === data;
}

const MAX_COPY_DEPTH = 16;

/**
 * A deep copy of plain objects, arrays and primitives, data no one else holds; undefined when the
 * value holds anything a copy would not read back alike (accessors, hidden members, class instances).
 */
export function copyData(value: unknown, depth = 0): unknown {
  if (typeof value !== 'object' || value === null) return value;
  // Deeper than any policy: a cycle (or not a policy at all), which the schema then refuses.
  if (depth > MAX_COPY_DEPTH) return undefined;
  const array = Array.isArray(value);
  if (!array && !isPlainObject(value)) return undefined;
  const out: Record<string, unknown> = array ? ([] as unknown as Record<string, unknown>) : {};
  for (const [key, member] of Object.entries(Object.getOwnPropertyDescriptors(value))) {
    if (array && key === 'length') continue;
    if (!('value' in member) || !member.enumerable) return undefined;
    const copy = copyData(member.value, depth + 1);
    if (copy === undefined && member.value !== undefined) return undefined;
    out[key] = copy;
  }
  return out;
}
