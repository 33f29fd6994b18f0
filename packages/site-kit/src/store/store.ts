/**
 * The shared state of the limits and the rate limits, behind one small interface so that the same
 * decisions (and the same contract tests) run over memory in one process or Redis for many servers.
 * Every method is atomic on its own: a decision never reads, thinks and then writes.
 *
 * Times are the caller's clock in ms (`nowMs`), so that the servers of one site agree as far as
 * their clocks do and tests can move time without waiting; expiries are absolute ms of that clock.
 */
export interface SharedStore {
  readonly kind: 'memory' | 'redis';
  /** Adds 1 to a counter and returns the new value; a new counter lives `ttlMs`. */
  increment(key: string, ttlMs: number): Promise<number>;
  /** Sets `value` when the key holds nothing; true when it did. No `ttlMs`: kept until deleted. */
  setIfAbsent(key: string, value: string, ttlMs?: number): Promise<boolean>;
  /** Sets `value`, replacing any; no `ttlMs`: kept until deleted. */
  set(key: string, value: string, ttlMs?: number): Promise<void>;
  /** The value, or undefined when the key holds none (or it expired). */
  get(key: string): Promise<string | undefined>;
  /** True when something was deleted. */
  delete(key: string): Promise<boolean>;
  /**
   * The time-scored set: drops the members whose expiry is at or before `nowMs`, then keeps
   * `member` until `untilMs` when it is there already (a renewal) or there is room below `limit`;
   * with `evict: 'oldest'` the members that expire first make room for it.
   */
  admit(key: string, member: string, rule: AdmitRule): Promise<Admitted>;
  /** Removes `member`; true when it was there. */
  remove(key: string, member: string): Promise<boolean>;
  /** The members still counted at `nowMs`, the one that expires first first. */
  members(key: string, nowMs: number): Promise<string[]>;
  /** Frees the store's resources (the Redis connection). */
  close(): Promise<void>;
}

/** How `admit` treats a member: the time, the member's expiry, the limit and what happens at it. */
export interface AdmitRule {
  nowMs: number;
  untilMs: number;
  /** 0: no limit. */
  limit: number;
  evict: 'refuse' | 'oldest';
}

/** What `admit` did. */
export interface Admitted {
  /** The member is counted once the call returns. */
  admitted: boolean;
  /** It was counted before the call. */
  renewed: boolean;
  /** Members counted once the call returns. */
  count: number;
  /** Members dropped to make room, the one that expired first first. */
  evicted: string[];
}

/**
 * One user's keys share one Redis Cluster hash slot: the {hash tag} is the user, escaped so that no
 * user ID can close the tag early or read as another user's key.
 */
export function userKey(prefix: string, userId: string, what: string): string {
  return `${prefix}{u:${encodeURIComponent(userId)}}:${what}`;
}

/** A device's own keys (its ban), in the device's slot: a device is not one user's. */
export function deviceKey(prefix: string, deviceId: string, what: string): string {
  return `${prefix}{d:${encodeURIComponent(deviceId)}}:${what}`;
}
