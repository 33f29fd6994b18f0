import type { AdmitRule, Admitted, SharedStore } from './store.ts';

interface Value {
  text: string;
  /** Date.now() ms past which the value is gone; Infinity: kept. */
  expiresAt: number;
}

/** Members with their expiry (the caller's clock), and when the set itself goes (Date.now()). */
interface ScoredSet {
  members: Map<string, number>;
  expiresAt: number;
}

export interface MemoryStoreOptions {
  /** Keys held at most, values and sets together; the oldest written go first. Default 100 000. */
  maxKeys?: number;
  /** The clock of key expiry (not of the sets' members, which the caller times); default Date.now. */
  now?: () => number;
}

/**
 * The embedded default: one process's memory, exact and instant. It holds for one server only;
 * a site on many servers gives every limit a Redis store instead.
 */
export function createMemoryStore(options: MemoryStoreOptions = {}): SharedStore {
  const maxKeys = options.maxKeys ?? 100_000;
  const now = options.now ?? Date.now;
  const values = new Map<string, Value>();
  const sets = new Map<string, ScoredSet>();

  const live = <T extends { expiresAt: number }>(map: Map<string, T>, key: string) => {
    const entry = map.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= now()) {
      map.delete(key);
      return undefined;
    }
    return entry;
  };
  const bound = (map: Map<string, unknown>) => {
    // Maps keep insertion order: the first key is the oldest written.
    while (values.size + sets.size > maxKeys && map.size > 0) {
      map.delete(map.keys().next().value as string);
    }
  };
  const expiry = (ttlMs: number | undefined) => (ttlMs === undefined ? Infinity : now() + ttlMs);
  const put = (key: string, text: string, ttlMs: number | undefined) => {
    values.delete(key);
    values.set(key, { text, expiresAt: expiry(ttlMs) });
    bound(values);
  };

  return {
    kind: 'memory',
    async increment(key, ttlMs) {
      const entry = live(values, key);
      if (entry === undefined) {
        put(key, '1', ttlMs);
        return 1;
      }
      const next = Number(entry.text) + 1;
      entry.text = String(next);
      return next;
    },
    async setIfAbsent(key, value, ttlMs) {
      if (live(values, key) !== undefined) return false;
      put(key, value, ttlMs);
      return true;
    },
    async set(key, value, ttlMs) {
      put(key, value, ttlMs);
    },
    async get(key) {
      return live(values, key)?.text;
    },
    async delete(key) {
      const had = live(values, key) !== undefined || live(sets, key) !== undefined;
      values.delete(key);
      sets.delete(key);
      return had;
    },
    async admit(key, member, rule) {
      return admitTo(key, member, rule);
    },
    async remove(key, member) {
      return live(sets, key)?.members.delete(member) ?? false;
    },
    async members(key, nowMs) {
      const set = live(sets, key);
      if (set === undefined) return [];
      return [...set.members]
        .filter(([, until]) => until > nowMs)
        .sort(byExpiry)
        .map(([m]) => m);
    },
    async close() {
      values.clear();
      sets.clear();
    },
  };

  function admitTo(key: string, member: string, rule: AdmitRule): Admitted {
    let set = live(sets, key);
    if (set === undefined) {
      set = { members: new Map(), expiresAt: Infinity };
      sets.set(key, set);
      bound(sets);
    }
    const { members } = set;
    for (const [m, until] of members) if (until <= rule.nowMs) members.delete(m);
    const renewed = members.has(member);
    const evicted: string[] = [];
    if (!renewed && rule.limit > 0 && members.size >= rule.limit) {
      if (rule.evict === 'refuse') {
        return { admitted: false, renewed: false, count: members.size, evicted };
      }
      const oldest = [...members].sort(byExpiry);
      for (const [m] of oldest.slice(0, members.size - rule.limit + 1)) {
        members.delete(m);
        evicted.push(m);
      }
    }
    members.set(member, rule.untilMs);
    let last = rule.untilMs;
    for (const until of members.values()) last = Math.max(last, until);
    set.expiresAt = now() + Math.max(1, last - rule.nowMs);
    return { admitted: true, renewed, count: members.size, evicted };
  }
}

const byExpiry = (a: [string, number], b: [string, number]) =>
  a[1] - b[1] || (a[0] < b[0] ? -1 : 1);
