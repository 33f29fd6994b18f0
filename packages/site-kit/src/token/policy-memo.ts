import { compileShape, copyData, matchesData, matchesShape, type Shape } from './shape.ts';

/** The encrypted policy field of a token and whether the policy is v2. */
export interface PolicyField {
  field: string;
  v2: boolean;
}

// Policy objects remembered by identity: a site issues with a handful of policy objects at most. A
// ring of strong references costs nothing per fresh object, where a WeakMap entry for every object
// issued with would burden every garbage collection.
const OBJECT_LIMIT = 8;
const MISSES_BEFORE_SKIPPING = 8;

interface Seen {
  object: object;
  /** What the object held when its field was made: the parsed policy, or a copy of the object. */
  data: object;
  /** `data` compiled, once it has matched or been compared twice. */
  shape: Shape | undefined;
  field: PolicyField;
}

/**
 * Remembers encrypted policy fields, so that a policy used again is neither checked, serialized nor
 * encrypted again: by the policy object (a site that keeps its policy objects), by the content of the
 * last policy (a site that builds the same policy object per request), and for policies from
 * `preparePolicy`. The spec fixes the IV, so the same policy always encrypts to the same field.
 *
 * Nothing is trusted by identity: a policy is compared member by member with what the remembered one
 * held when its field was made (parse(x) depends on x's members only, so equal members give the same
 * field), and a policy changed in place is checked and encrypted anew.
 */
export class PolicyMemo {
  private readonly seen: Seen[] = [];
  private next = 0;
  private latest: Seen | undefined;
  /** New objects in a row that matched no remembered content (see `lookup`). */
  private misses = 0;
  private readonly prepared = new WeakMap<object, PolicyField>();
  private none: PolicyField | undefined;

  /**
   * What to check and encrypt for the policy of the last `lookup` that found no field: the policy
   * itself the first time, or, for an object seen before (changed since, or not written in
   * canonical form), a plain copy, which then becomes its data. Checking the copy makes the field
   * and the data compared later come from the same reads. (A slot rather than a result object: a
   * lookup runs for every token.)
   */
  source: unknown = undefined;

  /** The field of a policy that holds what a remembered one held; otherwise undefined (see `source`). */
  lookup(policy: unknown): PolicyField | undefined {
    this.source = policy;
    if (policy === undefined) return this.none;
    if (typeof policy !== 'object' || policy === null) return undefined;
    const ready = this.prepared.get(policy);
    if (ready !== undefined) return ready;
    const seen = this.entry(policy);
    if (seen !== undefined) {
      seen.shape ??= compileShape(seen.data);
      if (matchesShape(policy, seen.shape)) return seen.field;
      this.source = copyData(policy) ?? policy;
      return undefined;
    }
    const latest = this.latest;
    if (latest === undefined) return undefined;
    // A site whose every policy differs from the one before (a per-user expiry, say) would pay the
    // comparison on every token for nothing: after a run of misses, only every eighth new object is
    // compared. A skipped comparison costs a check and an encryption, never a wrong field.
    if (this.misses >= MISSES_BEFORE_SKIPPING && this.misses++ % MISSES_BEFORE_SKIPPING !== 0) {
      return undefined;
    }
    const same =
      latest.shape === undefined
        ? matchesData(policy, latest.data)
        : matchesShape(policy, latest.shape);
    if (!same) {
      if (this.misses < MISSES_BEFORE_SKIPPING) this.misses++;
      return undefined;
    }
    this.misses = 0;
    // Another object with the same content: from now on it is known by identity too.
    latest.shape ??= compileShape(latest.data);
    this.add({ ...latest, object: policy });
    return latest.field;
  }

  /** Records the field made from `source` (see `lookup`), whose parse is `parsed`, for `policy`. */
  remember(policy: unknown, source: unknown, parsed: object, field: PolicyField): void {
    if (policy === undefined) {
      this.none = field;
      return;
    }
    if (typeof policy !== 'object' || policy === null) return;
    // The parsed policy holds exactly what the parse read, and is the data of a policy written in
    // canonical form; a copy is the data of any other.
    const data = (source === policy ? parsed : source) as object;
    this.add({ object: policy, data, shape: undefined, field });
  }

  /** Records the field of a policy made by `preparePolicy` (frozen, so never compared). */
  prepare(frozen: object, field: PolicyField): void {
    this.prepared.set(frozen, field);
  }

  private add(seen: Seen): void {
    this.latest = seen;
    for (let i = 0; i < this.seen.length; i++) {
      if (this.seen[i]?.object === seen.object) {
        this.seen[i] = seen;
        return;
      }
    }
    this.seen[this.next] = seen;
    this.next = (this.next + 1) % OBJECT_LIMIT;
  }

  private entry(policy: object): Seen | undefined {
    if (this.latest?.object === policy) return this.latest;
    for (let i = 0; i < this.seen.length; i++) {
      const seen = this.seen[i] as Seen;
      if (seen.object === policy) return seen;
    }
    return undefined;
  }
}
