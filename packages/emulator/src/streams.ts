import { EmulatorError } from './errors.ts';
import { licenseDuration, type EffectivePolicy } from './policy.ts';
import { STREAM_ID_HEADER } from './stream-id.ts';

/**
 * The stream model (README, "Streams"). A stream is one playback of one content by one user on one
 * device, named by what the service also receives: site + user ID + device + cid. The device is what
 * the request says of it (the emulator's device_id: a hash of the User-Agent; the service's DRMs read
 * it from their challenge). So a license request of a user for a cid from a device whose stream is
 * still counted renews it, whatever its token: a renewing player needs nothing the service would not
 * see. The stream ID (`x-drm-stream-id`, or query `stream_id`) is a local refinement on top: a player
 * sends it to local servers only (the service's CORS would refuse the header), and there it tells
 * apart two players of one content on one device.
 *
 * A stream counts while it renews in time: until its last license + its renewal interval
 * (renewal_duration, else renewalIntervalSeconds) + streamGraceSeconds. Then it is forgotten.
 * - max_stream_per_user: a new stream is refused (6003) while the user has that many counted streams.
 * - license_duration (v1: duration): counts from the stream's first license; a renewal after it is
 *   refused (8711). A forgotten stream starts afresh.
 * - playback_duration and rental_duration: count from the first license of user + cid in this
 *   emulator's life ("first playback"); any license after is refused (8711).
 * 0 means no limit, as in the license policies of the DRMs.
 *
 * Cost and memory are bounded whatever clients send: each user's streams sit in a map (last use
 * first out) and a min-heap of expiry times, so a request costs O(log n) for n <= maxStreamsPerUser
 * and scans nothing; stale heap entries (left by renewals and evictions) are dropped when they
 * surface or when the heap outgrows twice its streams. At most maxStreamsPerUser streams per user
 * (the least recently renewed go first), maxStreams in all and maxEntries users are remembered.
 */
export interface StreamIdentity {
  siteId: string;
  userId: string;
  /** What the request says of its device (device_info.device_id); '' when it says nothing. */
  deviceId: string;
  cid: string;
  /**
   * The local refinement: the player's stream ID, or '' when it sent none (as to the service: the
   * stream is then the user's playback of cid on that device).
   */
  streamId: string;
}

export interface StreamOptions {
  graceSeconds: number;
  defaultIntervalSeconds: number;
  /** Bound on remembered users and user + cid pairs; the least recently seen go first. */
  maxEntries?: number;
  /** Bound on remembered streams of one user; the least recently renewed go first. */
  maxStreamsPerUser?: number;
  /** Bound on remembered streams of all users; the least recently seen users go first. */
  maxStreams?: number;
}

export interface StreamDecision {
  identity: StreamIdentity;
  /** The stream was still counted: this request renews it. */
  renewal: boolean;
  /** Counted streams of the user, this one included, once the license is issued. */
  activeStreams: number;
  /** Seconds the stream keeps counting without a renewal. */
  countsForSeconds: number;
  /** The registry's name for the stream: device, cid and stream ID. */
  streamKey: string;
  /** The registry's names for the user and for user + cid, made once by check() for commit(). */
  userKey: string;
  entitlementKey: string;
}

/** What the registry holds: counts, for tests and the README's bounds. */
export interface StreamStats {
  users: number;
  streams: number;
  /** Entries in the users' expiry heaps, live and stale. */
  pendingExpiries: number;
  /**
   * Heap entries popped or rebuilt since the start: the registry's work beyond O(log n) per
   * request. It grows by at most a few per request, whatever the requests hold.
   */
  entriesTouched: number;
}

interface Stream {
  readonly key: string;
  readonly firstMs: number;
  /** The stream stops counting once the clock passes this. */
  expiresMs: number;
}

interface Expiry {
  readonly atMs: number;
  readonly stream: Stream;
}

interface UserStreams {
  /** In order of last license: the first is the least recently renewed. */
  readonly streams: Map<string, Stream>;
  /** Min-heap on atMs; an entry is stale once its stream renewed or was forgotten. */
  heap: Expiry[];
  /** The stream last in `streams` (the most recently renewed), which needs no re-insertion. */
  lastStream?: Stream;
}

export class StreamRegistry {
  readonly #options: Required<StreamOptions>;
  /** user key -> the user's streams; in order of last use. */
  readonly #users = new Map<string, UserStreams>();
  /** user + cid key -> first license */
  readonly #firstLicense = new Map<string, number>();
  #streamCount = 0;
  #touched = 0;
  /** The user last in #users (the most recently used), which needs no re-insertion. */
  #lastUser: UserStreams | undefined;

  constructor(options: StreamOptions) {
    this.#options = {
      maxEntries: 10_000,
      maxStreamsPerUser: 1_000,
      maxStreams: 100_000,
      ...options,
    };
  }

  /** Checks the request against the durations and the stream limit; records nothing. */
  check(identity: StreamIdentity, policy: EffectivePolicy, nowMs: number): StreamDecision {
    const entitlement = entitlementKey(identity);
    const first = this.#firstLicense.get(entitlement);
    if (first !== undefined) {
      for (const name of FIRST_LICENSE_LIMITS) {
        const limit = policy[name];
        if (limit !== undefined && limit > 0) {
          overIfPast(
            name,
            first,
            limit,
            nowMs,
            `the first license of user "${identity.userId}" for cid "${identity.cid}"`,
          );
        }
      }
    }
    const name = userKey(identity);
    const user = this.#users.get(name);
    if (user !== undefined) {
      this.#expire(user, nowMs);
      if (user.streams.size === 0) this.#users.delete(name);
    }
    const key = JSON.stringify([identity.deviceId, identity.cid, identity.streamId]);
    const stream = user?.streams.get(key);
    const duration = licenseDuration(policy);
    if (stream !== undefined && duration !== undefined && duration > 0) {
      overIfPast(
        policy.duration === undefined ? 'license_duration' : 'duration',
        stream.firstMs,
        duration,
        nowMs,
        'the first license of this stream',
      );
    }
    const others = (user?.streams.size ?? 0) - (stream === undefined ? 0 : 1);
    const max = policy.max_stream_per_user;
    if (stream === undefined && max !== undefined && max > 0 && others >= max) {
      const renews =
        identity.streamId === ''
          ? 'the same cid from the same device'
          : `the same cid from the same device with the same ${STREAM_ID_HEADER}`;
      throw new EmulatorError(
        'STREAM_LIMIT_REACHED',
        `User "${identity.userId}" of site "${identity.siteId}" already has ${others === 1 ? '1 stream that renews' : `${others} streams that renew`} in time, and the policy allows ${max} (max_stream_per_user): stop one, or wait until it has not renewed for its renewal interval plus ${this.#options.graceSeconds} s. A renewal (a license request of this user for ${renews}) is never refused for the count.`,
        { userId: identity.userId, activeStreams: others, max_stream_per_user: max },
        { field: 'playback_policy.max_stream_per_user' },
      );
    }
    return {
      identity,
      renewal: stream !== undefined,
      activeStreams: others + 1,
      countsForSeconds: this.#intervalOf(policy) + this.#options.graceSeconds,
      streamKey: key,
      userKey: name,
      entitlementKey: entitlement,
    };
  }

  /** Records the issued license: the stream (re)starts counting now. */
  commit(decision: StreamDecision, policy: EffectivePolicy, nowMs: number): void {
    const { streamKey: key, userKey: name, entitlementKey: entitlement } = decision;
    if (!this.#firstLicense.has(entitlement)) {
      this.#firstLicense.set(entitlement, nowMs);
      bound(this.#firstLicense, this.#options.maxEntries);
    }
    const user: UserStreams = this.#users.get(name) ?? { streams: new Map(), heap: [] };
    // Re-inserted, so that the map's order is the order of last use and the bounds drop the oldest;
    // not when it is the last one already (a user renewing alone): each delete leaves a hole that
    // makes the map rebuild its table every few licenses, and a long-lived map's table is rebuilt
    // in old space. Under load that was 250-290 B of old space per license, a Mark-Compact every
    // 1-2 s (`pnpm bench alloc`, "old space direct"); the same goes for the stream below.
    if (this.#lastUser !== user) {
      this.#users.delete(name);
      this.#users.set(name, user);
      this.#lastUser = user;
    }
    const expiresMs = nowMs + (this.#intervalOf(policy) + this.#options.graceSeconds) * 1000;
    const known = user.streams.get(key);
    let stream: Stream;
    if (known === undefined) {
      this.#streamCount++;
      stream = { key, firstMs: nowMs, expiresMs };
      user.streams.set(key, stream);
    } else {
      // Renewed in place: its older heap entries are stale by their time (see #expire).
      known.expiresMs = expiresMs;
      stream = known;
      if (user.lastStream !== known) {
        user.streams.delete(key);
        user.streams.set(key, known);
      }
    }
    user.lastStream = stream;
    push(user.heap, { atMs: expiresMs, stream });
    if (user.streams.size > this.#options.maxStreamsPerUser) {
      const oldest = user.streams.keys().next().value as string;
      user.streams.delete(oldest);
      this.#streamCount--;
    }
    // Renewals leave their old expiry behind: rebuild once stale entries are the majority.
    if (user.heap.length > 2 * user.streams.size + 16) {
      user.heap = [];
      this.#touched += user.streams.size;
      for (const live of user.streams.values())
        push(user.heap, { atMs: live.expiresMs, stream: live });
    }
    if (!this.#overBounds()) return;
    for (const [oldestName, oldest] of this.#users) {
      if (!this.#overBounds() || oldest === user) break;
      this.#users.delete(oldestName);
      this.#streamCount -= oldest.streams.size;
    }
  }

  stats(): StreamStats {
    let pendingExpiries = 0;
    for (const user of this.#users.values()) pendingExpiries += user.heap.length;
    return {
      users: this.#users.size,
      streams: this.#streamCount,
      pendingExpiries,
      entriesTouched: this.#touched,
    };
  }

  #overBounds(): boolean {
    return (
      this.#users.size > this.#options.maxEntries || this.#streamCount > this.#options.maxStreams
    );
  }

  #intervalOf(policy: EffectivePolicy): number {
    const renewal = policy.renewal_duration;
    return renewal !== undefined && renewal > 0 ? renewal : this.#options.defaultIntervalSeconds;
  }

  /** Forgets the user's streams that stopped renewing: only those whose expiry has come up. */
  #expire(user: UserStreams, nowMs: number): void {
    for (let top = user.heap[0]; top !== undefined && top.atMs < nowMs; top = user.heap[0]) {
      pop(user.heap);
      this.#touched++;
      const { stream } = top;
      // Stale: the stream renewed since (a later expiry), or was already forgotten.
      if (stream.expiresMs !== top.atMs || user.streams.get(stream.key) !== stream) continue;
      user.streams.delete(stream.key);
      this.#streamCount--;
    }
  }
}

const FIRST_LICENSE_LIMITS = ['playback_duration', 'rental_duration'] as const;

function overIfPast(
  name: string,
  startMs: number,
  seconds: number,
  nowMs: number,
  since: string,
): void {
  const endMs = startMs + seconds * 1000;
  if (nowMs <= endMs) return;
  throw new EmulatorError(
    'LICENSE_EXPIRED',
    `The ${name} of ${seconds} s is over: it counts from ${since}, ${Math.round((nowMs - startMs) / 1000)} s ago. The site must grant a longer ${name}.`,
    { over: name, seconds, startedSecondsAgo: Math.round((nowMs - startMs) / 1000) },
    { field: `playback_policy.${name}` },
  );
}

const userKey = (s: StreamIdentity) => JSON.stringify([s.siteId, s.userId]);
const entitlementKey = (s: StreamIdentity) => JSON.stringify([s.siteId, s.userId, s.cid]);

function bound(map: Map<string, unknown>, max: number): void {
  for (const key of map.keys()) {
    if (map.size <= max) return;
    map.delete(key);
  }
}

// A binary min-heap on atMs, in an array.
function push(heap: Expiry[], entry: Expiry): void {
  heap.push(entry);
  for (let i = heap.length - 1; i > 0;) {
    const parent = (i - 1) >> 1;
    if ((heap[parent] as Expiry).atMs <= entry.atMs) break;
    heap[i] = heap[parent] as Expiry;
    heap[parent] = entry;
    i = parent;
  }
}

function pop(heap: Expiry[]): void {
  const last = heap.pop();
  if (last === undefined || heap.length === 0) return;
  heap[0] = last;
  for (let i = 0; ;) {
    const left = 2 * i + 1;
    const right = left + 1;
    let least = i;
    if (left < heap.length && (heap[left] as Expiry).atMs < (heap[least] as Expiry).atMs)
      least = left;
    if (right < heap.length && (heap[right] as Expiry).atMs < (heap[least] as Expiry).atMs)
      least = right;
    if (least === i) return;
    heap[i] = heap[least] as Expiry;
    heap[least] = last;
    i = least;
  }
}
